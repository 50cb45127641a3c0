"""One Go episode through the scalar reference engine: the simulator, one agent per player, the encoder."""

from __future__ import annotations

from gamegrammar.core.gamespec import CodecConfig, EpisodeRecord
from gamegrammar.games.go.agents import make_agent, parse_lineup
from gamegrammar.games.go.grammar import EpisodeEncoder
from gamegrammar.games.go.rules import RESIGN, GoConfig, GoGame, area, episode_score


def play_episode(config: GoConfig, codec: CodecConfig, agent: str, seed: int, episode: int) -> EpisodeRecord:
    """`agent` is one agent name (both players play it) or a lineup "black,white", e.g. "random,gnugo". The score is
    Black's area less White's (`rules.episode_score`), 0 after a resignation (no area is written then)."""
    sim = GoGame(config)
    state = sim.reset(seed, episode)
    players = [make_agent(name, config, k) for k, name in enumerate(parse_lineup(agent))]
    for player in players:
        player.reset(seed, episode)
    encoder = EpisodeEncoder(codec)
    encoder.start(state)
    events, states, done = [], [state], False
    while not done:
        state, tick_events, done = sim.step(players[state.to_play].act(state))
        encoder.tick(tick_events, state, done)
        events += tick_events
        states.append(state)
    score = 0 if state.moves[-1] == RESIGN else episode_score(*area(state.board, config.size))
    return EpisodeRecord(encoder.tokens, events, states, sim.end_reason or "", state.tick, score)
