"""MCTS on models/snake for a fixed time: its cost per move (and the games' ticks so far), not a score.

python reports/plan-snake/mcts_probe.py SIMULATIONS PARALLEL HORIZON SIMULATOR SECONDS [GAMES]
"""

import signal
import sys

import numpy as np
import torch

from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import play_games

sims, parallel, horizon, simulator, seconds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
games = int(sys.argv[6]) if len(sys.argv) > 6 else 4
torch.set_num_threads(2)
plan = PlannerConfig("mcts", horizon=horizon, simulator=simulator, rollout_policy="model", simulations=sims, parallel_simulations=parallel)
agent = PlannerAgent.from_checkpoint("models/snake", plan=plan, batch_size=games)


def stop(*_):
    print(
        f"mcts N {sims} P {parallel} H {horizon} {simulator}, {games} games at once, stopped after {seconds} s:",
        agent.stats.summary(),
        flush=True,
    )
    raise SystemExit(0)


signal.signal(signal.SIGALRM, stop)
signal.alarm(seconds)
result = play_games(agent.game, agent.config, agent.codec, 0, np.arange(games), agent)
print("finished:", result.score.tolist(), agent.stats.summary())
