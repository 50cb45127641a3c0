"""The GIF chrome: where cells fall, the board and its grid, the caption, and the animation."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from PIL import Image

from gamegrammar.replay.gif import CAPTION, MARGIN, Grid, ReplayGif, animation, board_image, draw_caption, draw_nothing
from gamegrammar.replay.palette import chrome


def test_grid_boxes_count_y_down_or_up() -> None:
    down, up = Grid(4, 3, 10), Grid(4, 3, 10, y_up=True)
    top = CAPTION + MARGIN
    assert down.box((0, 0), 0) == (MARGIN, top, MARGIN + 9, top + 9)
    assert down.box((2, 1), 2) == (MARGIN + 22, top + 12, MARGIN + 27, top + 17)
    assert up.box((2, 1), 2) == down.box((2, 1), 2)  # the middle row is the same both ways
    assert up.box((0, 0), 0) == down.box((0, 2), 0)
    assert Grid(2, 2, 3).box((0, 0), 5) == (MARGIN + 1, top + 1, MARGIN + 1, top + 1)  # a tiny cell keeps one pixel


def test_board_image_has_the_board_its_grid_and_room_for_more() -> None:
    image, _ = board_image(Grid(5, 4, 10))
    assert image.size == (50 + 2 * MARGIN, 40 + CAPTION + 2 * MARGIN)
    assert image.getpixel((1, 1)) == chrome("background")
    assert image.getpixel((MARGIN + 5, CAPTION + MARGIN + 5)) == chrome("board")
    assert image.getpixel((MARGIN + 10, CAPTION + MARGIN + 5)) == chrome("grid")
    assert image.getpixel((MARGIN + 5, CAPTION + MARGIN + 40)) == chrome("grid")
    wide, _ = board_image(Grid(2, 2, 10), min_width=96, below=30)
    assert wide.size == (96 + 2 * MARGIN, 20 + CAPTION + 2 * MARGIN + 30)


def colours_of(image: Image.Image, box: tuple[int, int, int, int]) -> set:
    return set(image.crop(box).getdata())


def test_the_caption_notes_the_violation_in_red_or_the_rules_in_grey() -> None:
    note_box = (0, 19, 150, CAPTION)
    image, draw = board_image(Grid(8, 2, 20))
    draw_caption(draw, "tick 1/2", violation=SimpleNamespace(rule="r", index=3))
    assert chrome("mark") in colours_of(image, note_box) and chrome("text") in colours_of(image, (0, 0, 150, 17))
    image, draw = board_image(Grid(8, 2, 20))
    draw_caption(draw, "tick 1/2", rules_say="MOVE X1 Y1")
    assert chrome("mark") not in colours_of(image, note_box) and len(colours_of(image, note_box)) > 1
    image, draw = board_image(Grid(8, 2, 20))
    draw_caption(draw, "tick 1/2")
    assert colours_of(image, note_box) == {chrome("background")}
    image, draw = board_image(Grid(8, 2, 20))
    draw_nothing(draw, None)
    assert chrome("mark") in colours_of(image, note_box)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_animation_has_one_image_per_frame_and_holds_the_last(count: int) -> None:
    asked = []

    def draw(k):
        asked.append(k)
        image, pen = board_image(Grid(3, 3, 8))
        pen.text((MARGIN, 3), f"tick {k}", fill=chrome("text"))
        return image

    gif = Image.open(io.BytesIO(animation(draw, count, frame_ms=40, hold_ms=900)))
    assert asked == (list(range(count)) or [None])
    assert gif.n_frames == max(1, count)
    gif.seek(gif.n_frames - 1)
    assert gif.info["duration"] == 900


def test_replay_gif_draws_each_frame_at_the_cell_size_and_writes_them(tmp_path) -> None:
    calls = []

    def draw_frame(rp, index, cell):
        calls.append((index, cell))
        image, pen = board_image(Grid(2, 2, cell))
        pen.text((MARGIN, 3), f"tick {index}", fill=chrome("text"))
        return image

    gif = ReplayGif(draw_frame)
    rp = SimpleNamespace(frames=[object(), object()])
    assert gif.write_gif(rp, tmp_path / "a.gif", cell=9) == 2
    assert calls == [(0, 9), (1, 9)]
    assert Image.open(tmp_path / "a.gif").n_frames == 2
    calls.clear()
    assert gif.write_gif(SimpleNamespace(frames=[]), tmp_path / "b.gif") == 1  # the empty board
    assert calls == [(None, 24)]
