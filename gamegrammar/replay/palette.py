"""The colours of the board's chrome, shared so that every game's GIF and HTML player look alike.

A game's palette is `{**SURFACES, <its own pieces>, **MARKS}`: the order is kept because the HTML
player embeds the palette as JSON.
"""

from __future__ import annotations

SURFACES: dict[str, str] = {
    "background": "#15181e",
    "board": "#1f242d",
    "grid": "#2b313c",
}

MARKS: dict[str, str] = {
    "dead": "#e8613c",
    "food": "#e5484d",
    "rules_head": "#d8dee9",
    "mark": "#ff3b3b",
    "text": "#e6e9ef",
    "muted": "#8a93a3",
}

CHROME: dict[str, str] = {**SURFACES, **MARKS}


def hex_rgb(color: str) -> tuple[int, int, int]:
    """A #rrggbb colour as an (r, g, b) tuple, for Pillow."""
    h = color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def chrome(name: str) -> tuple[int, int, int]:
    """A chrome colour ("board", "mark", ...) as an (r, g, b) tuple."""
    return hex_rgb(CHROME[name])
