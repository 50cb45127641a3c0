"""The chrome's colours: one palette, read as (r, g, b) for Pillow."""

from __future__ import annotations

from gamegrammar.replay.palette import CHROME, MARKS, SURFACES, chrome, hex_rgb


def test_hex_rgb() -> None:
    assert hex_rgb("#15181e") == (0x15, 0x18, 0x1E) and hex_rgb("ff3b3b") == (255, 59, 59)


def test_chrome_is_the_surfaces_then_the_marks() -> None:
    assert list(CHROME) == [*SURFACES, *MARKS]
    assert chrome("mark") == hex_rgb(MARKS["mark"]) and chrome("board") == hex_rgb(SURFACES["board"])
