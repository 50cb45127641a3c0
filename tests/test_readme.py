"""The README's commands run as written, at small sizes.

Every `gamegrammar ...` line of the README's bash blocks (and its `rm -rf`) runs in order, in a fresh folder standing
in for `runs/demo`, with the sizes shrunk (episodes, steps, samples, games) and nothing else changed; then its Python
snippet runs on the checkpoint they wrote. A command renamed, a flag dropped or a path that the pipeline no longer
writes fails here, not in a newcomer's terminal. `make ...` and `pip ...` lines are the set-up's, run by CI itself.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from gamegrammar.cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
RUN_DIR = "runs/demo"

# flag -> the small value it takes here (the README's own values are the real run's)
SMALL = {"--episodes": "300", "--num": "3", "--games": "3", "--workers": "1", "--limit": "2"}
# what each command adds to run small: training steps and windows, sampled lengths, the loop's sizes
TRAIN_SMALL = ["--trainer.max_steps", "2", "--trainer.val_check_interval", "1", "--trainer.limit_val_batches", "1"]
EXTRA = {
    "train": [*TRAIN_SMALL, "--data.batch_size", "2", "--data.block_size", "96", "--trainer.enable_progress_bar", "false"],
    "sample": ["--max-length", "96"],
    "evaluate": ["--max-length", "96", "--teacher-episodes", "2"],
    "dream": ["--max-ticks", "6"],
}


def commands(text: str, fence: str = "bash") -> list[str]:
    """The command lines of the ```fence blocks, continuations joined, comments dropped."""
    out = []
    for block in re.findall(rf"```{fence}\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def small(argv: list[str], run_dir: Path) -> list[str]:
    """One README command at small sizes, in `run_dir` instead of runs/demo. The shipped 14M-parameter model writes a
    whole game in minutes on a busy 2-core CPU: its commands read the run's own small model instead (tests/test_models.py
    reads the shipped ones)."""
    argv = [a.replace(RUN_DIR, str(run_dir)).replace("models/snake", str(run_dir / "model")) for a in argv]
    argv = [SMALL.get(argv[i - 1], a) if i else a for i, a in enumerate(argv)]
    return argv + EXTRA.get(argv[0], [])


def small_ouroboros(argv: list[str], tmp: Path) -> list[str]:
    """The loop's README command with its config made small: one generation of a few games and steps."""
    config = yaml.safe_load((ROOT / argv[argv.index("--config") + 1]).read_text())
    config["play"] |= {"games": 4, "batch_size": 4}
    config["measure"] |= {"samples": 2, "batch_size": 2, "baselines": []}
    config["finetune"] |= {"max_steps": 2, "args": ["--trainer.val_check_interval", "1", "--trainer.limit_val_batches", "1"]}
    path = tmp / "ouroboros.yaml"
    path.write_text(yaml.safe_dump(config))
    argv[argv.index("--config") + 1] = str(path)
    return [*argv, "--generations", "1"]


@pytest.mark.slow
def test_the_readme_pipeline_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # its paths (configs/, models/) are the repository's
    run_dir = tmp_path / "demo"
    lines = [line for line in commands(README) if line.split()[0] in ("gamegrammar", "rm")]
    assert sum(line.startswith("gamegrammar ") for line in lines) >= 15, "the README's pipeline block is gone"
    ran = []
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "rm":
            shutil.rmtree(Path(argv[-1].replace(RUN_DIR, str(run_dir))), ignore_errors=True)
            continue
        argv = small(argv[1:], run_dir)
        if argv[0] == "ouroboros":
            argv = small_ouroboros(argv, tmp_path)
        assert main(argv) == 0, line
        ran.append(argv[0])
    assert {"games", "generate", "corpus", "train", "export", "sample", "evaluate", "replay", "play", "dream", "ouroboros"} <= set(ran)
    assert (run_dir / "train" / "checkpoints" / "last.ckpt").is_file() and (run_dir / "report" / "report.json").is_file()

    # the Python snippet, on the checkpoint the commands wrote
    (snippet,) = re.findall(r"```python\n(.*?)```", README, re.S)
    snippet = snippet.replace(RUN_DIR, str(run_dir)).replace("range(1000)", "range(20)")
    exec(compile(snippet, "README.md", "exec"), {})
