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
- every refusal comes before the Trainer exists (the model against the corpus and the checkpoint resumed),
  so it is the one line printed.
- SIGTERM stops at the end of the running step with last.ckpt written there (FinalLastCheckpoint) and exits 143,
  not Lightning's 0; Ctrl-C exits 130, not 1.
- what it prints is what a user reads: no model summary by default (the module's own line gives the
  parameters and the shape, and Lightning's table adds a FLOPs column of 0), "Epoch N" where a run
  bounded by max_steps alone would read "Epoch N/-2", no wandb warnings about settings nobody made,
  and a last line naming the checkpoints `fit` wrote.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jsonargparse import ArgumentError
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch.callbacks import ModelCheckpoint, RichProgressBar
from lightning.pytorch.cli import LightningCLI
from lightning.pytorch.utilities.exceptions import SIGTERMException

from gamegrammar.core.errors import GameGrammarError, Terminated
from gamegrammar.training.lightning import CorpusDataModule, GameGPTModule, check_before_fit


def _init_args(entry: Any) -> Any:
    """The init_args namespace of a class_path entry in a parsed config (None for anything else)."""
    return getattr(entry, "init_args", None) if hasattr(entry, "class_path") else None


def _as_list(value: Any) -> list[Any]:
    if value is None or isinstance(value, bool):
        return []
    return list(value) if isinstance(value, list) else [value]


SUBCOMMANDS = ("fit", "validate")  # a corpus has train and val splits only, and sampling is `gamegrammar sample`


class RunProgressBar(RichProgressBar):
    """Lightning's rich progress bar, reading "Epoch 3" where a run bounded by max_steps alone (max_epochs -1) would
    read "Epoch 3/-2"."""

    def _get_train_description(self, current_epoch: int) -> str:
        if self.trainer.max_epochs is None or self.trainer.max_epochs >= 0:
            return super()._get_train_description(current_epoch)
        return f"{f'Epoch {current_epoch}':{len(self.validation_description)}}"  # padded as Lightning pads it


def checkpoints_written(trainer: Any) -> str | None:
    """One line naming the checkpoints a fit wrote: last.ckpt and the best by the monitored metric."""
    paths: dict[str, str] = {}
    for cb in trainer.checkpoint_callbacks:
        if not isinstance(cb, ModelCheckpoint):
            continue
        if cb.last_model_path and Path(cb.last_model_path).exists():
            paths.setdefault(cb.last_model_path, "last")
        if cb.best_model_path and Path(cb.best_model_path).exists():
            score = f" {float(cb.best_model_score):.4f}" if cb.best_model_score is not None else ""
            paths.setdefault(cb.best_model_path, f"best {cb.monitor}{score}" if cb.monitor else "latest")
    return "checkpoints: " + ", ".join(f"{path} ({what})" for path, what in paths.items()) if paths else None


class GameGrammarCLI(LightningCLI):
    def __init__(self, *args: Any, trainer_defaults: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.resume: dict[str, Any] | None = None  # what the checkpoint a run resumes from says of its model and corpus
        # The module logs its parameters and shape; Lightning's summary table repeats them with a FLOPs column of 0
        # (it counts FLOPs only for a module with an example input). A config may still turn it on.
        super().__init__(*args, trainer_defaults={"enable_model_summary": False, **(trainer_defaults or {})}, **kwargs)

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
            self.resume = _check_resume(ckpt_path, dirpaths)
        if "WANDB_MODE" not in os.environ:  # an explicit WANDB_MODE always wins
            wandb_offline = [
                args.offline
                for e, args in zip(_as_list(trainer.logger), loggers)
                if args is not None and str(e.class_path).endswith("WandbLogger")
            ]
            if all(wandb_offline):
                os.environ["WANDB_MODE"] = "offline"

    def instantiate_trainer(self, **kwargs: Any) -> Any:
        check_before_fit(self.model, self.datamodule, self.resume)  # before the Trainer prints its first line
        return super().instantiate_trainer(**kwargs)

    def after_instantiate_classes(self) -> None:
        super().after_instantiate_classes()
        trainer = self.trainer
        # Lightning's default rich bar is swapped for one that does not print "Epoch 0/-2" (a bar the config names stays).
        trainer.callbacks = [RunProgressBar() if type(cb) is RichProgressBar else cb for cb in trainer.callbacks]
        for logger in trainer.loggers:
            wandb_init = getattr(logger, "_wandb_init", None)  # a WandbLogger's arguments of wandb.init, used at its first log
            if wandb_init is None:
                continue
            # Lightning (2.6) passes anonymous=None, which wandb (0.31) warns is a deprecated setting: leave it unset.
            if wandb_init.get("anonymous") is None:
                wandb_init.pop("anonymous", None)
            # wandb looks for the code's git commit from its directory, and warns when that does not exist yet.
            if logger.save_dir:
                Path(logger.save_dir).mkdir(parents=True, exist_ok=True)

    def after_fit(self) -> None:
        """End with the checkpoints written, after wandb's own closing lines (how to sync an offline run)."""
        if not self.trainer.is_global_zero:
            return
        wandb = sys.modules.get("wandb")  # imported by a WandbLogger's run, if one started
        if wandb is not None and getattr(wandb, "run", None) is not None:
            wandb.finish()
        line = checkpoints_written(self.trainer)
        if line:
            print(line)


def _ckpt_path_of(argv: Sequence[str]) -> str | None:
    """The value of --ckpt_path on a command line, if given there."""
    for i, arg in enumerate(argv):
        if arg == "--ckpt_path" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--ckpt_path="):
            return arg.split("=", 1)[1]
    return None


def _check_resume(ckpt_path: str, dirpaths: list[str]) -> dict[str, Any] | None:
    """Read the checkpoint a run resumes from with our own reader first, so a bad one is refused in one line; what
    it says of its model, corpus and optimizer (for GameGPTModule.check_resume), or None when there is none to read.

    "last" is Lightning's name for the run's last.ckpt (nothing to check when there is none yet).
    """
    from gamegrammar.training.checkpoint import CHECKPOINT_KEY, read_checkpoint

    if ckpt_path in ("best", "hpc", "registry"):
        return None
    paths = [Path(d) / "last.ckpt" for d in dict.fromkeys(dirpaths)] if ckpt_path == "last" else [Path(ckpt_path)]
    found = [read_checkpoint(path) for path in paths if ckpt_path != "last" or path.exists()]
    if not found:
        return None
    ckpt = found[0]
    return {
        CHECKPOINT_KEY: ckpt[CHECKPOINT_KEY],
        "hyper_parameters": ckpt.get("hyper_parameters", {}),
        "optimizer_states": bool(ckpt.get("optimizer_states")),
    }


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
    # A log file that cannot be written (wandb's, on a full disk) must not print a traceback per record after the
    # one-line error: logging's production setting drops such records quietly.
    logging.raiseExceptions = False
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
    except SIGTERMException:  # Lightning's stop after SIGTERM (a SystemExit of code 0): 143 as every command exits
        raise Terminated from None
    except SystemExit as err:
        if isinstance(err.__context__, KeyboardInterrupt):  # Lightning turns Ctrl-C into exit 1 after its teardown
            raise KeyboardInterrupt from None
        raise
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
