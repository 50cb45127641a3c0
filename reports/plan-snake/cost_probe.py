"""The planner's cost per move on models/snake, over the first TICKS ticks of GAMES games played at once.

python reports/plan-snake/cost_probe.py GAMES TICKS key=value ...  (PlannerConfig fields: rollouts=2 horizon=4
simulator=model rollout_policy=model temperature=0.5 discount=0.95 leaf_weight=0.05)
"""

import sys
import time

import numpy as np
import torch

from gamegrammar.act.planner import PlannerAgent, PlannerConfig, _PlanningController
from gamegrammar.act.play import play_games

games, ticks = int(sys.argv[1]), int(sys.argv[2])
fields = PlannerConfig.__dataclass_fields__
CAST = {"str": str, "int": int, "float": float}
settings = {k: CAST[fields[k].type](v) for k, v in (a.split("=", 1) for a in sys.argv[3:])}
agent = PlannerAgent.from_checkpoint("models/snake", plan=PlannerConfig(**settings), batch_size=games)


class Stop(Exception):
    pass


decide, calls = _PlanningController.__call__, [0]


def limited(self, *args):
    calls[0] += 1
    if calls[0] > ticks:
        raise Stop
    return decide(self, *args)


_PlanningController.__call__ = limited
start = time.time()
try:
    play_games(agent.game, agent.config, agent.codec, 0, np.arange(games), agent)
except Stop:
    pass
print(games, ticks, settings, agent.stats.summary(), "threads", torch.get_num_threads(), round(time.time() - start, 1))
