"""The animated GIF replay: one image per move, drawn with Pillow on the shared chrome (`gamegrammar.replay.gif`):
stones as discs, the last move with a dot, the points a capture emptied with a cross, row 1 at the bottom."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gamegrammar.games.go.replay.ascii import caption
from gamegrammar.games.go.replay.frames import Frame, Replay
from gamegrammar.replay.gif import Grid, ReplayGif, frame_image
from gamegrammar.replay.palette import hex_rgb

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

COLORS = {"black": "#0d0f12", "white": "#eef0f3", "edge": "#8a93a3", "last": "#e5484d", "taken": "#e8613c"}


def draw_frame(rp: Replay, index: int | None, cell: int = 24) -> Image.Image:
    """The board of one frame (None: an empty board, for a sequence with no frames) as an RGB image."""
    size = rp.config.size
    grid = Grid(size, size, cell, y_up=True)

    def pieces(frame: Frame, draw: ImageDraw.ImageDraw) -> None:
        for p, c in enumerate(frame.state.board):
            if c:
                draw.ellipse(
                    grid.box((p % size, p // size), 2),
                    fill=hex_rgb(COLORS["black" if c == 1 else "white"]),
                    outline=hex_rgb(COLORS["edge"]),
                )
        for p in frame.taken:
            if frame.state.board[p] == 0:
                left, top, right, bottom = grid.box((p % size, p // size), max(4, cell // 4))
                for line in ((left, top, right, bottom), (left, bottom, right, top)):
                    draw.line(line, fill=hex_rgb(COLORS["taken"]), width=2)
        if frame.move is not None and frame.move >= 0:
            p = frame.move
            draw.ellipse(grid.box((p % size, p // size), max(3, cell // 3)), fill=hex_rgb(COLORS["last"]))

    return frame_image(rp, index, grid, pieces, lambda frame: caption(rp, frame), note_chars=60)


_GIF = ReplayGif(draw_frame)
gif_bytes = _GIF.gif_bytes
write_gif = _GIF.write_gif
