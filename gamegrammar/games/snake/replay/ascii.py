"""The terminal replay: one text board per frame, with the tick's tokens and any violation under it."""

from __future__ import annotations

from typing import TextIO

from gamegrammar.games.snake.replay.frames import Replay
from gamegrammar.replay import text

HEAD, BODY, FOOD, EMPTY, DEAD, MARK, RULES_HEAD = "@", "o", "*", ".", "X", "!", "?"
LEGEND = f"{HEAD} head  {BODY} body  {FOOD} food  {DEAD} dead head  {RULES_HEAD} where the rules put the head  {MARK} first violation"


def render_frame(rp: Replay, index: int, *, max_token_chars: int = 200) -> str:
    """One frame as text: a caption, the board in a frame of +-|, the tick's tokens, and notes."""
    width, height = rp.config.width, rp.config.height
    if not rp.frames:
        return text.nothing_to_replay(width, height, rp.grammar_error, EMPTY)
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
    lines = [caption, *text.boxed(("".join(row) for row in grid), width)]
    if not rp.config.in_bounds(state.head):
        lines.append(f"   head off the board at ({state.head[0]}, {state.head[1]})")
    return "\n".join(lines + text.notes(rp, index, max_token_chars=max_token_chars))


def play(rp: Replay, *, delay: float = 0.2, out: TextIO | None = None) -> None:
    """Print every frame; with a delay on a terminal, redraw in place like an animation."""
    text.play(lambda k, _tty: render_frame(rp, k), len(rp.frames), rp.summary() + "\n" + LEGEND, delay=delay, out=out)
