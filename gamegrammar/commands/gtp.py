"""gamegrammar gtp: a game as a GTP engine on standard input and output (Go's protocol; GoGui, Sabaki, twogtp).

Its genmove is a scripted agent (--agent), or a trained model (--ckpt): the engine writes the game so far in the
model's grammar, both players' moves, and the model samples one of the moves the rules allow (act.gtp_player).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gtp", help="speak GTP v2 on stdin/stdout as a rules engine whose genmove is a scripted agent or a model (--game go)"
    )
    p.add_argument("--agent", default=None, help="the scripted agent genmove asks (default: the game's first, random)")
    p.add_argument("--ckpt", default=None, help="a trained model (checkpoint or exported directory) chooses genmove's moves instead")
    p.add_argument(
        "--temperature",
        type=float,
        default=1.0,
        help="with --ckpt: sampling temperature over the legal moves (default: %(default)s, the model's own distribution; 0: its most likely legal move)",
    )
    p.add_argument("--seed", type=int, default=0, help="with --ckpt: the seed of the model's draws (default: %(default)s)")
    p.add_argument("--device", default=None, help="with --ckpt: cpu, cuda, ... (default: cuda when available)")
    g = p.add_argument_group("planning", "with --ckpt: the model searches before each genmove (act.gtp_planner, docs/play.md)")
    g.add_argument(
        "--planner",
        choices=("lookahead",),
        default=None,
        help="search before each move: K rollouts of H plies for each of the model's most likely legal moves, scored by the "
        "area margin of the board they write (default: no search, the model's own choice)",
    )
    g.add_argument(
        "--simulator",
        choices=("model", "rules"),
        default="model",
        help="who writes the rollouts: the model's dreams, or the rules (the upper bound) (default: %(default)s)",
    )
    g.add_argument("--candidates", type=int, default=8, help="the model's most likely legal moves searched (default: %(default)s)")
    g.add_argument("--rollouts", type=int, default=4, help="rollouts per candidate (default: %(default)s)")
    g.add_argument("--horizon", type=int, default=8, help="plies per rollout, the candidate's included (default: %(default)s)")
    g.add_argument("--rollout-temperature", type=float, default=1.0, help="the dream's sampling temperature (default: %(default)s)")
    add_game_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.planner and args.ckpt is None:
        raise GameGrammarError("--planner searches with a model: give --ckpt")
    if args.ckpt is None:
        config = game_config(args)
        game = game_of(config)
        engine = game.gtp_engine(config, args.agent or game.agent_names[0])
    else:
        from gamegrammar.act.gtp_player import ModelPolicy
        from gamegrammar.commands.sample import load_model

        if args.agent is not None:
            raise GameGrammarError("give --agent or --ckpt, not both: genmove asks one of them")
        loaded = load_model(args)
        config = game_config(args, loaded.game)  # the board and komi the model learned: other flags are refused
        game = game_of(config)
        if "gtp" not in game.capabilities:
            raise GameGrammarError(f"{game.name} has no GTP engine (GTP is Go's protocol)")
        policy: Any = ModelPolicy(loaded.model, loaded.tokenizer, args.temperature, args.seed)
        if args.planner:
            from gamegrammar.act.gtp_planner import PlannerPolicy, TurnPlanConfig

            plan = TurnPlanConfig(args.candidates, args.rollouts, args.horizon, args.simulator, args.rollout_temperature)
            policy = PlannerPolicy(policy, game, config, loaded.codec, plan, args.seed)
        engine = game.gtp_engine(config, game.agent_names[0], policy=policy, codec=loaded.codec)
    engine.serve(sys.stdin, sys.stdout)
    if args.planner:
        print(f"gtp: the planner's cost: {policy.stats.summary()}", file=sys.stderr)
    return 0
