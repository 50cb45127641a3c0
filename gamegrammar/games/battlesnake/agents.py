"""The community's usual starter strategies, one agent per snake, seeded like the game.

Every choice is uniform among the best candidates (in Move order) with the draw
(seed, episode, tick, AGENT_MOVE + snake << 8), so an episode is a function of (seed, episode)
and the lineup alone, and each snake draws independently of the others.

random  uniform among the three moves that do not reverse into the neck (all four while the
        snake has no distinct neck, at the start)
safe    uniform among the moves sure to survive this turn whatever the others do; else among the
        moves that die only if a snake at least as long also moves next to them (a possible
        head-to-head); else like random
greedy  among safe's candidates, the ones nearest (Manhattan) to a food
space   among safe's candidates, the one whose flood-filled reachable area is largest; when its
        health runs low (at most width + height), the one nearest to a food among those whose
        area still holds its body
careless  space, but one tick in ten (the draw's high bits, `core.agents.slips`) uniform among all
        four moves: into its neck, a wall or a body as often as anywhere else

A corpus mixes agents per snake: `lineup(mix, seed, episode, n)` draws snake k's agent with
rng.unit(seed, episode, 0, AGENT_PICK + k << 8). For snake 0 that is exactly the core's
`agent_for_episode` draw, so a corpus index whose one `agent` code per episode is the core's draw
records snake 0's agent, and every other snake's agent follows from (mix, seed, episode).
`play_episode` takes one agent name (every snake plays it) or a lineup "safe,greedy,space,random".
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from gamegrammar.core import rng
from gamegrammar.core.agents import Agent, agent_for_episode, slips, unknown_agent
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Cell, Draw, Move, neighbours, purpose, step

SURE, RISKY, DIES = 2, 1, 0


def safety(state: BattlesnakeState, k: int, config: BattlesnakeConfig) -> dict[Move, int]:
    """Per move of snake k: SURE (survives whatever the others do), RISKY (dies only in a head-to-head with
    a snake at least as long that moves next to it) or DIES (a wall, starvation, or a body that stays)."""
    me = state.snakes[k]
    food = set(state.food)
    bodies: set[Cell] = set()
    rivals: list[Cell] = []  # heads of live snakes at least as long
    for j, s in enumerate(state.snakes):
        if not s.alive:
            continue
        bodies.update(s.body[:-1])  # after any move, a snake's body but its new head is its body less the tail
        if j != k and s.length >= me.length:
            rivals.append(s.head)
    out = {}
    for move in Move:
        t = step(me.head, move)
        if not config.in_bounds(t) or t in bodies or (me.health <= 1 and t not in food):
            out[move] = DIES
        elif any(t in neighbours(h) for h in rivals):
            out[move] = RISKY
        else:
            out[move] = SURE
    return out


def non_reversing(state: BattlesnakeState, k: int) -> list[Move]:
    """The moves that do not go back into the neck (all four without a distinct neck)."""
    body = state.snakes[k].body
    if len(body) < 2 or body[1] == body[0]:
        return list(Move)
    return [m for m in Move if step(body[0], m) != body[1]]


def safest_moves(state: BattlesnakeState, k: int, config: BattlesnakeConfig) -> list[Move]:
    """Snake k's safest class of moves that is not empty: sure, else risky, else the non-reversing ones (safe's
    candidates, which greedy and space narrow)."""
    rated = safety(state, k, config)
    for level in (SURE, RISKY):
        moves = [m for m in Move if rated[m] == level]
        if moves:
            return moves
    return non_reversing(state, k)


@functools.lru_cache(maxsize=16)
def _board_masks(width: int, height: int) -> tuple[int, int, int]:
    """Bit masks of a board (bit y * width + x): every cell, every cell but column 0, every cell but the last column."""
    full = (1 << width * height) - 1
    first = sum(1 << y * width for y in range(height))
    return full, full & ~first, full & ~(first << width - 1)


def cell_mask(cells: Iterable[Cell], config: BattlesnakeConfig) -> int:
    """The bit mask of the on-board cells among `cells`."""
    mask = 0
    for x, y in cells:
        if 0 <= x < config.width and 0 <= y < config.height:
            mask |= 1 << y * config.width + x
    return mask


def flood_area(start: Cell, blocked: int, config: BattlesnakeConfig) -> int:
    """Cells reachable from `start` (counted) through open cells on the board; `blocked` is a `cell_mask`.

    A bitboard flood fill: the region grows by its four shifts until it stops changing."""
    width = config.width
    if not config.in_bounds(start):
        return 0
    full, not_first, not_last = _board_masks(width, config.height)
    open_cells = full & ~blocked
    region = 1 << start[1] * width + start[0]
    if not region & open_cells:
        return 0
    while True:
        grown = (region | (region << 1 & not_first) | (region >> 1 & not_last) | region << width | region >> width) & open_cells
        if grown == region:
            return bin(region).count("1")
        region = grown


def food_distance(cell: Cell, food: Sequence[Cell]) -> int:
    return min((abs(cell[0] - f[0]) + abs(cell[1] - f[1]) for f in food), default=0)


class BattlesnakeAgent(Agent):
    """An agent for one snake (`snake`, by index): `act(state)` gives that snake's move."""

    def __init__(self, config: BattlesnakeConfig, snake: int = 0) -> None:
        super().__init__(config)
        self.snake = snake

    def _pick(self, state: BattlesnakeState, candidates: Sequence[Move]) -> Move:
        key = purpose(Draw.AGENT_MOVE, self.snake)
        return candidates[rng.choose(self.seed, self.episode, state.tick, key, len(candidates))]

    def _candidates(self, state: BattlesnakeState) -> list[Move]:
        return safest_moves(state, self.snake, self.config)


class RandomAgent(BattlesnakeAgent):
    name = "random"

    def act(self, state: BattlesnakeState) -> Move:
        return self._pick(state, non_reversing(state, self.snake))


class SafeAgent(BattlesnakeAgent):
    name = "safe"

    def act(self, state: BattlesnakeState) -> Move:
        return self._pick(state, self._candidates(state))


class GreedyAgent(BattlesnakeAgent):
    name = "greedy"

    def act(self, state: BattlesnakeState) -> Move:
        candidates = self._candidates(state)
        if not state.food:
            return self._pick(state, candidates)
        head = state.snakes[self.snake].head
        distance = {m: food_distance(step(head, m), state.food) for m in candidates}
        best = min(distance.values())
        return self._pick(state, [m for m in candidates if distance[m] == best])


class SpaceAgent(BattlesnakeAgent):
    name = "space"

    def act(self, state: BattlesnakeState) -> Move:
        candidates = self._candidates(state)
        me = state.snakes[self.snake]
        blocked = cell_mask((c for s in state.snakes if s.alive for c in s.body[:-1]), self.config)
        area = {m: flood_area(step(me.head, m), blocked, self.config) for m in candidates}
        hungry = me.health <= self.config.width + self.config.height and state.food
        if hungry:
            roomy = [m for m in candidates if area[m] >= me.length]
            if roomy:
                distance = {m: food_distance(step(me.head, m), state.food) for m in roomy}
                best = min(distance.values())
                return self._pick(state, [m for m in roomy if distance[m] == best])
        best = max(area.values())
        return self._pick(state, [m for m in candidates if area[m] == best])


class CarelessAgent(SpaceAgent):
    """Space, but one tick in ten it slips: uniform among all four moves, its neck included.

    Why: no other agent ever reverses into its neck, and the safe ones steer into a body or a wall only where every
    move dies, so a model of their games has never seen most moves that kill (it wrote the death of 1 of 240 forced
    reversals), and a planner in its dreams walks into them. A slip shows each such move beside the moves that live.
    """

    name = "careless"

    def act(self, state: BattlesnakeState) -> Move:
        draw = rng.draw(self.seed, self.episode, state.tick, purpose(Draw.AGENT_MOVE, self.snake))
        if slips(draw):
            return self._pick(state, list(Move))
        return super().act(state)


AGENTS: dict[str, type[BattlesnakeAgent]] = {
    cls.name: cls
    for cls in (RandomAgent, SafeAgent, GreedyAgent, SpaceAgent, CarelessAgent)  # codes in this order
}


def make_agent(name: str, config: BattlesnakeConfig, snake: int = 0) -> BattlesnakeAgent:
    try:
        return AGENTS[name](config, snake)
    except KeyError:
        raise unknown_agent(name, list(AGENTS)) from None


def parse_lineup(agent: str, config: BattlesnakeConfig) -> list[str]:
    """One agent name for every snake, or a comma-separated lineup with one name per snake."""
    names = [a.strip() for a in agent.split(",")] if "," in agent else [agent.strip()] * config.num_snakes
    if len(names) != config.num_snakes:
        raise GameGrammarError(f"a lineup names one agent per snake: {config.num_snakes} expected, got {len(names)} in {agent!r}")
    for name in names:
        if name not in AGENTS:
            raise unknown_agent(name, list(AGENTS))
    return names


def lineup(mix: dict[str, float], seed: int, episode: int, num_snakes: int) -> tuple[str, ...]:
    """Each snake's agent in a mixed corpus: a weighted draw per snake keyed by (seed, episode, snake).

    Snake 0's draw is the core's `agent_for_episode` draw, the same number for the same mix.
    """
    return tuple(agent_for_episode(mix, seed, episode, purpose(rng.Purpose.AGENT_PICK, k)) for k in range(num_snakes))
