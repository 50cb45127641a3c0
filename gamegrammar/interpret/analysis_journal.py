"""The finished parts of an analysis (tier 2, tier 3, probes), so that an interrupted `analyze` carries on.

A large model's tier 2 takes a quarter of an hour on a small CPU, and probes as long again; a run killed in its
probes should not pay for tier 2 twice. Each part is kept as it finishes in a folder beside the report
(`<part>.json`, and `<part>.npz` for what a part keeps in memory for its plots), with `run.json` naming the run:
the model's weights, the corpus and the analysis settings. A folder of another run is cleared, never mixed in.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from gamegrammar.core.io import atomic_write, atomic_write_text, open_journal_folder


class AnalysisJournal:
    """`get` a part an earlier run of the same fingerprint finished, `put` each new one (the command removes the folder
    once the report is written)."""

    def __init__(self, directory: str | Path, fingerprint: str) -> None:
        self.directory = Path(directory)
        self.stale = open_journal_folder(self.directory, fingerprint)  # another run's journal was there, and is cleared

    def get(self, part: str, in_memory: str | None) -> tuple[dict[str, Any], float] | None:
        """(the part's section, the seconds it took), or None when it was not finished."""
        try:
            kept = json.loads((self.directory / f"{part}.json").read_text())
            section, seconds = kept["section"], float(kept["seconds"])
            if in_memory is not None and in_memory in kept:
                section[in_memory] = kept[in_memory]
            elif in_memory is not None:
                with np.load(self.directory / f"{part}.npz", allow_pickle=False) as f:
                    section[in_memory] = {k: f[k].tolist() if f[k].dtype.kind == "U" else f[k] for k in f.files}
        except (OSError, ValueError, KeyError, TypeError):
            return None  # never written, or unreadable: the part runs again
        return section, seconds

    def put(self, part: str, section: dict[str, Any], seconds: float, in_memory: str | None) -> None:
        plain = {k: v for k, v in section.items() if k != in_memory}
        kept: dict[str, Any] = {"section": plain, "seconds": seconds}
        extra = section.get(in_memory) if in_memory is not None else None
        if isinstance(extra, dict):  # arrays for the plots
            buffer = io.BytesIO()
            np.savez(buffer, **{k: np.asarray(v) for k, v in extra.items()})
            atomic_write(self.directory / f"{part}.npz", lambda f: f.write(buffer.getvalue()))
        elif extra is not None:
            kept[in_memory] = extra
        # in the section's own order (the markdown follows it); last: a part counts as kept once this exists
        atomic_write_text(self.directory / f"{part}.json", json.dumps(kept))


def analysis_fingerprint(weights_sha256: str, corpus: Path, settings: dict[str, Any]) -> str:
    """One hash of what decides an analysis: the weights, the corpus (its manifest) and the settings."""
    manifest = hashlib.sha256((Path(corpus) / "manifest.json").read_bytes()).hexdigest()
    return hashlib.sha256(json.dumps({"weights": weights_sha256, "corpus": manifest, **settings}, sort_keys=True).encode()).hexdigest()
