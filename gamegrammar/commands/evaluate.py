"""gamegrammar evaluate: sample, validate, measure fidelity, write a report; or validate a token file.

Any registered game: the game comes from the checkpoint or the corpus (or, for a
token file alone, from --game and its config flags), and everything game-specific
(rules, summaries, rule-determined tokens) from its `GameSpec`.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from gamegrammar.commands.analyze import add_analysis_arguments, analysis_from_args, analysis_journal, parse_tiers
from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.commands.progress import stage_log
from gamegrammar.commands.sample import add_sampling_arguments, journal_path, load_model, sample_from_args, sampling_config
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import atomic_write_json, atomic_write_text
from gamegrammar.evaluation.cli_tokens import read_token_file
from gamegrammar.evaluation.validity import summarize, validate_many
from gamegrammar.games import game_of

OUTCOME_EPISODES = 1000  # corpus episodes read for the players' fates (fidelity of a game with several players)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="validity report of model samples (--ckpt) or of a token file (--tokens)",
        description="Validity report of model samples (--ckpt) or of a token file (--tokens). A killed --ckpt run carries on "
        "from OUT/samples.txt.partial and OUT/analysis.partial when the same command is rerun.",
    )
    add_sampling_arguments(p, ckpt_required=False)
    p.add_argument("--tokens", default=None, help="validate this text file (one sequence per line) instead of sampling")
    p.add_argument("--json", default=None, help="with --tokens: write per-line verdicts to this JSON file")
    p.add_argument("--overwrite", action="store_true", help="with --json: replace the file if it exists")
    p.add_argument("--corpus", default=None, help="the corpus the model learned from: fidelity, and the game config")
    add_game_arguments(p, what="with --tokens and no --corpus")
    p.add_argument("--teacher-episodes", type=int, default=200, help="held-out episodes for the teacher-forced check")
    p.add_argument(
        "--moves-corpus",
        nargs="+",
        default=None,
        metavar="CORPUS",
        help="held-out games of these corpora (default: --corpus) for the move measures of a game that lists its legal "
        "moves: legal-move rate, exact captures, result (Go)",
    )
    p.add_argument("--move-positions", type=int, default=1000, help="moves scored per --moves-corpus (default: %(default)s)")
    p.add_argument(
        "--move-episodes", type=int, default=500, help="held-out episodes per --moves-corpus for the exact groups (default: %(default)s)"
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="REPORT_DIR",
        help="report directory (report.json, report.md, plots): required with --ckpt; with --tokens, optional (the summary is printed)",
    )
    p.add_argument(
        "--table", nargs="+", default=None, metavar="REPORT_DIR", help="print a markdown results table of these reports and stop"
    )
    p.add_argument("--tiers", default="1", help="with --ckpt and --corpus: 1,2,3 adds rule emergence (2) and archetypes (3)")
    p.add_argument("--probes", action="store_true", help="with --ckpt and --corpus: add world-state probes of the hidden states")
    add_analysis_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.table:
        return print_table(args.table)
    if (args.ckpt is None) == (args.tokens is None):
        raise GameGrammarError("give either --ckpt (sample and evaluate a model) or --tokens FILE (validate sequences)")
    _check_outputs(args)
    return run_tokens(args) if args.tokens else run_model(args)


def print_table(dirs: list[str]) -> int:
    import json

    from gamegrammar.evaluation.report import results_row, results_table

    reports = {}
    for d in dirs:
        path = Path(d) / "report.json"
        if not path.exists():
            raise GameGrammarError(f"{path} does not exist: run `gamegrammar evaluate ... --out {d}` first")
        try:
            report = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise GameGrammarError(f"{path} is not valid JSON ({err}): rerun `gamegrammar evaluate ... --out {d}`") from None
        try:
            results_row(report)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as err:
            raise GameGrammarError(f"{path} is not a report of `gamegrammar evaluate` (no {err}): rerun it with --out {d}") from None
        reports[Path(d).name] = report
    print(results_table(reports), end="")
    return 0


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, outputs that cannot be written or would replace an input or a user's file."""
    from gamegrammar.core.io import check_output_dir, check_output_file

    inputs = (args.tokens, args.corpus, args.ckpt, args.prompt_corpus)
    if args.json:
        check_output_file(args.json, what="--json", overwrite=args.overwrite, inputs=inputs)
    if args.out:
        check_output_dir(args.out, what="--out", inputs=inputs)


def _open_corpus(path: str | None) -> Any:
    if path is None:
        return None
    from gamegrammar.data.corpus import Corpus

    return Corpus(path)


def _print_summary(summary: dict) -> None:
    n = summary["sequences"]
    print(f"{n} sequences")
    for group in ("tiers", "lenient"):
        cells = []
        for tier, e in summary[group].items():
            lo, hi = e["ci95"]
            if e["rate"] is None:
                cells.append(f"{tier} not checked")
                continue
            unchecked = f" ({e['not_checked']} not checked)" if e.get("not_checked") else ""
            cells.append(f"{tier} {100 * e['rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]{unchecked}")
        print(f"  {'strict' if group == 'tiers' else 'lenient':<8}" + "  ".join(cells))
    broken = {r: e["violated"] for r, e in summary["rules"].items() if e["violated"]}
    if broken:
        print("  violations: " + ", ".join(f"{r} {k}" for r, k in sorted(broken.items(), key=lambda kv: -kv[1])))


def run_tokens(args: argparse.Namespace) -> int:
    from gamegrammar.evaluation.report import describe_game

    corpus = _open_corpus(args.corpus)
    config = game_config(args, corpus.game if corpus is not None else None)
    lines = read_token_file(args.tokens, config)
    codec = corpus.codec if corpus is not None else None
    verdicts = validate_many([tokens for _, tokens in lines], config, codec)
    summary = summarize(verdicts, game_of(config).rules_for(codec))
    _print_summary(summary)
    if args.json:
        atomic_write_json(args.json, [{"line": number, **v.to_json()} for (number, _), v in zip(lines, verdicts)])
        print(f"wrote per-line verdicts to {args.json}")
    if args.out:
        from gamegrammar.evaluation.report import write_report

        report = {
            "meta": {"name": Path(args.out).name, "tokens": args.tokens, "board": describe_game(config, ticks=False)},
            "validity": summary,
        }
        if corpus is not None:
            report["fidelity"] = _fidelity(corpus, [tokens for _, tokens in lines])
            report["novelty"] = _novelty(corpus, [tokens for _, tokens in lines])
            _print_novelty(report["novelty"])
        print(f"wrote {write_report(report, args.out)}")
    return 0


def _fidelity(corpus: Any, sequences: list[list[str]]) -> dict:
    from gamegrammar.evaluation.fidelity import compare_distributions, summarize_episodes

    index, config = corpus.index, corpus.game
    summaries = summarize_episodes(sequences, config)
    players = []  # the players' fates are not in the index: read them off corpus episodes, evenly spaced
    if corpus.game_spec.outcome_labels:
        rows = np.unique(np.linspace(0, len(corpus) - 1, min(len(corpus), OUTCOME_EPISODES)).astype(np.int64))
        players = summarize_episodes([corpus.episode_tokens(int(r)) for r in rows], config)
    return compare_distributions(summaries, index["ticks"], index["score"], index["end"], config, players)


def _novelty(corpus: Any, sequences: list[list[str]]) -> dict:
    """The share of the sequences' states that the training corpus never reaches (Zobrist keys, gamegrammar.data.novelty)."""
    from gamegrammar.data.novelty import corpus_states, novelty

    cache = Path(corpus.path) / "states-train.npz"
    if not cache.exists():  # once per corpus: every training episode replayed, then cached beside it
        stage_log("evaluate")(
            f"novelty: replaying the training corpus's {len(corpus.split('train')):,} episodes for their states (once: kept in {cache})"
        )
    known = corpus_states(corpus, "train")
    corpus_facts = {"split": "train", "episodes": known.episodes, "states": known.states, "distinct": len(known.keys)}
    return {**novelty(sequences, known.keys, corpus.game), "corpus": corpus_facts}


def _print_novelty(result: dict) -> None:
    print(
        f"  novelty: {100 * result['novel_share']:.1f}% of {result['states']} states "
        f"({100 * result['novel_distinct_share']:.1f}% of {result['distinct']} distinct) never occur in the training corpus"
    )


def run_model(args: argparse.Namespace) -> int:
    from gamegrammar.evaluation.fidelity import teacher_forced
    from gamegrammar.evaluation.report import describe_game, write_report
    from gamegrammar.model.sampling import SamplingStats

    if args.out is None:
        raise GameGrammarError("--out REPORT_DIR is required with --ckpt")
    tiers = parse_tiers(args.tiers)
    analysis = bool(tiers - {"1"}) or args.probes or args.interventions
    if analysis and args.corpus is None:
        raise GameGrammarError("--tiers 2,3 and --probes analyse held-out episodes: give --corpus")
    loaded = load_model(args)
    corpus = _open_corpus(args.corpus)
    if corpus is not None:
        corpus.check_model(loaded)
    config = corpus.game if corpus is not None else loaded.game
    stats = SamplingStats()
    max_length = sampling_config(args, loaded.model.config.block_size, loaded.longest_episode).max_length
    journal = journal_path(Path(args.out) / "samples.txt")
    sequences, precision, drafted = sample_from_args(args, loaded, stats, journal)
    start = time.perf_counter()
    verdicts = validate_many(sequences, config, loaded.codec)  # held to the design it was trained on
    validate_seconds = time.perf_counter() - start
    game = game_of(config)
    summary = summarize(verdicts, game.rules_for(loaded.codec))
    _print_summary(summary)
    model = loaded.model
    report = {
        "meta": {
            "name": Path(args.out).name,
            "checkpoint": str(args.ckpt),
            "corpus": str(args.corpus),
            "board": describe_game(config),
            "model": model.describe(),
            "samples": len(sequences),
            "prompt": "BOS" if args.prompt_corpus is None else f"held-out prefixes of {args.prompt_ticks} ticks",
            "max_length": max_length,  # tokens per sample at most: episodes longer than this are cut off
            "temperature": args.temperature,
            "top_k": args.top_k,
            "top_p": args.top_p,
            "seed": args.seed,
        },
        "validity": summary,
        "sampling": {
            "device": str(next(model.parameters()).device),
            "dtype": str(precision),
            "generated_tokens": stats.generated_tokens,
            "seconds": round(stats.seconds, 2),
            "tokens_per_second": round(stats.tokens_per_second),
            "window_slides": stats.slides,
            "draft": "rules" if drafted else "none",  # speculative sampling (--draft): passes, proposed and kept tokens
            "forward_passes": stats.passes,
            "proposed_tokens": stats.proposed,
            "kept_tokens": stats.accepted,
            "validation_sequences_per_second": round(len(sequences) / validate_seconds) if validate_seconds else None,
        },
    }
    if corpus is not None:
        report["fidelity"] = _fidelity(corpus, sequences)
        report["novelty"] = _novelty(corpus, sequences)
        rows = corpus.split("val")[: args.teacher_episodes]
        if len(rows):
            report["teacher_forced"] = teacher_forced(
                model, [corpus.episode_ids(int(r)) for r in rows], [corpus.episode_tokens(int(r)) for r in rows], game
            )
    moves = _move_measures(args, loaded, corpus, game, config)
    if moves:
        report["moves"] = moves
        _print_moves(moves)
    if analysis:  # tiers 2-3 and probes (gamegrammar.commands.analyze)
        report |= analysis_from_args(args, loaded, corpus, tiers, command="evaluate")
    path = write_report(report, args.out)
    _print_fidelity(report)
    if "novelty" in report:
        _print_novelty(report["novelty"])
    atomic_write_text(Path(args.out) / "samples.txt", "".join(" ".join(s) + "\n" for s in sequences))
    journal.unlink(missing_ok=True)
    shutil.rmtree(analysis_journal(args.out), ignore_errors=True)
    print(f"wrote {path}")
    return 0


def _move_measures(args: argparse.Namespace, loaded: Any, corpus: Any, game: Any, config: Any) -> dict:
    """The move measures (`evaluation.moves`) on each held-out corpus, keyed by its path as given; {} where the game
    does not list its legal moves or no corpus is given."""
    from gamegrammar.evaluation.moves import move_measures

    paths = args.moves_corpus or ([args.corpus] if args.corpus else [])
    if not paths or "moves" not in game.capabilities:
        return {}
    if args.move_positions < 1 or args.move_episodes < 1:
        raise GameGrammarError("--move-positions and --move-episodes must be at least 1")
    out = {}
    for path in paths:
        held = corpus if corpus is not None and str(path) == str(args.corpus) else _open_corpus(path)
        held.check_model(loaded)
        if held.game != config:
            raise GameGrammarError(f"--moves-corpus {path} is of another game config ({held.game}) than the model's ({config})")
        rows = held.split("val")[: args.move_episodes]
        if not len(rows):
            raise GameGrammarError(f"--moves-corpus {path} holds no held-out (val) episodes")
        out[str(path)] = move_measures(
            loaded.model,
            [held.episode_ids(int(r)) for r in rows],
            [held.episode_tokens(int(r)) for r in rows],
            game,
            config,
            loaded.tokenizer.tokens,
            positions=args.move_positions,
        )
    return out


def _print_moves(moves: dict) -> None:
    for name, m in moves.items():
        lm, lo_hi = m["legal_move"], m["legal_move"]["ci95"]
        cells = [f"legal move {100 * lm['rate']:.2f}% [{100 * lo_hi[0]:.2f}, {100 * lo_hi[1]:.2f}] of {lm['count']}"]
        cells += [f"{g} exact {100 * e['rate']:.2f}% of {e['count']}" for g, e in m["exact"].items() if e["count"]]
        if m["result"]["count"]:
            cells.append(f"result {100 * m['result']['rate']:.2f}% of {m['result']['count']}")
        print(f"  moves ({name}): " + ", ".join(cells))


def _print_fidelity(report: dict) -> None:
    dist, teacher = report.get("fidelity"), report.get("teacher_forced")
    if dist:
        print(
            f"  fidelity TV: length {dist['length_ticks']['tv']:.3f}, score {dist['score']['tv']:.3f}, end reason {dist['end_reason']['tv']:.3f}"
            + (f", players' fates {dist['outcomes']['tv']:.3f}" if "outcomes" in dist else "")
        )
    if teacher:
        print(f"  teacher-forced rule tokens: {100 * teacher['accuracy']:.2f}% argmax accuracy on {teacher['positions']} tokens")
