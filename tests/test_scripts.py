"""The analysis scripts in scripts/ run from the command line on real inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gamegrammar.games.snake.grammar import EXAMPLE_SPAWN_COLUMN

SCRIPTS = Path(__file__).parent.parent / "scripts"


def test_column_errors_names_the_first_wrong_word_of_each_spawn(tmp_path):
    words = "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC"
    miss = EXAMPLE_SPAWN_COLUMN.replace(words, "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC VAC VAC VAC VAC")  # the tail's row
    false = EXAMPLE_SPAWN_COLUMN.replace(words, "FOOD_SPAWN X5 OCC VAC VAC VAC VAC OCC OCC VAC VAC VAC")  # never a head
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join([EXAMPLE_SPAWN_COLUMN, miss, false, "BOS garbage"]) + "\n")
    out = subprocess.run([sys.executable, SCRIPTS / "column_errors.py", samples], capture_output=True, text=True, check=True).stdout
    assert "wrong: 2" in out
    assert "from the head: {3: 1}" in out  # the tail: the last quarter of a body of seven
    assert "never a head: 1" in out
