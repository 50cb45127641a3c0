"""The GNU Go differential at scale: python scripts/go_differential.py --size 9 --games 200 [--seed S]

Plays games with Go's scripted agents and offers GNU Go (--chinese-rules --positional-superko --forbid-suicide) a
play on every point of every position, comparing its answers and its board with this package's rules
(`gamegrammar.games.go.referee`). Prints what was compared and every disagreement; exits 1 if there is any.
"""

from __future__ import annotations

import time

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.games.go.referee import differential
from gamegrammar.games.go.rules import GoConfig


def main() -> int:
    parser = OneLineParser(prog="python scripts/go_differential.py", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9, help="board size (default: %(default)s)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="the agents' seed (default: %(default)s)")
    args = parser.parse_args()
    start = time.perf_counter()
    run = differential(GoConfig(args.size), args.games, seed=args.seed)
    print(f"{args.size}x{args.size}: {run.summary()} in {time.perf_counter() - start:.0f} s")
    for line in run.disagreements[:20]:
        print("  " + line)
    return 1 if run.disagreements else 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "go_differential"))
