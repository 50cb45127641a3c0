"""The terminal replay's text around the board, the same for every game: the frame of +-|, the
tick's tokens and notes under it, and the loop that prints (or animates) the frames."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from gamegrammar.replay.frames import BaseReplay


def boxed(rows: Iterable[str], width: int) -> list[str]:
    """Board rows (each `width` cells wide) in a frame of +-|."""
    edge = "+" + "-" * width + "+"
    return [edge, *("|" + row + "|" for row in rows), edge]


def nothing_to_replay(width: int, height: int, error: object | None, empty: str = ".") -> str:
    """The text of a sequence with no frames: an empty board and why."""
    return "\n".join(["nothing to replay", *boxed([empty * width] * height, width), f"!! {error or 'empty sequence'}"])


def notes(rp: BaseReplay[Any, Any, Any], index: int, *, max_token_chars: int) -> list[str]:
    """The lines under frame `index`'s board: its tokens (cut to max_token_chars), what the rules
    give where the sequence departs, the first violation, and a grammar error on the last frame."""
    frame = rp.frames[index]
    first = rp.first_violation
    here = first if first is not None and first.frame == index else None
    written = " ".join(rp.tokens[frame.start : frame.end])
    if len(written) > max_token_chars:
        written = written[: max_token_chars - 3] + "..."
    lines = [f"   {written}"]
    if frame.rules_say:
        lines.append(f"   rules: {frame.rules_say}")
    if here is not None:
        lines.append(f"!! {here.message}")
    if index == len(rp.frames) - 1 and rp.grammar_error is not None and not (here is not None and here.rule == "grammar"):
        lines.append(f"!! grammar error, frames end here: {rp.grammar_error}")
    return lines


def play(render: Callable[[int, bool], str], count: int, footer: str, *, delay: float = 0.2, out: TextIO | None = None) -> None:
    """Print `count` frames (at least one), `render(k, tty)` each, then the footer; with a delay on a
    terminal, redraw in place like an animation."""
    out = out or sys.stdout
    tty = out.isatty()
    animate = delay > 0 and tty
    count = max(1, count)
    for k in range(count):
        text = render(k, tty)
        if animate:
            out.write("\x1b[H\x1b[2J")
        out.write(text + "\n" + ("" if animate else "\n"))
        out.flush()
        if delay > 0 and k < count - 1:
            time.sleep(delay)
    out.write(footer + "\n")
