"""The validity report, for any game: report.json (everything), report.md (for people) and PNG plots.

Everything rendered comes from the report dict itself (the validity summary names
its tiers, and each rule's tier), so a report needs no game to be read.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from gamegrammar.core.io import save_figure
from gamegrammar.games import game_of


def describe_game(config: Any, *, ticks: bool = True) -> str:
    """A game config for people, from `GameSpec.describe_config`: "10x10, max 200 ticks" (or "10x10" without ticks)."""
    facts = dict(game_of(config).describe_config(config))
    max_ticks = facts.pop("max_ticks", None)
    parts = [str(facts.pop("board"))] if "board" in facts else []
    parts += [f"{key} {value}" for key, value in facts.items()]
    if ticks and max_ticks is not None:
        parts.append(f"max {max_ticks} ticks")
    return ", ".join(parts)


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None or math.isnan(rate) else f"{100 * rate:.1f}%"


def _interval(entry: dict[str, Any]) -> str:
    lo, hi = entry["ci95"]
    return f"{_pct(entry['rate'])} [{_pct(lo)}, {_pct(hi)}]"


def _tier_rate(entry: dict[str, Any]) -> str:
    """A tier's pass rate with its interval, or "not checked" where its rules ran on no sequence."""
    return "not checked" if not entry.get("n", 1) else _interval(entry)


def _by_count(kinds: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Outcome kinds, the most frequent first (report.json stores its keys sorted by name)."""
    return sorted(kinds.items(), key=lambda kv: -kv[1]["count"])


def render_markdown(report: dict[str, Any]) -> str:
    meta, validity = report["meta"], report["validity"]
    n = validity["sequences"]
    lines = [f"# Validity report: {meta.get('name', '')}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k != "name"]
    lines += [
        "",
        f"## Strict tiers ({n} sequences, Wilson 95% intervals)",
        "",
        "| tier | pass rate | sequences checked |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {tier} | {_tier_rate(entry)} | {entry.get('n', n)} |" for tier, entry in validity["tiers"].items()]
    if any(entry.get("not_checked") for entry in validity["tiers"].values()):
        lines += [
            "",
            "A sequence that breaks the grammar before its opening state is read never meets a tier's rules: it is "
            "not checked there, and left out of that tier's rate (it fails `full`).",
        ]
    lines += ["", "## Lenient tiers of the original implementation (for comparison with its published figures)", ""]
    lines += ["| tier | pass rate |", "| --- | --- |"]
    lines += [f"| {tier} | {_interval(entry)} |" for tier, entry in validity["lenient"].items()]
    lines += ["", "## Violations per rule", ""]
    lines += ["| tier | rule | sequences breaking it | broken first |", "| --- | --- | --- | --- |"]
    for rule, entry in validity["rules"].items():  # in the game's order, tier by tier
        lines.append(
            f"| {entry.get('tier', '')} | `{rule}` | {entry['violated']} ({_interval(entry)}) | {validity['first_violations'][rule]} |"
        )
    dist = report.get("fidelity")
    if dist:
        lines += ["", f"## Fidelity to the corpus ({dist['samples']} samples vs {dist['corpus_episodes']} corpus episodes)", ""]
        lines += ["| distribution | total variation | KS | sample mean | corpus mean |", "| --- | --- | --- | --- | --- |"]
        for key in ("length_ticks", "score"):
            d = dist[key]
            lines.append(f"| {key} | {d['tv']:.3f} | {d['ks']:.3f} | {d['sample_mean']:.1f} | {d['corpus_mean']:.1f} |")
        lines.append(f"| end_reason | {dist['end_reason']['tv']:.3f} | | | |")
        ends = dist["end_reason"]
        lines += ["", "| end reason | samples | corpus |", "| --- | --- | --- |"]
        lines += [f"| {lab} | {_pct(s)} | {_pct(c)} |" for lab, s, c in zip(ends["labels"], ends["sample"], ends["corpus"])]
        fates = dist.get("outcomes")
        if fates:
            lines += ["", f"Each player's fate (elimination cause, or standing at the end): total variation {fates['tv']:.3f}", ""]
            lines += [f"| fate | samples | corpus ({fates['corpus_episodes']} episodes) |", "| --- | --- | --- |"]
            lines += [f"| {lab} | {_pct(s)} | {_pct(c)} |" for lab, s, c in zip(fates["labels"], fates["sample"], fates["corpus"])]
    teacher = report.get("teacher_forced")
    if teacher:
        lines += [
            "",
            f"## Teacher-forced rule-determined tokens ({teacher['episodes']} held-out episodes, {teacher['positions']} tokens)",
            "",
        ]
        lines += [
            f"Overall argmax accuracy {_pct(teacher['accuracy'])}, mean probability of the true token {teacher['mean_prob']:.4f}.",
            "",
        ]
        lines += ["| category | tokens | argmax accuracy | mean probability |", "| --- | --- | --- | --- |"]
        for cat, c in teacher["categories"].items():
            lines.append(f"| {cat} | {c['count']} | {_pct(c['accuracy'])} | {c['mean_prob']:.4f} |")
        if teacher.get("outcomes"):
            lines += ["", "The tick outcome (its word: in grammar v1 the token after the input) by what the rules dictate:", ""]
            lines += ["| true outcome | ticks | argmax accuracy | mean probability |", "| --- | --- | --- | --- |"]
            for kind, c in _by_count(teacher["outcomes"]):
                lines.append(f"| {kind} | {c['count']} | {_pct(c['accuracy'])} | {c['mean_prob']:.4f} |")
    lines += move_lines(report.get("moves"))
    lines += novelty_lines(report.get("novelty"))
    if any(report.get(k) for k in ("tier2", "tier3", "probes")):
        from gamegrammar.interpret.analysis import markdown_sections

        lines += markdown_sections(report)
    sampling = report.get("sampling")
    if sampling:
        lines += ["", "## Sampling", ""]
        lines += [f"- {k}: {v}" for k, v in sampling.items()]
    plots = report.get("plots", [])
    if plots:
        lines += ["", "## Plots", ""] + [f"![{p}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def move_lines(moves: dict[str, Any] | None) -> list[str]:
    """The move measures of each held-out corpus (`evaluation.moves`), one row each, Wilson 95% intervals."""
    if not moves:
        return []
    groups = sorted({name for m in moves.values() for name in m["exact"]})
    lines = ["", "## Moves and exact groups, teacher-forced on held-out games (Wilson 95% intervals)", ""]
    lines += [
        "Legal move: at each move of the held-out games the model's top-1 token over the whole vocabulary (no mask) is a "
        "move the rules allow there. An exact group is right when every one of its tokens is (a capture: TAKE, the "
        "exact set of stones removed, and the list's end). Result: the result word.",
        "",
    ]
    head = ["held-out games", "episodes", "moves", "legal move", "top-1 a move", "illegal mass"]
    head += [f"{g} exact (n)" for g in groups] + ["result (n)"]
    lines += ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for name, m in moves.items():
        cells = [name, str(m["episodes"]), str(m["legal_move"]["count"]), _interval(m["legal_move"]), _interval(m["top1_is_move"])]
        cells.append("n/a" if m["illegal_mass"] is None else f"{m['illegal_mass']:.2e}")
        cells += [f"{_interval(m['exact'][g])} ({m['exact'][g]['count']})" if g in m["exact"] else "n/a" for g in groups]
        cells.append(f"{_interval(m['result'])} ({m['result']['count']})")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def novelty_lines(novelty: dict[str, Any] | None) -> list[str]:
    """The novelty section: how many of the samples' states (as far as the rules follow them) the training corpus never reaches."""
    if not novelty:
        return []
    corpus = novelty["corpus"]
    lines = ["", f"## Novelty against the training corpus ({novelty['sequences']} samples)", ""]
    lines += [
        "A state is what the rules keep (the game's state identity, not the tick), hashed with Zobrist keys; a sample's "
        "states are those the rules can follow it through. The training corpus reaches "
        f"{corpus['distinct']} distinct states in {corpus['states']} ({corpus['episodes']} episodes).",
        "",
        "| | samples' states | never in the training corpus |",
        "| --- | --- | --- |",
        f"| every state | {novelty['states']} | {novelty['novel_states']} ({_pct(novelty['novel_share'])}) |",
        f"| distinct states | {novelty['distinct']} | {_pct(novelty['novel_distinct_share'])} |",
    ]
    return lines


def write_plots(report: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    validity = report["validity"]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    labels, rates, errs = [], [], [[], []]
    for group in ("tiers", "lenient"):
        for tier, e in validity[group].items():
            labels.append(tier if group == "tiers" else f"lenient {tier}")
            rate = e["rate"] or 0.0
            rates.append(rate)
            errs[0].append(max(0.0, rate - e["ci95"][0]))
            errs[1].append(max(0.0, e["ci95"][1] - rate))
    ax.bar(labels, rates, yerr=errs, capsize=3, color=["C0"] * len(validity["tiers"]) + ["C7"] * len(validity["lenient"]))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("pass rate")
    ax.set_title(f"Tier pass rates, n = {validity['sequences']} (Wilson 95%)")
    ax.tick_params(axis="x", rotation=30)
    save_figure(fig, out / "tiers.png")
    names.append("tiers.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.2))
    rules = list(validity["rules"])
    ax.barh(rules, [validity["rules"][r]["violated"] for r in rules], color="C3")
    ax.invert_yaxis()
    ax.set_xlabel("sequences breaking the rule")
    ax.set_title("Violations per rule")
    save_figure(fig, out / "violations.png")
    names.append("violations.png")
    plt.close(fig)

    dist = report.get("fidelity")
    if dist:
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
        for ax, key, title in ((axes[0], "length_ticks", "episode length (ticks)"), (axes[1], "score", "score")):
            d = dist[key]
            x = range(len(d["sample_hist"]))
            ax.bar([i - 0.2 for i in x], d["corpus_hist"], width=0.4, label="corpus")
            ax.bar([i + 0.2 for i in x], d["sample_hist"], width=0.4, label="samples")
            ax.set_xticks(list(x), [str(b) for b in d["bins"][:-1]], rotation=60, fontsize=7)
            ax.set_title(f"{title}: TV {d['tv']:.3f}")
        ends = dist["end_reason"]
        x = range(len(ends["labels"]))
        axes[2].bar([i - 0.2 for i in x], ends["corpus"], width=0.4, label="corpus")
        axes[2].bar([i + 0.2 for i in x], ends["sample"], width=0.4, label="samples")
        axes[2].set_xticks(list(x), ends["labels"], rotation=30, fontsize=7)
        axes[2].set_title(f"end reason: TV {ends['tv']:.3f}")
        axes[2].legend()
        save_figure(fig, out / "distributions.png")
        names.append("distributions.png")
        plt.close(fig)
    if any(report.get(k) for k in ("tier2", "tier3", "probes")):
        from gamegrammar.interpret.analysis import write_plots as analysis_plots

        names += analysis_plots(report, out)
    return names


def write_report(report: dict[str, Any], out: str | Path) -> Path:
    """Write report.json, report.md and the plots into `out`; returns the markdown path."""
    from gamegrammar.interpret.analysis import write_documents  # analysis.py builds on this module

    return write_documents(report, out, "report", write_plots, render_markdown)


def results_row(report: dict[str, Any]) -> dict[str, str]:
    """The README results table's cells for one report: strict and lenient tiers with intervals, fidelity, teacher-forced."""
    v = report["validity"]
    row = {"samples": str(v["sequences"])}
    if "max_length" in report["meta"]:  # reports written before it was recorded have none
        row["tokens per sample, at most"] = str(report["meta"]["max_length"])
    row.update({f"strict {t}": _tier_rate(e) for t, e in v["tiers"].items()})
    row.update({f"lenient {t}": _interval(e) for t, e in v["lenient"].items() if t != "full"})
    if report.get("fidelity"):
        f = report["fidelity"]
        row["TV length/score/end"] = f"{f['length_ticks']['tv']:.3f} / {f['score']['tv']:.3f} / {f['end_reason']['tv']:.3f}"
    if report.get("teacher_forced"):
        teacher = report["teacher_forced"]
        row["teacher-forced"] = _pct(teacher["accuracy"])
        kinds = teacher.get("outcomes", {})
        if kinds:
            row["teacher-forced outcomes"] = ", ".join(f"{k} {_pct(c['accuracy'])}" for k, c in _by_count(kinds))
    return row


def results_table(reports: dict[str, dict[str, Any]]) -> str:
    """A markdown table with one column per named report (what `gamegrammar evaluate --table` prints)."""
    rows = {name: results_row(r) for name, r in reports.items()}
    keys = list(next(iter(rows.values())))
    lines = ["| | " + " | ".join(rows) + " |", "| --- |" + " --- |" * len(rows)]
    lines += [f"| {k} | " + " | ".join(r.get(k, "") for r in rows.values()) + " |" for k in keys]
    return "\n".join(lines) + "\n"
