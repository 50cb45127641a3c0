"""A sampling run's journal, so that an interrupted `sample` or `evaluate` carries on where it stopped.

A thousand samples of a large model take minutes to most of an hour on a small CPU. After each batch the
journal appends one JSON line (the batch's sequences and the running statistics) and flushes it to disk; the
draws of the sequences still to sample are keyed by their numbers, so nothing else is needed to carry on. Its first line names the run: a fingerprint of the weights, the
prompts, the sampling settings and the device type, so a journal is only resumed by the run that
would have written the same samples. A line cut off by a kill is dropped when the journal is read.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from gamegrammar.core.io import atomic_write_text
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.sampling import SamplingConfig, SamplingProgress, SamplingStats

JOURNAL_FORMAT = 2  # 1 kept the random generator's state: the draws before keyed ones
STATS_FIELDS = ("sequences", "generated_tokens", "seconds", "slides", "passes", "proposed", "accepted")


def run_fingerprint(model: GameGPT, prompts: list[list[int]], config: SamplingConfig, device: torch.device, drafted: bool = False) -> str:
    """What decides a run's samples, as one hash: the same weights, prompts, settings and device type sample the same.

    `drafted` (speculative sampling with the rules' draft) writes the same samples but for the rounding of the logits,
    which in reduced precision moves a draw now and then: a run with the draft does not carry on one without it."""
    run = {"weights": model.weights_sha256(), "prompts": prompts, "config": asdict(config), "device": device.type}
    if drafted:
        run["drafted"] = True
    return hashlib.sha256(json.dumps(run).encode()).hexdigest()


class SampleJournal:
    """`load` what an earlier run of the same fingerprint finished, `record` each batch, `remove` once the samples are written."""

    def __init__(self, path: str | Path, fingerprint: str) -> None:
        self.path, self.fingerprint = Path(path), fingerprint
        self.recorded = 0  # sequences already in the journal
        self.stale = False  # a journal of another run was found (and will be replaced)

    def load(self) -> tuple[SamplingProgress, SamplingStats] | None:
        """The finished batches of an earlier, interrupted run with this fingerprint, or None to start afresh."""
        lines = self._good_lines()
        if lines is None:
            return None
        header, batches = lines[0], lines[1:]
        if not batches:
            return None
        sequences = [seq for line in batches for seq in json.loads(line)["sequences"]]
        last = json.loads(batches[-1])
        stats = SamplingStats(**{k: last["stats"][k] for k in STATS_FIELDS})
        atomic_write_text(self.path, "".join(line + "\n" for line in [header, *batches]))  # drop a torn last line
        self.recorded = len(sequences)
        return SamplingProgress(sequences), stats

    def _good_lines(self) -> list[str] | None:
        """The header and the batch lines that follow on one from another; None when there is no journal of this run."""
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return None
        lines = text.split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT or header.get("run") != self.fingerprint:
            self.stale = True
            return None
        good, count = [lines[0]], 0
        for line in lines[1:]:
            try:
                batch = json.loads(line)
            except json.JSONDecodeError:
                break  # cut off mid-write: this batch and anything after it are sampled again
            if not isinstance(batch, dict) or batch.get("first") != count:
                break
            good.append(line)
            count += len(batch["sequences"])
        return good

    def record(self, progress: SamplingProgress, stats: SamplingStats) -> None:
        """Append the batches finished since the last record, and flush them to disk."""
        if not self.recorded:  # a journal of its own, replacing another run's
            atomic_write_text(self.path, json.dumps({"format": JOURNAL_FORMAT, "run": self.fingerprint}) + "\n")
        line: dict[str, Any] = {
            "first": self.recorded,
            "sequences": progress.sequences[self.recorded :],
            "stats": {k: getattr(stats, k) for k in STATS_FIELDS},
        }
        with self.path.open("a") as f:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.recorded = len(progress.sequences)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
