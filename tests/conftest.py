"""Shared fixtures: tests never reach the network and build their own tiny corpora."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")
if "PYTEST_XDIST_WORKER_COUNT" in os.environ:  # `make test` runs a worker per core: each takes its share of them
    _threads = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    os.environ.setdefault("OMP_NUM_THREADS", str(_threads))
    os.environ.setdefault("MKL_NUM_THREADS", str(_threads))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: one of the longest tests; runs first, so that parallel workers end together")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def _sigint_kept():
    """Each test leaves Ctrl-C's handler as it found it. Lightning's DDP teardown, run in a test's process, leaves SIGINT
    ignored; a process started afterwards inherits that, and a test's Ctrl-C to it was lost (1 run in 4, by which
    worker ran the DDP test first)."""
    handler = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, handler)


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test: a tiny model's steps are microseconds of work, and more threads only wait on each
    other (much longer on a busy machine). Modules of such tests use it with `pytest.mark.usefixtures`."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


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


# One process that has imported the CLI and its heavy dependencies (torch, Lightning, jsonargparse) once, then forks a
# child per command: the child is a process of its own (its own exit code, stderr, environment and signals) that skips
# the seconds of imports. It never runs a torch op itself, so forking it is safe. The server answers each job with the
# child's pid, then its exit code. A job's "fsize" caps the size of any file the child writes (RLIMIT_FSIZE; a write
# past it fails with EFBIG, as on a full disk).
_FORK_SERVER = r"""
import json, os, resource, signal, sys, traceback
import torch, lightning.pytorch, jsonargparse
import wandb  # what `train fit`'s parser imports (its loggers' annotations): a second per train command otherwise
import gamegrammar.cli, gamegrammar.games.snake
from gamegrammar.cli import COMMANDS, PASSTHROUGH
import importlib
for name in [*COMMANDS, *PASSTHROUGH]:
    importlib.import_module(f"gamegrammar.commands.{name}")
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # as a shell's foreground command: Ctrl-C interrupts
            if job.get("fsize"):
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap then fails instead of killing
                resource.setrlimit(resource.RLIMIT_FSIZE, (job["fsize"], job["fsize"]))
            os.chdir(job["cwd"])
            os.environ.clear()
            os.environ.update(job["env"])
            for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(out, fd)
                os.close(out)
            sys.argv = ["gamegrammar", *job["argv"]]
            code = gamegrammar.cli.main(job["argv"])
        except SystemExit as e:
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code or 0)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


class ForkedRun:
    """A command running in a child of a fork server: its `pid` (to signal it), and `wait()` for its result."""

    def __init__(self, cli: ForkedCli, argv: list[str], pid: int, out: Path, err: Path) -> None:
        self.cli, self.argv, self.pid, self.out, self.err = cli, argv, pid, out, err

    def wait(self) -> subprocess.CompletedProcess:
        try:
            code = int(self.cli.server.stdout.readline())
        finally:
            self.cli.lock.release()
        result = subprocess.CompletedProcess(self.argv, code, self.out.read_text(), self.err.read_text())
        self.out.unlink()
        self.err.unlink()
        return result


class ForkedCli:
    """Runs `python -m gamegrammar.cli ARGV` as a child of the fork server; one command at a time."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.lock = threading.Lock()
        self._server: subprocess.Popen | None = None

    @property
    def server(self) -> subprocess.Popen:
        """Started on first use: its imports take seconds, and a test run may need none."""
        if self._server is None:
            self._server = subprocess.Popen(
                [sys.executable, "-c", _FORK_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=self.env
            )
            assert self._server.stdout.readline().strip() == "ready"
        return self._server

    def start(self, argv: list[str], cwd: Path, scratch: Path, fsize: int | None = None) -> ForkedRun:
        """Start a command (the server is this run's until its `wait()`); `fsize`: the cap on any file it writes."""
        out, err = (scratch / f"{uuid.uuid4().hex}.{name}" for name in ("out", "err"))
        job = {"argv": argv, "cwd": str(cwd), "env": self.env, "stdout": str(out), "stderr": str(err), "fsize": fsize}
        self.lock.acquire()
        try:
            self.server.stdin.write(json.dumps(job) + "\n")
            self.server.stdin.flush()
            pid = int(self.server.stdout.readline())
        except BaseException:
            self.lock.release()
            raise
        return ForkedRun(self, argv, pid, out, err)

    def run(self, argv: list[str], cwd: Path, scratch: Path, fsize: int | None = None) -> subprocess.CompletedProcess:
        return self.start(argv, cwd, scratch, fsize).wait()

    def close(self) -> None:
        if self._server is not None:
            self._server.stdin.close()
            self._server.wait(timeout=60)


@pytest.fixture(scope="module")
def forked_clis(tmp_path_factory):
    """A ForkedCli server (warnings off, wandb offline), in a list, and a scratch folder for its output. One: a second
    server's imports cost more CPU than its parallelism wins on a machine whose cores the other test workers keep busy."""
    env = {**os.environ, "WANDB_MODE": "offline", "WANDB_SILENT": "true", "PYTHONWARNINGS": "ignore"}
    servers = [ForkedCli(env)]
    yield servers, tmp_path_factory.mktemp("cli_output")
    for server in servers:
        server.close()
