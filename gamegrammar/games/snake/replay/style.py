"""Colours shared by the GIF and the HTML player, so both look like the same game: the board's
chrome (`gamegrammar.replay.palette`) and the snake's own body and head."""

from __future__ import annotations

from gamegrammar.replay.palette import MARKS, SURFACES, hex_rgb

COLORS: dict[str, str] = {**SURFACES, "body": "#3fa34d", "head": "#b6e35a", **MARKS}


def rgb(name: str) -> tuple[int, int, int]:
    """A palette colour as an (r, g, b) tuple, for Pillow."""
    return hex_rgb(COLORS[name])
