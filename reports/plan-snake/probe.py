import sys, time, numpy as np, torch
from gamegrammar.act.planner import PlannerAgent, PlannerConfig, _PlanningController
from gamegrammar.act.play import play_games, TokenTap
K, H, G, sim, pol, ticks = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
a = PlannerAgent.from_checkpoint("models/snake", plan=PlannerConfig(rollouts=K, horizon=H, simulator=sim, rollout_policy=pol), batch_size=G)
class Stop(Exception): pass
orig = _PlanningController.__call__
calls = [0]
def limited(self, games, mask, draws):
    calls[0] += 1
    if calls[0] > ticks: raise Stop
    return orig(self, games, mask, draws)
_PlanningController.__call__ = limited
t = time.time()
try:
    play_games(a.game, a.config, a.codec, 0, np.arange(G), a)
except Stop:
    pass
print(K, H, G, sim, pol, a.stats.summary(), "threads", torch.get_num_threads(), round(time.time()-t,1))
