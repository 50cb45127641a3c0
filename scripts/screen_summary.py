"""The table of a grammar screen (scripts/screen.sh): each design's figures over its seeds, as mean [95% t-interval].

    python scripts/screen_summary.py reports/screen-snake [--analysis analysis-corpus60k]

Reads every reports/screen-NAME/DESIGN-SEED/report.json (and analysis/analysis.json where `ANALYZE=1` wrote one, or
the analysis directory --analysis names: screen-snake-mix reads tier 2 on corpus60k too),
the run's metrics.csv under runs/screen-NAME/DESIGN-SEED, and the corpus manifest the report names (paths relative to
the directory holding reports/ and runs/, where screen.sh ran).
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.evaluation.stats import mean_interval


def _tokens_per_episode(corpus: Path) -> float | None:
    """From the corpus's manifest; None where the corpus is not on this machine (a screen read from its reports alone)."""
    path = corpus / "manifest.json"
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    return sum(s["tokens"] for s in manifest["shards"]) / manifest["episodes"]


def _train_tokens_per_second(run: Path) -> float | None:
    rates = []
    for path in run.glob("csv/version_*/metrics.csv"):
        with path.open() as f:
            rates += [float(r["train/tokens_per_s"]) for r in csv.DictReader(f) if r.get("train/tokens_per_s")]
    return sum(rates) / len(rates) if rates else None


def run_figures(report_dir: Path, analysis_name: str = "analysis") -> dict[str, float | None]:
    """One run's figures: rates in [0, 1], counts and speeds as they are (None where not measured)."""
    report = json.loads((report_dir / "report.json").read_text())
    root = report_dir.resolve().parents[2]  # reports/screen-NAME/DESIGN-SEED -> where screen.sh ran
    full = report["validity"]["tiers"]["full"]
    teacher = report.get("teacher_forced", {})
    self_death = teacher.get("outcomes", {}).get("DIE_SELF", {})
    figures: dict[str, float | None] = {
        "strict full": full["rate"],
        "samples": full["n"],
        "teacher-forced rule tokens": teacher.get("accuracy"),
        "teacher-forced self deaths (argmax)": self_death.get("accuracy"),
        "teacher-forced self deaths (mean P)": self_death.get("mean_prob"),
        "self deaths read": self_death.get("count"),
        "spawn mass on empty cells": None,
        "tier 2: P(self death)": None,
        "tier 2: self deaths, argmax right": None,
        "tier 2: SENSE beside the head, P (sense design)": None,
        "tier 2: SENSE beside the head, argmax right": None,
        "tier 2: spawn's column words, P (spawn-column design)": None,
        "tier 2: spawn's column words, argmax right": None,
        "tier 2: OCC word of the spawn's column, P": None,
        "tier 2: OCC word of the spawn's column, argmax right": None,
        "tier 2: spawn's listed body, P (body-list design)": None,
        "tier 2: spawn's listed body, argmax right": None,
        "tier 2: listed cell, P": None,
        "tier 2: listed cell, argmax right": None,
        "tier 2: spawn mass on empty cells given the true words or list": None,
        "body_ahead probe P(DIE_SELF): edited": None,
        "body_ahead probe P(DIE_SELF): control": None,
        **{
            f"fidelity TV: {name}": dist["tv"]
            for name, dist in report.get("fidelity", {}).items()
            if isinstance(dist, dict) and "tv" in dist
        },
        "tokens per episode": _tokens_per_episode(root / report["meta"]["corpus"]),
        "training tokens/s": None,
        "sampling tokens/s": report.get("sampling", {}).get("tokens_per_second"),
    }
    analysis = report_dir / analysis_name / "analysis.json"
    if analysis.is_file():
        tier2 = json.loads(analysis.read_text())["tier2"]
        rules = tier2["emergence"]["rules"]
        # in the spawn-column design the joint of a correct column and then an empty row (emergence.py)
        figures["spawn mass on empty cells"] = rules.get("spawn_on_empty", {}).get("mean_prob")
        figures["tier 2: P(self death)"] = rules.get("self_death", {}).get("mean_prob")
        figures["tier 2: self deaths, argmax right"] = rules.get("self_death", {}).get("accuracy")
        # the sense design's body lookup: the SENSE word on ticks with body other than the neck beside the head
        figures["tier 2: SENSE beside the head, P (sense design)"] = rules.get("body_sensed_beside", {}).get("mean_prob")
        figures["tier 2: SENSE beside the head, argmax right"] = rules.get("body_sensed_beside", {}).get("accuracy")
        # the spawn-column design's body lookup: all the words of the spawn's column jointly, and each OCC word
        figures["tier 2: spawn's column words, P (spawn-column design)"] = rules.get("column_sensed", {}).get("mean_prob")
        figures["tier 2: spawn's column words, argmax right"] = rules.get("column_sensed", {}).get("accuracy")
        figures["tier 2: OCC word of the spawn's column, P"] = rules.get("column_sensed_body", {}).get("mean_prob")
        figures["tier 2: OCC word of the spawn's column, argmax right"] = rules.get("column_sensed_body", {}).get("accuracy")
        # the body-list design's body lookup: the whole list before the spawn jointly, and each listed cell
        figures["tier 2: spawn's listed body, P (body-list design)"] = rules.get("body_listed", {}).get("mean_prob")
        figures["tier 2: spawn's listed body, argmax right"] = rules.get("body_listed", {}).get("accuracy")
        figures["tier 2: listed cell, P"] = rules.get("body_listed_cell", {}).get("mean_prob")
        figures["tier 2: listed cell, argmax right"] = rules.get("body_listed_cell", {}).get("accuracy")
        if "column_sensed" in rules or "body_listed" in rules:  # the exclusion alone, the words or the list teacher forced
            figures["tier 2: spawn mass on empty cells given the true words or list"] = rules["spawn_on_empty"].get("empty_share")
        # the input edited into the body, and the same prefix unedited: equal P means blind to the body
        body = tier2.get("counterfactuals", {}).get("model", {}).get("body_ahead", {})
        figures["body_ahead probe P(DIE_SELF): edited"] = body.get("mean_prob")
        figures["body_ahead probe P(DIE_SELF): control"] = body.get("control_mean_prob")
    run = root / "runs" / report_dir.parent.name / report_dir.name
    figures["training tokens/s"] = _train_tokens_per_second(run)
    return figures


def designs(screen: Path, analysis_name: str = "analysis") -> dict[str, dict[str, dict[str, float | None]]]:
    """{design: {seed: figures}} for every finished run under `screen`."""
    out: dict[str, dict[str, dict[str, float | None]]] = defaultdict(dict)
    for report_dir in sorted(screen.iterdir()):
        if (report_dir / "report.json").is_file():
            design, _, seed = report_dir.name.rpartition("-")
            out[design][seed] = run_figures(report_dir, analysis_name)
    return dict(out)


def _format(value: float, kind: str, digits: int) -> str:
    return f"{value * 100:.1f}" if kind == "rate" else f"{value:.3f}" if kind == "tv" else f"{value:,.{digits}f}"


def _cell(values: list[float], kind: str) -> str:
    """mean [95% t-interval] of one figure over seeds; kind: "rate" (as %), "tv" (a probability: 3 decimals) or "number"."""
    if not values:
        return ""
    mean, lo, hi = mean_interval(values)
    if kind in ("rate", "tv"):  # a t-interval can leave [0, 1]; these cannot
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    digits = 0 if mean >= 100 or all(float(v).is_integer() for v in values) else 1
    text = _format(mean, kind, digits) + ("%" if kind == "rate" else "")
    if math.isfinite(lo) and hi - lo > 1e-12:
        text += f" [{_format(lo, kind, digits)}, {_format(hi, kind, digits)}]"
    return text


RATES = {
    "strict full",
    "teacher-forced rule tokens",
    "teacher-forced self deaths (argmax)",
    "teacher-forced self deaths (mean P)",
    "spawn mass on empty cells",
    "tier 2: self deaths, argmax right",
    "tier 2: SENSE beside the head, argmax right",
    "tier 2: spawn's column words, argmax right",
    "tier 2: OCC word of the spawn's column, argmax right",
    "tier 2: spawn's listed body, argmax right",
    "tier 2: listed cell, argmax right",
    "tier 2: spawn mass on empty cells given the true words or list",
}
# Figures of one grammar design: a row only where some run has them, so a screen without the design prints as before.
DESIGN_FIGURES = {
    "tier 2: spawn's column words, P (spawn-column design)",
    "tier 2: spawn's column words, argmax right",
    "tier 2: OCC word of the spawn's column, P",
    "tier 2: OCC word of the spawn's column, argmax right",
    "tier 2: spawn's listed body, P (body-list design)",
    "tier 2: spawn's listed body, argmax right",
    "tier 2: listed cell, P",
    "tier 2: listed cell, argmax right",
    "tier 2: spawn mass on empty cells given the true words or list",
}


def table(found: dict[str, dict[str, dict[str, Any]]]) -> str:
    """A markdown table: a row per figure, a column per design (mean over seeds [95% t-interval]; seeds listed)."""
    names = list(found)
    rows = [
        "| over seeds: mean [95% t-interval] | " + " | ".join(names) + " |",
        "| --- |" + " --- |" * len(names),
        "| seeds | " + " | ".join(", ".join(found[n]) for n in names) + " |",
    ]
    first = next(iter(found.values()))
    for figure in next(iter(first.values())):
        cells = []
        for n in names:
            values = [float(f[figure]) for f in found[n].values() if f[figure] is not None]
            kind = "rate" if figure in RATES else "tv" if figure.startswith(("fidelity TV", "tier 2", "body_ahead")) else "number"
            cells.append(_cell(values, kind))
        if figure in DESIGN_FIGURES and not any(cells):
            continue
        rows.append(f"| {figure} | " + " | ".join(cells) + " |")
    per_seed = "; ".join(f"{n}: " + ", ".join(f"{s} {f['strict full'] * 100:.1f}%" for s, f in found[n].items()) for n in names)
    return "\n".join(rows) + f"\n\nstrict full per seed: {per_seed}"


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("screen", type=Path, help="reports/screen-NAME")
    p.add_argument("--analysis", default="analysis", help="each run's tier-2 directory (default: analysis)")
    args = p.parse_args(argv)
    found = designs(args.screen, args.analysis)
    if not found:
        raise SystemExit(f"screen_summary: no finished run (report.json) under {args.screen}")
    print(table(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "screen_summary.py"))
