"""gamegrammar analyze: tier-2 rule emergence, tier-3 archetypes and world-state probes on held-out episodes.

    gamegrammar analyze --ckpt runs/x/checkpoints/last.ckpt --corpus data/corpus --out reports/x [--tiers 2,3] [--probes]
    gamegrammar analyze --ckpt models/snake --corpus data/corpus60k-careless-sense --out reports/x --tiers none --interventions

writes analysis.json (every number, with its sample count), analysis.md and PNG plots
into --out. `gamegrammar evaluate --tiers 1,2,3 [--probes]` runs the same analyses
into its report; both go through `run_analysis`.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from gamegrammar.commands.progress import progress_bar, stage_log
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import check_output_dir
from gamegrammar.interpret.analysis import PROBE_EPOCHS, PROBE_PATIENCE, run_analysis, write_analysis
from gamegrammar.interpret.archetypes import WINDOWS, parse_windows

KEYS = {"2": "tier2", "3": "tier3"}


def parse_tiers(text: str) -> set[str]:
    """'1,2,3' -> {'1', '2', '3'}; anything but 1, 2, 3 is a one-line error."""
    tiers = {t.strip() for t in text.split(",") if t.strip()}
    bad = sorted(tiers - {"1", "2", "3"})
    if bad or not tiers:
        raise GameGrammarError(f"--tiers takes a comma-separated list of 1, 2 and 3, got {text!r}")
    return tiers


def add_analysis_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--analysis-episodes", type=int, default=200, help="held-out episodes for tiers 2-3 and probes (default: %(default)s)")
    p.add_argument("--probe-ticks", type=int, default=0, help="probes: ticks sampled per episode, 0 for every tick (default: %(default)s)")
    p.add_argument("--probe-layers", choices=["final", "all"], default="all", help="probes: probes on every layer or the final one")
    p.add_argument(
        "--probe-epochs", type=int, default=PROBE_EPOCHS, help="probes: the most passes over the training rows (default: %(default)s)"
    )
    p.add_argument(
        "--probe-patience",
        type=int,
        default=PROBE_PATIENCE,
        help="probes: stop this many epochs after the best loss on held-out training episodes; 0 runs every epoch (default: %(default)s)",
    )
    p.add_argument(
        "--probe-min-steps",
        type=int,
        default=300,
        help="probes with --probe-patience 0: at least this many optimiser steps, however few the rows (default: %(default)s)",
    )
    p.add_argument(
        "--interventions",
        action="store_true",
        help="probes, then edit the hidden state along them and check the model's next word against the rules (implies --probes)",
    )
    p.add_argument(
        "--intervention-episodes",
        type=int,
        default=0,
        help="interventions: how many of the episodes the probes held out to edit (half calibrate, half score); "
        "0 takes them all (default: %(default)s)",
    )
    p.add_argument(
        "--tier3-windows",
        type=_windows,
        default=WINDOWS,
        help="tier 3: the numbers of ticks, read from each episode's start, from which the agent is told "
        f"(default: {','.join(map(str, WINDOWS))})",
    )
    p.add_argument(
        "--tier3-pair",
        type=_pair,
        default=None,
        help="tier 3: the two agents of its second task, e.g. greedy,careless (default: the pair the hand-made "
        "statistics tell apart worst over the longest window)",
    )


def _windows(text: str) -> tuple[int, ...]:
    try:
        return parse_windows(text)
    except GameGrammarError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--tier3-windows ")) from None


def _pair(text: str) -> tuple[str, str]:
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    if len(names) != 2 or names[0] == names[1]:
        raise argparse.ArgumentTypeError(f"takes two different agents separated by a comma, got {text!r}")
    return names  # type: ignore[return-value]


def analysis_journal(out: str | Path) -> Path:
    """Where an analysis written to the report folder `out` keeps its finished parts until the report is written."""
    return Path(out) / "analysis.partial"


def analysis_from_args(
    args: argparse.Namespace, loaded: Any, corpus: Any, tiers: set[str], *, command: str, seed: int = 0
) -> dict[str, Any]:
    """run_analysis with the options add_analysis_arguments adds (and --probes): analyze's and evaluate --tiers's.

    The parts are kept in `analysis_journal(args.out)` as they finish: the caller removes it once the report is written.
    """
    return run_analysis(
        loaded,
        corpus,
        tiers,
        args.probes or args.interventions,
        episodes=args.analysis_episodes,
        probe_ticks=args.probe_ticks,
        all_layers=args.probe_layers == "all",
        interventions=args.interventions,
        intervention_episodes=args.intervention_episodes,
        probe_epochs=args.probe_epochs,
        probe_min_steps=args.probe_min_steps,
        probe_patience=args.probe_patience,
        seed=seed,
        tier3_windows=args.tier3_windows,
        tier3_pair=args.tier3_pair,
        log=stage_log(command),
        bar=lambda total, unit, desc: progress_bar(total, unit, desc, args.quiet),
        journal=analysis_journal(args.out),
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help="rule emergence (tier 2), play-style archetypes (tier 3) and world-state probes",
        description="Rule emergence (tier 2), play-style archetypes (tier 3) and world-state probes on held-out episodes. "
        "A killed run carries on from OUT/analysis.partial (its finished parts) when the same command is rerun.",
    )
    p.add_argument("--ckpt", required=True, help="a training checkpoint (.ckpt) or an exported model directory")
    p.add_argument("--corpus", required=True, help="the corpus the model learned from; its held-out (val) episodes are analysed")
    p.add_argument("--out", required=True, help="report directory (analysis.json, analysis.md, plots)")
    p.add_argument(
        "--tiers", default="2,3", help="comma-separated tiers to run: 2 and/or 3, or none (with --probes) (default: %(default)s)"
    )
    p.add_argument("--probes", action="store_true", help="also train world-state probes on the hidden states")
    p.add_argument("--seed", type=int, default=0, help="the seed of the analyses' random splits and clusterings (default: %(default)s)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when available)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_analysis_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gamegrammar.commands.sample import load_model
    from gamegrammar.data.corpus import Corpus

    probes = args.probes or args.interventions
    tiers = set() if args.tiers.strip().lower() == "none" and probes else parse_tiers(args.tiers)
    if "1" in tiers:
        raise GameGrammarError("tier 1 (validity) is `gamegrammar evaluate`; analyze runs tiers 2 and 3")
    check_output_dir(args.out, what="--out", inputs=(args.corpus, args.ckpt))  # before minutes of analysis, not after
    loaded = load_model(args)
    corpus = Corpus(args.corpus)
    analysis = analysis_from_args(args, loaded, corpus, tiers, command="analyze", seed=args.seed)
    model = loaded.model
    analysis = {
        "meta": {
            "name": Path(args.out).name,
            "checkpoint": str(args.ckpt),
            "corpus": str(args.corpus),
            "model": model.describe(),
            "held_out_episodes": min(args.analysis_episodes, len(corpus.split("val"))),
            "seed": args.seed,
        },
        **analysis,
    }
    path = write_analysis(analysis, args.out)
    shutil.rmtree(analysis_journal(args.out), ignore_errors=True)
    _print_summary(analysis)
    print(f"wrote {path}")
    return 0


def _print_summary(analysis: dict[str, Any]) -> None:
    if "tier2" in analysis:
        rules = analysis["tier2"]["emergence"]["rules"]
        print(
            "tier 2 (P of the mandated continuation, events): "
            + ", ".join(f"{r} {e['mean_prob']:.3f} ({e['count']})" for r, e in rules.items())
        )
        cf = analysis["tier2"]["counterfactuals"]["model"]
        print("  counterfactuals: " + ", ".join(f"{k} {v['mean_prob']:.3f} (n={v['count']})" for k, v in cf.items() if v["count"]))
    if "tier3" in analysis:
        for task, entry in analysis["tier3"]["tasks"].items():
            n, w = next(reversed(entry["windows"].items()))
            r = w["readers"]
            print(
                f"tier 3, {task}, first {n} ticks ({w['episodes']} episodes), accuracy: "
                + ", ".join(f"{k} {r[k]['accuracy']:.3f}" for k in ("trained", "untrained", "statistics") if "accuracy" in r[k])
                + f" (majority {w['majority']:.3f})"
            )
    if "probes" in analysis:
        best = analysis["probes"]["best"]
        print(
            "probes (best F1, model / untrained): "
            + ", ".join(
                f"{p} {b['model']['f1']:.3f} / {b['untrained']['f1']:.3f}" for p, b in best.items() if "model" in b and "untrained" in b
            )
        )
        found = analysis["probes"].get("interventions")
        for section in found["sections"] if found and found.get("checked") else []:
            e, at = section["evaluation"]["by_kind"]["all"], section["probe"]
            print(
                f"interventions at {f'offset {at}' if isinstance(at, int) else at}: {e['success']['rate']:.3f} of {e['cases']} "
                f"edits read the edited board (control {e['control_success']['rate']:.3f})"
            )
