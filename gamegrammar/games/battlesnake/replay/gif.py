"""The animated GIF replay: one image per frame (the start, then one per tick), drawn with Pillow.

The board is drawn y up, as in the API; each snake in its own colour (`style.SNAKE_COLORS`), with a
status strip under the board (each snake's length and health, or its cause of elimination).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from gamegrammar.games.battlesnake.replay.frames import Frame, Replay
from gamegrammar.games.battlesnake.replay.style import rgb, snake_color
from gamegrammar.io import atomic_write_bytes

if TYPE_CHECKING:
    from PIL import Image

CAPTION = 34  # pixels above the board: the tick line and a note line
MARGIN = 6
STATUS_ROW, STATUS_COLUMN = 16, 96  # the status strip: one entry per snake


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # a scalable font where Pillow has FreeType
    except (TypeError, OSError):  # older Pillow, or no FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _status_layout(rp: Replay, cell: int) -> tuple[int, int]:
    """(columns, rows) of the status strip."""
    columns = max(1, (rp.config.width * cell) // STATUS_COLUMN)
    return columns, -(-rp.config.num_snakes // columns)


def draw_frame(rp: Replay, index: int | None, cell: int = 24) -> Image.Image:
    """The board of one frame (None: an empty board, for a sequence with no frames) as an RGB image."""
    from PIL import Image, ImageDraw

    width, height = rp.config.width, rp.config.height
    columns, rows = _status_layout(rp, cell)
    board_h = height * cell
    image = Image.new(
        "RGB", (max(width * cell, STATUS_COLUMN) + 2 * MARGIN, board_h + CAPTION + 3 * MARGIN + rows * STATUS_ROW), rgb("background")
    )
    draw = ImageDraw.Draw(image)
    ox, oy = MARGIN, CAPTION + MARGIN

    def box(c: tuple[int, int], inset: int = 1) -> tuple[int, int, int, int]:
        inset = min(inset, (cell - 1) // 2)  # tiny cells: never an empty or inverted box
        top = oy + (height - 1 - c[1]) * cell
        return ox + c[0] * cell + inset, top + inset, ox + (c[0] + 1) * cell - 1 - inset, top + cell - 1 - inset

    draw.rectangle((ox, oy, ox + width * cell - 1, oy + board_h - 1), fill=rgb("board"))
    for x in range(width + 1):
        draw.line((ox + x * cell, oy, ox + x * cell, oy + board_h - 1), fill=rgb("grid"))
    for y in range(height + 1):
        draw.line((ox, oy + y * cell, ox + width * cell - 1, oy + y * cell), fill=rgb("grid"))
    font, small = _font(13), _font(11)
    if index is None:
        draw.text((MARGIN, 3), "nothing to replay", fill=rgb("text"), font=font)
        draw.text((MARGIN, 19), str(rp.grammar_error or "empty sequence")[:80], fill=rgb("mark"), font=small)
        return image
    frame: Frame = rp.frames[index]
    state = frame.state
    on = rp.config.in_bounds
    for c in state.food:
        draw.ellipse(box(c, max(2, cell // 5)), fill=rgb("food"))
    shown = [k for k, s in enumerate(state.snakes) if s.body and (s.alive or k in frame.died)]
    for k in shown:
        for c in state.snakes[k].body[1:]:
            if on(c):
                draw.rectangle(box(c, 2), fill=rgb(snake_color(k)))
    for _, c in frame.rules_heads:
        draw.rectangle(box(c, 2), outline=rgb("rules_head"), width=1)
    for k in shown:
        head = state.snakes[k].head
        if on(head):
            draw.rectangle(box(head, 1), fill=rgb("dead" if k in frame.died else snake_color(k, "head")))
            draw.rectangle(box(head, max(3, cell // 3)), fill=rgb(snake_color(k)))  # the head's own colour at its centre
    first = rp.first_violation
    here = first is not None and first.frame == index
    if here and first.cell is not None and on(first.cell):
        draw.rectangle(box(first.cell, 0), outline=rgb("mark"), width=3)
    end = f"  {frame.end_event}" if frame.end_event else ""
    draw.text((MARGIN, 3), f"tick {frame.tick}/{len(rp.frames) - 1}  alive {len(state.alive)}{end}", fill=rgb("text"), font=font)
    note = f"! {first.rule} (token {first.index})" if here else f"rules: {frame.rules_say}" if frame.rules_say else ""
    if note:
        draw.text((MARGIN, 19), note[:90], fill=rgb("mark" if here else "muted"), font=small)
    top = oy + board_h + MARGIN
    for k, s in enumerate(state.snakes):
        x, y = MARGIN + (k % columns) * STATUS_COLUMN, top + (k // columns) * STATUS_ROW
        draw.rectangle((x, y + 2, x + 9, y + 11), fill=rgb(snake_color(k)) if s.alive else None, outline=rgb(snake_color(k)))
        text = f"S{k} {s.length}/{s.health}" if s.alive else f"S{k} {s.cause or 'out'}"
        draw.text((x + 13, y), text, fill=rgb("text" if s.alive else "muted"), font=small)
    return image


def gif_bytes(rp: Replay, *, cell: int = 24, frame_ms: int = 200, hold_ms: int = 1500) -> bytes:
    """The whole replay as GIF bytes: every frame shown for frame_ms, the last one held for hold_ms."""
    images = [draw_frame(rp, k, cell) for k in range(len(rp.frames))] or [draw_frame(rp, None, cell)]
    durations = [frame_ms] * (len(images) - 1) + [hold_ms]
    buf = io.BytesIO()
    # The caption names the tick, so no two consecutive images are equal and Pillow keeps every one.
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)
    return buf.getvalue()


def write_gif(rp: Replay, path: str | Path, **kwargs: int) -> int:
    """Write the GIF atomically; returns the number of images in it."""
    atomic_write_bytes(path, gif_bytes(rp, **kwargs))
    return max(1, len(rp.frames))
