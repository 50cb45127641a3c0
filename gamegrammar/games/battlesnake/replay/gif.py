"""The animated GIF replay: one image per frame (the start, then one per tick), drawn with Pillow.

The board, its grid and the caption are the shared chrome (`gamegrammar.replay.gif`), drawn y up
as in the API; this module draws each snake in its own colour (`style.SNAKE_COLORS`), with a
status strip under the board (each snake's length and health, or its cause of elimination).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamegrammar.games.battlesnake.replay.frames import Frame, Replay
from gamegrammar.games.battlesnake.replay.style import rgb, snake_color
from gamegrammar.replay.gif import CAPTION, MARGIN, Grid, ReplayGif, font, frame_image

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

STATUS_ROW, STATUS_COLUMN = 16, 96  # the status strip: one entry per snake


def _status_layout(rp: Replay, cell: int) -> tuple[int, int]:
    """(columns, rows) of the status strip."""
    columns = max(1, (rp.config.width * cell) // STATUS_COLUMN)
    return columns, -(-rp.config.num_snakes // columns)


def draw_frame(rp: Replay, index: int | None, cell: int = 24) -> Image.Image:
    """The board of one frame (None: an empty board, for a sequence with no frames) as an RGB image."""
    columns, rows = _status_layout(rp, cell)
    grid = Grid(rp.config.width, rp.config.height, cell, y_up=True)
    on, box = rp.config.in_bounds, grid.box

    def pieces(frame: Frame, draw: ImageDraw.ImageDraw) -> None:
        state = frame.state
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
        top = CAPTION + 2 * MARGIN + grid.height * cell  # the status strip, under the board
        for k, s in enumerate(state.snakes):
            x, y = MARGIN + (k % columns) * STATUS_COLUMN, top + (k // columns) * STATUS_ROW
            draw.rectangle((x, y + 2, x + 9, y + 11), fill=rgb(snake_color(k)) if s.alive else None, outline=rgb(snake_color(k)))
            text = f"S{k} {s.length}/{s.health}" if s.alive else f"S{k} {s.cause or 'out'}"
            draw.text((x + 13, y), text, fill=rgb("text" if s.alive else "muted"), font=font(11))

    def caption(frame: Frame) -> str:
        end = f"  {frame.end_event}" if frame.end_event else ""
        return f"tick {frame.tick}/{len(rp.frames) - 1}  alive {len(frame.state.alive)}{end}"

    return frame_image(rp, index, grid, pieces, caption, min_width=STATUS_COLUMN, below=MARGIN + rows * STATUS_ROW, note_chars=90)


_GIF = ReplayGif(draw_frame)
gif_bytes = _GIF.gif_bytes
write_gif = _GIF.write_gif
