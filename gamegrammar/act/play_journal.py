"""The model's finished batches of games in a `play` run, so that an interrupted run carries on where it stopped.

A thousand games of a large model take a quarter of an hour or more on a small CPU. Each batch of games is a
function of (seed, episodes) and the model, so a batch played once need not be played again: after each one
the journal keeps its games in a file of its own (`batch-<first episode>-<games>.npz`, written atomically) in a
folder beside the report, with `run.json` naming the run (the model's weights and every setting that decides its
games). A journal of another run is cleared, never resumed.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gamegrammar.core.gamespec import BatchResult, PlayerResult
from gamegrammar.core.io import atomic_write, open_journal_folder

_EPISODE_FIELDS = ("tokens", "lengths", "ticks", "scores", "ends")


@dataclass
class PlayedBatch:
    """One batch of the model's games, and what it cost."""

    result: PlayerResult
    seconds: float
    forward_passes: int


def play_fingerprint(settings: dict[str, Any]) -> str:
    """One hash of what decides a model's games (the caller passes the weights' hash among the settings)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()


class PlayJournal:
    """`get` a batch an earlier run of the same fingerprint finished, `put` each new one, `remove` once the report is written."""

    def __init__(self, directory: str | Path, fingerprint: str) -> None:
        self.directory = Path(directory)
        self.resumed = 0  # batches read back
        self.resumed_seconds = 0.0  # what they took when they were played
        self.stale = open_journal_folder(self.directory, fingerprint)  # another run's journal was there, and is cleared

    def kept(self) -> int:
        """Batches the journal holds."""
        return len(list(self.directory.glob("batch-*.npz")))

    def _path(self, episodes: np.ndarray) -> Path:
        return self.directory / f"batch-{int(episodes[0])}-{len(episodes)}.npz"

    def get(self, episodes: np.ndarray) -> PlayedBatch | None:
        """The batch of these episodes (consecutive, as `play_games` plays them), if an earlier run finished it."""
        path = self._path(episodes)
        try:
            with np.load(path, allow_pickle=False) as f:
                episodes = BatchResult(*(f[name] for name in _EPISODE_FIELDS))
                place = f.get("place")
                fates = tuple(str(x) for x in f["fates"])
                result = PlayerResult(episodes, f["score"], f["player_ticks"], f["fate"], fates, place)
                batch = PlayedBatch(result, float(f["seconds"]), int(f["forward_passes"]))
        except (FileNotFoundError, OSError, ValueError, KeyError):
            return None  # never written, or unreadable: the batch is played again
        self.resumed += 1
        self.resumed_seconds += batch.seconds
        return batch

    def put(self, episodes: np.ndarray, batch: PlayedBatch) -> None:
        r = batch.result
        arrays: dict[str, np.ndarray] = {name: getattr(r.episodes, name) for name in _EPISODE_FIELDS}
        arrays |= {"score": r.score, "player_ticks": r.ticks, "fate": r.fate, "fates": np.array(r.fates)}
        arrays |= {"seconds": np.float64(batch.seconds), "forward_passes": np.int64(batch.forward_passes)}
        if r.place is not None:
            arrays["place"] = r.place
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        atomic_write(self._path(episodes), lambda f: f.write(buffer.getvalue()))

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)
