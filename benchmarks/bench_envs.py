"""Environment throughput: Snake env steps per second, single, SyncVectorEnv, the batch-engine vector env, and the corpus engine.

Run from the repository root:  python -m benchmarks.bench_envs  [--quick] [--json PATH]

Every row plays 10x10 Snake (200 ticks) and counts game ticks ("steps") per second, resets
included. The environments get uniformly random actions drawn beforehand (the policy costs
nothing here); `SnakeEnv` writes each tick's tokens as it goes (it always does), the vector
envs do not unless asked (`record_tokens`). The last row is the corpus engine for comparison:
`rollout.play_batch` with the scripted agents, which steps the same batch rules and writes
every episode's tokens, counted in ticks too. Ratios are against the single env measured in
the same run; timings depend on what else the machine is doing: compare figures from one run.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
from gymnasium.vector import SyncVectorEnv

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.envs import SnakeEnv, SnakeVectorEnv
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, scripted_policy
from gamegrammar.games.snake.rollout import play_batch
from gamegrammar.games.snake.rules import SnakeConfig


def single(steps: int) -> dict[str, float]:
    env = SnakeEnv()
    actions = np.random.default_rng(0).integers(0, 4, steps).tolist()
    env.reset(seed=0)
    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return {"envs": 1, "steps": steps, "seconds": time.perf_counter() - start}


def vector(env, calls: int) -> dict[str, float]:
    """`calls` steps of every game of a vector env (autoreset: a game's step after its end is its reset)."""
    n = env.num_envs
    actions = np.random.default_rng(0).integers(0, 4, (calls, n))
    env.reset(seed=0)
    start = time.perf_counter()
    for a in actions:
        env.step(a)
    seconds = time.perf_counter() - start
    env.close()
    return {"envs": n, "steps": calls * n, "seconds": seconds}


def corpus_engine(episodes: int) -> dict[str, float]:
    codes = np.arange(episodes) % len(AGENT_NAMES)
    start = time.perf_counter()
    result = play_batch(SnakeConfig(), CodecConfig(), 0, np.arange(episodes), scripted_policy(codes))
    return {"envs": episodes, "steps": int(result.ticks.sum()), "seconds": time.perf_counter() - start}


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_envs", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    q = args.quick
    sync_n, batch_sizes = (16, (64, 1024)) if q else (64, (64, 1024, 8192))
    print(f"Snake env steps/s, 10x10, 200 ticks, random actions; {os.cpu_count()} CPUs")
    rows = [{"name": "SnakeEnv (scalar engine, tokens)", **single(2_000 if q else 30_000)}]
    rows.append({"name": "SyncVectorEnv of SnakeEnv", **vector(SyncVectorEnv([SnakeEnv for _ in range(sync_n)]), 60 if q else 400)})
    for n in batch_sizes:
        rows.append({"name": "SnakeVectorEnv (batch engine)", **vector(SnakeVectorEnv(n), max(10, (20_000 if q else 200_000) // n))})
    rows.append({"name": "SnakeVectorEnv, record_tokens", **vector(SnakeVectorEnv(64, record_tokens=True), 30 if q else 300)})
    rows.append({"name": "corpus engine (rollout.play_batch)", **corpus_engine(1024 if q else 16_384)})
    base = rows[0]["steps"] / rows[0]["seconds"]
    print(f"\n{'':<38}{'envs':>7}{'steps':>10}{'seconds':>9}{'steps/s':>13}{'x single':>10}")
    for r in rows:
        r["steps_per_s"] = r["steps"] / r["seconds"]
        r["vs_single"] = r["steps_per_s"] / base
        print(f"{r['name']:<38}{r['envs']:>7}{r['steps']:>10}{r['seconds']:>9.2f}{r['steps_per_s']:>13,.0f}{r['vs_single']:>10.1f}")
    sync = next(r for r in rows if r["name"].startswith("SyncVectorEnv"))
    batch = max((r for r in rows if r["name"].startswith("SnakeVectorEnv (")), key=lambda r: r["steps_per_s"])
    corpus = rows[-1]
    print(
        f"\nbatch-engine vector env ({batch['envs']} games) vs SyncVectorEnv ({sync['envs']}): x{batch['steps_per_s'] / sync['steps_per_s']:.1f}"
    )
    print(f"corpus engine vs batch-engine vector env: x{corpus['steps_per_s'] / batch['steps_per_s']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"envs": rows}, indent=2) + "\n")


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_envs"))
