"""What a dream needs from Snake: the scripted agents' inputs as tokens, and one written tick read from a known state.

`read_tick` is `trace` and the strict evaluator one tick at a time: the tick is parsed behind a keyframe of
the state before it (grammar v1 parses ticks only after a keyframe) and numbered as the state's next tick,
then followed with `trace.follow` (the state the agent sees next) and checked with `validity.check_tick`
(the rules it breaks). Chained over a valid episode's ticks it gives `trace`'s states and no broken rule; it
follows no further than a keyframe that disagrees with the state (where `trace` stops one tick later).
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import TickReading
from gamegrammar.core.tick_reading import PAST_LIMIT as PAST_LIMIT  # the rule a tick past the limit breaks
from gamegrammar.core.tick_reading import read_tick as read_written_tick
from gamegrammar.games.snake.agents import make_agent
from gamegrammar.games.snake.grammar import event_tokens, keyframe_tokens, parse
from gamegrammar.games.snake.rules import SnakeConfig, SnakeState, event
from gamegrammar.games.snake.trace import follow
from gamegrammar.games.snake.validity import check_tick


class ScriptedInputs:
    """A scripted agent's input on a state, written as grammar v1 writes it (INPUT_d)."""

    def __init__(self, agent: str, config: SnakeConfig) -> None:
        self.agent = make_agent(agent, config)

    def reset(self, seed: int, episode: int) -> None:
        self.agent.reset(seed, episode)

    def inputs(self, state: SnakeState) -> list[str]:
        return event_tokens(event("INPUT", state.tick + 1, dir=self.agent.act(state).name))


def read_tick(
    state: SnakeState,
    tokens: Sequence[str],
    config: SnakeConfig,
    tails: bool = False,
    head_first: bool | None = None,
    sense: bool = False,
    spawn_column: bool = False,
    body_list: bool = False,
) -> TickReading:
    """One whole tick (TICK ... up to the next TICK, keyframe and EOS included) read after `state`.

    `tails`: the dream is in the tail-events design (its model's codec), so a FREE cell left out is a broken rule.
    `head_first`: the order its cells must follow (the codec's), a tick in the other order is a grammar error.
    `sense`: the dream is in the sense design, so a SENSE word left out is a broken rule; `spawn_column` likewise for
    a spawn's column words, and `body_list` for the cells listed before a spawn.
    """
    return read_written_tick(
        state,
        tokens,
        keyframe=keyframe_tokens(state),
        parse=lambda seq: parse(seq, head_first=head_first),
        check=lambda before, tick, found: check_tick(before, tick, config, found, tails, sense, spawn_column, body_list),
        follow=lambda before, tick: follow(before, tick, config, tails, sense, spawn_column, body_list),
        agrees=lambda tick, after: tick.keyframe.state(tick.number) == after,
        max_ticks=config.max_ticks,
    )
