"""The dream report, for any game: report.json (everything), report.md (for people) and the survival plot.

Everything rendered comes from the report dict (`gamegrammar dream` builds it from `gamegrammar.act.dream.measure`),
so a report needs no game, model or corpus to be read.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from gamegrammar.core.io import atomic_write_json, atomic_write_text, save_figure

SURVIVAL_PLOT = "survival.png"
TABLE_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 1000)  # the survival table's ticks (those the curve reaches)


def ticks(n: int) -> str:
    return f"{n} tick" if n == 1 else f"{n} ticks"


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None or (isinstance(rate, float) and math.isnan(rate)) else f"{100 * rate:.1f}%"


def _interval(rate: float | None, ci: list[float]) -> str:
    return f"{_pct(rate)} [{_pct(ci[0])}, {_pct(ci[1])}]"


def render_markdown(report: dict[str, Any]) -> str:
    meta, dreams, agree, km = report["meta"], report["dreams"], report["agreement"], report["horizon"]
    lines = [f"# Dream report: {meta.get('name', '')}", ""] + [f"- {k}: {v}" for k, v in meta.items() if k != "name"]
    lines += ["", f"## Dreams ({dreams['n']}, {dreams['mean_ticks']:.1f} whole ticks on average, at most {dreams['max_ticks']})", ""]
    lines += ["| stopped at | dreams |", "| --- | --- |"] + [f"| {stop} | {n} |" for stop, n in dreams["stops"].items()]
    lines += [
        "",
        "end: the model wrote EOS; broken: the rules could not follow the dreamed state further; grammar: an ungrammatical"
        " token (without the grammar mask); length, ticks: the caps.",
    ]
    lines += ["", f"## Per-tick agreement with the rules ({agree['ticks']} whole dreamed ticks)", ""]
    lines += [
        "A tick agrees when the real rules, from the dreamed state before it and with the same inputs, could have written it"
        " (every rule-determined token as the rules write it, every random choice one they allow).",
        "",
        f"Agreement: {_interval(agree['rate'], agree['ci95'])} (Wilson 95%).",
    ]
    if agree["broken_rules"]:
        lines += ["", "| rule | ticks breaking it |", "| --- | --- |"] + [f"| `{r}` | {n} |" for r, n in agree["broken_rules"].items()]
    if agree["by_tick"]:
        lines += ["", "| ticks into the dream | ticks | agreement |", "| --- | --- | --- |"]
        lines += [f"| {b['ticks']} | {b['n']} | {_pct(b['rate'])} |" for b in agree["by_tick"]]
    median = km["median"]
    unbroken = km["unbroken_dreams"]
    lines += ["", "## Horizon: ticks until the first broken rule (Kaplan-Meier)", ""]
    lines += [
        f"{km['events']} dreams broke a rule, {km['censored']} ended or were cut off without one (censored there);"
        f" dreams with no broken rule: {_interval(unbroken['rate'], unbroken['ci95'])}.",
        f"Median horizon: {'not reached (the curve stays above 50%)' if median is None else ticks(median)}.",
    ]
    curve = km["curve"]
    shown = [t for t in TABLE_TICKS if t <= len(curve)]
    if shown:
        lines += ["", "| after tick | at risk | survival (no broken rule yet) | 95% interval |", "| --- | --- | --- | --- |"]
        for t in shown:
            row = curve[t - 1]
            lines.append(f"| {t} | {row['at_risk']} | {_pct(row['survival'])} | [{_pct(row['ci95'][0])}, {_pct(row['ci95'][1])}] |")
    dist = report.get("fidelity")
    if dist:
        lines += ["", f"## Fidelity: the agent in its dreams against {dist['reference']} ({dist['samples']} each)", ""]
        lines += ["| distribution | total variation | KS | dreams mean | real mean |", "| --- | --- | --- | --- | --- |"]
        for key in ("length_ticks", "score"):
            d = dist[key]
            lines.append(f"| {key} | {d['tv']:.3f} | {d['ks']:.3f} | {d['sample_mean']:.1f} | {d['corpus_mean']:.1f} |")
        lines.append(f"| end_reason | {dist['end_reason']['tv']:.3f} | | | |")
        ends = dist["end_reason"]
        lines += ["", "| end reason | dreams | real games |", "| --- | --- | --- |"]
        lines += [f"| {lab} | {_pct(s)} | {_pct(c)} |" for lab, s, c in zip(ends["labels"], ends["sample"], ends["corpus"])]
        fates = dist.get("outcomes")
        if fates:
            lines += [
                "",
                f"Each player's fate: total variation {fates['tv']:.3f}",
                "",
                "| fate | dreams | real games |",
                "| --- | --- | --- |",
            ]
            lines += [f"| {lab} | {_pct(s)} | {_pct(c)} |" for lab, s, c in zip(fates["labels"], fates["sample"], fates["corpus"])]
    validity = report.get("validity")
    if validity:
        lines += ["", f"## The strict evaluator on whole dreams ({validity['sequences']})", "", "| tier | pass rate |", "| --- | --- |"]
        lines += [f"| {tier} | {_interval(e['rate'], e['ci95'])} |" for tier, e in validity["tiers"].items()]
    novelty = report.get("novelty")
    if novelty:
        corpus = f"{novelty['corpus_distinct_states']} distinct states in {novelty['corpus_episodes']} training episodes"
        lines += ["", f"## Novelty against the training corpus ({corpus})", ""]
        lines += ["| games | states | novel states | distinct states | novel distinct |", "| --- | --- | --- | --- | --- |"]
        for key, label in (("dreams", "dreams"), ("real_games", "the same agent's real games")):
            n = novelty[key]
            lines.append(f"| {label} | {n['states']} | {_pct(n['novel_share'])} | {n['distinct']} | {_pct(n['novel_distinct_share'])} |")
    timing = report.get("timing")
    if timing:
        lines += ["", "## Timing", ""] + [f"- {k}: {v}" for k, v in timing.items()]
    if report.get("plots"):
        lines += ["", "## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]]
    return "\n".join(lines) + "\n"


def write_plots(report: dict[str, Any], out: Path) -> list[str]:
    """The survival curve with its 95% band, beside the share of real games still running (a dream can break only
    while its game goes on)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = report["horizon"]["curve"]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ticks = [0] + [row["tick"] for row in curve]
    ax.step(ticks, [1.0] + [row["survival"] for row in curve], where="post", color="C0", label="dreams with no broken rule yet")
    ax.fill_between(
        ticks,
        [1.0] + [row["ci95"][0] for row in curve],
        [1.0] + [row["ci95"][1] for row in curve],
        step="post",
        color="C0",
        alpha=0.2,
        label="95% interval (Greenwood)",
    )
    running = report.get("real_games", {}).get("still_running", [])
    if running:
        ax.step(range(len(running) + 1), [1.0, *running], where="post", color="C7", ls="--", label="real games still running")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("tick")
    ax.set_ylabel("share")
    ax.set_title(f"Dream horizon: ticks until the first broken rule (n = {report['horizon']['runs']})")
    ax.legend(fontsize=8)
    save_figure(fig, out / SURVIVAL_PLOT)
    plt.close(fig)
    return [SURVIVAL_PLOT]


def write_report(report: dict[str, Any], out: str | Path) -> Path:
    """report.json, report.md and the survival plot in `out`, each written atomically; returns the markdown path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report["plots"] = write_plots(report, out)
    atomic_write_json(out / "report.json", report)
    atomic_write_text(out / "report.md", render_markdown(report))
    return out / "report.md"
