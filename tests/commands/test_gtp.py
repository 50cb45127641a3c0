"""gamegrammar gtp --ckpt (a model chooses genmove's moves) and evaluate's move measures, on an untrained exported Go model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games.go.rules import GoConfig, parse_vertex
from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.training.checkpoint import LoadedModel, write_export

CONFIG = GoConfig(5, komi=0.5, max_ticks=60)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(corpus, model directory): a small 5x5 corpus and an untrained model exported as if trained on it."""
    root = tmp_path_factory.mktemp("go_gtp")
    generate(CorpusSpec(game=CONFIG, episodes=30, seed=2, shard_episodes=30, val_fraction=0.3), root / "corpus")
    corpus = Corpus(root / "corpus")
    torch.manual_seed(0)
    tick = corpus.tokenizer.ids["TICK"]
    gpt = GPTConfig(vocab_size=len(corpus.tokenizer), block_size=64, n_layer=1, n_head=2, n_embd=16, tick_table=80, tick_id=tick, rope=True)
    model = GameGPT(gpt).eval()
    write_export(
        LoadedModel(model=model, tokenizer=corpus.tokenizer, spec=corpus.spec, gpt_config=gpt, longest_episode=200), root / "model"
    )
    return root / "corpus", root / "model"


def test_the_model_answers_genmove_with_legal_moves(exported):
    _, model = exported
    commands = "boardsize 5\nkomi 0.5\nplay black C3\ngenmove white\ngenmove black\ngenmove white\nlist_stones white\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "gamegrammar.cli", "gtp", "--ckpt", str(model), "--temperature", "0.7", "--device", "cpu"],
        input=commands,
        capture_output=True,
        text=True,
        check=True,
    )
    answers = [block[2:] for block in done.stdout.split("\n\n") if block]
    moves = answers[3:6]
    assert all(m == "pass" or (parse_vertex(m, 5) >= 0 and m != "C3") for m in moves), moves
    assert len(set(moves) - {"pass"}) == len([m for m in moves if m != "pass"])  # no point played twice


@pytest.mark.parametrize("simulator", ["model", "rules"])
def test_the_planner_answers_genmove_with_legal_moves_and_reports_its_cost(exported, simulator):
    _, model = exported
    commands = "boardsize 5\nkomi 0.5\nplay black C3\ngenmove white\ngenmove black\nquit\n"
    argv = ["gtp", "--ckpt", str(model), "--device", "cpu", "--planner", "lookahead", "--simulator", simulator]
    done = subprocess.run(
        [sys.executable, "-m", "gamegrammar.cli", *argv, "--candidates", "3", "--rollouts", "2", "--horizon", "3"],
        input=commands,
        capture_output=True,
        text=True,
        check=True,
    )
    moves = [block[2:] for block in done.stdout.split("\n\n") if block][3:5]
    assert all(m == "pass" or (parse_vertex(m, 5) >= 0 and m != "C3") for m in moves), moves
    assert "the planner's cost: {'moves': 2, 'rollouts': 12" in done.stderr


def test_a_planner_without_a_model_is_refused_in_one_line(capsys):
    assert main(["gtp", "--game", "go", "--planner", "lookahead"]) == 2
    assert "give --ckpt" in capsys.readouterr().err


def test_an_agent_and_a_model_together_are_refused_in_one_line(exported, capsys):
    _, model = exported
    assert main(["gtp", "--ckpt", str(model), "--agent", "random"]) == 2
    assert "not both" in capsys.readouterr().err


def test_evaluate_reports_the_move_measures_of_each_held_out_corpus(exported, tmp_path, capsys):
    corpus, model = exported
    out = tmp_path / "report"
    args = ["evaluate", "--ckpt", str(model), "--corpus", str(corpus), "--num", "4", "--max-length", "300", "--quiet"]
    assert main([*args, "--move-positions", "50", "--device", "cpu", "--out", str(out)]) == 0
    moves = json.loads((out / "report.json").read_text())["moves"]
    (name,) = moves
    assert name == str(corpus) and moves[name]["legal_move"]["count"] == 50 and "capture" in moves[name]["exact"]
    assert "legal move" in capsys.readouterr().out and "## Moves and exact groups" in (out / "report.md").read_text()
