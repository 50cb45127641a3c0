"""The planner on models/snake (K2 H8, heuristic later inputs): GAMES games cut at TICKS ticks, one dtype: moves/s."""
import dataclasses, sys, time, hashlib
import torch
from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import ModelAgent, play_games
from gamegrammar.model.precision import Precision, for_generation
torch.set_num_threads(2)
dtype = getattr(torch, sys.argv[1]); games = int(sys.argv[2]); ticks = int(sys.argv[3])
agent = ModelAgent.from_checkpoint("models/snake")
model = for_generation(agent.model, Precision(dtype, "asked"))
config = dataclasses.replace(agent.config, max_ticks=ticks)
plan = PlannerConfig("lookahead", 2, 8, "model", "heuristic", discount=0.8, leaf_weight=0.05)
planner = PlannerAgent(model, agent.tokenizer, agent.game, agent.config, agent.codec, plan=plan, batch_size=games)
t = time.perf_counter()
result = play_games(agent.game, config, agent.codec, 0, list(range(games)), planner)
s = planner.stats.summary()
print(sys.argv[1], games, ticks, f"wall {time.perf_counter() - t:.1f} s", f"moves/s {s['moves_per_second']}", f"tokens/move {s['tokens_per_move']}",
      f"score {result.score.mean():.3f}", "scores-sha", hashlib.sha256(result.score.tobytes()).hexdigest()[:12], flush=True)
