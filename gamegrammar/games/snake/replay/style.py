"""Colours shared by the GIF and the HTML player, so both look like the same game."""

from __future__ import annotations

COLORS: dict[str, str] = {
    "background": "#15181e",
    "board": "#1f242d",
    "grid": "#2b313c",
    "body": "#3fa34d",
    "head": "#b6e35a",
    "dead": "#e8613c",
    "food": "#e5484d",
    "rules_head": "#d8dee9",
    "mark": "#ff3b3b",
    "text": "#e6e9ef",
    "muted": "#8a93a3",
}


def rgb(name: str) -> tuple[int, int, int]:
    """A palette colour as an (r, g, b) tuple, for Pillow."""
    h = COLORS[name].lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
