"""Corpus generation throughput: scalar vs batch engine, 1 and 2 workers, and how it scales.

Run from the repository root:  python -m benchmarks.bench_generate  [--game NAME] [--quick] [--json PATH]

Every figure is end to end through `gamegrammar.data.corpus.generate` (simulation,
tokens, index, atomic shard files, manifest), except the batch-size table, which
times `batch_shard` alone. Ratios are against the scalar engine measured in
the same run; for Snake the original pure-Python generator's ~400k tokens/s (DESIGN.md)
is quoted, not divided by: it was measured on another machine. Timings depend on what else the machine is doing:
compare figures from one run.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.data.corpus import CorpusSpec, batch_shard, generate
from gamegrammar.evaluation.report import describe_game
from gamegrammar.games import DEFAULT_GAME, load_game

ORIGINAL_TOKENS_PER_S = 400_000
SCALE = {"battlesnake": 4, "go": 8}  # Battlesnake's default episodes are ~5x Snake's in tokens: a quarter as many; Go's
# 9x9 games are ~110 moves of every point's legality (superko included): an eighth as many


def timed_generate(spec: CorpusSpec, engine: str, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        manifest = generate(spec, Path(tmp) / "corpus", engine=engine, workers=workers)
        seconds = time.perf_counter() - start
        ticks = sum(int(np.load(path, allow_pickle=False)["ticks"].sum()) for path in (Path(tmp) / "corpus" / "shards").glob("*.index.npy"))
    return {"seconds": seconds, "episodes": manifest["episodes"], "tokens": manifest["tokens"], "ticks": ticks}


def timed_batch(spec: CorpusSpec, batch_episodes: int) -> dict[str, float]:
    start = time.perf_counter()
    tokens, index = batch_shard(spec, 0, batch_episodes)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "episodes": len(index), "tokens": len(tokens), "ticks": int(index["ticks"].sum())}


def rates(run: dict[str, float]) -> tuple[float, float]:
    return run["tokens"] / run["seconds"], run["episodes"] / run["seconds"]


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_generate", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help="the game whose default corpus is generated (default snake)")
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--scalar-episodes", type=int, default=None, help="episodes per scalar run (default 600, quick 100)")
    parser.add_argument("--batch-episodes", type=int, default=None, help="episodes per batch run (default 131072, quick 4096)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    game = load_game(args.game)
    scale = SCALE.get(game.name, 1)  # a game whose episodes are longer runs fewer of them
    n_scalar = args.scalar_episodes or (100 if args.quick else 600) // scale
    n_batch = args.batch_episodes or (4096 if args.quick else 131_072) // scale
    base = CorpusSpec(game=game.make_config())  # the game's defaults: its default board, agent mix, keyframe_interval 0
    print(f"corpus generation, {game.name} {describe_game(base.game)}, agents {base.agents}, ", end="")
    print(f"keyframe_interval {base.codec.keyframe_interval}; {os.cpu_count()} CPUs")

    rows = []
    for engine, episodes in (("scalar", n_scalar), ("batch", n_batch)):
        spec = replace(base, episodes=episodes, shard_episodes=max(1, episodes // 8))  # 8 shards: even work for 2 workers
        for workers in (1, 2):
            rows.append({"engine": engine, "workers": workers, **timed_generate(spec, engine, workers)})
    scalar_1 = rates(rows[0])[0]
    print(f"\n{'engine':<8}{'workers':>8}{'episodes':>10}{'tokens':>12}{'seconds':>9}{'tokens/s':>12}{'episodes/s':>12}", end="")
    print(f"{'ticks/s':>12}{'x scalar(1)':>13}")
    for r in rows:
        tps, eps = rates(r)
        r["tokens_per_s"], r["episodes_per_s"], r["ticks_per_s"] = tps, eps, r["ticks"] / r["seconds"]
        r["vs_scalar"] = tps / scalar_1
        print(
            f"{r['engine']:<8}{r['workers']:>8}{r['episodes']:>10}{r['tokens']:>12}{r['seconds']:>9.2f}{tps:>12,.0f}{eps:>12,.0f}", end=""
        )
        print(f"{r['ticks_per_s']:>12,.0f}{r['vs_scalar']:>13.1f}")
    if game.game_type.max_players > 1 and game.game_type.dynamics == "sequential":
        print("(a tick is one player's move: ticks/s are moves/s)")
    if game.name == "snake":
        print(
            f"the original pure-Python generator, as the design notes quote it (another machine; not measured here): ~{ORIGINAL_TOKENS_PER_S:,} tokens/s"
        )

    print("\nbatch engine, one process, throughput vs games stepped together (batch_shard alone, no files)")
    print(f"{'batch':>8}{'episodes':>10}{'seconds':>9}{'tokens/s':>12}{'episodes/s':>12}")
    scaling = []
    for batch in sorted({min(b, n_batch) for b in ((256, 1024, 4096, 16384) if not args.quick else (256, 4096))}):
        episodes = max(batch, min(n_batch // 2, 4 * batch))
        r = {"batch": batch, **timed_batch(replace(base, episodes=episodes, shard_episodes=episodes), batch)}
        r["tokens_per_s"], r["episodes_per_s"] = rates(r)
        scaling.append(r)
        print(f"{batch:>8}{episodes:>10}{r['seconds']:>9.2f}{r['tokens_per_s']:>12,.0f}{r['episodes_per_s']:>12,.0f}")

    print("\nbatch engine, throughput vs workers (from the first table)")
    batch_rows = [r for r in rows if r["engine"] == "batch"]
    for r in batch_rows:
        print(f"{r['workers']:>8} workers {r['tokens_per_s']:>14,.0f} tokens/s  (x{r['tokens_per_s'] / batch_rows[0]['tokens_per_s']:.2f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"generate": rows, "batch_size": scaling}, indent=2) + "\n")


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_generate"))
