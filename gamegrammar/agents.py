"""Scripted Snake agents, seeded like the game so an episode is a function of (seed, episode)."""

from __future__ import annotations

from gamegrammar import rng
from gamegrammar.errors import GameGrammarError
from gamegrammar.games.snake import Direction, Outcome, SnakeConfig, SnakeState, legal_directions, resolve


class Agent:
    """Base class: `reset(seed, episode)` then `act(state)` once per tick."""

    name = "agent"

    def __init__(self, config: SnakeConfig) -> None:
        self.config = config
        self.seed = 0
        self.episode = 0

    def reset(self, seed: int, episode: int) -> None:
        self.seed, self.episode = seed, episode

    def act(self, state: SnakeState) -> Direction:
        raise NotImplementedError

    def _pick(self, state: SnakeState, candidates: list[Direction]) -> Direction:
        """Uniform among candidates, drawn from (seed, episode, tick, AGENT)."""
        return candidates[rng.choose(self.seed, self.episode, state.tick, rng.Purpose.AGENT, len(candidates))]

    def _safe(self, state: SnakeState) -> list[Direction]:
        """Legal moves that do not die this tick (all legal moves if every one dies)."""
        legal = legal_directions(state.direction)
        safe = [d for d in legal if resolve(state, self.config, d)[1] in (Outcome.MOVE, Outcome.EAT)]
        return safe or legal


class RandomAgent(Agent):
    """Uniform among the three non-reversing directions."""

    name = "random"

    def act(self, state: SnakeState) -> Direction:
        return self._pick(state, legal_directions(state.direction))


class GreedyAgent(Agent):
    """Among moves that survive this tick, minimise Manhattan distance to the food; ties at random."""

    name = "greedy"

    def act(self, state: SnakeState) -> Direction:
        candidates = self._safe(state)
        if state.food is None:
            return self._pick(state, candidates)
        fx, fy = state.food
        hx, hy = state.head

        def distance(d: Direction) -> int:
            dx, dy = d.delta
            return abs(hx + dx - fx) + abs(hy + dy - fy)

        best = min(distance(d) for d in candidates)
        return self._pick(state, [d for d in candidates if distance(d) == best])


class WallFollowerAgent(Agent):
    """Among moves that survive this tick, prefer ending next to a wall, then going straight; ties at random."""

    name = "wall_follower"

    def act(self, state: SnakeState) -> Direction:
        candidates = self._safe(state)
        hx, hy = state.head

        def preference(d: Direction) -> tuple[bool, bool]:
            dx, dy = d.delta
            return self.config.next_to_wall((hx + dx, hy + dy)), d == state.direction

        best = max(preference(d) for d in candidates)
        return self._pick(state, [d for d in candidates if preference(d) == best])


AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (RandomAgent, GreedyAgent, WallFollowerAgent)}


def make_agent(name: str, config: SnakeConfig) -> Agent:
    try:
        return AGENTS[name](config)
    except KeyError:
        raise GameGrammarError(f"unknown agent {name!r}; choose from {', '.join(AGENTS)}") from None


def parse_agent_mix(spec: str) -> dict[str, float]:
    """'random=0.4,greedy=0.6' -> normalised weights, checked against the known agents."""
    mix: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, weight = part.partition("=")
        name = name.strip()
        if name not in AGENTS:
            raise GameGrammarError(f"unknown agent {name!r}; choose from {', '.join(AGENTS)}")
        try:
            value = float(weight) if sep else 1.0
        except ValueError:
            raise GameGrammarError(f"agent weight {weight!r} for {name!r} is not a number") from None
        if value < 0 or value != value:
            raise GameGrammarError(f"agent weight for {name!r} must be >= 0, got {weight}")
        mix[name] = mix.get(name, 0.0) + value
    total = sum(mix.values())
    if not mix or not total > 0:
        raise GameGrammarError(f"agent weights must sum to a positive number, got {spec!r}")
    return {name: w / total for name, w in mix.items() if w > 0}


def agent_for_episode(mix: dict[str, float], seed: int, episode: int) -> str:
    """The agent that plays episode i: a weighted draw keyed by (seed, i)."""
    u = rng.unit(seed, episode, 0, rng.Purpose.AGENT_PICK)
    cumulative = 0.0
    names = list(mix)
    for name in names:
        cumulative += mix[name]
        if u < cumulative:
            return name
    return names[-1]
