"""The terminal replay: one text board per frame (y up, as in the API), the tick's tokens and any violation under it.

Snake k is drawn with its own letters (head A, B, C... body a, b, c...), and, on a colour
terminal, in its own colour (`style.ANSI`).
"""

from __future__ import annotations

from typing import TextIO

from gamegrammar.games.battlesnake.replay.frames import Replay
from gamegrammar.games.battlesnake.replay.style import ANSI
from gamegrammar.replay import text

HEADS, BODIES = "ABCDEFGH", "abcdefgh"
FOOD, EMPTY, DEAD, MARK, RULES_HEAD = "*", ".", "X", "!", "?"
LEGEND = (
    f"A-H head of S0-S7  a-h body  {FOOD} food  {DEAD} head of a snake eliminated this tick  "
    f"{RULES_HEAD} where the rules put a head  {MARK} first violation"
)


def _paint(char: str, k: int | None, color: bool) -> str:
    if not color or k is None:
        return char
    return f"\x1b[{ANSI[k % len(ANSI)]}m{char}\x1b[0m"


def render_frame(rp: Replay, index: int, *, max_token_chars: int = 240, color: bool = False) -> str:
    """One frame as text: a caption, the board (top row y = height - 1) in a frame of +-|, each snake's
    length and health, the tick's tokens, and notes. `color` adds ANSI colours, one per snake."""
    width, height = rp.config.width, rp.config.height
    if not rp.frames:
        return text.nothing_to_replay(width, height, rp.grammar_error, EMPTY)
    frame = rp.frames[index]
    state = frame.state
    grid: list[list[tuple[str, int | None]]] = [[(EMPTY, None)] * width for _ in range(height)]

    def put(cell: tuple[int, int] | None, char: str, k: int | None = None) -> None:
        if cell is not None and rp.config.in_bounds(cell):
            grid[cell[1]][cell[0]] = (char, k)

    for cell in state.food:
        put(cell, FOOD)
    shown = [k for k, s in enumerate(state.snakes) if s.body and (s.alive or k in frame.died)]
    for k in shown:
        for cell in reversed(state.snakes[k].body[1:]):
            put(cell, BODIES[k % 8], k)
    for _, cell in frame.rules_heads:
        put(cell, RULES_HEAD)
    for k in shown:
        put(state.snakes[k].head, DEAD if k in frame.died else HEADS[k % 8], k)
    first = rp.first_violation
    here = first is not None and first.frame == index
    if here and first.cell is not None and all(first.cell != state.snakes[k].head for k in shown):
        put(first.cell, MARK)
    end = f"  {frame.end_event}" if frame.end_event else ""
    caption = f"tick {frame.tick}/{len(rp.frames) - 1}  alive {len(state.alive)}{end}"
    rows = ("".join(_paint(c, k, color) for c, k in grid[y]) for y in reversed(range(height)))
    lines = [caption, *text.boxed(rows, width)]
    status = []
    for k, s in enumerate(state.snakes):
        tag = _paint(HEADS[k % 8], k, color)
        status.append(f"{tag} S{k} len {s.length} hp {s.health}" if s.alive else f"{tag} S{k} {s.cause or 'out'}")
    lines.append("   " + "   ".join(status))
    for k in shown:
        head = state.snakes[k].head
        if not rp.config.in_bounds(head):
            lines.append(f"   S{k}'s head off the board at ({head[0]}, {head[1]})")
    return "\n".join(lines + text.notes(rp, index, max_token_chars=max_token_chars))


def play(rp: Replay, *, delay: float = 0.2, out: TextIO | None = None) -> None:
    """Print every frame; with a delay on a terminal, redraw in place like an animation (in colour)."""
    text.play(lambda k, tty: render_frame(rp, k, color=tty), len(rp.frames), rp.summary() + "\n" + LEGEND, delay=delay, out=out)
