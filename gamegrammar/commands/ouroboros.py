"""gamegrammar ouroboros: the self-improvement loop (expert iteration on the model's own real games), from one YAML.

    gamegrammar ouroboros --config configs/ouroboros.yaml
    gamegrammar ouroboros --config configs/ouroboros.yaml --generations 8     # continue a run further

Each generation plays real games as the model agent, keeps the best by score, and fine-tunes through
`gamegrammar train fit` on the real corpus plus every kept game so far (see gamegrammar/act/ouroboros.py).
Killed at any point, the same command continues from the last finished generation.
"""

from __future__ import annotations

import argparse
import dataclasses

from gamegrammar.core.errors import GameGrammarError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ouroboros", help="self-improvement: play, keep the best games, fine-tune, repeat (one YAML config)")
    p.add_argument("--config", required=True, help="the loop's YAML (configs/ouroboros.yaml)")
    p.add_argument("--generations", type=int, default=None, help="override: fine-tuned generations after generation 0")
    p.add_argument("--out", default=None, help="override: the run directory")
    p.add_argument("--checkpoint", default=None, help="override: generation 0's checkpoint")
    p.add_argument("--corpus", default=None, help="override: the real corpus")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gamegrammar.act.ouroboros import OuroborosConfig, run_loop
    from gamegrammar.commands import train

    config = OuroborosConfig.from_yaml(args.config)
    overrides = {k: getattr(args, k) for k in ("generations", "out", "checkpoint", "corpus") if getattr(args, k) is not None}
    try:
        config = dataclasses.replace(config, **overrides)
    except TypeError as err:  # pragma: no cover - the flags are the config's fields
        raise GameGrammarError(str(err)) from None
    log = run_loop(config, train.main)
    print(summary_table(log), end="")
    return 0


def summary_table(log: dict) -> str:
    """One line per generation: mean score (with several players, win rate and place too), strict validity and
    fidelity of free samples, novelty."""
    several = any("win" in r["play"] for r in log["generations"])
    head = ["generation", "mean score [95% CI]", *(["win [95% CI]", "place [95% CI]"] if several else [])]
    head += ["strict full [95% CI]", "TV length / score / end", "novel states: games / samples"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in log["generations"]:
        play, measure = r["play"], r["measure"]
        full, fid = measure["strict"]["full"], measure["fidelity"]
        nov = [(measure["novelty"][w] or {}).get("novel_share") for w in ("games", "samples")]
        cells = [str(r["generation"]), _mean(play["score"])]
        if several:
            cells += [_share(play["win"], "share"), _mean(play["place"])]
        cells += [_share(full, "rate"), f"{fid['length_tv']:.3f} / {fid['score_tv']:.3f} / {fid['end_tv']:.3f}"]
        cells.append(" / ".join("n/a" if v is None else f"{100 * v:.1f}%" for v in nov))
        lines.append("| " + " | ".join(cells) + " |")
    base = ", ".join(f"{name} {row['score']['mean']:.2f}" for name, row in log["baselines"].items())
    return "\n".join(lines) + (f"\n\nbaselines on generation 0's episodes: {base}\n" if base else "\n")


def _mean(d: dict) -> str:
    return f"{d['mean']:.2f} [{d['ci95'][0]:.2f}, {d['ci95'][1]:.2f}]"


def _share(d: dict, key: str) -> str:
    return f"{100 * d[key]:.1f}% [{100 * d['ci95'][0]:.1f}, {100 * d['ci95'][1]:.1f}]"
