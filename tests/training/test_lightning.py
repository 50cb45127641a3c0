"""Training through `gamegrammar train` (LightningCLI): windows, configs, resuming, DDP, one-line errors."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import lightning as L
import numpy as np
import pytest
import torch
import yaml
from lightning.pytorch.callbacks import ModelCheckpoint

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.games.snake.grammar import CodecConfig
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import IGNORE_INDEX
from gamegrammar.training.checkpoint import load_checkpoint
from gamegrammar.training.lightning import (
    CorpusDataModule,
    EpisodeWindows,
    GameGPTModule,
    WindowOrder,
    collate_windows,
    lr_factor,
    targets_after,
)

# training configs (ouroboros*.yaml are the self-improvement loop's)
CONFIGS = sorted(p for p in (Path(__file__).parents[2] / "configs").glob("*.yaml") if not p.name.startswith("ouroboros"))


def tiny_config(tmp_path: Path, corpus: Path, *, wandb: bool = False, max_steps: int = 6, name: str = "cfg") -> Path:
    """configs/gg31k.yaml made tiny and pointed at tmp_path (CSV logging only unless wandb)."""
    config = yaml.safe_load((CONFIGS[0].parent / "gg31k.yaml").read_text())
    run = tmp_path / "run"
    config["data"].update(path=str(corpus), batch_size=8)
    config["model"]["warmup_steps"] = 2
    trainer = config["trainer"]
    trainer.update(max_steps=max_steps, val_check_interval=3, limit_val_batches=1, log_every_n_steps=1, enable_progress_bar=False)
    trainer.update(enable_model_summary=False, default_root_dir=str(run))
    loggers = [lg for lg in trainer["logger"] if wandb or not lg["class_path"].endswith("WandbLogger")]
    for lg in loggers:
        lg["init_args"]["save_dir"] = str(run)
    trainer["logger"] = loggers
    for cb in trainer["callbacks"]:
        cb["init_args"]["dirpath"] = str(run / "checkpoints")
        if "every_n_train_steps" in cb["init_args"]:
            cb["init_args"]["every_n_train_steps"] = 2
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def metrics(run: Path) -> list[dict[str, str]]:
    rows = []
    for f in sorted(run.glob("csv/version_*/metrics.csv")):
        rows += list(csv.DictReader(f.open()))
    return rows


# ---------------------------------------------------------------- data


def test_windows_start_at_bos_and_pad_targets(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    rows = corpus.split("train")
    ds = EpisodeWindows(corpus, rows, block_size=64)
    bos, pad = corpus.tokenizer.bos_id, corpus.tokenizer.pad_id
    lengths = corpus.index["length"][rows]
    short = int(np.argmin(lengths))
    assert lengths[short] < 65
    batch = [ds[short], ds[int(np.argmax(lengths))]]
    assert len(batch[1]) == 65 and all(w[0] == bos for w in batch)
    x, y = collate_windows(batch, pad)
    assert x.shape == y.shape == (2, 64)
    n = int(lengths[short])
    assert torch.equal(x[0, : n - 1], torch.from_numpy(corpus.episode_ids(rows[short])[:-1].astype(np.int64)))
    assert y[0, n - 2] == corpus.tokenizer.eos_id and (y[0, n - 1 :] == IGNORE_INDEX).all() and (x[0, n - 1 :] == pad).all()
    assert torch.equal(x[1, 1:], y[1, :-1])


def test_random_and_keyframe_windows(tmp_path):
    out = tmp_path / "kf"
    generate(CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=30, seed=3, codec=CodecConfig(keyframe_interval=5)), out)
    corpus = Corpus(out)
    rows = corpus.split("train")
    torch.manual_seed(0)
    for windows in ("random", "keyframe"):
        ds = EpisodeWindows(corpus, rows, block_size=16, windows=windows)
        for i in range(len(ds)):
            w = ds[i]
            ids = corpus.episode_ids(rows[i])
            assert 2 <= len(w) <= 17
            starts = [s for s in range(len(ids)) if np.array_equal(ids[s : s + len(w)], w)]
            assert starts, "a window is a contiguous piece of its episode"
            if windows == "keyframe":
                assert any(s == 0 or ids[s] == corpus.tokenizer.ids["SNAP"] for s in starts)


def test_lr_schedule():
    assert lr_factor(0, 10, 100, 0.1) == pytest.approx(0.1)
    assert lr_factor(9, 10, 100, 0.1) == pytest.approx(1.0)
    assert lr_factor(55, 10, 100, 0.1) == pytest.approx(0.55)
    assert lr_factor(100, 10, 100, 0.1) == lr_factor(500, 10, 100, 0.1) == pytest.approx(0.1)


def test_wsd_schedule_holds_the_peak_then_decays_linearly():
    def wsd(step: int) -> float:
        return lr_factor(step, 10, 100, 0.1, schedule="wsd", decay_fraction=0.2)

    assert wsd(0) == pytest.approx(0.1)
    assert wsd(10) == wsd(50) == wsd(80) == 1.0
    assert wsd(90) == pytest.approx(0.55)
    assert wsd(100) == wsd(500) == pytest.approx(0.1)
    assert all(wsd(s) > wsd(s + 1) for s in range(80, 100))
    # The whole run decaying is the warmup's end onwards, never before it.
    assert lr_factor(5, 10, 100, 0.1, schedule="wsd", decay_fraction=1.0) == pytest.approx(0.6)
    assert lr_factor(10, 10, 100, 0.1, schedule="wsd", decay_fraction=1.0) == 1.0


# ---------------------------------------------------------------- the CLI


PRESET_OF = {
    "bs-cpu": "gg-cpu",
    "bs-duel-cpu": "gg-cpu",
    "bs-cpu-long": "gg-cpu",
    "bs-gpu": "gg-gpu",
    "gg-cpu-long": "gg-cpu",
    "go-cpu": "gg-cpu",
    "go-cpu-long": "gg-cpu",
    "go-gpu": "gg-gpu",
}  # configs that reuse a preset's shape


@pytest.mark.parametrize("config", CONFIGS, ids=[c.name for c in CONFIGS])
def test_every_config_parses(config, capsys, tiny_corpus):
    with pytest.raises(SystemExit) as exit_:
        main(["train", "fit", "--config", str(config), "--data.path", str(tiny_corpus), "--print_config"])
    assert exit_.value.code == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    preset = PRESET_OF.get(config.stem, config.stem)
    assert printed["model"]["preset"] == preset and printed["data"]["path"] == str(tiny_corpus)
    assert "vocab_size" not in printed["model"]  # linked from the corpus


# the training budgets: issue 5's for Snake, issue 18's and 46's for Battlesnake, issue 20's cap for gg-cpu-long, issue 48's
# for Go
BUDGETS = {
    "gg31k": "00:00:05:00",
    "gg-cpu": "00:00:15:00",
    "gg-gpu": "00:00:15:00",
    "bs-cpu": "00:00:15:00",
    "bs-duel-cpu": "00:00:15:00",
    "bs-cpu-long": "00:02:00:00",
    "bs-gpu": "00:00:15:00",
    "gg-cpu-long": "00:02:00:00",
    "go-cpu": "00:00:15:00",
    "go-cpu-long": "00:02:00:00",
    "go-gpu": "00:00:15:00",
}


@pytest.mark.parametrize("config", CONFIGS, ids=[c.name for c in CONFIGS])
def test_every_config_stops_at_its_budget(config):
    """max_time is what holds a run to its preset's budget on a slower machine, whatever max_steps says."""
    trainer = yaml.safe_load(config.read_text())["trainer"]
    assert trainer.get("max_time") == BUDGETS[config.stem]


def test_fit_then_resume_continues_the_step_count(tmp_path, tiny_corpus, capsys):
    config = tiny_config(tmp_path, tiny_corpus, wandb=True, max_steps=6)
    assert main(["train", "fit", "--config", str(config)]) == 0
    run = tmp_path / "run"
    # The last line names what the fit wrote: last.ckpt and the best by val/loss.
    last_line = capsys.readouterr().out.strip().splitlines()[-1]
    best = next((run / "checkpoints").glob("best-*.ckpt"))
    assert last_line.startswith(f"checkpoints: {run / 'checkpoints' / 'last.ckpt'} (last), {best} (best val/loss ")
    last = run / "checkpoints" / "last.ckpt"
    ckpt = torch.load(last, weights_only=True)  # plain python + tensors only
    assert ckpt["global_step"] == 6
    info = ckpt["gamegrammar"]
    assert info["gpt_config"]["vocab_size"] == 250 and info["corpus_spec"]["game"]["width"] == 10
    assert info["tokenizer_sha256"] == Corpus(tiny_corpus).tokenizer.sha256()
    assert list((run / "checkpoints").glob("best-*.ckpt")) and (run / "config.yaml").exists()
    assert list((run / "wandb").glob("offline-run-*"))
    first = metrics(run)
    assert {"train/loss", "train/tokens_per_s", "train/lr", "val/loss"} <= set(first[0])
    # Resume from last.ckpt (what a crash leaves behind) and train on: the global step continues.
    assert main(["train", "fit", "--config", str(config), "--trainer.max_steps", "10", "--ckpt_path", "last"]) == 0
    assert torch.load(last, weights_only=True)["global_step"] == 10
    steps = [int(r["step"]) for r in metrics(run)[len(first) :] if r.get("train/loss")]
    assert steps and min(steps) >= 6 and max(steps) == 9


@pytest.mark.filterwarnings("ignore:LightningCLI's args parameter")
def test_the_cli_prints_no_flops_no_negative_epochs_and_no_wandb_setting_warnings(tmp_path, tiny_corpus):
    """Lightning's model summary (a FLOPs column of 0) is off unless a config asks; the rich bar reads "Epoch 0", not
    "Epoch 0/-2"; wandb gets no anonymous=None (a deprecated setting it warns about) and an existing directory (its git
    lookup warns otherwise)."""
    from lightning.pytorch.callbacks import ModelSummary

    from gamegrammar.commands.train import GameGrammarCLI, RunProgressBar

    config = tiny_config(tmp_path, tiny_corpus, wandb=True)
    settings = yaml.safe_load(config.read_text())
    del settings["trainer"]["enable_model_summary"]
    settings["trainer"]["enable_progress_bar"] = True
    config.write_text(yaml.safe_dump(settings))

    def cli(*args: str) -> GameGrammarCLI:
        return GameGrammarCLI(GameGPTModule, CorpusDataModule, args=["--config", str(config), *args], run=False)

    assert any(isinstance(cb, ModelSummary) for cb in cli("--trainer.enable_model_summary", "true").trainer.callbacks)
    cli = cli("--run_dir", str(tmp_path / "new"))
    assert not any(isinstance(cb, ModelSummary) for cb in cli.trainer.callbacks)
    bar = cli.trainer.progress_bar_callback
    assert isinstance(bar, RunProgressBar)
    bar._trainer, cli.trainer.fit_loop.max_epochs = cli.trainer, -1  # as fit sets them for a run bounded by max_steps alone
    assert bar._get_train_description(0).strip() == "Epoch 0"
    cli.trainer.fit_loop.max_epochs = 3
    assert bar._get_train_description(0).strip() == "Epoch 0/2"  # a bound on epochs is still shown
    wandb = next(lg for lg in cli.trainer.loggers if hasattr(lg, "_wandb_init"))
    assert "anonymous" not in wandb._wandb_init and Path(wandb.save_dir).is_dir() and wandb.save_dir == str(tmp_path / "new")


def test_optimizer_defaults_to_muon_as_every_config_sets_it():
    import inspect

    default = inspect.signature(GameGPTModule).parameters["optimizer"].default
    assert all(yaml.safe_load(c.read_text())["model"].get("optimizer", default) == "muon" for c in CONFIGS) and default == "muon"


def test_train_help_describes_every_model_and_data_option(capsys):
    """jsonargparse shows each parameter's `Args:` entry of the module's and data module's docstrings."""
    with pytest.raises(SystemExit):
        main(["train", "fit", "--help"])
    help_text = capsys.readouterr().out
    described = {}
    for entry in re.split(r"\n  (?=--)", help_text):
        usage, _, rest = entry.partition("\n")
        option = usage.split()[0]
        if option.startswith(("--model.", "--data.")) and not option.endswith(".help"):
            on_the_line = re.split(r"\s{2,}", usage.strip(), maxsplit=1)[1:]  # a short option's help starts on its line
            described[option] = " ".join([*on_the_line, rest]).split("(type:")[0].split()
    assert len(described) > 30 and "--model.optimizer" in described and "--data.windows" in described
    assert not [option for option, words in described.items() if len(words) < 3]
    assert "Muon's peak learning rate" in help_text and "default: muon)" in help_text


def test_a_longer_model_context_alone_trains_from_the_cli(tmp_path, tiny_corpus):
    """data.block_size follows the model's context; the two must not clash in the logged hyperparameters."""
    config = tiny_config(tmp_path, tiny_corpus, max_steps=2)
    assert main(["train", "fit", "--config", str(config), "--model.block_size", "128"]) == 0
    assert load_checkpoint(tmp_path / "run" / "checkpoints" / "last.ckpt").gpt_config.block_size == 128


def test_wsd_schedule_trains_from_the_cli(tmp_path, tiny_corpus):
    config = tiny_config(tmp_path, tiny_corpus, max_steps=4)
    options = [
        "--model.lr_schedule",
        "wsd",
        "--model.decay_fraction",
        "0.5",
        "--model.warmup_steps",
        "1",
        "--trainer.log_every_n_steps",
        "1",
    ]
    assert main(["train", "fit", "--config", str(config), *options]) == 0
    lrs = [float(r["train/lr"]) for r in metrics(tmp_path / "run") if r.get("train/lr")]
    assert lrs[:2] == [pytest.approx(3e-3)] * 2 and lrs[2] < lrs[1]


def test_muon_trains_and_resumes_from_the_cli(tmp_path, tiny_corpus):
    config = tiny_config(tmp_path, tiny_corpus, max_steps=4)
    options = ["--model.optimizer", "muon", "--model.muon_lr", "0.05"]
    assert main(["train", "fit", "--config", str(config), *options]) == 0
    last = tmp_path / "run" / "checkpoints" / "last.ckpt"
    state = torch.load(last, weights_only=True)["optimizer_states"][0]
    assert [g["lr"] > 0 for g in state["param_groups"]] == [True] * 3 and "momentum_buffer" in state["state"][0]
    assert main(["train", "fit", "--config", str(config), *options, "--trainer.max_steps", "6", "--ckpt_path", "last"]) == 0
    assert torch.load(last, weights_only=True)["global_step"] == 6


def test_resuming_with_another_optimizer_is_one_line(tmp_path, tiny_corpus, capsys):
    config = tiny_config(tmp_path, tiny_corpus, max_steps=2)
    assert main(["train", "fit", "--config", str(config), "--model.optimizer", "adamw"]) == 0
    capsys.readouterr()
    code = main(["train", "fit", "--config", str(config), "--model.optimizer", "muon", "--trainer.max_steps", "4", "--ckpt_path", "last"])
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "gamegrammar: error: the checkpoint was trained with --model.optimizer adamw, not muon; "
        "resume with the optimizer it was trained with"
    )


class StopAt(L.Callback):
    """Stops training after `step` steps from a callback, as the Timer does when max_time runs out."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, *args) -> None:
        trainer.should_stop = trainer.global_step >= self.step


def test_last_ckpt_is_the_final_state_whatever_stops_training(tmp_path, tiny_corpus):
    """A run stopped between periodic saves (max_time, say) still leaves its final state in last.ckpt."""
    data = CorpusDataModule(str(tiny_corpus), batch_size=4, windows="random")
    module = GameGPTModule("gg31k", vocab_size=data.vocab_size)
    every_2 = ModelCheckpoint(dirpath=tmp_path, save_last=True, save_top_k=0, every_n_train_steps=2)
    trainer = L.Trainer(
        max_steps=100,
        callbacks=[every_2, StopAt(5)],
        logger=False,
        limit_val_batches=0,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(module, data)
    assert trainer.global_step == 5
    assert torch.load(tmp_path / "last.ckpt", weights_only=True)["global_step"] == 5  # not 4, the last periodic save


def fit_tiny(corpus: Path, root: Path, max_steps: int, stop: int | None = None, resume: bool = False) -> dict[str, torch.Tensor]:
    """The final weights of a tiny run (random windows, symmetries, 4 batches an epoch), stopped at `stop` or resumed."""
    L.seed_everything(5)
    data = CorpusDataModule(str(corpus), batch_size=32, windows="random", augment=True)
    module = GameGPTModule("gg31k", vocab_size=data.vocab_size, tick_id=data.tick_id, warmup_steps=1)
    saves = ModelCheckpoint(dirpath=root, save_last=True, save_top_k=0, every_n_train_steps=100)
    trainer = L.Trainer(
        max_steps=max_steps,
        callbacks=[saves, *([StopAt(stop)] if stop else [])],
        logger=False,
        limit_val_batches=0,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(module, data, ckpt_path=str(root / "last.ckpt") if resume else None)
    return {k: v.clone() for k, v in module.model.state_dict().items()}


def test_a_run_resumed_mid_epoch_ends_as_the_uninterrupted_one(tmp_path, tiny_corpus):
    """The checkpoint keeps the data's place (the order's seed, epoch and windows done): a run stopped in its second
    epoch and resumed trains on the very windows and symmetries the uninterrupted run does, to the same weights (a
    plain shuffled loader would start that epoch over)."""
    whole = fit_tiny(tiny_corpus, tmp_path / "whole", 10)
    fit_tiny(tiny_corpus, tmp_path / "cut", 10, stop=6)
    assert torch.load(tmp_path / "cut" / "last.ckpt", weights_only=True)["global_step"] == 6
    resumed = fit_tiny(tiny_corpus, tmp_path / "cut", 10, resume=True)
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)


def test_the_window_order_is_each_epochs_permutation_dealt_to_the_processes():
    ranks = [list(WindowOrder(10, seed=3, num_replicas=3, rank=r, epoch=2)) for r in range(3)]
    assert sorted(set(i for r in ranks for i in r)) == list(range(20, 30)) and [len(r) for r in ranks] == [4, 4, 4]
    assert list(WindowOrder(10, seed=3, epoch=2, skip=7)) == list(WindowOrder(10, seed=3, epoch=2))[7:]
    assert list(WindowOrder(10, seed=3, epoch=1)) != [i + 10 for i in WindowOrder(10, seed=3, epoch=2)]


def test_a_run_ending_at_its_first_validation_leaves_one_last_checkpoint(tmp_path, tiny_corpus):
    """The final save is the callback's own last.ckpt: a validation at the same step overwrites it, no last-v1.ckpt."""
    config = tiny_config(tmp_path, tiny_corpus, max_steps=3)  # validates at step 3
    settings = yaml.safe_load(config.read_text())
    for cb in settings["trainer"]["callbacks"]:
        if "every_n_train_steps" in cb["init_args"]:
            cb["init_args"]["every_n_train_steps"] = 100  # no periodic save before the end
    config.write_text(yaml.safe_dump(settings))
    assert main(["train", "fit", "--config", str(config)]) == 0
    checkpoints = tmp_path / "run" / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir()) == ["best-step=3.ckpt", "last.ckpt"]
    assert torch.load(checkpoints / "last.ckpt", weights_only=True)["global_step"] == 3


def test_a_fresh_fit_refuses_an_earlier_runs_checkpoints(tmp_path, tiny_corpus, capsys):
    """Otherwise Lightning writes last-v1.ckpt and last.ckpt stays the earlier model."""
    config = tiny_config(tmp_path, tiny_corpus, max_steps=2)
    assert main(["train", "fit", "--config", str(config)]) == 0
    before = sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir())
    capsys.readouterr()
    assert main(["train", "fit", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"gamegrammar: error: {tmp_path / 'run' / 'checkpoints'} already holds checkpoints of an earlier run")
    assert "--ckpt_path last" in err[-1]
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir()) == before
    assert main(["train", "fit", "--config", str(config), "--run_dir", str(tmp_path / "other")]) == 0


def test_resume_on_a_corpus_with_another_vocabulary_is_one_line(tmp_path, tiny_corpus, capsys):
    config = tiny_config(tmp_path, tiny_corpus, max_steps=2)
    assert main(["train", "fit", "--config", str(config)]) == 0
    other = tmp_path / "small"
    generate(CorpusSpec(game=SnakeConfig(6, 6, 50), episodes=20, seed=1), other)
    code = main(["train", "fit", "--config", str(config), "--data.path", str(other), "--trainer.max_steps", "4", "--ckpt_path", "last"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("gamegrammar: error: corpus") and "different vocabulary from the checkpoint's" in err[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--data.path", "{tmp}/nothing"], "corpus {tmp}/nothing does not exist"),
        (["--model.preset", "huge"], "unknown model preset 'huge'; choose from gg31k, gg-cpu, gg-gpu"),
        (["--data.block_size", "65"], "--data.block_size 65 is longer than the model's position table (64 tokens)"),
        (["--model.outcome_weight", "0"], "--model.outcome_weight must be a positive number, got 0.0"),
        (["--model.chance_weight", "-1"], "--model.chance_weight must be a positive number, got -1.0"),
        (["--model.decay_fraction", "1.5"], "--model.decay_fraction must be in (0, 1], got 1.5"),
        (["--model.muon_lr", "0"], "--model.muon_lr must be a positive number, got 0.0"),
        (
            ["--data.chance_targets", "true"],
            "Parser key \"data.chance_targets\": Expected a typing.Literal['drawn', 'exact']. Got value: true",
        ),
        (
            ["--data.windows", "bogus"],
            "Parser key \"data.windows\": Expected a typing.Literal['episode', 'packed', 'keyframe', 'random']. Got value: bogus",
        ),
        (["--trainer.max_steps", "x"], "Parser key \"trainer.max_steps\": Expected a <class 'int'>. Got value: x"),
        (["--no_such_flag", "1"], "unrecognized arguments: --no_such_flag 1"),
    ],
)
def test_bad_input_is_one_line(tmp_path, tiny_corpus, capsys, args, message):
    config = tiny_config(tmp_path, tiny_corpus)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["train", "fit", "--config", str(config), "--trainer.logger", "false", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "gamegrammar: error: " + message.replace("{tmp}", str(tmp_path))


def test_outcome_weight_weights_the_token_after_each_input(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    x, y = collate_windows([np.array(corpus.episode_ids(row)[:65]) for row in range(4)], pad_id=corpus.tokenizer.pad_id)
    inputs = torch.tensor([i for t, i in corpus.tokenizer.ids.items() if t.startswith("INPUT_")])
    plain = GameGPTModule("gg31k", vocab_size=len(corpus.tokenizer))
    weighted = GameGPTModule("gg31k", vocab_size=len(corpus.tokenizer), outcome_weight=4.0)
    weighted.load_state_dict(plain.state_dict())
    weighted._input_ids = inputs
    logits, mean = plain(x, y)
    assert torch.allclose(plain.training_loss(x, y), mean)
    ce = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=IGNORE_INDEX, reduction="none")
    w = (1 + 3 * torch.isin(x, inputs).float()).view(-1) * (y.view(-1) != IGNORE_INDEX)
    assert torch.isin(x, inputs).any()
    assert torch.allclose(weighted.training_loss(x, y), (ce * w).sum() / w.sum())


def test_targets_after_marks_the_tokens_at_each_offset_after_a_word():
    x = torch.tensor([[7, 1, 2, 3, 7, 4], [5, 7, 6, 8, 9, 7]])
    mask = targets_after(x, torch.tensor([7]), (1, 3))
    # target t is token t + 1: offsets 1 and 3 after a 7 at t are targets t and t + 2 (cut at the window's end)
    assert mask.tolist() == [[True, False, True, False, True, False], [False, True, False, True, False, True]]
    assert not targets_after(x, torch.tensor([7]), (9,)).any()


@pytest.mark.parametrize(
    ("game", "config", "codec"),
    [
        ("snake", SnakeConfig(), {}),
        ("snake", SnakeConfig(), {"spawn_column": True, "sense": True}),
        ("snake", SnakeConfig(), {"body_list": True, "head_first": True}),
        ("battlesnake", None, {}),
    ],
    ids=["snake-v1", "snake-column", "snake-list", "battlesnake"],
)
def test_chance_tokens_are_each_spawns_cell(game, config, codec):
    """The targets chance_weight weights are, in order, the X and Y of every food spawn the episode's events hold (and
    in Battlesnake before them, of every start cell and start food)."""
    spec = load_game(game)
    config = config or spec.config_type()
    codec = spec.codec_type(**codec)
    tokenizer = tokenizer_for(config, codec)
    for episode in range(3):
        record = spec.play_episode(config, codec, "greedy", 5, episode)
        ids = torch.tensor([tokenizer.encode(record.tokens)])
        x, y = ids[:, :-1], ids[:, 1:]
        mask = torch.zeros(x.shape, dtype=torch.bool)
        for word, offsets in spec.chance_tokens(config, codec):
            mask |= targets_after(x, torch.tensor(tokenizer.encode([word])), offsets)
        weighted = tokenizer.decode(y[mask].tolist())
        spawns = [e for e in record.events if e.type in ("FOOD_SPAWN", "SPAWN")]
        cells = [(e.payload["x"], e.payload["y"]) for e in spawns]
        if game == "battlesnake":  # the start is chance too: each snake's start cell, then the start food
            start = record.states[0]
            cells = [*(s.head for s in start.snakes), *start.food, *cells]
        assert spawns and weighted == [t for x, y in cells for t in (f"X{x}", f"Y{y}")]


def test_chance_weight_weights_the_spawn_cells(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    x, y = collate_windows([np.array(corpus.episode_ids(row)[:65]) for row in range(4)], pad_id=corpus.tokenizer.pad_id)
    plain = GameGPTModule("gg31k", vocab_size=len(corpus.tokenizer))
    weighted = GameGPTModule("gg31k", vocab_size=len(corpus.tokenizer), outcome_weight=2.0, chance_weight=5.0)
    weighted.load_state_dict(plain.state_dict())
    weighted._input_ids = torch.tensor([i for t, i in corpus.tokenizer.ids.items() if t.startswith("INPUT_")])
    spawn = torch.tensor([corpus.tokenizer.ids["FOOD_SPAWN"]])
    weighted._chance = [(spawn, (1, 2))]
    logits, _ = plain(x, y)
    ce = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=IGNORE_INDEX, reduction="none")
    cell = torch.isin(x, spawn) | torch.nn.functional.pad(torch.isin(x, spawn)[:, :-1], (1, 0))
    assert cell.any()
    w = torch.where(cell, 5.0, torch.where(torch.isin(x, weighted._input_ids), 2.0, 1.0)).view(-1) * (y.view(-1) != IGNORE_INDEX)
    assert torch.allclose(weighted.training_loss(x, y), (ce * w).sum() / w.sum())


def test_exact_chance_targets_come_with_each_window_in_its_own_frame(tiny_corpus):
    """Every spawn token of a packed, augmented batch gets the distribution it was drawn from, after the symmetry."""
    corpus = Corpus(tiny_corpus)
    rows = corpus.split("train")[:24]
    windows = EpisodeWindows(corpus, rows, 256, "packed", augment=True, chance_targets="exact")
    batch = [windows[i] for i in range(len(rows))]
    x, y, (row, col, ids, probs) = collate_windows(batch, pad_id=corpus.tokenizer.pad_id)
    spawn = torch.tensor([corpus.tokenizer.ids["FOOD_SPAWN"]])
    marked = torch.zeros(x.shape, dtype=torch.bool)
    marked[row, col] = True
    cells = targets_after(x, spawn, (1, 2))
    # every spawn cell whose tick the window holds whole is marked; the last episode may be cut inside one
    assert marked.sum() >= cells.sum() - 2 * len(rows) and (marked <= cells).all() and marked.sum() > 50
    assert torch.allclose(probs.sum(1), torch.ones(len(row)))
    drawn = y[row, col]
    assert ((ids == drawn[:, None]) & (probs > 0)).any(1).all()  # the token written is one the distribution can draw
    assert (probs < 1).any()


def test_exact_chance_targets_replace_the_drawn_cells_cross_entropy(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    windows = EpisodeWindows(corpus, corpus.split("train")[:4], 64, "episode", chance_targets="exact")
    x, y, soft = collate_windows([windows[i] for i in range(4)], pad_id=corpus.tokenizer.pad_id)
    module = GameGPTModule("gg31k", vocab_size=len(corpus.tokenizer))
    logits, mean = module(x, y)
    ce = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=IGNORE_INDEX, reduction="none")
    ce = ce.view(x.shape).clone()
    row, col, ids, probs = soft
    assert len(row)
    logp = torch.log_softmax(logits, -1)
    for r, c, i, p in zip(row, col, ids, probs):
        ce[r, c] = -(p * logp[r, c, i]).sum()
    expected = ce[y != IGNORE_INDEX].mean()
    assert torch.allclose(module.training_loss(x, y, soft), expected)
    assert not torch.allclose(expected, mean)
    assert torch.allclose(module.training_loss(x, y), mean)


def test_chance_targets_exact_trains_and_validates_on_the_plain_loss(tmp_path, tiny_corpus):
    config = tiny_config(tmp_path, tiny_corpus, max_steps=3)
    assert main(["train", "fit", "--config", str(config), "--data.chance_targets", "exact", "--data.augment", "true"]) == 0
    rows = metrics(tmp_path / "run")
    assert any(r.get("train/loss") for r in rows) and any(r.get("val/loss") for r in rows)


def test_chance_targets_need_a_game_that_declares_its_chance(tmp_path, tiny_corpus, capsys, monkeypatch):
    from gamegrammar.core.gamespec import GameSpec

    monkeypatch.setattr(type(load_game("snake")), "chance_targets", GameSpec.chance_targets)  # as a game without it
    config = tiny_config(tmp_path, tiny_corpus)
    assert main(["train", "fit", "--config", str(config), "--data.chance_targets", "exact", "--trainer.logger", "false"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (
        f"gamegrammar: error: --data.chance_targets exact: snake does not declare the distributions its chance draws from "
        f"(corpus {tiny_corpus})"
    )


def test_exact_chance_targets_on_battlesnake(tmp_path):
    from gamegrammar.games.battlesnake.rules import BattlesnakeConfig

    corpus = tmp_path / "bs"
    generate(CorpusSpec(game=BattlesnakeConfig(7, 7, 2, max_ticks=40), episodes=12, seed=1), corpus)
    opened = Corpus(corpus)
    windows = EpisodeWindows(opened, opened.split("train"), 512, "episode", chance_targets="exact")
    _, y, (row, col, ids, probs) = collate_windows([windows[i] for i in range(len(windows))], pad_id=opened.tokenizer.pad_id)
    assert len(row) and torch.allclose(probs.sum(1), torch.ones(len(row)))
    assert ((ids == y[row, col][:, None]) & (probs > 0)).any(1).all()


def test_model_fields_override_the_preset(tiny_corpus):
    tokenizer = Corpus(tiny_corpus).tokenizer
    module = GameGPTModule("gg-cpu", vocab_size=len(tokenizer), tick_id=tokenizer.ids["TICK"], rope=False, n_embd=64, n_head=2)
    assert (module.config.rope, module.config.n_embd, module.config.n_head) == (False, 64, 2)


@pytest.mark.slow
def test_ddp_on_two_cpu_processes(tmp_path, tiny_corpus):
    """Lightning's own DDP (gloo) with no custom sampler: both ranks train, rank 0 writes the checkpoint."""
    config = tiny_config(tmp_path, tiny_corpus, max_steps=3)
    env = {**os.environ, "WANDB_MODE": "offline", "PL_DISABLE_FORK": "1", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "gamegrammar.cli", "train", "fit", "--config", str(config)]
    cmd += ["--trainer.strategy", "ddp", "--trainer.devices", "2", "--trainer.accelerator", "cpu"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "distributed_backend=gloo" in done.stderr + done.stdout and "All distributed processes registered" in done.stderr + done.stdout
    assert "LeafSpec" not in done.stderr  # torch's FutureWarning about Lightning's loop is filtered (commands/train.py)
    ckpt = torch.load(tmp_path / "run" / "checkpoints" / "last.ckpt", weights_only=True)
    assert ckpt["global_step"] == 3


def test_training_output_carries_no_cloud_service_tips(tiny_run):
    import logging

    from gamegrammar.commands.train import _no_cloud_tips

    assert _no_cloud_tips in logging.getLogger("lightning.pytorch.utilities.rank_zero").filters  # `train` put it there

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("lightning.pytorch.utilities.rank_zero", logging.INFO, __file__, 1, message, None, None)

    assert not _no_cloud_tips(record("💡 Tip: For seamless cloud logging and experiment tracking, try installing [litlogger]"))
    assert _no_cloud_tips(record("GPU available: False, used: False"))
