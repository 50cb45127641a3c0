"""gamegrammar games: the registered games, their vocabulary sizes and their rules."""

from __future__ import annotations

import argparse
import dataclasses
import json

from gamegrammar.games import game_names, load_game


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the registered games with their vocabulary sizes and rules")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=run)


def describe(name: str) -> dict:
    """What `games` shows of one game, at its default config."""
    game = load_game(name)
    config = game.make_config()
    return {
        "name": name,
        "description": game.description,
        "default_config": config.to_dict(),
        "vocab_size": len(game.codec_vocabulary(config, game.codec_type())),  # a corpus's, at the default codec
        "agents": list(game.agent_names),
        "end_events": list(game.end_events),
        "rules": {tier: list(rules) for tier, rules in game.rules.items()},
        "batch_engine": game.play_batch is not None,
        "game_type": dataclasses.asdict(game.game_type),
        "capabilities": sorted(game.capabilities),
    }


def run(args: argparse.Namespace) -> int:
    games = [describe(name) for name in game_names()]
    if args.json:
        print(json.dumps(games, indent=2))
        return 0
    for g in games:
        config = ", ".join(f"{k}={v}" for k, v in g["default_config"].items())
        print(f"{g['name']}: {g['description']}")
        print(f"  {'default config':<18}{config} (vocabulary {g['vocab_size']} tokens)")
        print(f"  {'agents':<18}{', '.join(g['agents'])}; engines: scalar{', batch' if g['batch_engine'] else ''}")
        kind = g["game_type"]
        players = kind["min_players"] if kind["min_players"] == kind["max_players"] else f"{kind['min_players']} to {kind['max_players']}"
        print(
            f"  {'players':<18}{players}, moving {'at once' if kind['dynamics'] == 'simultaneous' else 'in turn'}; chance: {kind['chance']}"
        )
        print(f"  {'capabilities':<18}{', '.join(g['capabilities'])}")
        print(f"  {'end events':<18}{', '.join(g['end_events'])}")
        for tier, rules in g["rules"].items():
            print(f"  {tier + ' tier':<18}{', '.join(rules)}")
    return 0
