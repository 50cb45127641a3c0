"""The terminal replay: one text board per move, as GNU Go's showboard draws it (columns A.. without I, row N at the
top), the last move in parentheses, the stones its capture took as `*`, the tick's tokens and any violation under it."""

from __future__ import annotations

from typing import TextIO

from gamegrammar.games.go.replay.frames import Frame, Replay
from gamegrammar.games.go.rules import vertex
from gamegrammar.replay import text

STONES, TAKEN, MARK = ".XO", "*", "!"
LEGEND = f"X black  O white  (X) the last move  {TAKEN} a stone its capture took  {MARK} first violation"


def render_frame(rp: Replay, index: int, *, max_token_chars: int = 240, color: bool = False) -> str:
    """One frame as text: a caption, the board with its coordinates, the tick's tokens, and notes (`color` is
    accepted for the renderer protocol; the board is drawn in plain text)."""
    size = rp.config.size
    if not rp.frames:
        return text.nothing_to_replay(size, size, rp.grammar_error, STONES[0])
    frame = rp.frames[index]
    board = frame.state.board
    chars = [STONES[c] for c in board]
    for p in frame.taken:
        if 0 <= p < len(chars) and board[p] == 0:
            chars[p] = TAKEN
    first = rp.first_violation
    if first is not None and first.frame == index and first.cell is not None and rp.config.in_bounds(first.cell):
        x, y = first.cell
        chars[y * size + x] = MARK
    last = frame.move if frame.move is not None and frame.move >= 0 else None
    letters = "    " + " ".join(vertex(x, size)[0] for x in range(size))
    lines = [caption(rp, frame), letters]
    for y in reversed(range(size)):
        row = ""
        for x in range(size):
            p = y * size + x
            row += "(" if p == last else ")" if last is not None and p - 1 == last and x > 0 else " "
            row += chars[p]
        row += ")" if last is not None and last == y * size + size - 1 else " "
        lines.append(f"{y + 1:>2} {row}{y + 1}")
    lines.append(letters)
    return "\n".join(lines + text.notes(rp, index, max_token_chars=max_token_chars))


def caption(rp: Replay, frame: Frame) -> str:
    """The tick line: the move, what it took, the end as written."""
    parts = [f"tick {frame.tick}/{len(rp.frames) - 1}"]
    move = frame.move_text(rp.config.size)
    if move:
        parts.append(move + ("" if frame.placed else " (refused)"))
    if frame.taken:
        parts.append(f"takes {len(frame.taken)}")
    if frame.area is not None:
        parts.append(f"area B {frame.area[0]} W {frame.area[1]} komi {rp.config.komi:g}")
    parts += [word for word in (frame.result, frame.end_event) if word]
    return "  ".join(parts)


def play(rp: Replay, *, delay: float = 0.2, out: TextIO | None = None) -> None:
    """Print every frame; with a delay on a terminal, redraw in place like an animation."""
    text.play(lambda k, tty: render_frame(rp, k), len(rp.frames), rp.summary() + "\n" + LEGEND, delay=delay, out=out)
