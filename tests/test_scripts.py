"""The analysis scripts in scripts/ run from the command line on real inputs."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from gamegrammar.games.snake.grammar import EXAMPLE_BODY_LIST, EXAMPLE_SPAWN_COLUMN

SCRIPTS = Path(__file__).parent.parent / "scripts"


def spawn_errors(samples: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> str:
    """What `python scripts/spawn_errors.py samples` prints, run in this process (the first test runs it as a process of
    its own: an interpreter's start-up for each would be most of these tests' time)."""
    monkeypatch.setattr(sys, "argv", [str(SCRIPTS / "spawn_errors.py"), str(samples)])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(SCRIPTS / "spawn_errors.py"), run_name="__main__")
    assert ended.value.code == 0
    return capsys.readouterr().out


def test_spawn_errors_names_the_first_wrong_word_of_each_spawn(tmp_path):
    words = "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC"
    miss = EXAMPLE_SPAWN_COLUMN.replace(words, "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC VAC VAC VAC VAC")  # the tail's row
    false = EXAMPLE_SPAWN_COLUMN.replace(words, "FOOD_SPAWN X5 OCC VAC VAC VAC VAC OCC OCC VAC VAC VAC")  # never a head
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join([EXAMPLE_SPAWN_COLUMN, miss, false, "BOS garbage"]) + "\n")
    out = subprocess.run([sys.executable, SCRIPTS / "spawn_errors.py", samples], capture_output=True, text=True, check=True).stdout
    assert "wrong: 2" in out and "on the body: 0" in out
    assert "from the head: {3: 1}" in out  # the tail: the last quarter of a body of seven
    assert "never a head: 1" in out


def test_spawn_errors_places_food_on_the_body_counted_from_the_tail(tmp_path, monkeypatch, capsys):
    words = "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC Y2"
    v1 = EXAMPLE_SPAWN_COLUMN.replace(words, "FOOD_SPAWN X5 Y2")  # grammar v1: no words; the grown body has 7 cells
    on_tail = v1.replace("FOOD_SPAWN X5 Y2", "FOOD_SPAWN X5 Y6")  # the tail, which stays put on the eating tick
    on_body = v1.replace("FOOD_SPAWN X5 Y2", "FOOD_SPAWN X7 Y5")  # the fourth cell from the head: 3 from the tail
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join([v1, on_tail, on_body, on_tail]) + "\n")
    out = spawn_errors(samples, monkeypatch, capsys)
    assert "on the body: 3" in out
    assert "(0: the tail): {0: 2, 3: 1}" in out
    assert "length: {'4-7': 3}" in out
    assert "place (as tier 2's): {'body': 1, 'tail': 2}" in out
    assert "column words" not in out  # no spawn-column words, no section for them
    assert "listed body" not in out


def test_spawn_errors_names_the_first_wrong_listed_cell_counted_from_the_tail(tmp_path, monkeypatch, capsys):
    listed = "X5 Y5 X6 Y5 X7 Y5 X7 Y6 X6 Y6 X5 Y6 FOOD_SPAWN"
    wrong = EXAMPLE_BODY_LIST.replace(listed, "X5 Y5 X6 Y5 X7 Y5 X7 Y6 X6 Y7 X5 Y6 FOOD_SPAWN")  # one cell before the tail
    short = EXAMPLE_BODY_LIST.replace(listed, "X5 Y5 X6 Y5 X7 Y5 X7 Y6 X6 Y6 FOOD_SPAWN")  # the tail left out
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join([EXAMPLE_BODY_LIST, wrong, short, short]) + "\n")
    out = spawn_errors(samples, monkeypatch, capsys)
    assert "listed body is wrong: 3" in out and "on the body: 0" in out
    assert "(0: the tail): {1: 1}" in out and "stops early: 2; runs on past the tail: 0" in out


def test_screen_gives_train_args_to_every_fit_and_skips_runs_already_reported(tmp_path):
    """screen.sh with a stand-in gamegrammar that records its arguments and writes the reports it is asked for."""
    calls = tmp_path / "calls.txt"
    gg = tmp_path / "gg"
    gg.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {calls}\n'
        'while [ $# -gt 0 ]; do [ "$1" = --out ] && mkdir -p "$2" && touch "$2/report.json"; shift; done\n'
    )
    gg.chmod(0o755)
    (tmp_path / "reports" / "screen-s" / "b-1").mkdir(parents=True)
    (tmp_path / "reports" / "screen-s" / "b-1" / "report.json").write_text("{}")  # b's seed 1 is done
    env = {"GG": str(gg), "PY": "true", "TRAIN_ARGS": "--model.chance_weight 10", "PATH": "/usr/bin:/bin"}
    cmd = ["bash", SCRIPTS / "screen.sh", "s", "cfg.yaml", "5", "7", "1 2", "a=data/a", "b=data/b"]
    subprocess.run(cmd, cwd=tmp_path, env=env, check=True, capture_output=True)
    fits = [line.split() for line in calls.read_text().splitlines() if line.startswith("train fit")]
    assert [f[f.index("--run_dir") + 1] for f in fits] == ["runs/screen-s/a-1", "runs/screen-s/a-2", "runs/screen-s/b-2"]
    assert all(f[-2:] == ["--model.chance_weight", "10"] and f[f.index("--trainer.max_steps") + 1] == "5" for f in fits)
    evaluations = [line for line in calls.read_text().splitlines() if line.startswith("evaluate")]
    assert len(evaluations) == 3 and all("--num 7 --temperature 1.0" in line for line in evaluations)


def test_spawn_errors_refuses_a_missing_report_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [str(SCRIPTS / "spawn_errors.py"), str(tmp_path / "nowhere")])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(SCRIPTS / "spawn_errors.py"), run_name="__main__")
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("spawn_errors.py: error: ") and "does not exist" in err
