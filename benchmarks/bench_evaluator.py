"""Strict evaluator throughput: sequences/s on full corpus episodes, every rule checked.

Run from the repository root:
  python -m benchmarks.bench_evaluator  [--game NAME] [--quick] [--episodes N] [--corpus PATH] [--json PATH]
  python -m benchmarks.bench_evaluator  --game NAME --agreement N   (no timing: the agreement check below)

The sequences are whole episodes of the game's default corpus (Snake: 10x10, 200
ticks; Battlesnake: 4 snakes on 11x11, 300 ticks; the default agent mix,
keyframe_interval 0), 10,000 of them for Snake (the "10k rollouts" an evaluation
of model samples validates; Battlesnake's are ~5x longer: 2,000), generated into
a temporary directory unless --corpus names one. Each figure is the best of --repeats passes (the
machine is shared, so the best pass is the least disturbed one), timed both by
the wall clock and by this process's CPU time. Rows:

  validate_many ids     the fast path (`games.snake.fast`, `games.battlesnake.fast`: all sequences replayed at once) on token ids,
                        as the sampler and the corpus hold them; verdicts checked equal to the reference's
  validate_many tokens  the same on token strings (each looked up in the vocabulary first)
  validate              the reference, one sequence at a time (timed on the first 2,000: its cost per
                        sequence does not depend on how many there are)
  decode only           the game's parser alone, reading the events back (same 2,000), to tell the grammar's share from the replay's
  cut at 64             validate_many on the episodes cut to their first 64 token ids (what a
                        64-token context samples: answered by the fast path as valid prefixes)

Then a scaling table: validate_many's throughput against the number of
sequences per call (NumPy's per-call cost is paid once per tick of a call, so
small calls are slower per sequence). Ratios are against the reference on the
same sequences; the original pure-Python checker's ~1.2k sequences/s (DESIGN.md;
Snake only) is quoted beside them, not divided by: it was measured elsewhere. A game without a fast
path (the base GameSpec's validate_many) answers one sequence at a time: its rows show
the reference's speed on ids and tokens. The load average is printed,
because other work on a shared machine slows every figure.

--agreement N times nothing: for the game's default codec and each of its boolean grammar options turned on
alone (its designs: Battlesnake's tails, Snake's sense, ...), it generates N episodes (keyframe interval 20, seed
7) and checks that validate_many gives, on their token ids, exactly the verdicts of the reference `validate`, both
with the design declared; it prints how many sequences took the fast path and how many agreed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.verdict import rule_names
from gamegrammar.data.corpus import Corpus, CorpusSpec, engines, generate
from gamegrammar.evaluation import validate, validate_many
from gamegrammar.evaluation.report import describe_game
from gamegrammar.games import DEFAULT_GAME, game_of, load_game

ORIGINAL_SEQUENCES_PER_S = 1_200
REFERENCE_SEQUENCES = 2_000
EPISODES = {"battlesnake": 2_000}  # default episodes per game (else 10,000)


def best_of(repeats: int, work: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the fastest of `repeats` runs of work()."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def load_sequences(
    corpus_path: str | None, episodes: int, game_name: str = DEFAULT_GAME
) -> tuple[Corpus, list[list[str]], list[np.ndarray], tempfile.TemporaryDirectory | None]:
    tmp = None
    if corpus_path is None:
        tmp = tempfile.TemporaryDirectory()
        corpus_path = str(Path(tmp.name) / "corpus")
        engine = "batch" if "batch" in engines() else "scalar"  # the corpus does not depend on the engine
        generate(CorpusSpec(game=load_game(game_name).make_config(), episodes=episodes), corpus_path, engine=engine)
    corpus = Corpus(corpus_path)
    rows = range(min(episodes, len(corpus)))
    return corpus, [corpus.episode_tokens(row) for row in rows], [corpus.episode_ids(row) for row in rows], tmp


def agreement(game_name: str, episodes: int) -> None:
    """validate_many against validate on `episodes` generated episodes of each design (see the module's doc)."""
    game = load_game(game_name)
    config = game.make_config()
    base = game.codec_type(keyframe_interval=20)
    options = [f.name for f in dataclasses.fields(base) if isinstance(getattr(base, f.name), bool)]
    for option in ["", *options]:
        codec = dataclasses.replace(base, **{option: True}) if option else base
        with tempfile.TemporaryDirectory() as tmp:
            engine = "batch" if "batch" in engines() else "scalar"
            generate(CorpusSpec(game=config, codec=codec, episodes=episodes, seed=7), f"{tmp}/corpus", engine=engine)
            corpus = Corpus(f"{tmp}/corpus")
            ids = [corpus.episode_ids(row) for row in range(len(corpus))]
            sequences = [corpus.episode_tokens(row) for row in range(len(corpus))]
        start = time.perf_counter()
        fast = validate_many(ids, config, codec)
        fast_s = time.perf_counter() - start
        start = time.perf_counter()
        want = [validate(s, config, codec) for s in sequences]
        reference_s = time.perf_counter() - start
        same = sum(g == w for g, w in zip(fast, want))
        valid = sum(w.valid for w in want)
        print(
            f"{game.name} {describe_game(config)}, design {option or 'default'} (keyframe_interval 20): {len(ids)} episodes, "
            f"{valid} valid; validate_many agrees with validate on {same} of {len(ids)} "
            f"({fast_s:.1f} s against {reference_s:.1f} s)"
        )
        if same != len(ids) or valid != len(ids):
            raise SystemExit("validate_many and validate disagree, or a corpus episode is invalid")


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_evaluator", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help="the game of the generated corpus (default snake)")
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--episodes", type=int, default=None, help="sequences to validate (default 10000, Battlesnake 2000; quick 300)")
    parser.add_argument("--repeats", type=int, default=None, help="timed passes; the best counts (default 3, quick 1)")
    parser.add_argument("--corpus", default=None, help="an existing corpus to read episodes from (default: generate one)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--agreement", type=int, default=None, metavar="N", help="only check verdicts on N episodes per design")
    args = parser.parse_args()
    if args.agreement is not None:
        agreement(args.game, args.agreement)
        return
    episodes = args.episodes or (300 if args.quick else EPISODES.get(args.game, 10_000))
    repeats = args.repeats or (1 if args.quick else 3)

    corpus, sequences, ids, tmp = load_sequences(args.corpus, episodes, args.game)
    config = corpus.game
    n = len(sequences)
    tokens = sum(map(len, sequences))
    game = game_of(config)
    print(f"strict evaluator, {game.name} {describe_game(config)}, agents {corpus.spec.agents}, ", end="")
    print(f"keyframe_interval {corpus.codec.keyframe_interval}; {os.cpu_count()} CPUs")
    ticks = sum(s.count(game.tick_token) for s in sequences)
    print(
        f"{n} episodes, {tokens} tokens ({tokens / n:.0f} per episode, {ticks / n:.0f} ticks), {len(rule_names(game.rules))} rules checked"
    )

    verdicts = [validate(s, config) for s in sequences]
    invalid = sum(not v.valid for v in verdicts)
    if invalid:
        raise SystemExit(f"{invalid} corpus episodes were judged invalid: the evaluator or the corpus is wrong")

    for fast in (validate_many(sequences, config), validate_many(ids, config)):
        if [(v.to_json(), v.positions) for v in fast] != [(v.to_json(), v.positions) for v in verdicts]:
            raise SystemExit("validate_many and validate disagree: the fast path is wrong")
    cut = [s[:64] for s in ids]
    if [v.to_json() for v in validate_many(cut, config)] != [validate(s[:64], config).to_json() for s in sequences]:
        raise SystemExit("validate_many and validate disagree on cut-off episodes: the fast path is wrong")

    load = os.getloadavg()
    few = sequences[:REFERENCE_SEQUENCES]
    rows = {  # (sequences, tokens, wall, cpu)
        "validate_many ids": (n, tokens, *best_of(repeats, lambda: validate_many(ids, config))),
        "validate_many tokens": (n, tokens, *best_of(repeats, lambda: validate_many(sequences, config))),
        "validate": (len(few), sum(map(len, few)), *best_of(repeats, lambda: [validate(s, config) for s in few])),
        # keep nothing alive
        "decode only": (len(few), sum(map(len, few)), *best_of(repeats, lambda: deque(map(game.decode_events, few), maxlen=0))),
        "cut at 64": (n, sum(map(len, cut)), *best_of(repeats, lambda: validate_many(cut, config))),
    }
    print(f"load average before timing: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    print(f"\n{'':<22}{'seqs':>7}{'wall s':>8}{'seq/s':>10}{'tokens/s':>12}{'cpu seq/s':>11}{'x reference':>12}")
    figures: dict = {"episodes": n, "tokens": tokens, "ticks": ticks, "repeats": repeats, "cpus": os.cpu_count(), "load": load}
    reference = rows["validate"][0] / rows["validate"][2]
    for name, (count, counted, wall, cpu) in rows.items():
        rate = count / wall
        print(f"{name:<22}{count:>7}{wall:>8.3f}{rate:>10,.0f}{counted / wall:>12,.0f}{count / cpu:>11,.0f}", end="")
        print(f"{rate / reference:>12.1f}")
        key = name.replace(" ", "_")
        figures[key] = {
            "sequences": count,
            "wall_s": wall,
            "cpu_s": cpu,
            "seq_per_s": rate,
            "cpu_seq_per_s": count / cpu,
            "tokens_per_s": counted / wall,
        }
    figures["vs_reference"] = figures["validate_many_ids"]["seq_per_s"] / reference
    print(f"\nall {n} episodes valid, identical verdicts", end="")
    print(
        f"; the original checker, as the design notes quote it (another machine; not measured here): ~{ORIGINAL_SEQUENCES_PER_S:,} seq/s"
        if game.name == "snake"
        else ""
    )

    print(f"\nvalidate_many scaling on ids (best of {repeats}; one call over the first k episodes)")
    print(f"{'per call':>10}{'wall ms':>10}{'seq/s':>10}{'cpu seq/s':>11}")
    figures["scaling"] = {}
    for k in (1, 10, 100, 1000, 2000, 5000, 10_000, 20_000):
        if k > n:
            break
        part = ids[:k]
        wall, cpu = best_of(repeats, lambda part=part: validate_many(part, config))
        print(f"{k:>10}{1000 * wall:>10.1f}{k / wall:>10,.0f}{k / cpu:>11,.0f}")
        figures["scaling"][k] = {"wall_s": wall, "cpu_s": cpu, "seq_per_s": k / wall}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_evaluator"))
