"""Move measures of a turn-based game on held-out games, under teacher forcing (`GameSpec.move_choices`,
`GameSpec.exact_groups`): what a model knows of the rules where a player chooses, and where the rules fix a group
of tokens at once.

- legal-move rate: at each move of the held-out games, the model's top-1 token over the whole vocabulary (no mask,
  no grammar) is a move the rules allow there; with the share whose top-1 is a move at all, and the mean probability
  the model puts on the illegal moves;
- exact groups: each group of tokens the rules fix together (Go: a capture's TAKE and the exact set of stones it
  removes; the end's counts and result) counts as right only when the top-1 token is right at every one of its
  positions; and the result word alone.

Every rate carries its Wilson interval. The game names the legal moves and the groups; this module only counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from gamegrammar.core.gamespec import GameSpec
from gamegrammar.evaluation.fidelity import predicted_rows
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.model.gpt import GameGPT

MOVE_POSITIONS = 1000  # moves scored per corpus (the 1000 held-out positions of each kind)


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(k, n)
    return {"count": n, "right": k, "rate": k / n if n else None, "ci95": [lo, hi]}


def move_measures(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    game: GameSpec,
    config: Any,
    vocabulary: Sequence[str],
    positions: int = MOVE_POSITIONS,
    batch_size: int = 16,
) -> dict[str, Any]:
    """The legal-move rate on the first `positions` moves of `episodes` (whole games, in order, the last one cut where
    the count is reached), and the exact groups of all of them."""
    inputs = set(game.input_tokens(config))
    is_input = torch.tensor([t in inputs for t in vocabulary])
    choices: list[list[tuple[int, frozenset[str]]]] = []
    left = positions
    for toks in tokens:
        mine = game.move_choices(toks, config)[: max(0, left)]
        left -= len(mine)
        choices.append(mine)
    groups = [game.exact_groups(toks) for toks in tokens]
    results = [[p for p, category, _ in game.rule_determined_positions(toks) if category == "result"] for toks in tokens]
    wanted = [[p for p, _ in c] + [q for _, g in gs for q in g] + r for c, gs, r in zip(choices, groups, results)]
    rows = predicted_rows(model, episodes, wanted, batch_size)
    legal = is_move = 0
    illegal_mass: list[float] = []
    for mine, logp in zip(choices, rows):
        for p, allowed in mine:
            row = logp[p]
            top = vocabulary[int(row.argmax())]
            legal += top in allowed
            is_move += top in inputs
            mask = torch.tensor([t in allowed for t in vocabulary])
            illegal_mass.append(float(row.exp()[is_input & ~mask].sum()))
    scored = sum(len(c) for c in choices)
    exact: dict[str, list[int]] = {}
    for ids, gs, logp in zip(episodes, groups, rows):
        for name, at in gs:
            exact.setdefault(name, []).append(int(all(int(logp[p].argmax()) == int(ids[p]) for p in at)))
    out: dict[str, Any] = {
        "episodes": len(episodes),
        "legal_move": rate(legal, scored),
        "top1_is_move": rate(is_move, scored),
        "illegal_mass": sum(illegal_mass) / len(illegal_mass) if illegal_mass else None,
        "exact": {name: rate(sum(v), len(v)) for name, v in sorted(exact.items())},
    }
    hits = [int(int(logp[p].argmax()) == int(ids[p])) for ids, r, logp in zip(episodes, results, rows) for p in r if p in logp]
    out["result"] = rate(sum(hits), len(hits))  # the result word (who won), given the game's moves and end
    return out
