"""Strict evaluator throughput: sequences/s on full corpus episodes, every rule checked.

Run from the repository root:  python -m benchmarks.bench_evaluator  [--quick] [--episodes N] [--corpus PATH] [--json PATH]

The sequences are whole episodes of a default corpus (10x10, 200 ticks, the
default agent mix, keyframe_interval 0), generated into a temporary directory
unless --corpus names one. Each figure is the best of --repeats passes over all
of them (the machine is shared, so the best pass is the least disturbed one),
timed both by the wall clock and by this process's CPU time. Also shown: the
parser alone, to tell the grammar's share from the replay's. The ratio is
against the original pure-Python checker's ~1.2k sequences/s on a 2-core
machine (DESIGN.md).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from gamegrammar.codec import parse
from gamegrammar.corpus import Corpus, CorpusSpec, engines, generate
from gamegrammar.evaluation import RULE_NAMES, validate

ORIGINAL_SEQUENCES_PER_S = 1_200


def best_of(repeats: int, work: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the fastest of `repeats` runs of work()."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def load_sequences(corpus_path: str | None, episodes: int) -> tuple[Corpus, list[list[str]], tempfile.TemporaryDirectory | None]:
    tmp = None
    if corpus_path is None:
        tmp = tempfile.TemporaryDirectory()
        corpus_path = str(Path(tmp.name) / "corpus")
        engine = "batch" if "batch" in engines() else "scalar"  # the corpus does not depend on the engine
        generate(CorpusSpec(episodes=episodes), corpus_path, engine=engine)
    corpus = Corpus(corpus_path)
    rows = range(min(episodes, len(corpus)))
    return corpus, [corpus.episode_tokens(row) for row in rows], tmp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--episodes", type=int, default=None, help="sequences to validate (default 2000, quick 300)")
    parser.add_argument("--repeats", type=int, default=None, help="timed passes; the best counts (default 3, quick 1)")
    parser.add_argument("--corpus", default=None, help="an existing corpus to read episodes from (default: generate one)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    episodes = args.episodes or (300 if args.quick else 2000)
    repeats = args.repeats or (1 if args.quick else 3)

    corpus, sequences, tmp = load_sequences(args.corpus, episodes)
    config = corpus.game
    n = len(sequences)
    tokens = sum(map(len, sequences))
    ticks = sum(s.count("TICK") for s in sequences)
    print(f"strict evaluator, {config.width}x{config.height}, {config.max_ticks} ticks, agents {corpus.spec.agents}, ", end="")
    print(f"keyframe_interval {corpus.codec.keyframe_interval}; {os.cpu_count()} CPUs")
    print(f"{n} episodes, {tokens} tokens ({tokens / n:.0f} per episode, {ticks / n:.0f} ticks), {len(RULE_NAMES)} rules checked")

    verdicts = [validate(s, config) for s in sequences]
    invalid = sum(not v.valid for v in verdicts)
    if invalid:
        raise SystemExit(f"{invalid} corpus episodes were judged invalid: the evaluator or the corpus is wrong")

    rows = {
        "validate": best_of(repeats, lambda: [validate(s, config) for s in sequences]),
        "parse only": best_of(repeats, lambda: [deque(parse(s, to_eos=True), maxlen=0) for s in sequences]),  # keep nothing alive
    }
    print(f"\n{'':<12}{'wall s':>8}{'seq/s':>10}{'tokens/s':>12}{'ticks/s':>11}{'cpu seq/s':>11}{'x original':>12}")
    figures = {"episodes": n, "tokens": tokens, "ticks": ticks, "repeats": repeats, "cpus": os.cpu_count()}
    for name, (wall, cpu) in rows.items():
        rate = n / wall
        print(f"{name:<12}{wall:>8.2f}{rate:>10,.0f}{tokens / wall:>12,.0f}{ticks / wall:>11,.0f}{n / cpu:>11,.0f}", end="")
        print(f"{rate / ORIGINAL_SEQUENCES_PER_S:>12.2f}")
        key = name.replace(" ", "_")
        figures[key] = {"wall_s": wall, "cpu_s": cpu, "seq_per_s": rate, "cpu_seq_per_s": n / cpu, "tokens_per_s": tokens / wall}
    figures["vs_original"] = figures["validate"]["seq_per_s"] / ORIGINAL_SEQUENCES_PER_S
    print(f"\nall {n} episodes valid; original checker ~{ORIGINAL_SEQUENCES_PER_S:,} seq/s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
