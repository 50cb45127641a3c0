"""The planner's table under a time budget: as many episodes as the planner on the model can play in `--minutes`,
then every other row on exactly those episodes (issue 49's measure, sized for a small CPU).

Run from the repository root:
    python -m benchmarks.bench_plan --ckpt models/snake --minutes 20 --rollouts 1 --horizon 3 --out reports/plan-snake

The planner on the model plays batches of `--batch-size` episodes (0, 1, 2, ... of `--seed`) until the budget is
spent (a batch started is finished); then the planner on the rules (the same K, H and rollout policy), the model
by argmax and the greedy agent play the same episodes, and the planner on the rules with random rollouts and greedy
play `--cheap-games` more (their own table). Each row's seconds and the planners' per-move cost are in the
reports. With a GPU, `gamegrammar play --ckpt models/snake --games 200 --planner lookahead ...` is the whole table.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np
import torch

from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import ModelAgent, Played, _concat, play_games, play_report, render_markdown, write_play_report
from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.training.checkpoint import load_checkpoint


def _row(agent: Any, game: Any, config: Any, codec: Any, seed: int, episodes: np.ndarray) -> Played:
    start = time.perf_counter()
    result = play_games(game, config, codec, seed, episodes, agent)
    return Played(result, time.perf_counter() - start)


def main() -> int:
    p = OneLineParser(prog="python -m benchmarks.bench_plan", description=__doc__.split("\n\n")[0])
    p.add_argument("--ckpt", default="models/snake")
    p.add_argument("--minutes", type=float, default=20.0, help="the planner on the model plays batches until this is spent")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--rollouts", type=int, default=1)
    p.add_argument("--horizon", type=int, default=3)
    p.add_argument("--rollout-policy", default="model")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cheap-games", type=int, default=200)
    p.add_argument("--out", default="reports/plan-snake")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: a busy 2-core machine runs small passes faster)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    loaded = load_checkpoint(args.ckpt)
    game, config, codec = loaded.game_spec, loaded.game, loaded.codec
    plan = PlannerConfig(rollouts=args.rollouts, horizon=args.horizon, rollout_policy=args.rollout_policy)
    planner = PlannerAgent(loaded.model, loaded.tokenizer, game, config, codec, plan=plan, batch_size=args.batch_size)
    load = os.getloadavg()
    parts, start, lo = [], time.perf_counter(), 0
    while time.perf_counter() - start < 60 * args.minutes:
        parts.append(play_games(game, config, codec, args.seed, np.arange(lo, lo + args.batch_size), planner))
        lo += args.batch_size
        print(f"{lo} episodes, {time.perf_counter() - start:.0f} s, {planner.stats.summary()}", flush=True)
    episodes = np.arange(lo)
    played = {"planner on the model": Played(_concat(parts), time.perf_counter() - start)}
    costs = {"planner on the model": planner.stats.summary()}
    rules = PlannerAgent(
        loaded.model, loaded.tokenizer, game, config, codec, plan=replace(plan, simulator="rules"), batch_size=args.batch_size
    )
    played["planner on the rules"] = _row(rules, game, config, codec, args.seed, episodes)
    costs["planner on the rules"] = rules.stats.summary()
    argmax = ModelAgent(loaded.model, loaded.tokenizer, game, config, codec, temperature=0, batch_size=128)
    played["model (argmax)"] = _row(argmax, game, config, codec, args.seed, episodes)
    played["greedy"] = _row("greedy", game, config, codec, args.seed, episodes)
    meta = {"games": lo, "seed": args.seed, "episodes": f"0..{lo - 1}", "checkpoint": args.ckpt, "model": loaded.model.describe()}
    meta |= {"planner": asdict(plan), "planner_cost": costs, "load_average_at_start": [round(x, 2) for x in load]}
    report = play_report(game, config, played, meta)
    print(render_markdown(report))
    write_play_report(report, f"{args.out}/same-episodes")
    cheap = replace(plan, simulator="rules", rollout_policy="random")
    random_rules = PlannerAgent(loaded.model, loaded.tokenizer, game, config, codec, plan=cheap, batch_size=128)
    many = np.arange(args.cheap_games)
    played = {"planner on the rules, random rollouts": _row(random_rules, game, config, codec, args.seed, many)}
    played["greedy"] = _row("greedy", game, config, codec, args.seed, many)
    meta = {"games": args.cheap_games, "seed": args.seed, "episodes": f"0..{args.cheap_games - 1}", "checkpoint": args.ckpt}
    meta |= {"planner": asdict(cheap), "planner_cost": random_rules.stats.summary(), "load_average_at_end": list(os.getloadavg())}
    report = play_report(game, config, played, meta)
    print(render_markdown(report))
    write_play_report(report, f"{args.out}/rules-random")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_plan"))
