"""Where a model's food spawns go wrong in its samples: food on the body, and (spawn-column, body-list designs) wrong words.

    python scripts/spawn_errors.py reports/gg-gpu-careless-sense/samples.txt

`gamegrammar evaluate` writes samples.txt beside its report. Each sample is followed with the rules (`trace.follow`) for as
long as they can follow it, so each sample shows at most one wrong spawn: the one that stops the rules.
- Food written on the grown body (any design) is counted by the cell's place, in body cells from the tail (0: the tail,
  which stays put on the eating tick), and by the snake's length.
- In the spawn-column design, the first wrong word of a spawn is a miss (VAC on a cell of the grown body: counted by the
  quarter of the body it is in, head first) or a false OCC (a free cell: counted by how many ticks ago the tail left
  it, or "never" for a cell no head has been on).
- In the body-list design, a spawn's list that is wrong is counted by its first wrong cell, in body cells from the tail
  (0: the tail), or as stopping early or running on (a list of the wrong length, right as far as it goes).
Both say whether the model's body ends where the rules' does (the last LEN head cells) or whether it does not see the
body at all (food spread along the whole body).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.games.snake.emergence import BODY_PLACES, body_place
from gamegrammar.games.snake.grammar import GrammarError, Keyframe, parse, uses_body_list, uses_sense, uses_spawn_column
from gamegrammar.games.snake.rules import Cell, SnakeConfig, column_occupancy
from gamegrammar.games.snake.trace import follow

LENGTHS = ((1, 3), (4, 7), (8, 15), (16, 31), (32, 10_000))


def length_bucket(length: int) -> str:
    return next(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+" for lo, hi in LENGTHS if lo <= length <= hi)


def spawn_errors(tokens: list[str], config: SnakeConfig) -> list[tuple[str, int | str | None]]:
    """For food on the body: ("on body", cells from the tail), ("place", tier 2's name for it: the head is the cell just
    eaten) and ("length", its bucket). For a wrong spawn-column word: ("miss", the quarter of the body) or ("false OCC",
    ticks since the tail left the cell; None: never a head). For a wrong list: ("list", cells from the tail of its first
    wrong cell, or "stops early" / "runs on")."""
    try:
        items = list(parse(tokens, to_eos=True))
    except GrammarError:
        return []
    found: list[tuple[str, int | str | None]] = []
    sense, column, listing = uses_sense(tokens), uses_spawn_column(tokens), uses_body_list(tokens)
    state = None
    heads: list[Cell] = []  # every head cell so far, oldest first
    for item in items:
        if isinstance(item, Keyframe):
            state = item.state(0)
            heads = list(reversed(state.body))
            continue
        if state is None:
            break
        if item.outcome == "EAT" and item.move is not None and item.spawn is not None:
            body = (item.move, *state.body)
            if item.spawn in body:
                index = body.index(item.spawn)
                found += [("on body", len(body) - 1 - index), ("place", body_place(index, len(body))), ("length", length_bucket(len(body)))]
            if item.column is not None:
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
            if item.listed is not None and item.listed != body[1:]:
                want_list = body[1:]
                wrong = next((k for k, (w, e) in enumerate(zip(item.listed, want_list)) if w != e), None)
                if wrong is not None:
                    found.append(("list", len(want_list) - 1 - wrong))
                else:
                    found.append(("list", "stops early" if len(item.listed) < len(want_list) else "runs on"))
        after = follow(state, item, config, sense=sense, spawn_column=column, body_list=listing)
        if after is None:
            break
        if item.outcome in ("MOVE", "EAT"):
            heads.append(after.head)
        state = after
    return found


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path, help="a samples.txt (one sample per line), or the report directory holding it")
    parser.add_argument("--width", type=int, default=10)
    parser.add_argument("--height", type=int, default=10)
    parser.add_argument("--max-ticks", type=int, default=200)
    args = parser.parse_args()
    samples = args.samples / "samples.txt" if args.samples.is_dir() else args.samples
    if not samples.is_file():
        parser.error(f"{samples} does not exist (give a samples.txt, or the report directory `gamegrammar evaluate` wrote it to)")
    config = SnakeConfig(args.width, args.height, args.max_ticks)
    counts: Counter[tuple[str, int | str | None]] = Counter()
    for line in samples.read_text().splitlines():
        counts.update(spawn_errors(line.split(), config))

    def of(kind: str) -> dict[int | str | None, int]:
        return {k: n for (c, k), n in counts.items() if c == kind}

    on_body = of("on body")
    print(f"spawns written on the body: {sum(on_body.values())}")
    print(f"  by body cells from the tail (0: the tail): {dict(sorted(on_body.items()))}")
    places = of("place")
    print(f"  by place (as tier 2's): { {p: places[p] for p in BODY_PLACES if p in places} }")
    lengths = of("length")
    print(f"  by the snake's length: { {b: lengths[b] for b in map(length_bucket, (lo for lo, _ in LENGTHS)) if b in lengths} }")
    misses, false = of("miss"), of("false OCC")
    if misses or false:
        print(f"spawns whose column words are wrong: {sum(misses.values()) + sum(false.values())}")
        print(f"misses (VAC on the body), by quarter of the body from the head: {dict(sorted(misses.items()))}")
        never = false.pop(None, 0)
        print(f"false OCC, by ticks since the tail left the cell: {dict(sorted(false.items()))}; never a head: {never}")
    lists = of("list")
    if lists:
        early, late = lists.pop("stops early", 0), lists.pop("runs on", 0)
        print(f"spawns whose listed body is wrong: {sum(lists.values()) + early + late}")
        print(f"  by its first wrong cell, in body cells from the tail (0: the tail): {dict(sorted(lists.items()))}")
        print(f"  right as far as it goes, but stops early: {early}; runs on past the tail: {late}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "spawn_errors.py"))
