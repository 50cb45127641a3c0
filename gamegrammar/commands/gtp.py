"""gamegrammar gtp: a game as a GTP engine on standard input and output (Go's protocol; GoGui, Sabaki, twogtp)."""

from __future__ import annotations

import argparse
import sys

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gtp", help="speak GTP v2 on stdin/stdout as a rules engine whose genmove is a scripted agent (--game go)")
    p.add_argument("--agent", default=None, help="the scripted agent genmove asks (default: the game's first, random)")
    add_game_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = game_config(args)
    game = game_of(config)
    engine = game.gtp_engine(config, args.agent or game.agent_names[0])
    engine.serve(sys.stdin, sys.stdout)
    return 0
