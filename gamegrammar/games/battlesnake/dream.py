"""What a dream needs from Battlesnake: every snake's scripted input as tokens, and one written tick read from a state.

`read_tick` is `trace` and the strict evaluator one tick at a time: the tick is parsed behind a keyframe of
the state before it (the grammar parses ticks only after a keyframe, which also names the snakes that move)
and numbered as the state's next tick, then followed with `trace.follow` from the state itself (eliminated
snakes keep their last body, as in `trace`) and checked with `validity.check_tick`. Chained over a valid
episode's ticks it gives `trace`'s states and no broken rule; it follows no further than a keyframe that
disagrees with the state (where `trace` stops one tick later).
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import TickReading
from gamegrammar.core.tick_reading import PAST_LIMIT as PAST_LIMIT  # the rule a tick past the limit breaks
from gamegrammar.core.tick_reading import read_tick as read_written_tick
from gamegrammar.games.battlesnake.agents import make_agent, parse_lineup
from gamegrammar.games.battlesnake.grammar import INPUT_TOKEN, keyframe_tokens, parse
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState
from gamegrammar.games.battlesnake.trace import agrees, follow
from gamegrammar.games.battlesnake.validity import check_tick


class ScriptedInputs:
    """One scripted agent per snake (`agent`: a name for all, or a lineup "safe,greedy,..."), every live snake's
    input in index order, as the grammar writes them."""

    def __init__(self, agent: str, config: BattlesnakeConfig) -> None:
        self.agents = [make_agent(name, config, k) for k, name in enumerate(parse_lineup(agent, config))]

    def reset(self, seed: int, episode: int) -> None:
        for agent in self.agents:
            agent.reset(seed, episode)

    def inputs(self, state: BattlesnakeState) -> list[str]:
        return [INPUT_TOKEN[self.agents[k].act(state)] for k in state.alive]


def read_tick(
    state: BattlesnakeState,
    tokens: Sequence[str],
    config: BattlesnakeConfig,
    tails: bool,
    smell: bool = False,
    sense: bool = False,
    hits: bool = False,
) -> TickReading:
    """One whole tick (TICK ... up to the next TICK, keyframe and EOS included) read after `state`."""
    return read_written_tick(
        state,
        tokens,
        keyframe=keyframe_tokens(state),
        parse=lambda seq: parse(
            seq, tails=tails, smell=smell, sense=sense, hits=hits
        ),  # the declared design's words only, as the evaluator reads them
        check=lambda before, tick, found: check_tick(before, tick, config, found, tails, smell, sense, hits),
        follow=lambda before, tick: follow(before, tick, config),
        agrees=lambda tick, after: agrees(tick.keyframe, after),
        max_ticks=config.max_ticks,
    )
