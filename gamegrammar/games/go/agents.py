"""Go's scripted agents (GO.md), one per player, seeded like the game.

random   uniform among the legal plays that do not fill the mover's own eye (`rules.is_own_eye`); it passes only
         when no such play is left: the classic playout policy, whose games end by two passes with most territory
         settled
capture  among the same plays, a capture when one exists (those capturing the most stones); otherwise the plays
         after which the played stone's group has at least two liberties (not in atari), if any
gnugo    GNU Go at level 0 through GTP (`gtp.py`), given a random seed per episode and player; it may resign

Every choice among candidates is the (draw mod count)-th in point order with the draw (seed, episode, tick,
AGENT_MOVE + player << 8), so an episode is a function of (seed, episode) and the lineup alone (GNU Go's moves
are a function of its seed and the game so far). A corpus mixes agents per player: `lineup(mix, seed, episode)`
draws player k's with rng.unit(seed, episode, 0, AGENT_PICK + k << 8); player 0's draw is the core's
`agent_for_episode`, the corpus index's `agent`.
"""

from __future__ import annotations

from gamegrammar.core import rng
from gamegrammar.core.agents import Agent, agent_for_episode, unknown_agent
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.go.gtp import GtpClient, GtpError, gnugo_missing, pooled_gnugo
from gamegrammar.games.go.rules import (
    COLOUR_NAME,
    EMPTY,
    PASS,
    RESIGN,
    Draw,
    GoConfig,
    GoState,
    Position,
    is_own_eye,
    legality,
    parse_vertex,
    purpose,
    vertex,
)

PLAYERS = 2
GNUGO_LEVEL = 0


def candidates(state: GoState, position: Position | None = None) -> list[tuple[int, tuple[int, ...]]]:
    """(point, stones it captures) of every legal play that does not fill the mover's own eye, in point order."""
    position = position or state.position()
    colour, size, board = state.colour, state.size, state.board
    out = []
    for p in range(size * size):
        if board[p] != EMPTY or is_own_eye(board, p, colour, size):
            continue
        refusal, captured, _, _ = legality(state, p, position)
        if refusal is None:
            out.append((p, captured))
    return out


class GoAgent(Agent):
    """An agent for one player (`player`: 0 Black, 1 White): `act(state)` gives its move (a point, PASS or RESIGN)."""

    def __init__(self, config: GoConfig, player: int = 0) -> None:
        super().__init__(config)
        self.player = player

    def _pick(self, state: GoState, points: list[int]) -> int:
        if not points:
            return PASS
        return points[rng.choose(self.seed, self.episode, state.tick, purpose(Draw.AGENT_MOVE, self.player), len(points))]


class RandomAgent(GoAgent):
    name = "random"

    def act(self, state: GoState) -> int:
        return self._pick(state, [p for p, _ in candidates(state)])


class CaptureAgent(GoAgent):
    name = "capture"

    def act(self, state: GoState) -> int:
        position = state.position()
        found = candidates(state, position)
        most = max((len(c) for _, c in found), default=0)
        if most:
            return self._pick(state, [p for p, c in found if len(c) == most])
        safe = [p for p, _ in found if position.liberties_after(p, state.colour) >= 2]
        return self._pick(state, safe or [p for p, _ in found])


class GnuGoAgent(GoAgent):
    """GNU Go through GTP. Its engine's board follows the game: each `act` sends the moves played since its last
    one (`play`), then `genmove`; a new game (or one it did not see) starts from `clear_board` and its seed."""

    name = "gnugo"

    def __init__(self, config: GoConfig, player: int = 0, level: int = GNUGO_LEVEL) -> None:
        super().__init__(config, player)
        missing = gnugo_missing()
        if missing:
            raise GameGrammarError(missing)
        self.level = level

    def engine(self) -> GtpClient:
        return pooled_gnugo(self.config.size, self.config.komi, self.level, self.player)

    def act(self, state: GoState) -> int:
        engine, size = self.engine(), state.size
        known = engine.moves
        if engine.game != (self.seed, self.episode) or state.moves[: len(known)] != known:
            engine.send("clear_board")
            engine.send(f"set_random_seed {rng.draw(self.seed, self.episode, 0, purpose(Draw.ENGINE_SEED, self.player)) % (1 << 31)}")
            engine.game, known = (self.seed, self.episode), ()
        for k, move in enumerate(state.moves[len(known) :], start=len(known)):
            engine.send(f"play {COLOUR_NAME[1 + k % 2]} {vertex(move, size).lower()}")
        answer = engine.send(f"genmove {COLOUR_NAME[state.colour]}").strip()
        try:
            move = RESIGN if answer.lower() == "resign" else parse_vertex(answer, size)
        except ValueError:
            engine.moves, engine.game = (), None
            raise GtpError(f"GNU Go answered genmove with {answer!r}") from None
        engine.moves = (*state.moves, move)
        return move


AGENTS: dict[str, type[GoAgent]] = {cls.name: cls for cls in (RandomAgent, CaptureAgent, GnuGoAgent)}


def make_agent(name: str, config: GoConfig, player: int = 0) -> GoAgent:
    try:
        cls = AGENTS[name]
    except KeyError:
        raise unknown_agent(name, list(AGENTS)) from None
    return cls(config, player)


def parse_lineup(agent: str) -> list[str]:
    """One agent name for both players, or "black,white": one name per player."""
    names = [a.strip() for a in agent.split(",")] if "," in agent else [agent.strip()] * PLAYERS
    if len(names) != PLAYERS:
        raise GameGrammarError(f"a lineup names one agent per player (black,white): 2 expected, got {len(names)} in {agent!r}")
    for name in names:
        if name not in AGENTS:
            raise unknown_agent(name, list(AGENTS))
    return names


def lineup(mix: dict[str, float], seed: int, episode: int) -> tuple[str, ...]:
    """Each player's agent in a mixed corpus: a weighted draw per player keyed by (seed, episode, player); player 0's
    is the core's `agent_for_episode` draw."""
    return tuple(agent_for_episode(mix, seed, episode, purpose(rng.Purpose.AGENT_PICK, k)) for k in range(PLAYERS))
