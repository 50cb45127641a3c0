"""The planner on models/snake (K2 H8, heuristic later inputs), 8 games cut at 40 ticks, in float32 and in bf16: moves/s."""
import dataclasses, sys, time
import torch
from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import ModelAgent, play_games
from gamegrammar.model.precision import Precision, for_generation

dtype = getattr(torch, sys.argv[1])
agent = ModelAgent.from_checkpoint("models/snake")
model = for_generation(agent.model, Precision(dtype, "asked"))
config = dataclasses.replace(agent.config, max_ticks=40)
plan = PlannerConfig("lookahead", 2, 8, "model", "heuristic", discount=0.8, leaf_weight=0.05)
planner = PlannerAgent(model, agent.tokenizer, agent.game, agent.config, agent.codec, plan=plan, batch_size=8)
t = time.perf_counter()
result = play_games(agent.game, config, agent.codec, 0, list(range(8)), planner)
print(sys.argv[1], f"{time.perf_counter() - t:.1f} s", planner.stats.summary())
