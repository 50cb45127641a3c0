"""The model agent's throughput (`gamegrammar play`): batched, against the same agent one game at a time.

Run from the repository root:  python -m benchmarks.bench_play  [--quick] [--threads N] [--json PATH]

The model reads every token of every running game and picks an input each tick, exactly as `ModelAgent`
does in `play`, but the games follow the greedy agent's moves: untrained weights would die within a few
ticks, and a good player's games (about 150 ticks, 900 tokens on 10x10 Snake) are what the agent must
afford. Rows: gg-cpu (context 1536: the grouped KV cache) and gg31k (context 64: each tick's windows
recomputed in one pass, and, for comparison, the KV cache), each at the default batch of 128 games and at
batch 1, the baseline (one forward pass per game per tick). Timings depend on what else the machine is
doing: compare figures from one run.
"""

from __future__ import annotations

import json
import time

import numpy as np
import torch

from gamegrammar.act.play import ModelAgent, TokenTap
from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, agent_actions
from gamegrammar.games.snake.control import LEGAL
from gamegrammar.games.snake.rollout import play_batch
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import GameGPT, preset

GREEDY = AGENT_NAMES.index("greedy")


def run(name: str, games: int, batch: int, recompute: bool | None) -> dict[str, float]:
    """The model's work on `games` greedy games, `batch` at a time: games/s, tokens/s, forward passes."""
    config, codec = SnakeConfig(), CodecConfig()
    tokenizer = tokenizer_for(config)
    torch.manual_seed(0)
    model = GameGPT(preset(name, vocab_size=len(tokenizer), tick_id=tokenizer.ids["TICK"])).eval()
    agent = ModelAgent(model, tokenizer, load_game("snake"), config, codec, batch_size=batch, recompute=recompute)
    ticks = tokens = 0
    start = time.perf_counter()
    for lo in range(0, games, batch):
        episodes = np.arange(lo, min(games, lo + batch))
        log = TokenTap(len(episodes))
        controller = agent.controller(log)
        codes = np.full(len(episodes), GREEDY)

        def policy(b, running, draws, probe, controller=controller, codes=codes):
            controller(running, LEGAL[b.direction], draws)  # the model's whole work; its choice is dropped
            return agent_actions(b, codes[running], draws, probe)

        result = play_batch(config, codec, 0, episodes, policy, log=log)
        ticks += int(result.ticks.sum())
        tokens += int(result.lengths.sum())
    seconds = time.perf_counter() - start
    return {
        "model": name,
        "mode": "recompute" if agent.recompute else "KV cache",
        "batch": batch,
        "games": games,
        "seconds": round(seconds, 2),
        "games_per_s": games / seconds,
        "tokens_per_s": tokens / seconds,
        "mean_ticks": ticks / games,
        "forward_passes": agent.forward_passes,
    }


def main() -> int:
    parser = OneLineParser(prog="python -m benchmarks.bench_play", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games only")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the agent's steps are small)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    many, few = (16, 2) if args.quick else (256, 8)
    rows = []
    for name, recompute in (("gg-cpu", None), ("gg31k", None), ("gg31k", False)):
        batched = run(name, many, 128, recompute)
        single = run(name, few, 1, recompute)
        rows += [batched, {**single, "speedup": 1.0}]
        batched["speedup"] = batched["games_per_s"] / single["games_per_s"]
    print(f"torch threads: {args.threads}")
    print("| model | mode | batch | games | games/s | tokens/s | mean ticks | forward passes | vs batch 1 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['model']} | {r['mode']} | {r['batch']} | {r['games']} | {r['games_per_s']:.2f} | {r['tokens_per_s']:,.0f} "
            f"| {r['mean_ticks']:.0f} | {r['forward_passes']} | {r['speedup']:.1f}x |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_play"))
