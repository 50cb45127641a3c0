import os
import stat

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import (
    atomic_write,
    atomic_write_json,
    atomic_write_text,
    check_output_dir,
    check_output_file,
    remove_stale_temporaries,
)


def test_atomic_write_replaces_the_file_whole_with_the_mode_open_would_give(tmp_path):
    path = tmp_path / "sub" / "a.txt"
    atomic_write_text(path, "first")
    atomic_write_text(path, "second")
    assert path.read_text() == "second"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.txt"]  # no temporary left beside it


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path, error):
    path = tmp_path / "a.json"
    atomic_write_json(path, {"kept": True})
    before = path.read_bytes()

    def write(f):
        f.write(b'{"half":')
        raise error("interrupted")

    with pytest.raises(error):
        atomic_write(path, write)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_remove_stale_temporaries_removes_only_what_atomic_write_leaves(tmp_path):
    (tmp_path / ".shard_000.bin.abc123.tmp").write_bytes(b"x")
    (tmp_path / ".manifest.json.q.tmp").write_bytes(b"x")
    (tmp_path / "shard_000.bin").write_bytes(b"x")
    (tmp_path / "notes.tmp").write_bytes(b"x")  # not hidden: not ours
    assert remove_stale_temporaries(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.tmp", "shard_000.bin"]
    assert remove_stale_temporaries(tmp_path / "missing") == 0


def test_check_output_file_refuses_what_would_fail_or_destroy(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(GameGrammarError, match="is a directory; give a file name"):
        check_output_file(tmp_path / "corpus", what="--out")
    cases = {
        tmp_path / "file.txt" / "out.txt": "is a file, not a directory",
        tmp_path / "file.txt": "already exists; pass --overwrite",
        tmp_path / "corpus" / "samples.txt": "is the input",
    }
    for path, message in cases.items():
        with pytest.raises(GameGrammarError, match=message):
            check_output_file(path, what="--out", inputs=(tmp_path / "corpus",))
    assert check_output_file(tmp_path / "file.txt", what="--out", overwrite=True) == tmp_path / "file.txt"
    assert check_output_file(tmp_path / "new" / "deeper.txt", what="--out") == tmp_path / "new" / "deeper.txt"


def test_check_output_dir_refuses_overlap_either_way_and_protects_kept_files(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "shards").mkdir(parents=True)
    (tmp_path / "file.txt").write_text("x")
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"w")
    cases = {
        corpus / "shards": "overlaps the input",  # inside the input
        tmp_path: "overlaps the input",  # holds the input
        tmp_path / "file.txt": "exists and is not a directory",
        tmp_path / "file.txt" / "out": "is a file, not a directory",
        model: "already holds model.safetensors; pass --overwrite",
    }
    for path, message in cases.items():
        with pytest.raises(GameGrammarError, match=message):
            check_output_dir(path, what="--out", inputs=(corpus,), keep=("model.safetensors",))
    assert check_output_dir(model, what="--out", keep=("model.safetensors",), overwrite=True) == model


def test_an_output_where_no_folder_can_be_made_is_refused_by_trying_not_by_permission_bits(tmp_path):
    """As root, permission bits allow writing anywhere; /proc and a read-only mount still refuse: the check tries."""
    for check in (check_output_file, check_output_dir):
        with pytest.raises(GameGrammarError, match=r"--out /proc/nodir/x: /proc is not writable \(No such file or directory\)"):
            check("/proc/nodir/x", what="--out")
    check_output_dir(tmp_path / "out", what="--out")
    assert list(tmp_path.iterdir()) == []  # the trial leaves nothing behind


def test_a_failed_write_names_its_file_and_a_short_write_on_a_full_disk_says_so(tmp_path, monkeypatch):
    def short_write(f):  # what NumPy's writers raise when fwrite stops short: neither a file nor an errno
        raise OSError("3000 requested and 652 written")

    def full_disk(f):
        raise OSError(28, "No space left on device")

    path = tmp_path / "shards" / "00000.index.npy"
    with pytest.raises(OSError) as found:
        atomic_write(path, full_disk)
    assert (found.value.errno, found.value.filename) == (28, str(path))
    with pytest.raises(OSError) as found:
        atomic_write(path, short_write)
    assert (found.value.filename, found.value.strerror) == (str(path), "the write stopped short (3000 requested and 652 written)")
    monkeypatch.setattr(os, "statvfs", lambda p: type("Full", (), {"f_bavail": 0, "f_bfree": 0})())  # no block left
    with pytest.raises(OSError) as found:
        atomic_write(path, short_write)
    assert (found.value.errno, found.value.filename) == (28, str(path))
    assert found.value.strerror == "No space left on device (3000 requested and 652 written)"
    assert list(path.parent.iterdir()) == []  # no temporary left behind
