"""GNU Go as the referee: the differential test of this package's rules against a real engine's.

GNU Go started with `--chinese-rules --positional-superko --forbid-suicide` refuses exactly the plays these rules
refuse (GO.md). `differential` plays games with the scripted agents and, in every position, offers GNU Go a play on
every point of the board (`play`, then `undo` where it accepted): each play these rules call legal must be accepted,
each they refuse (on a stone, suicide, superko) refused with `? illegal move`. After each move of the game both
boards must hold the same stones (`list_stones black`, `list_stones white`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gamegrammar.games.go.agents import make_agent
from gamegrammar.games.go.gtp import GtpClient, GtpError, gnugo_argv
from gamegrammar.games.go.rules import (
    BLACK,
    COLOUR_NAME,
    WHITE,
    GoConfig,
    GoState,
    advance,
    end_reason,
    legality,
    parse_vertex,
    vertex,
)


@dataclass
class Differential:
    """What one differential run compared: games, positions, plays offered (by our verdict), and every disagreement."""

    games: int = 0
    positions: int = 0
    plays: int = 0
    verdicts: Counter = field(default_factory=Counter)  # "legal", "occupied", "suicide", "superko": plays offered
    disagreements: list[str] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        """The share of plays and boards compared on which GNU Go and these rules agree."""
        compared = self.plays + self.positions
        return 1.0 - len(self.disagreements) / compared if compared else 1.0

    def summary(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.verdicts.items()))
        return (
            f"{self.games} games, {self.positions} positions, {self.plays} plays offered ({counts}); "
            f"{len(self.disagreements)} disagreements ({self.agreement:.2%} agreement)"
        )


def _stones(engine: GtpClient, colour: int, size: int) -> list[int]:
    return sorted(parse_vertex(v, size) for v in engine.send(f"list_stones {COLOUR_NAME[colour]}").split())


def _compare_position(engine: GtpClient, state: GoState, out: Differential, where: str) -> None:
    """Offer GNU Go a play on every point for the player to move and compare its answers with `legality`."""
    size, name = state.size, COLOUR_NAME[state.colour]
    position = state.position()
    for p in range(size * size):
        ours = legality(state, p, position)[0]
        try:
            engine.send(f"play {name} {vertex(p, size)}")
            theirs = None
        except GtpError as err:
            theirs = str(err)
        else:
            engine.send("undo")
        out.plays += 1
        out.verdicts[ours or "legal"] += 1
        if (ours is None) != (theirs is None):
            out.disagreements.append(f"{where}: {name} {vertex(p, size)}: ours {ours or 'legal'}, GNU Go {theirs or 'accepted'}")


def differential(
    config: GoConfig, games: int, *, seed: int = 0, agents: tuple[str, ...] = ("random", "capture"), level: int = 0
) -> Differential:
    """Play `games` games (game g by agents[g % len(agents)] on both sides), comparing every position with GNU Go."""
    out = Differential()
    size = config.size
    with GtpClient(gnugo_argv(size, config.komi, level)) as engine:
        for g in range(games):
            engine.send("clear_board")
            name = agents[g % len(agents)]
            players = [make_agent(name, config, k) for k in range(2)]
            for player in players:
                player.reset(seed, g)
            state = GoState.empty(size)
            while True:
                where = f"game {g} ({name}) tick {state.tick}"
                _compare_position(engine, state, out, where)
                out.positions += 1
                move = players[state.to_play].act(state)
                engine.send(f"play {COLOUR_NAME[state.colour]} {vertex(move, size)}")
                state, _ = advance(state, move)
                ours = [[p for p, c in enumerate(state.board) if c == colour] for colour in (BLACK, WHITE)]
                if ours != [_stones(engine, colour, size) for colour in (BLACK, WHITE)]:
                    out.disagreements.append(f"{where}: the boards differ after {vertex(move, size)}")
                if end_reason(state, config) is not None:
                    break
            out.games += 1
    return out
