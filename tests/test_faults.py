"""Fault injection through the real CLI: every bad invocation is one clear line on stderr, and destroys nothing.

Each case runs `python -m gamegrammar.cli ...` as a process of its own (forked from one that imported the CLI once:
tests/conftest.py's ForkedCli) inside a workspace holding a corpus, a
checkpoint, token files and broken copies of them. For every case: a non-zero exit, exactly one line on
stderr naming the problem, no traceback, and no file of the workspace changed, removed or added.

Then the faults that are not a bad argument: a full disk (a cap on the size of any file the command writes), files
damaged between a killed run and its rerun, and signals: a command ended by SIGINT exits 130, by SIGTERM 143, quietly,
leaving what its rerun resumes from.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
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


def _replace_index(make):
    """An edit that saves `make(the index)` over shard 0's index (pickled if it is an array of objects)."""

    def edit(path: Path) -> None:
        index = path / "shards" / "00000.index.npy"
        array = make(np.load(index))
        np.save(index, array, allow_pickle=array.dtype == object)

    return edit


def _pickled(index: np.ndarray) -> np.ndarray:
    return np.array([dict(zip(index.dtype.names, row)) for row in index.tolist()], dtype=object)


def _killed_before_the_manifest(path: Path) -> None:
    (path / "manifest.json").unlink()


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
    _corrupt(w / "corpus", w / "float_index", _replace_index(lambda index: index["length"].astype(np.float64)))
    _corrupt(w / "corpus", w / "flat_index", _replace_index(lambda index: index[:, None]))
    _corrupt(w / "corpus", w / "pickled_index", _replace_index(_pickled))

    def damaged_plan(path: Path) -> None:  # a killed generate whose generate.json was cut short since
        _killed_before_the_manifest(path)
        (path / "generate.json").write_text((path / "generate.json").read_text()[:50])

    _corrupt(w / "corpus", w / "damaged_plan", damaged_plan)
    from gamegrammar.data.corpus import Part

    for i in range(2):  # the two parts of a corpus, as two machines write them
        generate(CorpusSpec(game=SnakeConfig(5, 5, 30), episodes=20, seed=4, shard_episodes=5), w / f"p{i}", part=Part(i, 2))
    (w / "ouroboros.yaml").write_text("checkpoint: ckpt/last.ckpt\ncorpus: corpus\nout: corpus\ngenerations: 1\n")
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
    ("index-wrong-dtype", ["corpus", "stats", "float_index"], "holds a float64 array of shape (50,), not index records"),
    ("index-wrong-shape", ["corpus", "export", "flat_index"], "of shape (50, 1), not index records"),
    ("index-pickled", ["corpus", "stats", "pickled_index"], "is unreadable: Object arrays cannot be loaded"),
    # a killed run whose files were damaged before the rerun
    (
        "generate-resume-damaged-plan",
        ["generate", "--episodes", "120", "--seed", "11", "--shard-episodes", "50", "--out", "damaged_plan"],
        "damaged_plan/generate.json is damaged (not valid JSON)",
    ),
    # outputs inside inputs
    ("merge-into-a-part", ["corpus", "merge", "p0/merged", "p0", "p1"], "OUT p0/merged overlaps the input p0"),
    ("ouroboros-out-is-its-corpus", ["ouroboros", "--config", "ouroboros.yaml"], "out corpus overlaps the input corpus"),
    ("ouroboros-out-in-its-corpus", ["ouroboros", "--config", "ouroboros.yaml", "--out", "corpus/gens"], "overlaps the input corpus"),
    # outputs that cannot be written, found before the work
    ("sample-out-unwritable", [*SAMPLE[:-1], "/proc/nodir/x.txt"], "/proc is not writable"),
    # training inputs
    ("train-negative-lr", [*TRAIN, "--model.lr", "-1"], "lr must be a positive number"),
    ("train-zero-batch", [*TRAIN, "--data.batch_size", "0"], "batch_size must be at least 1"),
    ("train-negative-workers", [*TRAIN, "--data.num_workers", "-1"], "--data.num_workers must be at least 0"),
    ("train-missing-corpus", [*TRAIN[:5], "nowhere", *TRAIN[6:]], "does not exist"),
    # found before Lightning starts, so that the error is the one line printed
    ("train-block-size-beyond-model", [*TRAIN, "--data.block_size", "100000"], "longer than the model's position table (64"),
    ("train-keyframe-windows-without-keyframes", [*TRAIN, "--data.windows", "keyframe"], "has no keyframe after the first"),
    ("resume-other-shape", [*TRAIN, "--ckpt_path", "ckpt/last.ckpt"], "the checkpoint's model differs from the configured one"),
    (
        "resume-other-vocabulary",
        [*TRAIN[:5], "corpus7", *TRAIN[6:], "--model.n_layer", "1", "--ckpt_path", "ckpt/last.ckpt"],
        "has a different vocabulary from the checkpoint's",
    ),
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


def _one_line(result: subprocess.CompletedProcess, code: int, line: str) -> None:
    """The run ended with `code`, and its stderr's last line is `line`, its only error, with no traceback."""
    err = result.stderr
    assert result.returncode == code, err[-2000:]
    assert "Traceback" not in err and "Logging error" not in err and "leaked" not in err, err[-2000:]
    assert err.strip().splitlines()[-1] == line, err[-2000:]
    assert sum("error" in lowered for lowered in err.lower().splitlines()) == (1 if code == 2 else 0), err[-2000:]


def _wait_for(path: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.02)


def test_a_killed_generate_whose_finished_shard_was_damaged_since_reruns_to_the_same_bytes(tiny_corpus, tmp_path, forked_clis):
    """A shard index replaced by a pickled array (never unpickled) is a shard to write again, not a traceback."""
    servers, scratch = forked_clis
    out = tmp_path / "corpus"
    _corrupt(tiny_corpus, out, lambda p: (_killed_before_the_manifest(p), _replace_index(_pickled)(p)))
    argv = ["generate", "--episodes", "120", "--seed", "11", "--shard-episodes", "50", "--out", str(out), "--quiet"]
    result = servers[0].run(argv, tmp_path, scratch)
    assert result.returncode == 0 and not result.stderr, result.stderr
    assert _snapshot(out) == _snapshot(tiny_corpus)


@pytest.mark.slow
def test_sigterm_during_generate_with_workers_exits_143_quietly_and_the_rerun_is_byte_identical(tmp_path, forked_clis):
    """The workers end with the command (no orphan writes on, no tracebacks, no leaked semaphores), and the rerun
    finishes the corpus one uninterrupted run writes."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.rules import SnakeConfig

    servers, scratch = forked_clis
    spec = ["--width", "5", "--height", "5", "--max-ticks", "40", "--episodes", "2000", "--shard-episodes", "50", "--seed", "5"]
    argv = ["generate", *spec, "--workers", "2", "--engine", "scalar", "--out", "c", "--quiet"]
    run = servers[0].start(argv, tmp_path, scratch)
    _wait_for(tmp_path / "c" / "shards" / "00000.tokens")
    os.kill(run.pid, signal.SIGTERM)
    _one_line(run.wait(), 143, "gamegrammar: terminated")
    left = _snapshot(tmp_path / "c")
    time.sleep(1)
    assert _snapshot(tmp_path / "c") == left, "files were written after the command ended"
    assert not (tmp_path / "c" / "manifest.json").exists() and len(left) < 2 * 40, "it had finished before the signal"
    result = servers[0].run(argv, tmp_path, scratch)
    assert result.returncode == 0, result.stderr
    generate(CorpusSpec(game=SnakeConfig(5, 5, 40), episodes=2000, shard_episodes=50, seed=5), tmp_path / "reference")
    assert _snapshot(tmp_path / "c") == _snapshot(tmp_path / "reference")


@pytest.mark.slow
@pytest.mark.parametrize("name, code, line", [("SIGTERM", 143, "gamegrammar: terminated"), ("SIGINT", 130, "gamegrammar: interrupted")])
def test_a_signal_during_train_exits_with_its_code_and_the_run_resumes(tiny_run, tmp_path, forked_clis, name, code, line):
    """Not exit 0 (Lightning's SIGTERM exit, or its exit 1 after Ctrl-C), so that a script does not go on to evaluate a
    half-trained model; and last.ckpt resumes."""
    import torch

    corpus, config, _ = tiny_run
    servers, scratch = forked_clis
    argv = ["train", "fit", "--config", str(config), "--data.path", str(corpus), "--run_dir", "run"]
    run = servers[0].start([*argv, "--trainer.max_steps", "100000"], tmp_path, scratch)
    last = tmp_path / "run" / "checkpoints" / "last.ckpt"
    _wait_for(last)  # written every 2 steps: the signal may come while the next one is being saved
    os.kill(run.pid, getattr(signal, name))
    _one_line(run.wait(), code, line)
    step = torch.load(last, weights_only=True)["global_step"]
    assert step >= 2
    result = servers[0].run([*argv, "--ckpt_path", "last", "--trainer.max_steps", str(step + 2)], tmp_path, scratch)
    assert result.returncode == 0, result.stderr[-2000:]
    assert torch.load(last, weights_only=True)["global_step"] == step + 2


def _capped(size: int):
    """A preexec_fn that caps every file the process writes at `size` bytes: a write past it fails (EFBIG), as on a
    full disk, instead of killing the process (SIGXFSZ ignored)."""
    import resource

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return cap


@pytest.mark.slow
def test_a_full_disk_during_train_is_one_line_and_wandbs_log_files_print_nothing_after_it(workspace, tmp_path):
    """Every file capped at 4 KiB: the checkpoint cannot be written, nor wandb's own log files, which printed ~60 lines
    of "Logging error" tracebacks after the error as the process exited (a process of its own: a forked CLI ends with
    os._exit, without the exit handlers where wandb writes them)."""
    env = {**os.environ, "WANDB_MODE": "offline", "WANDB_SILENT": "true", "PYTHONWARNINGS": "ignore"}
    argv = [*TRAIN[:-1], str(tmp_path / "run"), "--trainer.max_steps", "2", "--model.n_layer", "1"]
    command = [sys.executable, "-m", "gamegrammar.cli", *argv]
    result = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True, preexec_fn=_capped(4096), timeout=300)
    _one_line(result, 2, "gamegrammar: error: File too large")


def test_a_file_that_cannot_be_written_whole_under_play_corpus_out_is_named(workspace, tmp_path, forked_clis):
    """Every file capped at 8 KiB: tokenizer.json (5.6 KiB) is written, the index of 320 games (8.8 KiB) stops short in
    NumPy's writer, which says only "N requested and M written" (on a full disk: "No space left on device (...)",
    tests/core/test_io.py)."""
    servers, scratch = forked_clis
    out = tmp_path / "games"
    argv = ["play", "--ckpt", "ckpt/last.ckpt", "--games", "320", "--agents", "model", "--corpus-out", str(out), "--quiet"]
    result = servers[0].run(argv, workspace, scratch, fsize=8192)
    line = result.stderr.strip().splitlines()[-1]
    _one_line(result, 2, line)
    assert line.startswith(f"gamegrammar: error: {out}/shards/00000.index.npy: the write stopped short (320 requested and "), line
    assert not (out / "manifest.json").exists()
