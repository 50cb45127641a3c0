"""Fault injection through the real CLI: every bad invocation is one clear line on stderr, and destroys nothing.

Each case runs `python -m gamegrammar.cli ...` as a process of its own (forked from one that imported the CLI once:
tests/conftest.py's ForkedCli) inside a workspace holding a corpus, a
checkpoint, token files and broken copies of them. For every case: a non-zero exit, exactly one line on
stderr naming the problem, no traceback, and no file of the workspace changed, removed or added.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lightning as L
import numpy as np
import pytest
from lightning.pytorch.callbacks import ModelCheckpoint

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "gg31k.yaml"


def _corrupt(src: Path, dst: Path, edit) -> None:
    shutil.copytree(src, dst)
    edit(dst)


def _edit_manifest(change):
    def edit(path: Path) -> None:
        manifest = json.loads((path / "manifest.json").read_text())
        change(manifest)
        (path / "manifest.json").write_text(json.dumps(manifest))

    return edit


def _poke_shard(path: Path) -> None:
    tokens = path / "shards" / "00000.tokens"
    data = bytearray(tokens.read_bytes())
    data[10:12] = np.array([65000], np.uint16).tobytes()
    tokens.write_bytes(bytes(data))


def _truncate_shard(path: Path) -> None:
    tokens = path / "shards" / "00000.tokens"
    tokens.write_bytes(tokens.read_bytes()[:-6])


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, tiny_corpus) -> Path:
    """Inputs good and bad; nothing in here may change while the cases run."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.rules import SnakeConfig
    from gamegrammar.training.lightning import CorpusDataModule, GameGPTModule

    w = tmp_path_factory.mktemp("faults")
    shutil.copytree(tiny_corpus, w / "corpus")
    generate(CorpusSpec(game=SnakeConfig(7, 7, 50), episodes=40, seed=2), w / "corpus7")
    L.seed_everything(0)
    dm = CorpusDataModule(str(w / "corpus"), batch_size=4)
    module = GameGPTModule("gg31k", vocab_size=dm.vocab_size, n_layer=1)
    trainer = L.Trainer(
        max_steps=2,
        accelerator="cpu",
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        limit_val_batches=0,
        callbacks=[ModelCheckpoint(dirpath=w / "ckpt", save_last=True, save_top_k=0)],
    )
    trainer.fit(module, dm)
    ckpt = w / "ckpt" / "last.ckpt"
    (w / "truncated.ckpt").write_bytes(ckpt.read_bytes()[: ckpt.stat().st_size // 2])
    (w / "notes.txt").write_text("not a checkpoint\n")
    with open(w / "foreign.pkl", "wb") as f:
        pickle.dump({"state_dict": {}, "hello": "world"}, f)
    import torch

    torch.save({"state_dict": {}, "epoch": 1}, w / "foreign.ckpt")  # a torch checkpoint, not ours
    run = w / "run" / "checkpoints"
    run.mkdir(parents=True)
    (run / "last.ckpt").write_bytes(ckpt.read_bytes()[:1000])
    from gamegrammar.data.corpus import Corpus

    corpus = Corpus(w / "corpus")
    (w / "t.txt").write_text("".join(" ".join(corpus.episode_tokens(r)) + "\n" for r in range(3)))
    (w / "empty.txt").write_text("\n\n")
    (w / "existing.txt").write_text("keep me\n")
    (w / "a_dir").mkdir()
    (w / "model").mkdir()
    (w / "model" / "model.safetensors").write_bytes(b"someone else's weights")
    (w / "bad_report").mkdir()
    (w / "bad_report" / "report.json").write_text("{not json")
    (w / "odd_report").mkdir()
    (w / "odd_report" / "report.json").write_text('{"meta": {}}')
    _corrupt(w / "corpus", w / "no_dtype", _edit_manifest(lambda m: m.pop("dtype")))
    _corrupt(w / "corpus", w / "bad_type", _edit_manifest(lambda m: m.update(episodes="many")))
    _corrupt(w / "corpus", w / "bad_shards", _edit_manifest(lambda m: m.update(shards={"name": 1})))
    _corrupt(w / "corpus", w / "other_board", _edit_manifest(lambda m: m["spec"]["game"].update(width=11)))
    _corrupt(w / "corpus", w / "bad_json", lambda p: (p / "manifest.json").write_text("{"))
    _corrupt(w / "corpus", w / "big_id", _poke_shard)
    _corrupt(w / "corpus", w / "cut_shard", _truncate_shard)
    _corrupt(w / "corpus", w / "no_tokenizer", lambda p: (p / "tokenizer.json").unlink())
    return w


TRAIN = ["train", "fit", "--config", str(CONFIG), "--data.path", "corpus", "--trainer.max_steps", "1", "--run_dir", "new_run"]
SAMPLE = ["sample", "--ckpt", "ckpt/last.ckpt", "--num", "2", "--max-length", "40", "--out", "samples.txt"]

# (id, argv, what stderr must say): run from the workspace
CASES = [
    # silent data loss
    ("json-over-tokens", ["evaluate", "--tokens", "t.txt", "--json", "t.txt"], "is the input"),
    ("export-into-corpus", ["corpus", "export", "corpus", "--out", "corpus/manifest.json"], "is the input"),
    ("export-over-model", ["export", "ckpt/last.ckpt", "model"], "already holds model.safetensors"),
    ("sample-over-file", [*SAMPLE[:-1], "existing.txt"], "already exists"),
    ("corpus-export-over-file", ["corpus", "export", "corpus", "--out", "existing.txt"], "already exists"),
    ("json-over-file", ["evaluate", "--tokens", "t.txt", "--json", "existing.txt"], "already exists"),
    ("generate-over-corpus", ["generate", "--episodes", "5", "--out", "corpus"], "already holds a finished corpus"),
    # operating-system errors
    ("out-under-a-file", ["corpus", "export", "corpus", "--out", "existing.txt/sub.txt"], "is a file"),
    ("out-is-a-directory", [*SAMPLE[:-1], "a_dir"], "is a directory"),
    ("tokens-is-a-directory", ["evaluate", "--tokens", "a_dir"], "a_dir"),
    ("json-is-a-directory", ["evaluate", "--tokens", "t.txt", "--json", "a_dir"], "is a directory"),
    ("corpus-missing", ["corpus", "stats", "nowhere"], "does not exist"),
    ("generate-into-a-file", ["generate", "--episodes", "5", "--out", "existing.txt"], "not a directory"),
    ("export-into-a-file", ["export", "ckpt/last.ckpt", "existing.txt"], "not a directory"),
    # unchecked manifests and shards
    ("manifest-missing-field", ["corpus", "stats", "no_dtype"], "lacks the field 'dtype'"),
    ("manifest-wrong-type", ["corpus", "stats", "bad_type"], "episodes should be int"),
    ("manifest-bad-shards", ["corpus", "stats", "bad_shards"], "shards should be a list"),
    ("manifest-board-vs-tokenizer", ["corpus", "stats", "other_board"], "vocabulary"),
    ("manifest-not-json", ["corpus", "stats", "bad_json"], "not valid JSON"),
    ("id-outside-vocab-stats", ["corpus", "stats", "big_id"], "outside the vocabulary"),
    ("id-outside-vocab-export", ["corpus", "export", "big_id"], "outside the vocabulary"),
    ("id-outside-vocab-train", [*TRAIN[:5], "big_id", *TRAIN[6:]], "outside the vocabulary"),
    ("shard-truncated", ["corpus", "export", "cut_shard"], "truncated"),
    ("tokenizer-missing", ["corpus", "stats", "no_tokenizer"], "tokenizer"),
    # training inputs
    ("train-negative-lr", [*TRAIN, "--model.lr", "-1"], "lr must be a positive number"),
    ("train-zero-batch", [*TRAIN, "--data.batch_size", "0"], "batch_size must be at least 1"),
    ("train-negative-workers", [*TRAIN, "--data.num_workers", "-1"], "--data.num_workers must be at least 0"),
    ("train-missing-corpus", [*TRAIN[:5], "nowhere", *TRAIN[6:]], "does not exist"),
    (
        "train-bad-max-time",
        [*TRAIN, "--trainer.max_time", "00:00:1:5"],
        "trainer setting: `Timer(duration='00:00:1:5')` is not a valid duration",
    ),
    ("resume-text-file", [*TRAIN, "--ckpt_path", "notes.txt"], "not a checkpoint"),
    ("resume-truncated", [*TRAIN, "--ckpt_path", "truncated.ckpt"], "checkpoint"),
    ("resume-foreign-pickle", [*TRAIN, "--ckpt_path", "foreign.pkl"], "not a checkpoint"),
    ("resume-foreign-torch", [*TRAIN, "--ckpt_path", "foreign.ckpt"], "not a gamegrammar checkpoint"),
    ("resume-truncated-last", [*TRAIN[:-1], "run", "--ckpt_path", "last"], "checkpoint"),
    # sampling settings
    ("temperature-nan", [*SAMPLE, "--temperature", "nan"], "temperature must be a finite number"),
    ("temperature-inf", [*SAMPLE, "--temperature", "inf"], "temperature must be a finite number"),
    ("max-length-zero", ["sample", "--ckpt", "ckpt/last.ckpt", "--max-length", "0", "--out", "samples.txt"], "max_length must be >= 2"),
    ("device-unknown", [*SAMPLE, "--device", "tpu9"], "not a device torch knows"),
    ("num-zero", [*SAMPLE[:4], "0", *SAMPLE[5:]], "--num must be at least 1"),
    ("top-p-two", [*SAMPLE, "--top-p", "2"], "top_p"),
    ("sample-text-ckpt", ["sample", "--ckpt", "notes.txt", "--out", "samples.txt"], "not a checkpoint"),
    # values with no bounds
    ("agent-weight-inf", ["generate", "--agents", "random=inf", "--out", "c"], "finite number"),
    ("agent-unknown", ["generate", "--agents", "smart=1", "--out", "c"], "unknown agent 'smart'"),
    ("board-huge", ["generate", "--width", "5000", "--height", "5000", "--out", "c"], "between 4x4 and"),
    ("ticks-huge", ["generate", "--max-ticks", "100000000", "--out", "c"], "max_ticks must be between"),
    ("game-unknown", ["generate", "--game", "chess", "--out", "c"], "unknown game 'chess'"),
    ("episodes-zero", ["generate", "--episodes", "0", "--out", "c"], "--episodes must be at least 1"),
    ("workers-zero", ["generate", "--workers", "0", "--out", "c"], "--workers must be at least 1"),
    # reports
    ("table-corrupt-json", ["evaluate", "--table", "bad_report"], "report.json"),
    ("table-missing-keys", ["evaluate", "--table", "odd_report"], "report.json"),
    # token files and game configs
    ("tokens-empty", ["evaluate", "--tokens", "empty.txt"], "holds no sequences"),
    ("tokens-other-board", ["evaluate", "--tokens", "t.txt", "--width", "7"], "not in the vocabulary"),
    ("replay-line-out-of-range", ["replay", "--tokens", "t.txt", "--line", "99"], "out of range"),
    ("replay-gif-over-file", ["replay", "--tokens", "t.txt", "--gif", "existing.txt"], "already exists"),
    ("replay-html-into-corpus", ["replay", "--corpus", "corpus", "--html", "corpus/page.html"], "is the input"),
    ("analyze-out-under-a-file", ["analyze", "--ckpt", "ckpt/last.ckpt", "--corpus", "corpus", "--out", "existing.txt/an"], "is a file"),
    ("battlesnake-too-many-snakes", ["generate", "--game", "battlesnake", "--num-snakes", "9", "--out", "c"], "num_snakes"),
    ("option-of-another-game", ["generate", "--num-snakes", "2", "--out", "c"], "not an option of the game snake"),
    (
        "analyze-other-board",
        ["analyze", "--ckpt", "ckpt/last.ckpt", "--corpus", "corpus7", "--out", "an"],
        "height is 10 in the model, 7 in the corpus",
    ),
]


def _snapshot(root: Path) -> dict[str, str]:
    """Every file under root with its hash (directories by name), to see that nothing changed or appeared."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if "__pycache__" in rel or rel.startswith("wandb"):
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return out


def test_the_table_is_long_enough():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.slow
def test_every_bad_invocation_is_one_line_and_changes_nothing(workspace, forked_clis):
    servers, scratch = forked_clis
    before = _snapshot(workspace)
    with ThreadPoolExecutor(len(servers)) as pool:
        runs = [pool.submit(servers[i % len(servers)].run, case[1], workspace, scratch) for i, case in enumerate(CASES)]
        results = [run.result(timeout=300) for run in runs]
    failures = []
    for (name, argv, message), result in zip(CASES, results):
        lines = result.stderr.strip().splitlines()
        problems = []
        if result.returncode == 0:
            problems.append("exit 0")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr")
        if "Traceback" in result.stderr:
            problems.append("a traceback")
        if message not in result.stderr:
            problems.append(f"no {message!r}")
        if problems:
            failures.append(f"{name} ({' '.join(argv)}): {', '.join(problems)}: {result.stderr.strip()[-400:]!r}")
    after = _snapshot(workspace)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not failures, "\n".join(failures)
    assert not changed, f"files changed, removed or left behind: {changed[:10]}"


def test_output_piped_to_a_closed_reader_ends_quietly(workspace):
    script = f"{sys.executable} -m gamegrammar.cli corpus export corpus | head -c 10 > /dev/null"
    result = subprocess.run(["bash", "-c", script], cwd=workspace, capture_output=True, text=True)
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
