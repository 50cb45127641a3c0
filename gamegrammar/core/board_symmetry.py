"""The eight symmetries of a square board (the dihedral group D4), as maps of a cell.

One table shared by every game whose board is square (Snake and Go use it for augmentation):
`SYMMETRIES[name](x, y, n)` is the image of cell (x, y) on a board of side n + 1.
`TRANSPOSING` names those that swap the axes (a game writing x before y must swap them back).
"""

from __future__ import annotations

from collections.abc import Callable

Cell = tuple[int, int]

# name -> (x, y, n) -> (x', y') with n = side - 1
SYMMETRIES: dict[str, Callable[[int, int, int], Cell]] = {
    "identity": lambda x, y, n: (x, y),
    "rot90": lambda x, y, n: (n - y, x),
    "rot180": lambda x, y, n: (n - x, n - y),
    "rot270": lambda x, y, n: (y, n - x),
    "flip_x": lambda x, y, n: (n - x, y),
    "flip_y": lambda x, y, n: (x, n - y),
    "transpose": lambda x, y, n: (y, x),
    "anti_transpose": lambda x, y, n: (n - y, n - x),
}
TRANSPOSING = frozenset({"rot90", "rot270", "transpose", "anti_transpose"})
