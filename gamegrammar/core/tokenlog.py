"""Token ids written tick by tick for many episodes at once, laid out episode by episode at the end.

Every batch engine writes its episodes through this (a game package's rollout), so the layout trick lives once.
"""

from __future__ import annotations

import numpy as np


class TokenLog:
    """Token chunks written tick by tick; each chunk holds one run of tokens per game, games ascending.

    Positions are resolved once at the end (`assemble`), when every episode's
    length and so its offset is known: one scatter per chunk, no per-token bookkeeping.
    """

    def __init__(self, n: int) -> None:
        self.cursor = np.zeros(n, np.int64)
        # (games, cursor before, counts or None for dense rows, tokens: flat or (games, width))
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]] = []

    def write(self, games: np.ndarray, ids: np.ndarray, mask: np.ndarray) -> None:
        """Append the masked ids of each row (row-major) to the episode of `games[row]`."""
        counts = mask.sum(axis=1)
        self.chunks.append((games, self.cursor[games], counts, ids[mask]))
        self.cursor[games] += counts

    def write_dense(self, games: np.ndarray, ids: np.ndarray) -> None:
        """Append every id of each row: the fast path for rows without optional tokens."""
        self.chunks.append((games, self.cursor[games], None, ids))
        self.cursor[games] += ids.shape[1]

    def assemble(self, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """Episode-major flat tokens and each episode's length."""
        lengths = self.cursor.copy()
        offsets = np.cumsum(lengths) - lengths
        flat = np.empty(int(lengths.sum()), dtype)
        for games, before, counts, tokens in self.chunks:
            start = offsets[games] + before
            if counts is None:
                flat[start[:, None] + np.arange(tokens.shape[1])] = tokens
            else:
                run_start = np.cumsum(counts) - counts
                flat[np.arange(len(tokens)) + np.repeat(start - run_start, counts)] = tokens
        return flat, lengths
