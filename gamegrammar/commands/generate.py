"""gamegrammar generate: write a corpus from scripted agents."""

from __future__ import annotations

import argparse

from tqdm import tqdm

from gamegrammar.agents import parse_agent_mix
from gamegrammar.codec import CodecConfig
from gamegrammar.corpus import CorpusSpec, engines, generate
from gamegrammar.games.snake import SnakeConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate a corpus of episodes played by scripted agents")
    p.add_argument("--agents", default="random=0.4,greedy=0.4,wall_follower=0.2", help="name=weight,... (default: %(default)s)")
    p.add_argument("--episodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--width", type=int, default=10)
    p.add_argument("--height", type=int, default=10)
    p.add_argument("--max-ticks", type=int, default=200)
    p.add_argument(
        "--keyframe-interval", type=int, default=CodecConfig.keyframe_interval, help="keyframe after every K-th tick; 0 = only at tick 0"
    )
    p.add_argument("--min-salience", type=int, default=0, help="drop events below this salience (0-4; the strict evaluator needs 0)")
    p.add_argument("--val-fraction", type=float, default=0.05)
    p.add_argument("--shard-episodes", type=int, default=10_000, help="episodes per shard (the unit of work and of resumption)")
    p.add_argument("--workers", type=int, default=1, help="worker processes; the output does not depend on it")
    p.add_argument("--engine", default=None, help=f"simulation engine ({' or '.join(engines())}); the output does not depend on it")
    p.add_argument("--out", required=True, help="corpus directory")
    p.add_argument("--overwrite", action="store_true", help="replace an existing corpus in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    spec = CorpusSpec(
        game=SnakeConfig(args.width, args.height, args.max_ticks),
        codec=CodecConfig(args.keyframe_interval, args.min_salience),
        agents=parse_agent_mix(args.agents),
        episodes=args.episodes,
        seed=args.seed,
        val_fraction=args.val_fraction,
        shard_episodes=args.shard_episodes,
    )
    engine = args.engine or next(iter(engines()))
    bar: tqdm | None = None

    def progress(episodes: int) -> None:  # the bar opens once work starts, after the checks
        nonlocal bar
        bar = bar or tqdm(total=spec.episodes, unit="ep", disable=args.quiet, desc="generate")
        bar.update(episodes)

    try:
        manifest = generate(spec, args.out, workers=args.workers, engine=engine, overwrite=args.overwrite, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    print(f"wrote {manifest['episodes']} episodes, {manifest['tokens']} tokens to {args.out}")
    return 0
