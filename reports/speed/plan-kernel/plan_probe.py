"""The planner on models/snake (lookahead K2 H8, the heuristic's later inputs, discount 0.8, leaf 0.05): GAMES games
played at once, cut at TICKS ticks, in DTYPE; prints its moves/s and model tokens a move.

python reports/speed/plan-kernel/plan_probe.py DTYPE GAMES TICKS   (run from the checkout whose code is timed)
"""

import dataclasses
import sys
import time

import torch

from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import ModelAgent, play_games
from gamegrammar.model.precision import Precision, for_generation

dtype, games, ticks = getattr(torch, sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(2)
agent = ModelAgent.from_checkpoint("models/snake")
model = for_generation(agent.model, Precision(dtype, "asked"))
config = dataclasses.replace(agent.config, max_ticks=ticks)
plan = PlannerConfig("lookahead", 2, 8, "model", "heuristic", discount=0.8, leaf_weight=0.05)
planner = PlannerAgent(model, agent.tokenizer, agent.game, agent.config, agent.codec, plan=plan, batch_size=games)
start = time.perf_counter()
play_games(agent.game, config, agent.codec, 0, list(range(games)), planner)
print(sys.argv[1], f"{games} games x {ticks} ticks: {time.perf_counter() - start:.1f} s", planner.stats.summary(), flush=True)
