"""The animated GIF replay: one image per frame (the initial state, then one per tick), drawn with Pillow."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from gamegrammar.games.snake.replay.frames import Frame, Replay
from gamegrammar.games.snake.replay.style import rgb
from gamegrammar.io import atomic_write_bytes

if TYPE_CHECKING:
    from PIL import Image

CAPTION = 34  # pixels above the board: the tick line and a note line
MARGIN = 6


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # a scalable font where Pillow has FreeType
    except (TypeError, OSError):  # older Pillow, or no FreeType: the fixed bitmap font
        return ImageFont.load_default()


def draw_frame(rp: Replay, index: int | None, cell: int = 24) -> Image.Image:
    """The board of one frame (None: an empty board, for a sequence with no frames) as an RGB image."""
    from PIL import Image, ImageDraw

    width, height = rp.config.width, rp.config.height
    image = Image.new("RGB", (width * cell + 2 * MARGIN, height * cell + CAPTION + 2 * MARGIN), rgb("background"))
    draw = ImageDraw.Draw(image)
    ox, oy = MARGIN, CAPTION + MARGIN

    def box(c: tuple[int, int], inset: int = 1) -> tuple[int, int, int, int]:
        inset = min(inset, (cell - 1) // 2)  # tiny cells: never an empty or inverted box
        return ox + c[0] * cell + inset, oy + c[1] * cell + inset, ox + (c[0] + 1) * cell - 1 - inset, oy + (c[1] + 1) * cell - 1 - inset

    draw.rectangle((ox, oy, ox + width * cell - 1, oy + height * cell - 1), fill=rgb("board"))
    for x in range(width + 1):
        draw.line((ox + x * cell, oy, ox + x * cell, oy + height * cell - 1), fill=rgb("grid"))
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
    if state.food is not None and on(state.food):
        draw.ellipse(box(state.food, max(2, cell // 5)), fill=rgb("food"))
    for c in state.body[1:]:
        if on(c):
            draw.rectangle(box(c, 2), fill=rgb("body"))
    if frame.rules_head is not None and on(frame.rules_head):
        draw.rectangle(box(frame.rules_head, 2), outline=rgb("rules_head"), width=1)
    if on(state.head):
        draw.rectangle(box(state.head, 1), fill=rgb("dead" if frame.dead else "head"))
    first = rp.first_violation
    here = first is not None and first.frame == index
    if here and first.cell is not None and on(first.cell):
        draw.rectangle(box(first.cell, 0), outline=rgb("mark"), width=3)
    end = f"  {frame.end_event}" if frame.end_event else ""
    draw.text(
        (MARGIN, 3), f"tick {frame.tick}/{len(rp.frames) - 1}  score {state.score}  len {state.length}{end}", fill=rgb("text"), font=font
    )
    note = ""
    if here:
        note = f"! {first.rule} (token {first.index})"
    elif frame.rules_say:
        note = f"rules: {frame.rules_say}"
    if note:
        draw.text((MARGIN, 19), note, fill=rgb("mark" if here else "muted"), font=small)
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
    data = gif_bytes(rp, **kwargs)
    atomic_write_bytes(path, data)
    return max(1, len(rp.frames))
