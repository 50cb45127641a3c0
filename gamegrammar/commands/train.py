"""gamegrammar train fit|validate ...: the Lightning CLI over GameGPTModule and CorpusDataModule.

    gamegrammar train fit --config configs/gg31k.yaml --data.path data/corpus
    gamegrammar train fit --config configs/gg31k.yaml --ckpt_path last     # resume after a crash
    gamegrammar train fit --config configs/gg31k.yaml --print_config

Everything LightningCLI offers works; on top of it:
- `--run_dir DIR` moves a whole run (default_root_dir, every logger's save_dir and
  every ModelCheckpoint's dirpath/checkpoints) to DIR.
- wandb runs offline unless the config says `offline: false` or WANDB_MODE is set.
- vocab_size and tick_id (the game's tick token) are linked from the corpus (data.*) into the model.
- a fresh `fit` refuses a checkpoint folder that already holds checkpoints (resume with
  `--ckpt_path last` or choose another `--run_dir`), so last.ckpt is always this run's.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jsonargparse import ArgumentError
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch.cli import LightningCLI

from gamegrammar.errors import GameGrammarError
from gamegrammar.training import CorpusDataModule, GameGPTModule


def _init_args(entry: Any) -> Any:
    """The init_args namespace of a class_path entry in a parsed config (None for anything else)."""
    return getattr(entry, "init_args", None) if hasattr(entry, "class_path") else None


def _as_list(value: Any) -> list[Any]:
    if value is None or isinstance(value, bool):
        return []
    return list(value) if isinstance(value, list) else [value]


SUBCOMMANDS = ("fit", "validate")  # a corpus has train and val splits only, and sampling is `gamegrammar sample`


class GameGrammarCLI(LightningCLI):
    @staticmethod
    def subcommands() -> dict[str, set[str]]:
        return {k: v for k, v in LightningCLI.subcommands().items() if k in SUBCOMMANDS}

    def add_arguments_to_parser(self, parser: Any) -> None:
        parser.link_arguments("data.vocab_size", "model.vocab_size", apply_on="instantiate")
        parser.link_arguments("data.tick_id", "model.tick_id", apply_on="instantiate")
        parser.add_argument("--run_dir", type=str | None, default=None, help="put this run's logs and checkpoints in DIR")

    def before_instantiate_classes(self) -> None:
        config = self.config[self.subcommand] if self.subcommand else self.config
        trainer = config.trainer
        loggers = [_init_args(e) for e in _as_list(trainer.logger)]
        checkpoints = [_init_args(e) for e in _as_list(trainer.callbacks) if str(getattr(e, "class_path", "")).endswith(".ModelCheckpoint")]
        run_dir = config.get("run_dir")
        if run_dir:
            trainer.default_root_dir = run_dir
            for args in loggers:
                if args is not None and "save_dir" in args:
                    args.save_dir = run_dir
            for args in checkpoints:
                if args is not None:
                    args.dirpath = str(Path(run_dir) / "checkpoints")
        dirpaths = [args.dirpath for args in checkpoints if args is not None and args.dirpath]
        ckpt_path = config.get("ckpt_path")
        if self.subcommand == "fit" and ckpt_path is None:
            _refuse_stale_checkpoints(dirpaths)
        elif ckpt_path is not None:
            _check_resume(ckpt_path, dirpaths)
        if "WANDB_MODE" not in os.environ:  # an explicit WANDB_MODE always wins
            wandb_offline = [
                args.offline
                for e, args in zip(_as_list(trainer.logger), loggers)
                if args is not None and str(e.class_path).endswith("WandbLogger")
            ]
            if all(wandb_offline):
                os.environ["WANDB_MODE"] = "offline"


def _ckpt_path_of(argv: Sequence[str]) -> str | None:
    """The value of --ckpt_path on a command line, if given there."""
    for i, arg in enumerate(argv):
        if arg == "--ckpt_path" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--ckpt_path="):
            return arg.split("=", 1)[1]
    return None


def _check_resume(ckpt_path: str, dirpaths: list[str]) -> None:
    """Read the checkpoint a run resumes from with our own reader first, so a bad one is refused in one line.

    "last" is Lightning's name for the run's last.ckpt (nothing to check when there is none yet).
    """
    from gamegrammar.checkpoint import read_checkpoint

    if ckpt_path in ("best", "hpc", "registry"):
        return
    if ckpt_path == "last":
        for dirpath in dirpaths:
            last = Path(dirpath) / "last.ckpt"
            if last.exists():
                read_checkpoint(last)
        return
    read_checkpoint(ckpt_path)


def _refuse_stale_checkpoints(dirpaths: list[str]) -> None:
    """A fresh fit must not share a checkpoint folder with an earlier run.

    Lightning would write last-v1.ckpt beside the old last.ckpt, and whatever reads
    last.ckpt afterwards (evaluate, export, a resume) would get the earlier model.
    """
    for dirpath in dict.fromkeys(dirpaths):
        found = sorted(p.name for p in Path(dirpath).glob("*.ckpt"))
        if found:
            raise GameGrammarError(
                f"{dirpath} already holds checkpoints of an earlier run ({', '.join(found[:3])}{', ...' if len(found) > 3 else ''}): "
                "resume it with --ckpt_path last, or train afresh with another --run_dir (or delete that folder)"
            )


def _no_cloud_tips(record: logging.LogRecord) -> bool:
    """Drop Lightning's tips that advertise its cloud services: runs here log offline, and the tip says nothing of the run."""
    return "Tip: For seamless cloud logging" not in record.getMessage()


def main(argv: Sequence[str]) -> int:
    """Run the Lightning CLI on argv; GameGrammarErrors propagate to the one-line handler in cli.py."""
    # We pass argv on purpose (it is sys.argv minus "train"); Lightning warns when both are set.
    warnings.filterwarnings("ignore", message="LightningCLI's args parameter is intended")
    # Lightning's own loop builds torch's LeafSpec, which recent torch (2.13 here) marks deprecated: a FutureWarning on every fit
    # that says nothing of the run and that no setting here can avoid (Lightning 2.6.6 still does it).
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated", category=FutureWarning)
    logging.getLogger("lightning.fabric.utilities.seed").setLevel(logging.WARNING)  # the seed is in the saved config
    logging.getLogger("lightning.pytorch.utilities.rank_zero").addFilter(_no_cloud_tips)
    given = _ckpt_path_of(argv)
    if given is not None:  # LightningCLI reads the checkpoint's hparams while parsing: refuse a bad file before that
        _check_resume(given, [])
    try:
        GameGrammarCLI(
            GameGPTModule,
            CorpusDataModule,
            args=list(argv),
            save_config_kwargs={"overwrite": True},
            # Bad values raise instead of printing the whole usage: they reach cli.py's one-line handler.
            parser_kwargs={"prog": "gamegrammar train", "exit_on_error": False, **{sub: {"exit_on_error": False} for sub in SUBCOMMANDS}},
        )
    except GameGrammarError:
        raise
    except ArgumentError as err:
        raise GameGrammarError(" ".join(str(err).split())) from None
    except Exception as err:
        # jsonargparse may wrap errors raised while instantiating classes; unwrap ours.
        cause = _our_cause(err)
        if cause is not None:
            raise cause from None
        if isinstance(err, MisconfigurationException):  # Lightning's word for a bad value, such as a max_time it cannot read
            raise GameGrammarError(f"trainer setting: {err}") from None
        raise
    return 0


def _our_cause(err: BaseException) -> GameGrammarError | None:
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, GameGrammarError):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None
