"""The animated GIF replay: one image per frame (the initial state, then one per tick), drawn with Pillow.

The board, its grid and the caption are the shared chrome (`gamegrammar.replay.gif`); this module
draws Snake's pieces on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamegrammar.games.snake.replay.frames import Frame, Replay
from gamegrammar.games.snake.replay.style import rgb
from gamegrammar.replay.gif import Grid, ReplayGif, frame_image

if TYPE_CHECKING:
    from PIL import Image, ImageDraw


def draw_frame(rp: Replay, index: int | None, cell: int = 24) -> Image.Image:
    """The board of one frame (None: an empty board, for a sequence with no frames) as an RGB image."""
    grid = Grid(rp.config.width, rp.config.height, cell)
    on, box = rp.config.in_bounds, grid.box

    def pieces(frame: Frame, draw: ImageDraw.ImageDraw) -> None:
        state = frame.state
        if state.food is not None and on(state.food):
            draw.ellipse(box(state.food, max(2, cell // 5)), fill=rgb("food"))
        for c in state.body[1:]:
            if on(c):
                draw.rectangle(box(c, 2), fill=rgb("body"))
        if frame.rules_head is not None and on(frame.rules_head):
            draw.rectangle(box(frame.rules_head, 2), outline=rgb("rules_head"), width=1)
        if on(state.head):
            draw.rectangle(box(state.head, 1), fill=rgb("dead" if frame.dead else "head"))

    def caption(frame: Frame) -> str:
        end = f"  {frame.end_event}" if frame.end_event else ""
        return f"tick {frame.tick}/{len(rp.frames) - 1}  score {frame.state.score}  len {frame.state.length}{end}"

    return frame_image(rp, index, grid, pieces, caption)


_GIF = ReplayGif(draw_frame)
gif_bytes = _GIF.gif_bytes
write_gif = _GIF.write_gif
