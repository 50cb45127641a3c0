from __future__ import annotations

import io
import sys

from gamegrammar.commands.progress import progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_refresh_every_half_minute_and_a_terminal_a_live_bar(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar(10, "seq", "sample") as bar:
        assert bar.mininterval == 30.0
        bar.update(10)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with progress_bar(10, "seq", "sample") as bar:
        assert bar.mininterval == 0.1
        bar.update(10)
    assert "10/10" in sys.stderr.getvalue()


def test_quiet_shows_nothing(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with progress_bar(10, "seq", "sample", quiet=True) as bar:
        bar.update(10)
    assert sys.stderr.getvalue() == ""
