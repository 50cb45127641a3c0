"""Tier 2: does the model know Go's rules, and where does that knowledge hold or fail?

Every rule event of held-out episodes is scored under teacher forcing (the probability of the continuation the rules
mandate, the product over its tokens, and whether the argmax writes all of it), split by context (the stones a
capture removes, the tick, the ticks since the last keyframe, the token position):
- capture: a play fills the last liberty of opponent groups: `TAKE` and every stone it removes are mandated;
- no_capture: a play that captures nothing: the token after it is not TAKE (the one the episode wrote is mandated);
- two_passes_end: the second pass in a row: the end (`AREA`) is mandated;
- area_score and result: the AREA counts, then the result word;
- no_play_on_stone, no_suicide, no_superko: where the model chooses a move (the token after TICK), its probability
  mass on the moves the rules allow, against the points occupied, suicidal, or forbidden by superko (the last two only
  at ticks where such a point exists); the hit is an argmax the rules allow.

Counterfactual probes edit real prefixes so that a rule newly applies: fill_last_liberty replaces a real move, at a
tick where the mover could capture, by a play on the last liberty of an opponent group: `TAKE` and the first stone it
removes are mandated (control: the real prefix, its real move). The outcome is always the rules' (`rules.legality`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.emergence import rule_emergence
from gamegrammar.emergence.markdown import context_tables, heading, probe_table, rule_table
from gamegrammar.emergence.rule_emergence import (
    Probe,
    RuleTally,
    Scores,
    counted,
    probe_section,
    teacher_forced,
    tier2_section,
    traced_ticks,
)
from gamegrammar.emergence.rule_emergence import plot as plot_emergence
from gamegrammar.games.go.grammar import Tick, parse, stone
from gamegrammar.games.go.rules import EMPTY, PASS, GoConfig, GoState, legality, vertex
from gamegrammar.games.go.trace import trace
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import edited_logprobs, iter_outputs

RULES = ["capture", "no_capture", "two_passes_end", "area_score", "result", "no_play_on_stone", "no_suicide", "no_superko"]
CONTEXTS: dict[str, list[int]] = {
    "captured": [0, 1, 2, 3, 5, 10],  # the stones the play removes (capture only)
    "ticks_since_keyframe": [1, 5, 10, 25, 50, 100, 200],
    "tick": [1, 5, 10, 25, 50, 100, 200],
    "token_position": [0, 128, 256, 512, 1024],
}
PROBE_KINDS = {"fill_last_liberty": "TAKE"}
ILLEGAL = {"occupied": "no_play_on_stone", "suicide": "no_suicide", "superko": "no_superko"}


class RuleEvent(rule_emergence.RuleEvent):
    """A rule event of Go; `captured` is set for captures. For the no_* rules `positions` is the move's token and
    `illegal` the tokens the rules refuse there."""

    def __init__(
        self, rule: str, positions: list[int], tick: int, since: int, captured: int | None = None, illegal: frozenset[str] = frozenset()
    ):
        super().__init__(rule, positions, tick, 0, since)
        self.captured, self.illegal = captured, illegal

    def context(self) -> dict[str, int]:
        out = {k: v for k, v in super().context().items() if k != "length"}
        if self.captured is not None:
            out["captured"] = self.captured
        return out


def rule_events(tokens: Sequence[str], config: GoConfig) -> list[RuleEvent]:
    """The rule events of one episode, as far as its trace goes."""
    states = trace(tokens, config)
    out: list[RuleEvent] = []
    passes = 0
    for tick, since in traced_ticks(parse(tokens, config.size), len(states)):
        assert isinstance(tick, Tick)
        before, p = states[tick.number - 1], tick.positions
        out += _illegal_events(before, tick.number, since, p["move"])
        passes = passes + 1 if tick.move == PASS else 0
        if tick.move >= 0 and p["after"] < len(tokens):
            if tick.taken:
                out.append(RuleEvent("capture", [p["after"], *(at for _, at in tick.taken)], tick.number, since, len(tick.taken)))
            else:
                out.append(RuleEvent("no_capture", [p["after"]], tick.number, since))
        if passes == 2 and p["end"] < len(tokens):
            out.append(RuleEvent("two_passes_end", [p["end"]], tick.number, since))
        if tick.area is not None:
            out.append(RuleEvent("area_score", [p["area"], p["area"] + 1], tick.number, since))
        if tick.result is not None:
            out.append(RuleEvent("result", [p["result"]], tick.number, since))
    return out


def _illegal_events(state: GoState, number: int, since: int, at: int) -> list[RuleEvent]:
    """The no_* events of a move chosen on `state`: one per kind of refusal the position has."""
    refused: dict[str, set[str]] = {kind: set() for kind in ILLEGAL}
    position = state.position()
    for p in range(state.size * state.size):
        refusal = "occupied" if state.board[p] != EMPTY else legality(state, p, position)[0]
        if refusal is not None:
            refused[refusal].add(vertex(p, state.size))
    return [RuleEvent(ILLEGAL[kind], [at], number, since, illegal=frozenset(v)) for kind, v in refused.items() if v]


def rule_emergence(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: GoConfig,
    *,
    batch_size: int = 16,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Teacher-forced probability and argmax accuracy of every rule's mandated continuation, split by context; for
    the no_* rules the probability is the mass on moves the rules allow and the hit an argmax they allow."""
    tally = RuleTally(RULES, CONTEXTS, Scores)
    all_events = [rule_events(t, config) for t in tokens]
    for ids, events, out in zip(counted(episodes, progress), all_events, iter_outputs(model, episodes, (), batch_size)):
        target = torch.tensor([int(t) for t in ids])
        for e in events:
            if e.illegal:
                row = out.logp[e.positions[0] - 1]
                bad = torch.tensor([tokenizer.ids[v] for v in sorted(e.illegal)])
                prob = 1.0 - float(row[bad].exp().sum())
                hit = float(int(row.argmax()) not in set(bad.tolist()))
            else:
                prob, hit = teacher_forced(out.logp, target, e.positions)
            for s in tally.cells(e.rule, e.context()):
                s.add(prob, hit)
    return tally.section(len(episodes))


def make_probes(tokens: Sequence[Sequence[str]], config: GoConfig, *, seed: int = 0, per_episode: int = 2) -> list[Probe]:
    """fill_last_liberty probes: at real ticks where the mover could capture but played elsewhere, the move replaced by
    a capturing play (drawn with `seed`); the rules mandate TAKE and the first stone it removes."""
    gen = np.random.default_rng(seed)
    out: list[Probe] = []
    for e, episode in enumerate(tokens):
        states = trace(episode, config)
        found = []
        for tick, _ in traced_ticks(parse(episode, config.size), len(states)):
            before = states[tick.number - 1]
            if tick.move < 0 or tick.taken or tick.positions["after"] >= len(episode):
                continue
            position = before.position()
            takes = []
            for p in range(config.points):
                refusal, captured, _, _ = legality(before, p, position) if before.board[p] == EMPTY else ("occupied", (), b"", 0)
                if refusal is None and captured:
                    takes.append((p, captured))
            if takes:
                found.append((tick, takes))
        for k in gen.permutation(len(found))[:per_episode].tolist():
            tick, takes = found[k]
            p, captured = takes[int(gen.integers(len(takes)))]
            at = tick.positions["move"]
            out.append(
                Probe(
                    "fill_last_liberty",
                    [*episode[:at], vertex(p, config.size)],
                    ["TAKE", stone(captured[0], config.size)],
                    list(episode[: at + 1]),
                    episode[at + 1],
                    e,
                    tick.number,
                )
            )
    return out


def score_probes(model: GameGPT, probes: Sequence[Probe], tokenizer: GameTokenizer, tokens: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Per kind: count, mean P(mandated continuation: TAKE, then the stone) and argmax accuracy; on the controls, P(TAKE)
    (what the edit should raise) and the argmax accuracy against the token the episode wrote."""
    episodes = [tokenizer.encode(t) for t in tokens]
    out: dict[str, Any] = {}
    for kind, word in PROBE_KINDS.items():
        rows = [p for p in probes if p.kind == kind]
        if not rows:
            out[kind] = {"count": 0, "mandated": word}
            continue
        asked = [(p.episode, tokenizer.encode(p.tokens)) for p in rows] + [(p.episode, tokenizer.encode(p.control)) for p in rows]
        asked += [(p.episode, tokenizer.encode([*p.tokens, p.mandated[0]])) for p in rows]
        found = edited_logprobs(model, episodes, asked)
        n = len(rows)
        first = torch.tensor([tokenizer.ids[p.mandated[0]] for p in rows])
        second = torch.tensor([tokenizer.ids[p.mandated[1]] for p in rows])
        logp, control, then = found[:n], found[n : 2 * n], found[2 * n :]
        prob = (logp.gather(1, first[:, None])[:, 0] + then.gather(1, second[:, None])[:, 0]).exp()
        hit = (logp.argmax(1) == first) & (then.argmax(1) == second)
        real = torch.tensor([tokenizer.ids[p.control_mandated] for p in rows])
        out[kind] = {
            "count": n,
            "mandated": word,
            "mean_prob": float(prob.mean()),
            "accuracy": float(hit.float().mean()),
            "control_mean_prob": float(control.gather(1, first[:, None]).exp().mean()),
            "control_accuracy": float((control.argmax(1) == real).float().mean()),
        }
    return out


def counterfactuals(
    model: GameGPT,
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: GoConfig,
    *,
    baseline: GameGPT | None = None,
    seed: int = 0,
    per_episode: int = 2,
) -> dict[str, Any]:
    """Counterfactual probes scored on the model and on an untrained baseline, plus one example of each kind."""
    probes = make_probes(tokens, config, seed=seed, per_episode=per_episode)
    return probe_section(
        model,
        probes,
        len(tokens),
        lambda m, ps: score_probes(m, ps, tokenizer, tokens),
        lambda p: {"tick": p.tick, "edited_tail": " ".join(p.tokens[-16:]), "mandated": " ".join(p.mandated)},
        baseline=baseline,
        seed=seed,
    )


def tier2(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: GoConfig,
    *,
    seed: int = 0,
    baseline: GameGPT | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The whole tier-2 section: rule emergence (model, and an untrained model's totals) and counterfactuals."""
    keys = ("mean_prob", "accuracy")
    return tier2_section(
        rule_emergence, counterfactuals, keys, model, episodes, tokens, tokenizer, config, seed=seed, baseline=baseline, progress=progress
    )


def markdown(result: dict[str, Any]) -> list[str]:
    """Markdown lines for a tier2() result."""
    em = result["emergence"]
    lines = heading(
        em,
        "capture: TAKE and every stone a play on a group's last liberty removes. no_play_on_stone, no_suicide, no_superko: "
        "P = the move's mass on moves the rules allow, acc = the most likely move is allowed.",
    )
    lines += rule_table(em, lambda e, u: "")
    lines += context_tables(em)
    lines += probe_table(result["counterfactuals"], PROBE_KINDS)
    lines += ["", "fill_last_liberty mandates `TAKE` and the first stone removed. Control: the real prefix, its real move."]
    return lines


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """emergence.png (P by context per rule) and counterfactuals.png; returns the file names written."""
    return plot_emergence(result, out, PROBE_KINDS)
