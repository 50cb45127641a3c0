"""Every `gamegrammar` command the docs show works as written.

The README's pipeline runs, at small sizes (the last test below). The docs' other commands are experiments of minutes
to hours, so they are parsed, not run: a command in a code block must parse whole (its subcommand, its flags, their values); one named
inline in the prose (often a fragment such as `gamegrammar export`) must name a real subcommand and real flags.
A renamed flag or subcommand fails here instead of in a reader's terminal. `train` lines hand their flags to the
Lightning CLI: each of their --flags must appear in `train fit --help`. `make` targets named anywhere must exist.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from gamegrammar.cli import build_parser, main
from gamegrammar.core.errors import GameGrammarError

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", ROOT / "configs" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS += sorted((ROOT / "models").glob("*/README.md"))
COMMAND = re.compile(r"(?:^|[\s(])(?:\.venv/bin/)?gamegrammar ([^`\n]+)")


def _first_command(text: str) -> list[str]:
    """The words of a command up to the first pipe, `&&` or `;`, placeholders kept as words."""
    return shlex.split(re.split(r"\s(?:&&|\|\|?|;)\s", text)[0])


def _code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block, in order."""
    blocks, language, body = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if language is None:
                language, body = line[3:].strip(), []
            else:
                blocks.append((language, "\n".join(body)))
                language = None
        elif language is not None:
            body.append(line)
    return blocks


def _block_lines(text: str, languages: tuple[str, ...] = ("bash", "sh", "console", "")) -> list[str]:
    """The lines of the shell code blocks, continuations joined, comments and prompts dropped."""
    out = []
    for language, block in _code_blocks(text):
        if language in languages:
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #", 1)[0].strip().removeprefix("$ ")
                if line and not line.startswith("#"):
                    out.append(line)
    return out


def _block_commands(text: str) -> list[str]:
    return [m.group(1) for line in _block_lines(text) if (m := COMMAND.search(line)) and not line.startswith(("python", "pip"))]


def _inline_commands(text: str) -> list[str]:
    return [m.group(1) for code in re.findall(r"`([^`\n]+)`", text) if (m := COMMAND.search(code))]


def _cases(kind) -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), cmd) for path in DOCS for cmd in kind(path.read_text())]


BLOCKS, INLINE = _cases(_block_commands), _cases(_inline_commands)


def _subparser(argv: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The innermost (sub)command parser that argv names, and the words after its name."""
    parser = build_parser(argv)
    words = list(argv)
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not words or words[0] not in subs[0].choices:
            return parser, words
        parser, words = subs[0].choices[words[0]], words[1:]


def _train_help() -> str:
    import contextlib
    import io

    from gamegrammar.commands.train import main as train_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        train_main(["fit", "--help"])
    return out.getvalue()


def test_the_docs_show_commands():
    assert len(BLOCKS) >= 20 and len(INLINE) >= 40


@pytest.mark.parametrize(("doc", "command"), [c for c in BLOCKS if not c[1].startswith("train")], ids=str)
def test_a_command_in_a_code_block_parses_whole(doc, command):
    argv = _first_command(command)
    try:
        _, unknown = build_parser(argv).parse_known_args(argv)
    except GameGrammarError as e:
        pytest.fail(f"{doc}: `gamegrammar {command}`: {e}")
    assert not unknown, f"{doc}: `gamegrammar {command}`: unknown {unknown}"


@pytest.mark.parametrize(("doc", "command"), [c for c in INLINE if not c[1].startswith("train")], ids=str)
def test_a_command_named_in_the_prose_names_real_flags(doc, command):
    argv = _first_command(command)
    parser, words = _subparser(argv)
    assert parser.prog != "gamegrammar" or argv[0].startswith("-") or argv[0] in {"<command>"}, f"{doc}: no subcommand {argv[0]!r}"
    known = {s for action in parser._actions for s in action.option_strings}
    flags = {w.split("=", 1)[0] for w in words if w.startswith("--")}
    assert flags <= known, f"{doc}: `gamegrammar {command}`: {sorted(flags - known)} not options of `{parser.prog}`"


def test_the_train_commands_name_real_flags():
    text = _train_help()
    known = set(re.findall(r"(--[\w.]+)", text))
    bad = []
    for doc, command in BLOCKS + INLINE:
        if command.startswith("train"):
            argv = _first_command(command)
            bad += [f"{doc}: {w}" for w in argv if w.startswith("--") and w.split("=", 1)[0] not in known]
            config = argv[argv.index("--config") + 1] if "--config" in argv else None
            if config and not config.startswith("<") and not (ROOT / config).is_file():  # <...>: a placeholder
                bad.append(f"{doc}: no config {config}")
    assert not bad, bad


def test_every_make_target_named_exists():
    """`make -n` resolves explicit and pattern targets alike (reproduce-gg-cpu-long-mix-%) and runs nothing."""
    named = {m for path in DOCS for m in re.findall(r"`make ([\w-]+)", path.read_text())}
    named |= {w.split()[1] for path in DOCS for w in _block_lines(path.read_text()) if w.startswith("make ")}
    missing = [t for t in sorted(named) if subprocess.run(["make", "-n", t], cwd=ROOT, capture_output=True).returncode]
    assert len(named) >= 10 and not missing, missing


def _resolves(dotted: str) -> bool:
    """Whether `gamegrammar.a.b.c` names a module, or an attribute of the longest module prefix."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_every_python_name_the_docs_give_exists():
    """`gamegrammar.training.checkpoint.load_checkpoint` and the like: a module moved or a function renamed fails here."""
    names = {m.rstrip(".") for path in DOCS for m in re.findall(r"\bgamegrammar(?:\.[A-Za-z_]\w*)+", path.read_text())}
    missing = sorted(n for n in names if not _resolves(n))
    assert len(names) >= 5 and not missing, missing


# ---------------------------------------------------------------- the README's pipeline, run at small sizes

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
    lines = [line for line in _block_lines(README, ("bash",)) if line.split()[0] in ("gamegrammar", "rm")]
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
    (snippet,) = [block for language, block in _code_blocks(README) if language == "python"]
    snippet = snippet.replace(RUN_DIR, str(run_dir)).replace("range(1000)", "range(20)")
    exec(compile(snippet, "README.md", "exec"), {})
