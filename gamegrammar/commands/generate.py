"""gamegrammar generate: write a corpus from scripted agents."""

from __future__ import annotations

import argparse
from typing import Any

from gamegrammar.commands.game_args import add_codec_arguments, add_game_arguments, codec_options, game_config
from gamegrammar.commands.progress import progress_bar
from gamegrammar.core.agents import parse_agent_mix
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.data.corpus import CorpusSpec, Part, engines, generate
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate a corpus of episodes played by scripted agents")
    p.add_argument("--agents", default=None, help="name=weight,... (default: the game's mix; `gamegrammar games` lists the agents)")
    p.add_argument("--episodes", type=int, default=1000, help="episodes to play (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="every episode is a function of (seed, episode number) alone (default: %(default)s)")
    p.add_argument(
        "--keyframe-interval", type=int, default=CodecConfig.keyframe_interval, help="keyframe after every K-th tick; 0 = only at tick 0"
    )
    p.add_argument("--min-salience", type=int, default=0, help="drop events below this salience (0-4; the strict evaluator needs 0)")
    p.add_argument("--val-fraction", type=float, default=0.05, help="share of episodes held out for validation (default: %(default)s)")
    p.add_argument("--shard-episodes", type=int, default=10_000, help="episodes per shard (the unit of work and of resumption)")
    p.add_argument("--workers", type=int, default=1, help="worker processes; the output does not depend on it")
    p.add_argument(
        "--engine",
        default=None,
        choices=list(engines()),
        help="simulation engine (default: batch where the game has one); the output does not depend on it",
    )
    p.add_argument("--shard-index", type=int, default=None, help="with --num-shards: write only the shards s with s %% N == I")
    p.add_argument(
        "--num-shards",
        type=int,
        default=None,
        help="split the work N ways (one machine each); join the parts with `gamegrammar corpus merge`",
    )
    p.add_argument("--out", required=True, help="corpus directory")
    p.add_argument("--overwrite", action="store_true", help="replace an existing corpus in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_arguments(p)
    add_codec_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = game_config(args)
    game = game_of(config)
    spec = CorpusSpec(
        game=config,
        codec=game.codec_type(args.keyframe_interval, args.min_salience, **codec_options(args, game)),
        agents=None if args.agents is None else parse_agent_mix(args.agents, game.agent_names),
        episodes=args.episodes,
        seed=args.seed,
        val_fraction=args.val_fraction,
        shard_episodes=args.shard_episodes,
    )
    if (args.shard_index is None) != (args.num_shards is None):
        raise GameGrammarError("--shard-index and --num-shards go together")
    part = None if args.num_shards is None else Part(args.shard_index, args.num_shards)
    total = spec.episodes if part is None else sum(len(spec.shard_range(s)) for s in range(spec.num_shards) if part.holds(s))
    bar: Any = None

    def progress(episodes: int) -> None:  # the bar opens once work starts, after the checks
        nonlocal bar
        bar = bar or progress_bar(total, "ep", "generate", args.quiet)
        bar.update(episodes)

    try:
        manifest = generate(
            spec, args.out, workers=args.workers, engine=args.engine, overwrite=args.overwrite, progress=progress, part=part
        )
    finally:
        if bar is not None:
            bar.close()
    what = (
        ""
        if part is None or "part" not in manifest
        else f" (part {part.shard_index} of {part.num_shards}: {len(manifest['shards'])} shards)"
    )
    print(f"wrote {manifest['episodes']} episodes, {manifest['tokens']} tokens to {args.out}{what}")
    return 0
