"""The GIF replay's chrome, the same for every game: a gridded board under a two-line caption, and
the animation that strings one image per frame together. A game draws only its pieces.

Pillow is imported where an image is made, so that a game's renderer imports without it.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamegrammar.core.io import atomic_write_bytes
from gamegrammar.replay.frames import BaseReplay, Violation
from gamegrammar.replay.palette import chrome

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

CAPTION = 34  # pixels above the board: the tick line and a note line
MARGIN = 6


@cache
def font(size: int) -> Any:
    """Pillow's default font at `size` where it can scale (FreeType), else its fixed bitmap font."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # older Pillow, or no FreeType
        return ImageFont.load_default()


@dataclass(frozen=True)
class Grid:
    """Where a board's cells fall on the image: the board's top left is at (MARGIN, CAPTION + MARGIN).

    `y_up` puts y = 0 on the bottom row, as the Battlesnake API counts.
    """

    width: int
    height: int
    cell: int
    y_up: bool = False

    def box(self, c: tuple[int, int], inset: int = 1) -> tuple[int, int, int, int]:
        """The pixel box of cell `c`, `inset` pixels inside its grid lines."""
        inset = min(inset, (self.cell - 1) // 2)  # tiny cells: never an empty or inverted box
        row = self.height - 1 - c[1] if self.y_up else c[1]
        left, top = MARGIN + c[0] * self.cell, CAPTION + MARGIN + row * self.cell
        return left + inset, top + inset, left + self.cell - 1 - inset, top + self.cell - 1 - inset


def board_image(grid: Grid, *, min_width: int = 0, below: int = 0) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """An RGB image with the empty, gridded board drawn, and a pen on it.

    `min_width` widens the image for what a game draws beside or under the board; `below` adds
    that many pixels under it.
    """
    from PIL import Image, ImageDraw

    board_w, board_h = grid.width * grid.cell, grid.height * grid.cell
    size = (max(board_w, min_width) + 2 * MARGIN, board_h + CAPTION + 2 * MARGIN + below)
    image = Image.new("RGB", size, chrome("background"))
    draw = ImageDraw.Draw(image)
    ox, oy = MARGIN, CAPTION + MARGIN
    draw.rectangle((ox, oy, ox + board_w - 1, oy + board_h - 1), fill=chrome("board"))
    for x in range(grid.width + 1):
        draw.line((ox + x * grid.cell, oy, ox + x * grid.cell, oy + board_h - 1), fill=chrome("grid"))
    for y in range(grid.height + 1):
        draw.line((ox, oy + y * grid.cell, ox + board_w - 1, oy + y * grid.cell), fill=chrome("grid"))
    return image, draw


def draw_nothing(draw: ImageDraw.ImageDraw, error: object | None) -> None:
    """The caption of a sequence with no frames: why there is nothing to replay."""
    draw.text((MARGIN, 3), "nothing to replay", fill=chrome("text"), font=font(13))
    draw.text((MARGIN, 19), str(error or "empty sequence")[:80], fill=chrome("mark"), font=font(11))


def draw_caption(
    draw: ImageDraw.ImageDraw,
    caption: str,
    *,
    violation: Violation | None = None,
    rules_say: str | None = None,
    note_chars: int | None = None,
) -> None:
    """The tick line, and under it the first violation (when it is on this frame) or what the rules give."""
    draw.text((MARGIN, 3), caption, fill=chrome("text"), font=font(13))
    note = f"! {violation.rule} (token {violation.index})" if violation is not None else f"rules: {rules_say}" if rules_say else ""
    if note:
        draw.text((MARGIN, 19), note[:note_chars], fill=chrome("mark" if violation is not None else "muted"), font=font(11))


def frame_image(
    rp: BaseReplay[Any, Any, Any],
    index: int | None,
    grid: Grid,
    pieces: Callable[[Any, ImageDraw.ImageDraw], None],
    caption: Callable[[Any], str],
    *,
    min_width: int = 0,
    below: int = 0,
    note_chars: int | None = None,
) -> Image.Image:
    """Frame `index` of a replay (None: the empty board of a sequence with no frames) as an RGB image.

    The game draws its `pieces(frame, draw)` on the board and names the tick line (`caption(frame)`);
    the first violation's cell is outlined over them, and noted under the tick line.
    """
    image, draw = board_image(grid, min_width=min_width, below=below)
    if index is None:
        draw_nothing(draw, rp.grammar_error)
        return image
    frame = rp.frames[index]
    pieces(frame, draw)
    first = rp.first_violation
    here = first if first is not None and first.frame == index else None
    if here is not None and here.cell is not None and rp.config.in_bounds(here.cell):
        draw.rectangle(grid.box(here.cell, 0), outline=chrome("mark"), width=3)
    draw_caption(draw, caption(frame), violation=here, rules_say=frame.rules_say, note_chars=note_chars)
    return image


def animation(draw_frame: Callable[[int | None], Image.Image], count: int, *, frame_ms: int, hold_ms: int) -> bytes:
    """GIF bytes of `count` frames (`draw_frame(None)`, the empty board, when there are none): each
    shown for frame_ms, the last held for hold_ms."""
    images = [draw_frame(k) for k in range(count)] or [draw_frame(None)]
    durations = [frame_ms] * (len(images) - 1) + [hold_ms]
    buf = io.BytesIO()
    # The caption names the tick, so no two consecutive images are equal and Pillow keeps every one.
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)
    return buf.getvalue()


@dataclass(frozen=True)
class ReplayGif:
    """A game's `gif_bytes` and `write_gif`, from the one thing that is its own: `draw_frame(rp, index, cell)`."""

    draw_frame: Callable[[Any, int | None, int], Image.Image]

    def gif_bytes(self, rp: BaseReplay[Any, Any, Any], *, cell: int = 24, frame_ms: int = 200, hold_ms: int = 1500) -> bytes:
        """The whole replay as GIF bytes: every frame shown for frame_ms, the last one held for hold_ms."""
        return animation(lambda k: self.draw_frame(rp, k, cell), len(rp.frames), frame_ms=frame_ms, hold_ms=hold_ms)

    def write_gif(self, rp: BaseReplay[Any, Any, Any], path: str | Path, **kwargs: int) -> int:
        """Write the GIF atomically; returns the number of images in it."""
        atomic_write_bytes(path, self.gif_bytes(rp, **kwargs))
        return max(1, len(rp.frames))
