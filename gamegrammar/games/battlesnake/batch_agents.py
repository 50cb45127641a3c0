"""Battlesnake's starter agents (`agents.py`) on a batch: the same choices, for every snake of thousands of games.

Each agent is a set of candidate moves per snake, in Move order, and the pick is the
(draw mod count)-th candidate with the draw of `agents._pick` (AGENT_MOVE + snake << 8),
so the choices are the scalar agents' exactly; tests/games/battlesnake/test_batch.py plays
them against the scalar agents tick by tick. Agent codes index `AGENT_NAMES` (the corpus
index's order); `lineup_codes` is `agents.lineup` for many episodes.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from gamegrammar.core import rng
from gamegrammar.core.agents import SLIP_EVERY, SLIP_SHIFT, agents_for_episodes
from gamegrammar.games.battlesnake.agents import AGENTS
from gamegrammar.games.battlesnake.batch import BattlesnakeBatch
from gamegrammar.games.battlesnake.rules import purpose

AGENT_NAMES = list(AGENTS)  # an agent's code is its position here (as in the corpus index)
_RANDOM, _SAFE, _GREEDY, _SPACE, _CARELESS = (AGENT_NAMES.index(name) for name in ("random", "safe", "greedy", "space", "careless"))
_PLANE = np.zeros((3, 3, 3), bool)
_PLANE[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]  # four-neighbour connectivity within one game's board only
FAR = 1 << 28  # a food slot a game does not fill: never the nearest


def lineup_codes(mix: dict[str, float], seed: int, episodes: np.ndarray, num_snakes: int) -> np.ndarray:
    """(E, num_snakes) agent codes: `agents.lineup` for many episodes, the same floats compared in the same order."""
    codes = np.array([AGENT_NAMES.index(name) for name in mix])
    return np.stack(
        [codes[agents_for_episodes(mix, seed, episodes, purpose(rng.Purpose.AGENT_PICK, k))] for k in range(num_snakes)], axis=1
    )


def _pick(candidates: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The (draw mod count)-th True of each (n, N, 4) candidate row, in Move order."""
    count = candidates.sum(axis=2)
    pick = (draws % np.maximum(count, 1).astype(np.uint64)).astype(np.int64)
    seen = np.cumsum(candidates, axis=2)
    return (seen <= pick[..., None]).sum(axis=2)


def _best(candidates: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The candidates with the highest score."""
    masked = np.where(candidates, score, np.iinfo(np.int32).min)
    return candidates & (masked == masked.max(axis=2, keepdims=True))


def agent_moves(batch: BattlesnakeBatch, codes: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(n, N) moves of every live snake (-1 for the others): snake k of game g plays the agent codes[g, k]."""
    config, board = batch.config, batch.board
    n, num = batch.cause.shape
    alive = batch.alive
    length, health = batch.length, batch.health
    heads, tails = batch.heads, batch.tails
    rows = np.arange(n)[:, None]
    # every live snake's body but its last segment: where a head may not go (after any move, a body is
    # its new head plus its body less the tail)
    bodies = batch.occ.sum(axis=1, dtype=np.int16)
    for k in range(num):
        live = np.flatnonzero(alive[:, k])
        bodies[live, tails[live, k]] -= 1
    blocked = bodies >= 1
    target = heads[:, :, None] + board.delta  # (n, N, 4)
    target = np.where(alive[:, :, None], target, heads[:, :, None])  # eliminated snakes' heads may be off the grid
    target = np.clip(target, 0, board.cells - 1)
    on_board = board.on_board[target]
    food_at = batch.food[rows[:, :, None], target]
    dies = ~on_board | blocked[rows[:, :, None], target] | ((health <= 1)[:, :, None] & ~food_at)
    # a possible head-to-head: next to the head of another live snake at least as long
    tx, ty = (v.astype(np.int32) for v in board.xy(target))
    hx, hy = (v.astype(np.int32) for v in board.xy(heads))
    rival = alive[:, None, :] & (length[:, None, :] >= length[:, :, None]) & ~np.eye(num, dtype=bool)[None]  # (n, k, j)
    near = np.abs(tx[..., None] - hx[:, None, None, :]) + np.abs(ty[..., None] - hy[:, None, None, :]) == 1  # (n, k, 4, j)
    risky = ~dies & (near & rival[:, :, None, :]).any(axis=3)
    sure = ~dies & ~risky
    neck = batch.segment(1)
    reversing = (target == neck[:, :, None]) & ((length >= 2) & (neck != heads))[:, :, None]
    non_reversing = ~reversing
    candidates = np.where(sure.any(axis=2, keepdims=True), sure, np.where(risky.any(axis=2, keepdims=True), risky, non_reversing))
    choice = np.where((codes == _RANDOM)[:, :, None], non_reversing, candidates)
    careless = (codes == _CARELESS) & alive
    slip = careless & ((draws >> np.uint64(SLIP_SHIFT)) % np.uint64(SLIP_EVERY) == 0)
    greedy, space = (codes == _GREEDY) & alive, ((codes == _SPACE) | careless & ~slip) & alive
    if greedy.any() or space.any():
        distance = np.zeros(target.shape, np.int32)
        g, k = np.nonzero(greedy | space)
        distance[g, k] = _food_distance(batch, g, tx[g, k], ty[g, k])
        choice = np.where(greedy[:, :, None], _best(candidates, -distance), choice)
    if space.any():
        games = np.flatnonzero(space.any(axis=1))
        area = np.zeros(target.shape, np.int32)
        area[games] = _areas(blocked[games], board, target[games])
        hungry = (health <= config.width + config.height) & batch.food.any(axis=1)[:, None]
        roomy = candidates & (area >= length[:, :, None])
        feed = (hungry & roomy.any(axis=2))[:, :, None]
        spacious = np.where(feed, _best(roomy, -distance), _best(candidates, area))
        choice = np.where(space[:, :, None], spacious, choice)
    choice = np.where(slip[:, :, None], True, choice)  # a careless slip: any of the four moves
    return np.where(alive, _pick(choice, draws), -1)


def _food_distance(batch: BattlesnakeBatch, games: np.ndarray, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
    """(m, 4) Manhattan distance from the target cells (tx, ty) of snakes in `games` to their game's nearest food
    (0 when it has none: every move ties, as with `agents.food_distance`)."""
    g, cell = np.nonzero(batch.food)
    count = np.bincount(g, minlength=len(batch))
    width = max(int(count.max(initial=0)), 1)
    rank = np.arange(len(g)) - np.repeat(np.cumsum(count) - count, count)
    fx = np.full((len(batch), width), FAR, np.int32)
    fy = np.full((len(batch), width), FAR, np.int32)
    fx[g, rank], fy[g, rank] = batch.board.xy(cell)
    fx, fy = fx[games][:, None, :], fy[games][:, None, :]
    d = np.abs(tx.astype(np.int32)[..., None] - fx) + np.abs(ty.astype(np.int32)[..., None] - fy)
    return np.where((count[games] > 0)[:, None], d.min(axis=2), 0)


def _areas(blocked: np.ndarray, board, target: np.ndarray) -> np.ndarray:
    """(m, N, 4) `agents.flood_area` of each target: the size of its open region, 0 off the board or blocked."""
    m = len(blocked)
    open_cells = (board.on_board & ~blocked).reshape(m, board.height + 2, board.pw)
    labels, _ = ndimage.label(open_cells, structure=_PLANE)
    sizes = np.bincount(labels.reshape(-1))
    sizes[0] = 0
    return sizes[labels.reshape(m, -1)[np.arange(m)[:, None, None], target]]


def scripted_policy(agent_codes: np.ndarray):
    """The rollout policy of the starter agents: snake k of game i is played by the agent of code agent_codes[i, k]."""
    codes = np.asarray(agent_codes, np.int64)

    def policy(batch: BattlesnakeBatch, games: np.ndarray, draws: np.ndarray) -> np.ndarray:
        return agent_moves(batch, codes[games], draws)

    return policy
