"""Where a spawn-column model's column words go wrong: the first wrong word of each spawn in its samples, by kind.

    python scripts/column_errors.py reports/gg-cpu-long-careless-sense-column/samples.txt

`gamegrammar evaluate` writes samples.txt beside its report. Each sample is followed with the rules (`trace.follow`) for as
long as they can follow it; at every spawn whose words are wrong, the first wrong word is a miss (VAC on a cell of the
grown body: counted by the quarter of the body it is in, head first) or a false OCC (a free cell: counted by how many
ticks ago the tail left it, or "never" for a cell no head has been on). The two say whether the model's body ends
where the rules' does: the last LEN head cells.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from gamegrammar.games.snake.grammar import GrammarError, Keyframe, parse, uses_sense
from gamegrammar.games.snake.rules import Cell, SnakeConfig, column_occupancy
from gamegrammar.games.snake.trace import follow


def first_wrong_words(tokens: list[str], config: SnakeConfig) -> list[tuple[str, int | None]]:
    """("miss", the quarter of the body) or ("false OCC", ticks since the tail left the cell; None: never a head)."""
    try:
        items = list(parse(tokens, to_eos=True))
    except GrammarError:
        return []
    found: list[tuple[str, int | None]] = []
    sense = uses_sense(tokens)
    state = None
    heads: list[Cell] = []  # every head cell so far, oldest first
    for item in items:
        if isinstance(item, Keyframe):
            state = item.state(0)
            heads = list(reversed(state.body))
            continue
        if state is None:
            break
        if item.outcome == "EAT" and item.move is not None and item.spawn is not None and item.column is not None:
            body = (item.move, *state.body)
            want = column_occupancy(body, item.spawn[0], config)
            wrong = next((row for row, (w, e) in enumerate(zip(item.column, want)) if w != e), None)
            if wrong is not None:
                cell = (item.spawn[0], wrong)
                if want[wrong]:
                    found.append(("miss", body.index(cell) * 4 // len(body)))
                else:
                    seen = [*heads, item.move]
                    ago = len(seen) - 1 - max((k for k, c in enumerate(seen) if c == cell), default=-1)
                    found.append(("false OCC", ago - len(body) + 1 if cell in seen else None))
        after = follow(state, item, config, sense=sense, spawn_column=True)
        if after is None:
            break
        if item.outcome in ("MOVE", "EAT"):
            heads.append(after.head)
        state = after
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path, help="a samples.txt of a spawn-column model (one sample per line)")
    parser.add_argument("--width", type=int, default=10)
    parser.add_argument("--height", type=int, default=10)
    parser.add_argument("--max-ticks", type=int, default=200)
    args = parser.parse_args()
    config = SnakeConfig(args.width, args.height, args.max_ticks)
    counts: Counter[tuple[str, int | None]] = Counter()
    for line in args.samples.read_text().splitlines():
        counts.update(first_wrong_words(line.split(), config))
    misses = {k: n for (kind, k), n in counts.items() if kind == "miss"}
    false = {k: n for (kind, k), n in counts.items() if kind == "false OCC"}
    print(f"spawns whose column words are wrong: {sum(counts.values())}")
    print(f"misses (VAC on the body), by quarter of the body from the head: {dict(sorted(misses.items()))}")
    never = false.pop(None, 0)
    print(f"false OCC, by ticks since the tail left the cell: {dict(sorted(false.items()))}; never a head: {never}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
