"""gamegrammar dream: the report files are written and parse; bad input fails in one line before the work."""

from __future__ import annotations

import json

import pytest
import torch

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import load_game
from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.training.checkpoint import LoadedModel, write_export

SNAKE = load_game("snake")


def _corpus(path, width: int = 5):
    generate(CorpusSpec(game=SNAKE.make_config(width=width, height=5, max_ticks=30), episodes=40, seed=3, shard_episodes=40), path)
    return Corpus(path)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A tiny Snake corpus and an untrained model for it, as an exported-model directory."""
    root = tmp_path_factory.mktemp("dream")
    corpus = _corpus(root / "corpus")
    torch.manual_seed(0)
    tok = corpus.tokenizer
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=128, n_layer=1, n_head=2, n_embd=16, tick_table=64, tick_id=tok.ids["TICK"]))
    write_export(LoadedModel(model.eval(), tok, corpus.spec, model.config), root / "model")
    return root


def _run(setup, *extra: str) -> int:
    args = ["dream", "--ckpt", str(setup / "model"), "--corpus", str(setup / "corpus"), "--games", "5", "--max-length", "200"]
    return main([*args, "--device", "cpu", *extra])


def test_dream_writes_a_report_that_parses(setup, tmp_path, capsys):
    out = tmp_path / "report"
    assert _run(setup, "--agent", "wall_follower", "--out", str(out)) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "5 dreams" in printed and "per-tick agreement" in printed and "novel states" in printed
    report = json.loads((out / "report.json").read_text())
    assert {"meta", "dreams", "agreement", "horizon", "fidelity", "validity", "novelty", "timing", "plots"} <= set(report)
    assert report["meta"]["agent"] == "wall_follower" and report["dreams"]["n"] == 5
    assert sum(report["dreams"]["stops"].values()) == 5
    assert report["fidelity"]["samples"] == 5 and report["fidelity"]["corpus_episodes"] == 5  # 5 real games
    assert 0 <= report["novelty"]["dreams"]["novel_share"] <= 1
    assert report["horizon"]["runs"] == 5 and report["horizon"]["curve"][0]["tick"] == 1
    md = (out / "report.md").read_text()
    assert "Per-tick agreement" in md and "Horizon" in md and "Fidelity" in md and "survival.png" in md
    assert (out / "survival.png").stat().st_size > 1000
    lines = (out / "dreams.txt").read_text().splitlines()
    assert len(lines) == 5 and all(line.startswith("BOS SNAP") for line in lines)
    assert not list(out.glob(".*.tmp"))


def test_dream_without_corpus_or_out_prints_only(setup, capsys):
    args = ["dream", "--ckpt", str(setup / "model"), "--games", "2", "--max-length", "100", "--max-ticks", "3", "--temperature", "0"]
    assert main([*args, "--device", "cpu"]) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "2 dreams" in printed and "novel" not in printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--agent", "nobody"), "unknown agent 'nobody'"),
        (("--games", "0"), "--games must be at least 1"),
        (("--max-ticks", "0"), "--max-ticks must be at least 1"),
        (("--temperature", "-1"), "temperature must be"),
    ],
)
def test_bad_input_fails_in_one_line(setup, capsys, extra, message):
    assert _run(setup, *extra) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_corpus_of_another_config_is_refused(setup, tmp_path, capsys):
    _corpus(tmp_path / "other", width=6)
    args = ["dream", "--ckpt", str(setup / "model"), "--corpus", str(tmp_path / "other"), "--games", "2", "--device", "cpu"]
    assert main(args) == 2
    assert "another game config than the corpus" in capsys.readouterr().err


def test_the_output_must_not_be_an_input(setup, capsys):
    assert _run(setup, "--out", str(setup / "corpus")) == 2
    assert "overlaps the input" in capsys.readouterr().err
