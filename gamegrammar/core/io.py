"""Atomic file writes (a file either appears complete or not at all), and outputs checked before the work."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from gamegrammar.core.errors import GameGrammarError

_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write through `write(fileobj)` to a temporary file in the same folder, fsync, rename, fsync the folder.

    The folder's fsync makes the rename itself survive a power cut, not only the bytes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the file the mode open() would
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        except OSError as err:
            raise _naming(err, path) from None
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def _naming(err: OSError, path: Path) -> OSError:
    """A failed write as an error that names the file it was for, and a full disk as a full disk: NumPy's writers
    report a short write as "N requested and M written", with neither a file nor a reason. An error that names its
    file already (one the writer read, say) is left as it is."""
    if err.filename is not None:
        return err
    if err.errno is not None:
        return OSError(err.errno, err.strerror or os.strerror(err.errno), str(path))
    try:
        room = os.statvfs(path.parent)
        full = min(room.f_bavail, room.f_bfree) == 0
    except OSError:
        full = False
    if full:
        return OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} ({err})", str(path))
    return OSError(errno.EIO, f"the write stopped short ({err})", str(path))


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # a platform or file system that cannot open a folder: the rename is done, only less durable
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temporaries(directory: str | Path) -> int:
    """Delete the temporary files that a killed `atomic_write` left in a directory; how many there were."""
    found = list(Path(directory).glob(".*.tmp")) if Path(directory).is_dir() else []
    for tmp in found:
        tmp.unlink(missing_ok=True)
    return len(found)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def atomic_write_json(path: str | Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def open_journal_folder(directory: str | Path, fingerprint: str) -> bool:
    """Make `directory` the journal of the run `fingerprint` names: kept if it is that run's, cleared (and named anew)
    if it is another's, since another run's work must never be mixed in. True when another run's was cleared."""
    import shutil

    directory = Path(directory)
    run = directory / "run.json"
    try:
        found = json.loads(run.read_text())
    except (FileNotFoundError, NotADirectoryError, json.JSONDecodeError):
        found = None
    mine = {"format": 1, "run": fingerprint}
    if found == mine:
        return False
    stale = found is not None or directory.exists()
    shutil.rmtree(directory, ignore_errors=True)
    atomic_write_json(run, mine)
    return stale


def _inside(path: Path, other: Path) -> bool:
    return path == other or other in path.parents


def _refuse_unwritable(what: str, path: Path, folder: Path) -> None:
    """Refuse an output whose nearest existing folder takes no new entry, found by trying (a folder made and removed):
    permission bits say yes to root on /proc, and nothing of a mount that is read-only or full."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".gamegrammar-", dir=folder))
    except OSError as err:
        raise GameGrammarError(f"{what} {path}: {folder} is not writable ({err.strerror or err})") from None


def check_output_file(path: str | Path, *, what: str, overwrite: bool = False, inputs: tuple[str | Path | None, ...] = ()) -> Path:
    """Refuse, before any work, an output file that could not be written or would destroy something.

    A directory, a path under a file, an input (or a path inside an input directory such as a corpus), and an
    existing file without `overwrite` are refused with one line naming `what` (the flag, say "--out").
    """
    path = Path(path)
    resolved = path.resolve()
    for given in inputs:
        if given is not None and _inside(resolved, Path(given).resolve()):
            raise GameGrammarError(f"{what} {path} is the input {given} (or inside it): choose another output")
    if path.is_dir():
        raise GameGrammarError(f"{what} {path} is a directory; give a file name")
    parent = next((p for p in resolved.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise GameGrammarError(f"{what} {path}: {parent} is a file, not a directory")
    if path.exists() and not overwrite:
        raise GameGrammarError(f"{what} {path} already exists; pass --overwrite to replace it")
    if parent is not None:
        _refuse_unwritable(what, path, parent)
    return path


def check_output_dir(
    path: str | Path, *, what: str, inputs: tuple[str | Path | None, ...] = (), keep: tuple[str, ...] = (), overwrite: bool = False
) -> Path:
    """Refuse, before any work, an output directory that could not be written or would destroy something.

    `keep` names files that must not be replaced without `overwrite` (a model directory's weights, say).
    """
    path = Path(path)
    resolved = path.resolve()
    for given in inputs:
        if given is not None and (_inside(resolved, Path(given).resolve()) or _inside(Path(given).resolve(), resolved)):
            raise GameGrammarError(f"{what} {path} overlaps the input {given}: choose another directory")
    if path.exists() and not path.is_dir():
        raise GameGrammarError(f"{what} {path} exists and is not a directory")
    parent = next((p for p in resolved.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise GameGrammarError(f"{what} {path}: {parent} is a file, not a directory")
    taken = [name for name in keep if (path / name).exists()]
    if taken and not overwrite:
        raise GameGrammarError(f"{what} {path} already holds {', '.join(taken)}; pass --overwrite to replace it")
    writable = path if path.exists() else parent
    if writable is not None:
        _refuse_unwritable(what, path, writable)
    return path


def save_figure(fig: Any, path: str | Path) -> None:
    """A matplotlib figure as a PNG, written atomically (every report and analysis plot goes through here)."""
    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=110, bbox_inches="tight"))
