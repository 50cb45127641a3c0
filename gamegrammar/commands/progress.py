"""The commands' progress: bars live on a terminal; in a log (stderr not a terminal), a refresh every half minute,
so that a long run's log says how far it got without thousands of redraws; and lines as the parts of a long job
start and end."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def progress_bar(total: int, unit: str, desc: str, quiet: bool = False, initial: int = 0) -> Any:
    """A tqdm bar on stderr; `quiet` (the commands' --quiet) shows nothing; `initial`: done before (a resumed run)."""
    from tqdm import tqdm

    interval = 0.1 if sys.stderr.isatty() else 30.0
    return tqdm(total=total, initial=initial, unit=unit, desc=desc, disable=quiet, mininterval=interval)


def stage_log(command: str) -> Callable[[str], None]:
    """Lines like `analyze: tier2: done in 985.2 s` on stderr, where they do not mix with a command's results."""

    def log(line: str) -> None:
        print(f"{command}: {line}", file=sys.stderr, flush=True)

    return log
