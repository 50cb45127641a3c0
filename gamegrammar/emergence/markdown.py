"""The markdown tables of every game's tier-2 report: the rules, their context splits and the counterfactual probes.

The result they read has one shape for every game (`gamegrammar.emergence.rule_emergence`); a game's `markdown` adds only
its own prose and the notes of its own rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gamegrammar.emergence.rule_emergence import fmt, same_split

Note = Callable[[dict[str, Any], dict[str, Any]], str]
"""note(entry, untrained) -> the notes cell of one rule's row: what the game measures beyond P and acc."""


def heading(em: Mapping[str, Any], legend: str) -> list[str]:
    """The section's title and what P and acc mean; `legend` goes on to say how the game scores its own rules."""
    return [
        f"## Tier 2: rule emergence ({em['episodes']} held-out episodes, teacher forcing)",
        "",
        "P = mean probability of the whole rule-mandated continuation; acc = argmax writes all of it. " + legend,
        "",
    ]


def rule_table(em: Mapping[str, Any], note: Note) -> list[str]:
    """One row per rule: its events, P and acc, the untrained model's P and acc beside them, and the game's note."""
    lines = [
        "| rule | events | P | acc | untrained P | untrained acc | notes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rule, e in em["rules"].items():
        u = e.get("untrained", {})
        lines.append(
            f"| {rule} | {e['count']} | {fmt(e['mean_prob'])} | {fmt(e['accuracy'])} "
            f"| {fmt(u.get('mean_prob'))} | {fmt(u.get('accuracy'))} | {note(e, u)} |"
        )
    return lines


def context_tables(em: Mapping[str, Any], *, keep_empty: bool = False) -> list[str]:
    """A table per context (P / events in each bucket) of the rules with events there.

    A context no rule has events in gets no table, or (`keep_empty`) a heading and an empty table. The ticks since
    the last keyframe are said in one line instead when they split the events as the tick does (no later keyframes).
    """
    lines: list[str] = []
    for context, labels in em["contexts"].items():
        if context == "ticks_since_keyframe" and same_split(em, context, "tick"):
            lines += ["", "(Ticks since the last keyframe equal the tick number here: the corpus has no keyframes after tick 0.)"]
            continue
        rows = [(rule, e) for rule, e in em["rules"].items() if e["count"] and e["by"].get(context)]
        if not rows and not keep_empty:
            continue
        lines += ["", f"### By {context.replace('_', ' ')} (P / events)", ""]
        lines += ["| rule | " + " | ".join(labels) + " |", "| --- |" + " --- |" * len(labels)]
        for rule, e in rows:
            cells = []
            for label in labels:
                b = e["by"][context].get(label)
                cells.append(f"{fmt(b['mean_prob'], 2)} / {b['count']}" if b else "")
            lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def probe_table(cf: Mapping[str, Any], probe_kinds: Mapping[str, str]) -> list[str]:
    """The counterfactual probes' heading and table: per kind, edited and control on the model, edited on the untrained
    model. `probe_kinds` names each kind's mandated token (the row of a kind without probes shows it)."""
    lines = ["", f"### Counterfactual probes ({cf['episodes']} held-out episodes)", ""]
    lines += [
        "| probe | mandated | probes | P(mandated) edited | acc edited | P(mandated) control | acc control | untrained P | untrained acc |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind, m in cf["model"].items():
        u = cf["untrained"][kind]
        if not m["count"]:
            lines.append(f"| {kind} | {probe_kinds[kind]} | 0 | | | | | | |")
            continue
        lines.append(
            f"| {kind} | {m['mandated']} | {m['count']} | {fmt(m['mean_prob'])} | {fmt(m['accuracy'])} | {fmt(m['control_mean_prob'])} "
            f"| {fmt(m['control_accuracy'])} | {fmt(u['mean_prob'])} | {fmt(u['accuracy'])} |"
        )
    return lines
