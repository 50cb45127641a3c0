"""The Makefile's setup, run with a stand-in python: it says what it does and keeps pip's failures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

FAKE_PYTHON = """#!/bin/sh
# `python -c "import torch"` fails (no torch yet); `python -m pip install ...` prints as pip does and exits with
# $FAIL_TORCH (installing torch) or $FAIL_PACKAGE (pip install -e .[dev])
[ "$1" = "-c" ] && exit 1
echo "Collecting lightning>=2.2"
echo "Requirement already satisfied: numpy in /somewhere"
echo "Successfully installed lightning"
case "$*" in *" -e "*) exit ${FAIL_PACKAGE:-0};; *) exit ${FAIL_TORCH:-0};; esac
"""


def make_setup(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(FAKE_PYTHON)
    (venv / "bin" / "python").chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", **env}
    return subprocess.run(["make", "-s", "setup", f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, env=env)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_setup_says_each_step_and_shows_pip_without_its_already_satisfied_lines(tmp_path):
    done = make_setup(tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    steps = [line for line in lines if line.startswith("setup")]
    assert [s.split(":")[0] for s in steps] == ["setup 1/4", "setup 2/4", "setup 3/4", "setup 4/4", "setup"] and "done" in steps[-1]
    assert "GNU Go" in steps[3]
    assert lines.count("Collecting lightning>=2.2") == 2  # pip's own lines: torch's step, then the package's
    assert sum("Requirement already satisfied" in line for line in lines) == 1  # left out of step 3 (the pipe) only
    assert (tmp_path / "venv" / ".installed").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("step", "last_step"), [("FAIL_TORCH", "setup 2/4"), ("FAIL_PACKAGE", "setup 3/4")])
def test_setup_stops_when_pip_fails(tmp_path, step, last_step):
    """Also behind the pipe that filters pip's lines (sh has no pipefail): pip's failure is make's."""
    done = make_setup(tmp_path, **{step: "3"})
    assert done.returncode != 0 and not (tmp_path / "venv" / ".installed").exists()
    steps = [line for line in done.stdout.splitlines() if line.startswith("setup")]
    assert steps[-1].startswith(last_step)  # no step after it, and no "setup: done"
