"""gamegrammar ouroboros: a tiny run through the command line, its summary table, and bad configs in one line."""

from __future__ import annotations

import json

import pytest
import yaml

from gamegrammar.cli import main

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # a tiny model: more threads only wait on each other


def test_a_tiny_run_from_the_command_line(tiny_run, tmp_path, capsys):
    corpus, config, ckpt = tiny_run
    loop = {
        "checkpoint": str(ckpt),
        "corpus": str(corpus),
        "out": str(tmp_path / "unused"),
        "generations": 1,
        "play": {"games": 8, "batch_size": 8},
        "keep": {"top_k": 2},
        "finetune": {"config": str(config), "max_steps": 1, "max_time": None},
        "measure": {"samples": 2, "batch_size": 2, "baselines": []},
    }
    path = tmp_path / "loop.yaml"
    path.write_text(yaml.safe_dump(loop))
    assert main(["ouroboros", "--config", str(path), "--out", str(tmp_path / "run"), "--generations", "0"]) == 0
    assert "| 0 |" in capsys.readouterr().out
    assert main(["ouroboros", "--config", str(path), "--out", str(tmp_path / "run")]) == 0  # one generation more
    text = capsys.readouterr().out
    assert "| 0 |" in text and "| 1 |" in text
    log = json.loads((tmp_path / "run" / "log.json").read_text())
    assert [r["generation"] for r in log["generations"]] == [0, 1] and log["config"]["out"] == str(tmp_path / "run")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("checkpoint: a\ncorpus: b\nplay: {games: 0}\n", "play.games must be at least 1"),
        ("checkpoint: a\ncorpus: b\nfoo: 1\n", "unknown key foo"),
        ("checkpoint: missing.ckpt\ncorpus: missing\n", "does not exist"),
    ],
)
def test_bad_configs_are_one_line(content, message, tmp_path, capsys):
    path = tmp_path / "loop.yaml"
    path.write_text(content)
    assert main(["ouroboros", "--config", str(path), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
