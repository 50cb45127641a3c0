"""Causal interventions: edit the board a model holds along its probes' directions, and ask the rules what it should
write next.

A probe that reads a board cell off the hidden state shows the cell is *readable*; whether the model *uses* that
reading is a second question (Othello-GPT, Li et al. 2023: edit the hidden state so the probe reads another board,
and the legal moves the model predicts follow the edited board). The game says which edits test something
(`GameSpec.intervention_cases`: Snake adds a body cell beside the head, or takes one away, at the input word,
where the model writes next which of the head's neighbours are body): at the case's token, the hidden state at one
layer is moved the shortest way that makes the linear probe of that layer read the edited cells as a typical real
cell reads (`LinearPlaneProbe.typical`, times a strength), the layers above run on, and the next token the model
ranks first is compared with the one the rules write for the edited board. Where the rules draw the next words
by chance (Snake's food spawn, edited at FOOD_SPAWN with the probes read there: a cell made body or free), the
model's probability of the edited cell is compared with the rules' on both boards. A control moves the same state as
far along a random direction: a model that only breaks under any push fails both alike.

Each place the probes were read is a section of its own: the layer and strength are chosen on half of its held-out
episodes (calibration) and the success rate is read on the other half (evaluation), so the figure is not the best of
many tries on the same cases. The edit runs on the case's token and the few words after it: the prefix is read once
per episode into a KV cache, and each edited row attends to it (no copy per row).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from gamegrammar.core.gamespec import InterventionCase
from gamegrammar.core.stats import grouped_ratio_interval
from gamegrammar.games import game_of
from gamegrammar.interpret.probes import LinearPlaneProbe, split_by_episode, tick_positions
from gamegrammar.model.gpt import GameGPT, rotate
from gamegrammar.model.hidden import layer_names

STRENGTHS = (1.0, 4.0, 16.0, 64.0, 256.0)
Edit = Callable[[Tensor], Tensor]  # the hidden state [R, C] of some rows -> what to add to it


@torch.no_grad()
def prefix_cache(model: GameGPT, ids: Sequence[int], length: int) -> tuple[Any, Tensor]:
    """The KV cache of ids[:length] (one forward) and the tick clock of every position of ids."""
    model.eval()
    device = next(model.parameters()).device
    idx = torch.tensor([[int(t) for t in ids]], device=device)
    cache = model.new_cache(1, max(1, length))
    if length:
        model(idx[:, :length], cache=cache)
    clock = model.tick_clock(idx)[0] if model.wtick is not None else torch.zeros(len(ids), dtype=torch.long, device=device)
    return cache, clock


@torch.no_grad()
def edited_step(
    model: GameGPT, cache: Any, clock: Tensor, token: int, position: int, edits: Sequence[tuple[str, Edit] | list[tuple[str, Edit]] | None]
) -> Tensor:
    """[R, V] log P(next) after feeding `token` at `position` (the cache holds the positions before it) in R rows, row
    r's state at layer edits[r][0] (`layer_names`) shifted by edits[r][1](state) (None: no edit; a list of such
    pairs: an edit at each of their layers)."""
    return edited_steps(model, cache, clock, [token], position, edits)[:, 0]


@torch.no_grad()
def edited_steps(
    model: GameGPT,
    cache: Any,
    clock: Tensor,
    tokens: Sequence[int],
    position: int,
    edits: Sequence[tuple[str, Edit] | list[tuple[str, Edit]] | None],
) -> Tensor:
    """[R, T, V] log P(next) after each of `tokens` fed from `position` on, the first of them edited as
    `edited_step` says: what the edit does to the words the model writes after it (Snake's spawn: its X, then its Y).

    Each row attends to the one cached prefix and, causally, to its own tokens, as the model's own forward with a KV
    cache does (tests compare the two); nothing is written to the cache.
    """
    c = model.config
    device = next(model.parameters()).device
    rows, steps = len(edits), len(tokens)
    names = layer_names(model)
    at: dict[str, list[tuple[int, Edit]]] = {}
    for r, e in enumerate(edits):
        for layer, fn in [e] if isinstance(e, tuple) else e or []:
            at.setdefault(layer, []).append((r, fn))

    def edit(name: str, x: Tensor) -> Tensor:  # x [R, T, C]: the first token's state is edited
        x = x.clone()
        for r, fn in at.get(name, ()):
            x[r, 0] = x[r, 0] + fn(x[r, 0:1])[0]
        return x

    where = torch.arange(position, position + steps, device=device)
    x = model.wte(torch.tensor([int(t) for t in tokens], device=device)).expand(rows, steps, c.n_embd)
    rope = None
    if model.wpe is not None:
        x = x + model.wpe(where)
    else:
        rope = (model.rope_cos[position : position + steps], model.rope_sin[position : position + steps])
    if model.wtick is not None:
        x = x + model.wtick(clock[where].clamp(max=c.tick_table - 1))
    x = edit(names[0], x)
    head_dim = c.n_embd // c.n_head
    causal = torch.ones(steps, steps, dtype=torch.bool, device=device).tril()
    for layer, block in enumerate(model.blocks):
        qkv = block.attn.qkv(block.ln_1(x))
        q, k, v = qkv.view(rows, steps, 3, c.n_head, head_dim).permute(2, 0, 3, 1, 4)  # [R, H, T, D] each
        if rope is not None:
            q, k = rotate(q, *rope), rotate(k, *rope)
        keys, values = cache.k[layer, 0, :, :position], cache.v[layer, 0, :, :position]  # [H, p, D], shared by every row
        own = (q @ k.transpose(-1, -2)).masked_fill(~causal, float("-inf"))
        scores = torch.cat([q @ keys.transpose(-1, -2), own], -1) / math.sqrt(head_dim)
        weights = torch.softmax(scores.float(), -1).to(q.dtype)
        y = weights[..., :position] @ values + weights[..., position:] @ v
        x = x + block.attn.proj(y.transpose(1, 2).reshape(rows, steps, c.n_embd))
        x = x + block.mlp(block.ln_2(x))
        x = edit(names[layer + 1], x)
    h = edit(names[-1], model.ln_f(x))
    return F.log_softmax(model.head(h).float(), -1).cpu()


def probe_edit(
    probe: LinearPlaneProbe, edits: Sequence[tuple[str, int, int]], strength: float, anchor_cell: int | None = None
) -> tuple[Edit, Tensor, Tensor]:
    """The shortest shift of a hidden state h that makes the probe's logits of the edited cells equal `strength`
    times their typical value (positive for a cell set to 1, negative for 0): delta = U (U^T U)^+ (t - U^T h - b).

    Returns (the edit, U [C, k], targets t [k]). A probe relabelled around an anchor needs the anchor's cell.
    """
    cols = [probe.column(plane, cell, anchor_cell) for plane, cell, _ in edits]
    u = torch.as_tensor(probe.weight[:, cols], dtype=torch.float32)
    b = torch.as_tensor(probe.bias[cols], dtype=torch.float32)
    t = torch.tensor([strength * probe.typical[int(value)][col] for (_, _, value), col in zip(edits, cols)], dtype=torch.float32)
    solve = torch.linalg.pinv(u.T @ u)

    def shift(h: Tensor) -> Tensor:
        return (t - (h.float() @ u + b)) @ solve.T @ u.T

    return shift, u, t


def random_edit(probe_shift: Edit, direction: Tensor) -> Edit:
    """A shift as long as the probe's edit of the same state, along a fixed random direction."""
    unit = direction / direction.norm()

    def shift(h: Tensor) -> Tensor:
        return probe_shift(h).norm(dim=-1, keepdim=True) * unit

    return shift


def _in_order(keys: set[int | str]) -> list[int | str]:
    """Offsets from the tick token first, in order, then words."""
    return sorted(keys, key=lambda key: (isinstance(key, str), key if isinstance(key, int) else 0, str(key)))


def gather_cases(
    model: GameGPT,
    tokens: Sequence[Sequence[str]],
    config: Any,
    episode_ids: Sequence[int],
    keys: set[int | str],
    vocab: dict[str, int],
    max_cases_per_episode: int,
    seed: int = 0,
    anchor: str | None = None,
) -> dict[int, list[tuple[int, InterventionCase, int | None]]]:
    """episode -> [(position of the edited token, case, the anchor plane's cell)]: the game's cases whose probes were
    read (`InterventionCase.key` in `keys`), inside the model's context, whose real next token is the one the rules
    wrote; at most `max_cases_per_episode` of each key (a seeded draw)."""
    game = game_of(config)
    out: dict[int, list[tuple[int, InterventionCase, int | None]]] = {}
    for e in episode_ids:
        toks = tokens[e]
        states = game.trace(toks, config)
        starts = tick_positions(toks, game.tick_token)
        found = []
        for case in game.intervention_cases(toks, states, config):
            words = [*case.path, case.expected]
            if case.key not in keys or case.tick >= len(starts) or any(w not in vocab for w in words):
                continue
            if case.chance is None and case.expected == case.actual:
                continue
            p = starts[case.tick] + case.offset
            if p + 1 < len(toks) and p + len(case.path) < model.config.block_size and toks[p + 1] == case.actual:
                where = None
                if anchor is not None:
                    plane = game.probe_targets(states[case.tick + case.board], config).planes[anchor]
                    where = int(np.argmax(plane)) if plane.sum() == 1 else None
                found.append((p, case, where))
        kept = []
        for k, key in enumerate(_in_order({case.key for _, case, _ in found})):
            mine = [f for f in found if f[1].key == key]
            if len(mine) > max_cases_per_episode:
                pick = np.sort(
                    np.random.default_rng([seed, e, *([k] if k else [])]).choice(len(mine), max_cases_per_episode, replace=False)
                )
                mine = [mine[int(i)] for i in pick]
            kept += mine
        if kept:
            out[e] = kept
    return out


def _run(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    cases: dict[int, list[tuple[int, InterventionCase, int | None]]],
    probes: dict[int | str, dict[str, LinearPlaneProbe]],
    settings: Sequence[tuple[str, float]],
    seed: int,
    plans: dict[str, list[str]],
    vocab: dict[str, int],
) -> list[dict[str, Any]]:
    """Every case under every (plan, strength): what the model predicts unedited, edited and with the control, one row
    each: the next-token log-probs, or for a case of chance (`InterventionCase.chance`) the log-probability of its path
    and expected word. A plan names the probes that edit (one, or one at each layer from one up); a case a probe cannot
    edit (a relabelled one without its anchor) counts as unedited."""
    out = []
    for e, found in cases.items():
        ids = episodes[e]
        cache, clock = prefix_cache(model, ids, max(p for p, _, _ in found))
        by_point: dict[tuple[int, tuple[str, ...]], list[tuple[InterventionCase, int | None]]] = {}
        for p, case, where in found:
            by_point.setdefault((p, case.path), []).append((case, where))
        for (p, path), pairs in sorted(by_point.items()):
            here = [case for case, _ in pairs]
            rows: list[list[tuple[str, Edit]] | None] = [None]
            for j, (case, where) in enumerate(pairs):
                g = torch.Generator().manual_seed(int(np.random.default_rng([seed, e, p, j]).integers(2**31)))
                direction = torch.randn(model.config.n_embd, generator=g)
                for label, strength in settings:
                    used = [probes[case.key][name] for name in plans[label]]
                    if any(probe.anchor is not None for probe in used) and where is None:
                        rows += [None, None]
                        continue
                    shifts = [(probe.layer, probe_edit(probe, case.edits, strength, where)[0]) for probe in used]
                    rows += [shifts, [(layer, random_edit(shift, direction)) for layer, shift in shifts]]
            logp = edited_steps(model, cache, clock, [int(ids[p]), *(vocab[w] for w in path)], p, rows)

            for j, case in enumerate(here):
                base = 1 + 2 * len(settings) * j
                out.append(
                    {
                        "episode": e,
                        "position": p,
                        "case": case,
                        "unedited": _read(logp[0], case, vocab),
                        "edited": {s: _read(logp[base + 2 * i], case, vocab) for i, s in enumerate(settings)},
                        "control": {s: _read(logp[base + 2 * i + 1], case, vocab) for i, s in enumerate(settings)},
                    }
                )
    return out


def _read(logp: Tensor, case: InterventionCase, vocab: dict[str, int]) -> Any:
    """What a row [T, V] predicts of a case: its next-token log-probs, or the log-probability of a case of chance's path
    and expected word."""
    if case.chance is None:
        return logp[0]
    return float(sum(logp[t, vocab[w]] for t, w in enumerate((*case.path, case.expected))))


def edit_plans(names: Sequence[str], probes: dict[str, LinearPlaneProbe], model: GameGPT) -> dict[str, list[str]]:
    """label -> the probes an edit uses: each probe alone, then ("<name> and above") each probe with the probes of
    its kind (of the board, or relabelled around the same anchor) at every later layer, as Othello-GPT edited every
    layer from one up: what one layer is told, the next may have read already from elsewhere."""
    order = {layer: i for i, layer in enumerate(layer_names(model))}
    plans = {name: [name] for name in names}
    for name in names:
        kind, depth = probes[name].anchor, order[probes[name].layer]
        above = sorted(
            (n for n in names if probes[n].anchor == kind and order[probes[n].layer] >= depth), key=lambda n: order[probes[n].layer]
        )
        if len(above) > 1:
            plans[f"{name} and above"] = above
    return plans


def _rate(hits: Sequence[bool], episodes: Sequence[int], seed: int) -> dict[str, Any]:
    ids, group = np.unique(np.asarray(episodes), return_inverse=True)
    num = np.bincount(group, np.asarray(hits, dtype=np.float64), len(ids))
    den = np.bincount(group, minlength=len(ids)).astype(np.float64)
    n = len(hits)
    return {"rate": float(np.mean(hits)) if n else None, "ci95": list(grouped_ratio_interval(num, den, seed=seed)) if n else None}


def _score(rows: list[dict[str, Any]], setting: tuple[str, float], vocab: dict[str, int], seed: int) -> dict[str, Any]:
    """Success of the edit and of the control, by kind: the model's first choice is the edited board's word, or for a
    case of chance its probability of the path and word lies past the midpoint of the rules' two, on the edited
    board's side."""

    def verdicts(r: dict[str, Any], value: Any) -> tuple[bool, bool, float]:
        """(reads the edited board, reads the real one, P(expected)) of one prediction."""
        case = r["case"]
        if case.chance is None:
            first = int(value.argmax())
            return first == vocab[case.expected], first == vocab[case.actual], math.exp(float(value[vocab[case.expected]]))
        p, (real, edited) = math.exp(value), case.chance
        return abs(p - edited) < abs(p - real), abs(p - real) < abs(p - edited), p

    kinds = sorted({r["case"].kind for r in rows})
    out: dict[str, Any] = {}
    for kind in [*kinds, "all"]:
        mine = [r for r in rows if kind in ("all", r["case"].kind)]
        eps = [r["episode"] for r in mine]
        edited = [verdicts(r, r["edited"][setting]) for r in mine]
        control = [verdicts(r, r["control"][setting]) for r in mine]
        unedited = [verdicts(r, r["unedited"]) for r in mine]
        out[kind] = {
            "cases": len(mine),
            "episodes": len(set(eps)),
            "success": _rate([v[0] for v in edited], eps, seed),
            "control_success": _rate([v[0] for v in control], eps, seed),
            "unedited_right": _rate([v[1] for v in unedited], eps, seed),
            "control_unchanged": _rate([v[1] for v in control], eps, seed),
            "p_expected": {
                which: float(np.mean([v[2] for v in values])) if mine else None
                for which, values in (("unedited", unedited), ("edited", edited), ("control", control))
            },
        }
        chances = [r["case"].chance for r in mine if r["case"].chance is not None]
        if chances:
            out[kind]["p_rules"] = {"real": float(np.mean([c[0] for c in chances])), "edited": float(np.mean([c[1] for c in chances]))}
    return out


def _top(logp: Tensor, names: dict[int, str], k: int = 3) -> list[list[Any]]:
    values, index = logp.topk(k)
    return [[names.get(int(i), str(int(i))), round(math.exp(float(v)), 4)] for v, i in zip(values, index)]


def run_interventions(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    probes: dict[int | str, dict[str, LinearPlaneProbe]],
    vocab: dict[str, int],
    episode_ids: Sequence[int],
    *,
    seed: int = 0,
    max_cases_per_episode: int = 12,
    strengths: Sequence[float] = STRENGTHS,
    calibration_fraction: float = 0.5,
) -> dict[str, Any]:
    """The interventions of `episode_ids` (held out from the probes' training): `probes[key][layer]` the linear
    probes read at each key (an offset from the tick token, or a word: `InterventionCase.key`). Each key's cases are a
    section: its calibration episodes choose the layer and strength, its evaluation episodes give the success rates
    (by episode bootstrap intervals) of the edit and of the random control."""
    game = game_of(config)
    anchors = {p.anchor[0] for by_name in probes.values() for p in by_name.values() if p.anchor is not None}
    anchor = next(iter(anchors)) if len(anchors) == 1 else None
    probes = {o: {n: p for n, p in by_name.items() if p.anchor is None or p.anchor[0] == anchor} for o, by_name in probes.items()}
    found = gather_cases(model, tokens, config, episode_ids, set(probes), vocab, max_cases_per_episode, seed, anchor)
    if not found:
        return {"checked": False, "reason": f"{game.name} gives no intervention case on these episodes ({len(episode_ids)})"}
    keys = _in_order({case.key for cases in found.values() for _, case, _ in cases})
    sections = []
    for key in keys:
        mine = {e: kept for e, cases in found.items() if (kept := [c for c in cases if c[1].key == key])}
        sections.append(
            {"probe": key, **_section(model, episodes, tokens, config, mine, probes[key], strengths, calibration_fraction, seed, vocab)}
        )
    return {"checked": True, "sections": sections}


def _merit(scores: dict[str, Any], setting: tuple[str, float], layers: list[str]) -> tuple[float, float, int]:
    """How calibration ranks a setting: its success above its random control's (a push that disrupts any state can
    "succeed" where the edited board's answer is the disrupted one, as a cell made body and given no food), ties to
    the weaker push, then the earlier layer."""
    margin = (scores["success"]["rate"] or 0.0) - (scores["control_success"]["rate"] or 0.0)
    return margin, -setting[1], -layers.index(setting[0])


def _section(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    found: dict[int, list[tuple[int, InterventionCase, int | None]]],
    probes: dict[str, LinearPlaneProbe],
    strengths: Sequence[float],
    calibration_fraction: float,
    seed: int,
    vocab: dict[str, int],
) -> dict[str, Any]:
    """Calibrate (the plan and strength whose success most exceeds its control's) on some episodes of one key's cases,
    score the rest."""
    game = game_of(config)
    ids = np.array(sorted(found))
    evaluation, calibration = split_by_episode(ids, calibration_fraction, seed)
    calib = {int(e): found[int(e)] for e in ids[calibration]}
    held = {int(e): found[int(e)] for e in ids[evaluation]}
    key = next(case.key for cases in found.values() for _, case, _ in cases)
    plans = edit_plans(list(probes), probes, model)
    layers = list(plans)
    settings = [(layer, float(s)) for layer in layers for s in strengths]
    by_key = {key: probes}
    calib_rows = _run(model, episodes, calib, by_key, settings, seed, plans, vocab)
    sweep = {f"{layer}@{s:g}": _score(calib_rows, (layer, s), vocab, seed)["all"] for layer, s in settings}
    chosen = max(settings, key=lambda st: _merit(sweep[f"{st[0]}@{st[1]:g}"], st, layers))
    rows = _run(model, episodes, held, by_key, [chosen], seed, plans, vocab)
    names = {i: t for t, i in vocab.items()}
    result: dict[str, Any] = {
        "offsets": sorted({case.offset for cases in found.values() for _, case, _ in cases}),
        "strengths": [float(s) for s in strengths],
        "layers": layers,
        "calibration": {"episodes": len(calib), "cases": len(calib_rows), "sweep": sweep},
        "chosen": {"layer": chosen[0], "strength": chosen[1], "edited_layers": [probes[n].layer for n in plans[chosen[0]]]},
        "evaluation": {"episodes": len(held), "cases": len(rows), "by_kind": _score(rows, chosen, vocab, seed)},
    }
    example = next((r for r in rows if r["case"].kind.startswith("add")), rows[0] if rows else None)
    if example is not None:
        case = example["case"]
        states = game.trace(tokens[example["episode"]], config)
        planes = game.probe_targets(states[case.tick + case.board], config).planes
        result["example"] = {
            "episode": example["episode"],
            "tick": case.tick,
            "kind": case.kind,
            "edits": [list(e) for e in case.edits],
            "expected": " ".join([*case.path, case.expected]),
            "actual": case.actual,
            "shape": list(game.board_shape(config)),
            "planes": {name: [int(v) for v in plane] for name, plane in planes.items()},
            "context": list(tokens[example["episode"]][max(0, example["position"] - 6) : example["position"] + 1]),
        }
        if case.chance is None:
            result["example"] |= {
                "top_unedited": _top(example["unedited"], names),
                "top_edited": _top(example["edited"][chosen], names),
                "top_control": _top(example["control"][chosen], names),
            }
        else:
            result["example"] |= {
                "chance": list(case.chance),
                "p": {
                    which: round(math.exp(v), 4)
                    for which, v in (
                        ("unedited", example["unedited"]),
                        ("edited", example["edited"][chosen]),
                        ("control", example["control"][chosen]),
                    )
                },
            }
    return result


def _rate_text(entry: dict[str, Any]) -> str:
    if entry["rate"] is None:
        return "n/a"
    low, high = entry["ci95"]
    return f"{100 * entry['rate']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"


def _where(key: int | str) -> str:
    return f"offset {key} from the tick token" if isinstance(key, int) else f"the word {key}"


def markdown(probes: dict[str, Any]) -> list[str]:
    """Markdown lines for the run_interventions() result of a world_state_probes() result (its "interventions")."""
    result = probes["interventions"]
    lines = ["### Interventions: edit the board along the probes, and check the next words against the rules", ""]
    if not result.get("checked"):
        return [*lines, f"Not checked: {result.get('reason', 'no case')}."]
    lines += [
        "At the token each case names the hidden state at one layer (or at each layer from one up) is moved the shortest "
        "way that makes that layer's linear probe read the edited cells as a typical real cell reads (times a strength); "
        "the layers above run on. Where the rules fix the next word (Snake's SENSE word after the input) the model's "
        "first choice is compared with the one the rules write for the edited board; where they draw it (Snake's food "
        "spawn, uniform over the free cells) the model's probability of the edited cell must move past the midpoint "
        "between the rules' values on the real and the edited board, to the edited board's side. Control: a shift as "
        "long along a random direction. The probe and the strength are chosen on calibration episodes, the rates read on "
        "other held-out episodes (95% intervals: bootstrap over episodes).",
    ]
    for section in result["sections"]:
        lines += ["", *_section_lines(section)]
    return lines


def _section_lines(result: dict[str, Any]) -> list[str]:
    chosen, ev, cal = result["chosen"], result["evaluation"], result["calibration"]
    lines = [
        f"#### At {_where(result['probe'])}: `{chosen['layer']}`, strength {chosen['strength']:g} (chosen on "
        f"{cal['episodes']} calibration episodes, {cal['cases']} cases; rates on {ev['episodes']} others)",
        "",
        "| edit | cases | success (reads the edited board) | control success | unedited reads the real board | control leaves the real board's reading | P(the edited board's word): unedited / edited / control | rules: real / edited |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind, e in ev["by_kind"].items():
        p, rules = e["p_expected"], e.get("p_rules")
        lines.append(
            f"| {kind} | {e['cases']} ({e['episodes']} episodes) | {_rate_text(e['success'])} | {_rate_text(e['control_success'])} | "
            f"{_rate_text(e['unedited_right'])} | {_rate_text(e['control_unchanged'])} | "
            f"{_pf(p['unedited'])} / {_pf(p['edited'])} / {_pf(p['control'])} | "
            + (f"{_pf(rules['real'])} / {_pf(rules['edited'])} |" if rules else "fixed words |")
        )
    layers, strengths = result["layers"], result["strengths"]
    lines += ["", "Calibration: success of the edit (and of the control) by probe and strength, every kind together", ""]
    lines += ["| probe | " + " | ".join(f"strength {s:g}" for s in strengths) + " |", "| --- |" + " --- |" * len(strengths)]
    for layer in layers:
        cells = []
        for s in strengths:
            e = cal["sweep"][f"{layer}@{s:g}"]
            cells.append(f"{100 * (e['success']['rate'] or 0):.1f}% ({100 * (e['control_success']['rate'] or 0):.1f}%)")
        lines.append(f"| {layer} | " + " | ".join(cells) + " |")
    if "example" in result:
        x = result["example"]
        lead = (
            f"Example ({_figure(result)}: the first evaluation case that adds, whatever its outcome): episode {x['episode']}, "
            f"tick {x['tick'] + 1}, {x['kind']} (`{' '.join(x['context'])}`): "
        )
        if "chance" in x:
            lines += [
                "",
                lead + f"the rules give `{x['expected']}` probability {x['chance'][0]:.4f} on the real board and "
                f"{x['chance'][1]:.4f} on the edited one; the model {x['p']['unedited']:.4f} unedited, {x['p']['edited']:.4f} "
                f"edited, {x['p']['control']:.4f} with the control.",
            ]
        else:
            lines += [
                "",
                lead + f"the rules write `{x['actual']}` on the real board and `{x['expected']}` on the edited one; the model's "
                "first choices unedited "
                + ", ".join(f"`{t}` {p:.3f}" for t, p in x["top_unedited"])
                + "; edited "
                + ", ".join(f"`{t}` {p:.3f}" for t, p in x["top_edited"])
                + "; control "
                + ", ".join(f"`{t}` {p:.3f}" for t, p in x["top_control"])
                + ".",
            ]
    return lines


def _figure(section: dict[str, Any]) -> str:
    key = section["probe"]
    return "intervention.png" if isinstance(key, int) else f"intervention-{str(key).lower()}.png"


def _pf(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


COLOURS = {"empty": (0.95, 0.95, 0.95), "body": (0.2, 0.55, 0.2), "head": (0.05, 0.3, 0.05), "food": (0.85, 0.2, 0.2)}


def _board(ax: Any, planes: dict[str, list[int]], shape: list[int], edited: list[list[Any]] | None, title: str) -> None:
    h, w = shape
    image = np.ones((h, w, 3))
    for name, plane in planes.items():  # in the game's order: later planes paint over earlier ones
        colour = COLOURS.get(name, (0.5, 0.5, 0.8))
        for cell, v in enumerate(plane):
            if v:
                image[cell // w, cell % w] = colour
    ax.imshow(image, interpolation="nearest")
    for _plane, cell, value in edited or []:
        if value:
            ax.add_patch(_square(cell, w, "gold"))
    ax.set_xticks(range(w))
    ax.set_yticks(range(h))
    ax.tick_params(labelsize=6)
    ax.set_title(title, fontsize=8)


def _square(cell: int, width: int, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((cell % width - 0.5, cell // width - 0.5), 1, 1, fill=False, edgecolor=colour, linewidth=3)


def plot(probes: dict[str, Any], out: Any) -> list[str]:
    """intervention.png (and intervention-<word>.png for the cases at a word): the example's real and edited boards
    with the model's next words, and the success rates (of the run_interventions() result of a world_state_probes()
    result; nothing where none was checked)."""
    result = probes["interventions"]
    if not result.get("checked"):
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gamegrammar.core.io import save_figure

    names = []
    for section in result["sections"]:
        fig, axes = plt.subplots(1, 3, figsize=(12, 4), gridspec_kw={"width_ratios": [1, 1, 1.3]})
        x = section.get("example")
        if x is not None:
            edited = {name: list(plane) for name, plane in x["planes"].items()}
            for plane, cell, value in x["edits"]:
                edited[plane][cell] = value
            if "chance" in x:
                real = f"rules: P({x['expected']}) {x['chance'][0]:.3f}\nmodel: {x['p']['unedited']:.3f}"
                after = f"rules: {x['chance'][1]:.3f}; model: {x['p']['edited']:.3f}\ncontrol: {x['p']['control']:.3f}"
            else:

                def words(top: list[list[Any]]) -> str:
                    return "\n".join(f"{t} {p:.3f}" for t, p in top)

                real = f"rules: {x['actual']}\nmodel:\n{words(x['top_unedited'])}"
                after = f"rules: {x['expected']}\nmodel:\n{words(x['top_edited'])}\ncontrol: {words(x['top_control'][:1])}"
            _board(axes[0], x["planes"], x["shape"], None, f"real board (tick {x['tick'] + 1}); {real}")
            _board(axes[1], edited, x["shape"], x["edits"], f"edited ({x['kind']}, gold); {after}")
        kinds = [k for k in section["evaluation"]["by_kind"] if k != "all"] + ["all"]
        ax = axes[2]
        pos = np.arange(len(kinds))
        for j, (key, label) in enumerate((("success", "probe edit"), ("control_success", "random control"))):
            entries = [section["evaluation"]["by_kind"][k][key] for k in kinds]
            ys = np.array([e["rate"] or 0.0 for e in entries])
            err = np.array([[y - e["ci95"][0], e["ci95"][1] - y] if e["ci95"] else [0, 0] for y, e in zip(ys, entries)]).T
            ax.bar(pos + (j - 0.5) * 0.38, ys, width=0.38, yerr=err, capsize=2, label=label, color=f"C{j}")
        ax.set_xticks(pos, [f"{k}\n({section['evaluation']['by_kind'][k]['cases']})" for k in kinds], fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.axhline(0.9, color="grey", lw=0.8, ls=":")
        ax.legend(fontsize=7)
        chosen = section["chosen"]
        ax.set_title(
            f"at {_where(section['probe'])}: reads the edited board ({chosen['layer']}, strength {chosen['strength']:g})", fontsize=8
        )
        fig.tight_layout()
        save_figure(fig, out / _figure(section))
        plt.close(fig)
        names.append(_figure(section))
    return names
