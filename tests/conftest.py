"""Shared fixtures: tests never reach the network and build their own tiny corpora."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory: pytest.TempPathFactory):
    """A small default-settings corpus (10x10, 200 ticks, default agent mix), made once per test run."""
    from gamegrammar.data.corpus import CorpusSpec, generate

    out = tmp_path_factory.mktemp("corpus")
    generate(CorpusSpec(episodes=120, seed=11, shard_episodes=50), out)
    return out


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory):
    """(corpus, train config, checkpoint): a 5x5 Snake corpus, a tiny training YAML (configs/gg31k.yaml made small, CSV
    logging only) and a model trained on it for 4 steps through `gamegrammar train fit`: a real checkpoint, made once."""
    import yaml

    from gamegrammar.cli import main
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.rules import SnakeConfig

    root = tmp_path_factory.mktemp("tiny_run")
    corpus = root / "corpus"
    generate(CorpusSpec(game=SnakeConfig(5, 5, 40), episodes=150, seed=3, val_fraction=0.1, shard_episodes=150), corpus)
    config = yaml.safe_load((Path(__file__).parent.parent / "configs" / "gg31k.yaml").read_text())
    config["model"].update(n_layer=1, n_embd=16, n_head=2, warmup_steps=2)
    config["data"].update(path=str(corpus), batch_size=8)
    trainer = config["trainer"]
    trainer.update(max_steps=4, val_check_interval=2, limit_val_batches=1, log_every_n_steps=1, enable_progress_bar=False)
    trainer.update(enable_model_summary=False, default_root_dir=str(root / "run"))
    trainer["logger"] = [lg for lg in trainer["logger"] if lg["class_path"].endswith("CSVLogger")]
    for cb in trainer["callbacks"]:
        if "every_n_train_steps" in cb["init_args"]:
            cb["init_args"]["every_n_train_steps"] = 2
    path = root / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["train", "fit", "--config", str(path), "--run_dir", str(root / "run")]) == 0
    return corpus, path, root / "run" / "checkpoints" / "last.ckpt"


def head_first_as_v1(tokens: list[str]) -> list[str]:
    """A head-first Snake sequence in grammar v1's order, written independently of the encoder: `INPUT_d Xx Yy MOVE` ->
    `INPUT_d MOVE Xx Yy`, `INPUT_d Xx Yy EAT` -> `INPUT_d EAT MOVE Xx Yy`, `INPUT_d Xx Yy DIE_SELF` -> `INPUT_d DIE_SELF`
    (grammar v1 does not write the cell a self-death runs into)."""
    out, i = [], 0
    while i < len(tokens):
        out.append(tokens[i])
        if (
            tokens[i].startswith("INPUT_")
            and i + 3 < len(tokens)
            and tokens[i + 1][0] == "X"
            and tokens[i + 3] in ("MOVE", "EAT", "DIE_SELF")
        ):
            x, y, word = tokens[i + 1 : i + 4]
            out += {"MOVE": ["MOVE", x, y], "EAT": ["EAT", "MOVE", x, y], "DIE_SELF": ["DIE_SELF"]}[word]
            i += 4
            continue
        i += 1
    return out


@pytest.fixture(scope="session")
def as_v1():
    """`head_first_as_v1`, for the tests of every module that reads or writes Snake's head-first design."""
    return head_first_as_v1
