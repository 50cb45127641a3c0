"""Colours shared by the GIF, the HTML player and the terminal, so all three show the same snakes."""

from __future__ import annotations

from gamegrammar.replay.palette import CHROME, hex_rgb

COLORS: dict[str, str] = dict(CHROME)  # the board's chrome; the snakes' colours are below

# One (body, head) pair per snake, S0 to S7: hues far apart, the head a lighter shade of its body.
SNAKE_COLORS: tuple[tuple[str, str], ...] = (
    ("#3fa34d", "#b6e35a"),  # green
    ("#3d7be0", "#8fb8ff"),  # blue
    ("#e08a2e", "#ffc27a"),  # orange
    ("#9b59d0", "#d0a4ff"),  # purple
    ("#2bb3b1", "#8ff0ec"),  # teal
    ("#d94f9a", "#ff9fd0"),  # pink
    ("#c9b52e", "#fff08a"),  # yellow
    ("#8d8f99", "#d6d8e0"),  # grey
)
ANSI: tuple[int, ...] = (32, 34, 33, 35, 36, 95, 93, 37)  # the terminal's nearest colour of each snake


def snake_color(k: int, part: str = "body") -> str:
    body, head = SNAKE_COLORS[k % len(SNAKE_COLORS)]
    return head if part == "head" else body


def rgb(color: str) -> tuple[int, int, int]:
    """A palette name ("food") or a #rrggbb colour as an (r, g, b) tuple, for Pillow."""
    return hex_rgb(COLORS.get(color, color))
