"""GTP, the Go Text Protocol, from the controller's side: talking to an engine (GNU Go) over its stdin and stdout.

GNU Go is started as GO.md says (`gnugo --mode gtp --boardsize N --chinese-rules --positional-superko
--forbid-suicide --komi K --level L`): with those flags it plays and referees by the same rules as this package
(area scoring, suicide refused, positional superko). Debian's package installs it in /usr/games, which is not on
every PATH; `GNUGO` in the environment names another binary.

Processes are kept in a small pool (one per board, komi, level and slot) and reused from game to game with
`clear_board`: starting one costs more than a game at level 0.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from gamegrammar.core.errors import GameGrammarError

DEBIAN_PATH = "/usr/games/gnugo"
INSTALL_HINT = "GNU Go is not installed: `apt-get install gnugo` (Debian, Ubuntu) puts it in /usr/games/gnugo; GNUGO=path names another"


class GtpError(GameGrammarError):
    """An engine refused a command (`? message`), or stopped answering."""


def find_gnugo() -> str | None:
    """The GNU Go binary: $GNUGO, else `gnugo` on PATH, else Debian's /usr/games/gnugo; None if there is none."""
    named = os.environ.get("GNUGO")
    if named:
        return named if Path(named).is_file() else None
    found = shutil.which("gnugo")
    if found:
        return found
    return DEBIAN_PATH if Path(DEBIAN_PATH).is_file() else None


def gnugo_missing() -> str | None:
    """Why GNU Go cannot be run here (None when it can)."""
    return None if find_gnugo() else INSTALL_HINT


def gnugo_argv(size: int, komi: float, level: int = 0) -> list[str]:
    """GO.md's command line: GNU Go as an engine and a referee of this package's rules."""
    binary = find_gnugo()
    if binary is None:
        raise GameGrammarError(INSTALL_HINT)
    return [
        binary,
        "--mode",
        "gtp",
        "--boardsize",
        str(size),
        "--chinese-rules",
        "--positional-superko",
        "--forbid-suicide",
        "--komi",
        f"{komi:g}",
        "--level",
        str(level),
    ]


class GtpClient:
    """One engine process spoken to in GTP: `send(command)` returns the answer's text (after `= `), or raises GtpError
    with the engine's message (after `? `)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
            )
        except OSError as err:
            raise GtpError(f"cannot start {self.argv[0]}: {err.strerror or err}") from None
        self.moves: tuple[int, ...] = ()  # what the controller knows the engine's board holds (a pool's bookkeeping)
        self.game: tuple[int, int] | None = None  # (seed, episode) of that game

    def send(self, command: str) -> str:
        process = self.process
        if process.poll() is not None or process.stdin is None or process.stdout is None:
            raise GtpError(f"{Path(self.argv[0]).name} is not running (it exited with {process.returncode})")
        try:
            process.stdin.write(command.strip() + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            raise GtpError(f"{Path(self.argv[0]).name} stopped reading commands") from None
        lines = []
        while True:
            line = process.stdout.readline()
            if not line:
                raise GtpError(f"{Path(self.argv[0]).name} stopped answering after {command.strip()!r}")
            line = line.rstrip("\r\n")
            if not line and lines:
                break
            if line or lines:
                lines.append(line)
        text = "\n".join(lines)
        status, answer = text[:1], text[1:].lstrip("0123456789").strip()
        if status == "?":
            raise GtpError(answer or f"{command.strip()!r} refused")
        if status != "=":
            raise GtpError(f"{Path(self.argv[0]).name} answered {text!r} to {command.strip()!r}")
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(GtpError):
                self.send("quit")
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def __enter__(self) -> GtpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_pool: dict[tuple[int, float, int, int], GtpClient] = {}


def pooled_gnugo(size: int, komi: float, level: int, slot: int = 0) -> GtpClient:
    """The pool's GNU Go for this board, komi and level (`slot` tells apart engines one game uses at once)."""
    key = (size, komi, level, slot)
    engine = _pool.get(key)
    if engine is None or engine.process.poll() is not None:
        engine = _pool[key] = GtpClient(gnugo_argv(size, komi, level))
    return engine


@atexit.register
def close_pool() -> None:
    """Quit every pooled engine (at exit, or by hand)."""
    while _pool:
        _pool.popitem()[1].close()
