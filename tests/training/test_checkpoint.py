"""Checkpoints carry everything needed to sample; export/import is exact; bad files are one-line errors."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import lightning as L
import pytest
import torch
from lightning.pytorch.callbacks import ModelCheckpoint

from gamegrammar.cli import main
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus
from gamegrammar.training.checkpoint import LoadedModel, export, load_checkpoint, load_exported
from gamegrammar.training.lightning import CorpusDataModule, GameGPTModule


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_corpus):
    """A gg31k checkpoint after three steps, written by a plain Trainer (no CLI)."""
    out = tmp_path_factory.mktemp("ckpt")
    L.seed_everything(0)
    dm = CorpusDataModule(str(tiny_corpus), batch_size=4)
    module = GameGPTModule("gg31k", vocab_size=dm.vocab_size, n_layer=1)
    trainer = L.Trainer(
        max_steps=3,
        accelerator="cpu",
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        limit_val_batches=0,
        callbacks=[ModelCheckpoint(dirpath=out, save_last=True, save_top_k=0)],
    )
    trainer.fit(module, dm)
    return out / "last.ckpt"


def test_checkpoint_loads_with_weights_only_and_carries_the_game(trained, tiny_corpus):
    raw = torch.load(trained, weights_only=True)
    assert raw["global_step"] == 3
    loaded = load_checkpoint(trained)
    assert isinstance(loaded, LoadedModel) and not loaded.model.training
    corpus = Corpus(tiny_corpus)
    assert loaded.tokenizer.sha256() == corpus.tokenizer.sha256()
    assert loaded.game == corpus.game and loaded.codec == corpus.codec and loaded.spec == corpus.spec
    assert loaded.gpt_config.n_layer == 1 and loaded.gpt_config.vocab_size == len(corpus.tokenizer)
    weights = {k[len("model.") :]: v for k, v in raw["state_dict"].items()}
    assert torch.equal(loaded.model.wte.weight, weights["wte.weight"])


def test_export_round_trip_gives_identical_logits(trained, tmp_path):
    out = export(trained, tmp_path / "exported")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    config = json.loads((out / "config.json").read_text())
    assert config["gpt_config"]["block_size"] == 64 and config["corpus_spec"]["game"]["width"] == 10
    a, b = load_checkpoint(trained), load_exported(out)
    assert b.tokenizer.tokens == a.tokenizer.tokens and b.spec == a.spec and b.gpt_config == a.gpt_config
    idx = torch.randint(0, a.gpt_config.vocab_size, (3, 40), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.equal(a.model(idx)[0], b.model(idx)[0])
    assert b.model.head.weight is b.model.wte.weight  # still tied after loading
    assert load_checkpoint(out).gpt_config == a.gpt_config  # a directory is read as an export


def test_the_model_is_made_on_the_device_its_weights_are_mapped_to(trained, tmp_path):
    # load_state_dict copies into the parameters where they stand: a model built on the CPU stayed there
    # whatever map_location said, so `--device cuda` sampled on the CPU. "meta" is a second device every machine has.
    loaded = load_checkpoint(trained, map_location="meta")
    assert {t.device.type for t in [*loaded.model.parameters(), *loaded.model.buffers()]} == {"meta"}
    assert loaded.model.head.weight is loaded.model.wte.weight


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_both_formats_load_onto_cuda(trained, tmp_path):
    for source in (trained, export(trained, tmp_path / "exported")):
        model = load_checkpoint(source, map_location="cuda").model
        assert {t.device.type for t in [*model.parameters(), *model.buffers()]} == {"cuda"}


def test_export_command(trained, tmp_path, capsys):
    assert main(["export", str(trained), str(tmp_path / "e")]) == 0
    assert "exported" in capsys.readouterr().out and (tmp_path / "e" / "model.safetensors").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p, ckpt: p / "missing.ckpt", "does not exist"),
        (lambda p, ckpt: p, "directory without config.json"),
        (lambda p, ckpt: (p / "text.ckpt").write_text("hello") and p / "text.ckpt", "is not a checkpoint"),
        (lambda p, ckpt: (p / "cut.ckpt").write_bytes(ckpt.read_bytes()[:4000]) and p / "cut.ckpt", "is not a checkpoint"),
        (lambda p, ckpt: torch.save({"state_dict": {}}, p / "other.ckpt") or p / "other.ckpt", "not a gamegrammar checkpoint"),
    ],
    ids=["missing", "dir", "text", "truncated", "foreign"],
)
def test_bad_checkpoints_are_one_line_errors(trained, tmp_path, capsys, make, message):
    path = make(tmp_path, trained)
    with pytest.raises(GameGrammarError, match=message):
        load_checkpoint(path)
    assert main(["export", str(path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gamegrammar: error: ") and message in err[0]


def test_broken_export_is_one_line_error(trained, tmp_path):
    out = export(trained, tmp_path / "x")
    (out / "tokenizer.json").unlink()
    with pytest.raises(GameGrammarError, match=r"tokenizer\.json is missing"):
        load_exported(out)
    out = export(trained, tmp_path / "y")
    (out / "model.safetensors").write_bytes(b"garbage")
    with pytest.raises(GameGrammarError, match=r"cannot read .*model\.safetensors \(truncated"):
        load_exported(out)
    out = export(trained, tmp_path / "z")
    (out / "tokenizer.json").write_text("{}")
    with pytest.raises(GameGrammarError, match="has a malformed tokenizer: missing 'model'"):
        load_exported(out)


def test_an_export_whose_files_are_not_those_its_config_names_is_refused(trained, tmp_path):
    """An export killed half-way over an older one, or a file swapped by hand, must not load as a model it is not."""
    full, half = export(trained, tmp_path / "f32"), export(trained, tmp_path / "bf16", dtype="bfloat16")
    config = json.loads((full / "config.json").read_text())
    assert config["weights_sha256"] == hashlib.sha256((full / "model.safetensors").read_bytes()).hexdigest()
    mixed = tmp_path / "mixed"
    shutil.copytree(full, mixed)
    shutil.copy(half / "model.safetensors", mixed / "model.safetensors")  # a valid file of the same shapes
    with pytest.raises(GameGrammarError, match=r"model\.safetensors is not the one its config\.json names"):
        load_exported(mixed)
    shutil.copy(full / "model.safetensors", mixed / "model.safetensors")
    tokenizer = json.loads((mixed / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    (a, i), (b, j) = sorted(vocab.items(), key=lambda kv: kv[1])[-2:]
    vocab[a], vocab[b] = j, i  # the same tokens, two of them swapped: a valid tokenizer of another order
    (mixed / "tokenizer.json").write_text(json.dumps(tokenizer))
    with pytest.raises(GameGrammarError, match=r"tokenizer\.json is not the one its config\.json names"):
        load_exported(mixed)
    assert load_exported(full).tokenizer.sha256() == config["tokenizer_sha256"]
    for field in ("weights_sha256", "tokenizer_sha256"):  # required: a config.json without them vouches for nothing
        (full / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != field}))
        with pytest.raises(GameGrammarError, match=f"config.json lacks '{field}'"):
            load_exported(full)


def test_export_in_bfloat16_halves_the_weights_and_reads_back_as_float32(trained, tmp_path):
    from safetensors.torch import load_file

    full, half = export(trained, tmp_path / "f32"), export(trained, tmp_path / "bf16", dtype="bfloat16")
    a, b = load_exported(full), load_exported(half)
    params = {name for name, _ in a.model.named_parameters()}
    stored = load_file(half / "model.safetensors")
    assert {stored[k].dtype for k in stored if k in params} == {torch.bfloat16}
    assert json.loads((half / "config.json").read_text())["weights_dtype"] == "bfloat16"
    assert (half / "model.safetensors").stat().st_size < 0.6 * (full / "model.safetensors").stat().st_size
    assert all(p.dtype == torch.float32 for p in b.model.parameters())
    assert torch.equal(b.model.wte.weight, a.model.wte.weight.to(torch.bfloat16).float())
    idx = torch.randint(0, a.gpt_config.vocab_size, (2, 30), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        torch.testing.assert_close(b.model(idx)[0], a.model(idx)[0], atol=0.1, rtol=0.05)


def test_export_refuses_an_unknown_dtype(trained, tmp_path):
    with pytest.raises(GameGrammarError, match="--dtype must be one of"):
        export(trained, tmp_path / "x", dtype="int8")


def test_what_samples_from_a_checkpoint_imports_no_lightning():
    """The import-linter contract at run time, where it also counts the packages' __init__ files it does not see:
    gamegrammar.training holds the Lightning module beside checkpoint.py, and importing checkpoint.py runs the
    package's __init__ first."""
    import subprocess
    import sys

    modules = [
        "gamegrammar.training.checkpoint",
        "gamegrammar.model.sampling",
        "gamegrammar.model.sample_journal",
        "gamegrammar.commands.sample",
        "gamegrammar.commands.dream",
        "gamegrammar.envs.policy",
        "gamegrammar.act.dream",
        "gamegrammar.act.play",
        "gamegrammar.act.play_journal",
    ]
    code = f"import sys\nfor m in {modules!r}: __import__(m)\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('lightning', 'pytorch_lightning')))"
    root = Path(__file__).resolve().parents[2]  # this checkout's gamegrammar, whatever is installed
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
