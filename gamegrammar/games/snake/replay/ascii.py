"""The terminal replay: one text board per frame, with the tick's tokens and any violation under it."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from gamegrammar.games.snake.replay.frames import Replay

HEAD, BODY, FOOD, EMPTY, DEAD, MARK, RULES_HEAD = "@", "o", "*", ".", "X", "!", "?"
LEGEND = f"{HEAD} head  {BODY} body  {FOOD} food  {DEAD} dead head  {RULES_HEAD} where the rules put the head  {MARK} first violation"


def render_frame(rp: Replay, index: int, *, max_token_chars: int = 200) -> str:
    """One frame as text: a caption, the board in a frame of +-|, the tick's tokens, and notes."""
    width, height = rp.config.width, rp.config.height
    if not rp.frames:
        rows = ["|" + EMPTY * width + "|" for _ in range(height)]
        error = rp.grammar_error or "empty sequence"
        return "\n".join(["nothing to replay", "+" + "-" * width + "+", *rows, "+" + "-" * width + "+", f"!! {error}"])
    frame = rp.frames[index]
    state = frame.state
    grid = [[EMPTY] * width for _ in range(height)]

    def put(cell: tuple[int, int] | None, char: str) -> None:
        if cell is not None and rp.config.in_bounds(cell):
            grid[cell[1]][cell[0]] = char

    put(state.food, FOOD)
    for cell in reversed(state.body[1:]):
        put(cell, BODY)
    put(frame.rules_head, RULES_HEAD)
    put(state.head, DEAD if frame.dead else HEAD)
    first = rp.first_violation
    here = first is not None and first.frame == index
    if here and first.cell is not None and first.cell != state.head:
        put(first.cell, MARK)
    end = f"  {frame.end_event}" if frame.end_event else ""
    caption = f"tick {frame.tick}/{len(rp.frames) - 1}  score {state.score}  len {state.length}  dir {state.direction.name}{end}"
    lines = [caption, "+" + "-" * width + "+", *("|" + "".join(row) + "|" for row in grid), "+" + "-" * width + "+"]
    if not rp.config.in_bounds(state.head):
        lines.append(f"   head off the board at ({state.head[0]}, {state.head[1]})")
    written = " ".join(rp.tokens[frame.start : frame.end])
    if len(written) > max_token_chars:
        written = written[: max_token_chars - 3] + "..."
    lines.append(f"   {written}")
    if frame.rules_say:
        lines.append(f"   rules: {frame.rules_say}")
    if here:
        lines.append(f"!! {first.message}")
    if index == len(rp.frames) - 1 and rp.grammar_error is not None and not (here and first.rule == "grammar"):
        lines.append(f"!! grammar error, frames end here: {rp.grammar_error}")
    return "\n".join(lines)


def play(rp: Replay, *, delay: float = 0.2, out: TextIO | None = None) -> None:
    """Print every frame; with a delay on a terminal, redraw in place like an animation."""
    out = out or sys.stdout
    animate = delay > 0 and out.isatty()
    count = max(1, len(rp.frames))
    for k in range(count):
        text = render_frame(rp, k)
        if animate:
            out.write("\x1b[H\x1b[2J")
        out.write(text + "\n" + ("" if animate else "\n"))
        out.flush()
        if delay > 0 and k < count - 1:
            time.sleep(delay)
    out.write(rp.summary() + "\n" + LEGEND + "\n")
