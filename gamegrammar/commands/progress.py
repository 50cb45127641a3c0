"""The commands' progress bars: live on a terminal; in a log (stderr not a terminal), a refresh every half minute,
so that a long run's log says how far it got without thousands of redraws."""

from __future__ import annotations

import sys
from typing import Any


def progress_bar(total: int, unit: str, desc: str, quiet: bool = False) -> Any:
    """A tqdm bar on stderr; `quiet` (the commands' --quiet) shows nothing."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, disable=quiet, mininterval=0.1 if sys.stderr.isatty() else 30.0)
