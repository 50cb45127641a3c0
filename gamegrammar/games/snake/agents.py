"""Scripted Snake agents, seeded like the game so an episode is a function of (seed, episode)."""

from __future__ import annotations

from gamegrammar.core import rng
from gamegrammar.core.agents import SLIP_EVERY, SLIP_SHIFT, Agent, slips, unknown_agent
from gamegrammar.games.snake.rules import Direction, Outcome, SnakeConfig, SnakeState, legal_directions, resolve


class SnakeAgent(Agent):
    """A Snake agent: picks among candidate directions with the (seed, episode, tick, AGENT) draw."""

    _fixed_draw: int | None = None  # set by `policy` to ask what the agent does on one draw

    def _draw(self, state: SnakeState) -> int:
        """This tick's AGENT draw: its low bits pick among candidates, its high bits are free for a coin."""
        if self._fixed_draw is not None:
            return self._fixed_draw
        return rng.draw(self.seed, self.episode, state.tick, rng.Purpose.AGENT)

    def policy(self, state: SnakeState) -> dict[Direction, float]:
        """The probability of each input on `state` over the agent's draws: the low bits' every residue among at most
        three candidates (0..5), and the high bits' coin (the careless agent's slip, one in SLIP_EVERY) either way.

        Why: tier 3's ceiling, the agent told apart by the likelihood of its inputs under each agent's own code.
        """
        probs: dict[Direction, float] = {}
        coins = ((0, 1 / SLIP_EVERY), (1, 1 - 1 / SLIP_EVERY))  # high bits 0 slip, 1 does not
        try:
            for high, weight in coins:
                for low in range(6):
                    self._fixed_draw = low + (high << SLIP_SHIFT)
                    d = self.act(state)
                    probs[d] = probs.get(d, 0.0) + weight / 6
        finally:
            self._fixed_draw = None
        return probs

    def candidates(self, state: SnakeState) -> list[Direction]:
        """The inputs the agent picks among on `state`, each as likely as the others (a careless agent's when it does not
        slip). Why: a guess of its next input (Snake's rules draft) that knows no draw."""
        raise NotImplementedError

    def act(self, state: SnakeState) -> Direction:
        return self._pick(state, self.candidates(state))

    def _pick(self, state: SnakeState, candidates: list[Direction]) -> Direction:
        """Uniform among candidates, drawn from (seed, episode, tick, AGENT)."""
        return candidates[self._draw(state) % len(candidates)]

    def _safe(self, state: SnakeState) -> list[Direction]:
        """Legal moves that do not die this tick (all legal moves if every one dies)."""
        legal = legal_directions(state.direction)
        safe = [d for d in legal if resolve(state, self.config, d)[1] in (Outcome.MOVE, Outcome.EAT)]
        return safe or legal


class RandomAgent(SnakeAgent):
    """Uniform among the three non-reversing directions."""

    name = "random"

    def candidates(self, state: SnakeState) -> list[Direction]:
        return legal_directions(state.direction)


class GreedyAgent(SnakeAgent):
    """Among moves that survive this tick, minimise Manhattan distance to the food; ties at random."""

    name = "greedy"

    def candidates(self, state: SnakeState) -> list[Direction]:
        candidates = self._safe(state)
        if state.food is None:
            return candidates
        fx, fy = state.food
        hx, hy = state.head

        def distance(d: Direction) -> int:
            dx, dy = d.delta
            return abs(hx + dx - fx) + abs(hy + dy - fy)

        best = min(distance(d) for d in candidates)
        return [d for d in candidates if distance(d) == best]


class CarelessAgent(GreedyAgent):
    """Greedy, but on one tick in ten it slips: uniform among the three legal directions, deadly or not.

    Why: greedy and wall_follower never steer into their body while a safe move
    exists, and random dies at a wall before it is long, so a corpus of those three
    shows a head entering its body only when every move dies. A slip shows the same
    input into the body beside inputs next to it that live, at every length.
    """

    name = "careless"

    def act(self, state: SnakeState) -> Direction:
        if slips(self._draw(state)):
            return self._pick(state, legal_directions(state.direction))
        return super().act(state)


class WallFollowerAgent(SnakeAgent):
    """Among moves that survive this tick, prefer ending next to a wall, then going straight; ties at random."""

    name = "wall_follower"

    def candidates(self, state: SnakeState) -> list[Direction]:
        candidates = self._safe(state)
        hx, hy = state.head

        def preference(d: Direction) -> tuple[bool, bool]:
            dx, dy = d.delta
            return self.config.next_to_wall((hx + dx, hy + dy)), d == state.direction

        best = max(preference(d) for d in candidates)
        return [d for d in candidates if preference(d) == best]


AGENTS: dict[str, type[SnakeAgent]] = {cls.name: cls for cls in (RandomAgent, GreedyAgent, WallFollowerAgent, CarelessAgent)}


def make_agent(name: str, config: SnakeConfig) -> SnakeAgent:
    try:
        return AGENTS[name](config)
    except KeyError:
        raise unknown_agent(name, list(AGENTS)) from None
