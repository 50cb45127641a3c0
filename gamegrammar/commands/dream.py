"""gamegrammar dream: the model as the simulator. A scripted agent plays inside the model's world.

Each dream starts from the real start of episode e of --seed (e = 0 .. --games - 1), the agent's inputs are
forced into the sequence and the model writes every outcome (`gamegrammar.act.dream`). The report gives the
per-tick agreement with the real rules, the horizon (ticks until the first broken rule, a survival curve),
the agent's length/score/end distributions in its dreams against its real games from the same starts, the
strict evaluator on whole dreams and, with --corpus, the novelty of the dreamed states.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from gamegrammar.commands.sample import add_decoding_arguments, add_dtype_argument
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import atomic_write_text, check_output_dir

NOVELTY_EPISODES = 5000  # training episodes whose states novelty compares with, by default


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dream", help="dream games: a scripted agent chooses the inputs, the model writes every outcome")
    p.add_argument("--ckpt", required=True, help="a training checkpoint (.ckpt) or an exported model directory")
    p.add_argument("--corpus", default=None, help="the training corpus: the novelty of dreamed states (its vocabulary must be the model's)")
    p.add_argument(
        "--agent", default="greedy", help="the scripted agent (several players: one name for all, or one per player, comma-separated)"
    )
    p.add_argument("--games", type=int, default=200, help="dreams, one per real start (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="the real games' seed and the sampler's")
    add_decoding_arguments(p)
    p.add_argument("--max-ticks", type=int, default=None, help="cut every dream (and real game) after this many ticks")
    p.add_argument("--max-length", type=int, default=None, help="tokens per dream at most (default: as `sample`)")
    p.add_argument("--no-grammar-mask", action="store_true", help="let the model write tokens the grammar forbids")
    p.add_argument("--batch-size", type=int, default=256, help="dreams written at once (default: %(default)s)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when available)")
    add_dtype_argument(p)
    p.add_argument("--novelty-episodes", type=int, default=NOVELTY_EPISODES, help="training episodes novelty reads (0: all)")
    p.add_argument("--out", default=None, help="report directory: report.json, report.md, survival.png, dreams.txt")
    p.set_defaults(run=run)


def _check_args(args: argparse.Namespace) -> None:
    if args.games < 1:
        raise GameGrammarError(f"--games must be at least 1, got {args.games}")
    if args.max_ticks is not None and args.max_ticks < 1:
        raise GameGrammarError(f"--max-ticks must be at least 1, got {args.max_ticks}")
    if args.novelty_episodes < 0:
        raise GameGrammarError(f"--novelty-episodes must be >= 0, got {args.novelty_episodes}")
    if args.out:
        check_output_dir(args.out, what="--out", inputs=(args.ckpt, args.corpus))


def run(args: argparse.Namespace) -> int:
    from gamegrammar.commands.sample import default_max_length, device_of, generation_precision
    from gamegrammar.model.precision import cast_for_generation
    from gamegrammar.model.sampling import SamplingConfig

    _check_args(args)
    SamplingConfig(args.temperature, args.top_k, None, 2, args.batch_size, args.seed)  # bad settings fail before any work
    device = device_of(args.device)
    from gamegrammar.training.checkpoint import load_checkpoint

    loaded = load_checkpoint(args.ckpt, map_location=device)
    corpus = _open_corpus(args.corpus, loaded)
    loaded.game_spec.input_policy(args.agent, loaded.game)  # an unknown agent fails now, in one line
    precision = generation_precision(args, loaded.model)
    cast_for_generation(loaded.model, precision)  # the model only generates here: cast in place
    max_length = args.max_length or default_max_length(loaded.model.config.block_size, loaded.longest_episode)
    sampling = SamplingConfig(
        args.temperature, args.top_k, None, max_length, args.batch_size, args.seed, constrained=not args.no_grammar_mask
    )
    report, dreams = build_report(args, loaded, corpus, sampling)
    report["timing"]["dtype"] = str(precision)
    _print(report)
    if args.out:
        from gamegrammar.evaluation.dream_report import write_report

        path = write_report(report, args.out)
        atomic_write_text(Path(args.out) / "dreams.txt", "".join(" ".join(d.tokens) + "\n" for d in dreams))
        print(f"wrote {path}")
    return 0


def _open_corpus(path: str | None, loaded: Any) -> Any:
    if path is None:
        return None
    from gamegrammar.data.corpus import Corpus

    corpus = Corpus(path)
    corpus.check_model(loaded)
    return corpus


def build_report(args: argparse.Namespace, loaded: Any, corpus: Any, sampling: Any) -> tuple[dict, list]:
    """Play the real games, dream from their starts, measure; the report dict and the dreams."""
    from gamegrammar.act.dream import DreamStats, dream, measure, novelty_report, real_games, start_of
    from gamegrammar.evaluation.report import describe_game

    game, config, codec = loaded.game_spec, loaded.game, loaded.codec
    episodes = range(args.games)
    began = time.perf_counter()
    records = real_games(game, config, codec, args.agent, args.seed, episodes)
    real_seconds = time.perf_counter() - began
    starts = [start_of(game, r, args.seed, e) for e, r in zip(episodes, records)]
    policies = [game.input_policy(args.agent, config) for _ in starts]
    stats = DreamStats()
    dreams = dream(loaded.model, loaded.tokenizer, game, config, codec, starts, policies, sampling, args.max_ticks, stats)
    began = time.perf_counter()
    report: dict[str, Any] = {
        "meta": {
            "name": Path(args.out).name if args.out else "dream",
            "game": game.name,
            "checkpoint": str(args.ckpt),
            "corpus": str(args.corpus),
            "board": describe_game(config),
            "model": loaded.model.describe(),
            "agent": args.agent,
            "starts": f"episodes 0..{args.games - 1} of seed {args.seed} (the real games' starts)",
            "temperature": args.temperature,
            "top_k": args.top_k,
            "grammar_mask": sampling.constrained,
            "max_length": sampling.max_length,
            "max_ticks": args.max_ticks,
            "seed": args.seed,
        },
        **measure(game, config, dreams, records, args.max_ticks, codec),
    }
    measure_seconds = time.perf_counter() - began
    novelty_seconds = None
    if corpus is not None:
        began = time.perf_counter()
        report["novelty"] = novelty_report(dreams, records, corpus, config, args.novelty_episodes or None)
        novelty_seconds = round(time.perf_counter() - began, 2)
    report["timing"] = {
        "device": str(next(loaded.model.parameters()).device),
        "real_games_seconds": round(real_seconds, 2),
        "dream_seconds": round(stats.seconds, 2),
        "generated_tokens": stats.generated_tokens,
        "forced_inputs": stats.forced_inputs,
        "tokens_per_second": round(stats.tokens_per_second),
        "window_slides": stats.slides,
        "measure_seconds": round(measure_seconds, 2),
        "novelty_seconds": novelty_seconds,
    }
    return report, dreams


def _print(report: dict) -> None:
    from gamegrammar.evaluation.dream_report import ticks

    d, a, h, f = report["dreams"], report["agreement"], report["horizon"], report["fidelity"]
    stops = ", ".join(f"{k} {v}" for k, v in d["stops"].items() if v)
    print(f"{d['n']} dreams, {d['mean_ticks']:.1f} ticks on average (stopped: {stops})")
    rate = "n/a" if a["rate"] is None else f"{100 * a['rate']:.1f}%"
    print(f"  per-tick agreement with the rules: {rate} of {a['ticks']} ticks")
    median = "not reached" if h["median"] is None else ticks(h["median"])
    print(f"  horizon: median {median}; {h['unbroken_dreams']['n']} of {h['runs']} dreams broke no rule")
    print(
        f"  dream vs real game TV: length {f['length_ticks']['tv']:.3f}, score {f['score']['tv']:.3f}, end {f['end_reason']['tv']:.3f}"
        f" (mean length {f['length_ticks']['sample_mean']:.1f} vs {f['length_ticks']['corpus_mean']:.1f})"
    )
    novelty = report.get("novelty")
    if novelty:
        print(
            f"  novel states: dreams {100 * novelty['dreams']['novel_share']:.1f}%,"
            f" real games {100 * novelty['real_games']['novel_share']:.1f}%"
        )
