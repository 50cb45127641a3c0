"""The `gamegrammar` command: one subcommand per module in gamegrammar.commands.

Every user mistake surfaces as a GameGrammarError and is printed as one line. A command ended by a signal exits with
the shell's code for it, 130 (SIGINT, Ctrl-C) or 143 (SIGTERM), after leaving resumable state.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from gamegrammar import __version__
from gamegrammar.core.errors import GameGrammarError, Terminated

EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM  # 130 and 143, as a shell reports them

# Each module defines `register(subparsers)`, which adds its parser and sets `run=`.
COMMANDS = ["games", "generate", "corpus", "sample", "evaluate", "export", "replay", "analyze", "dream", "play", "ouroboros", "gtp"]
# These hand the rest of the command line to another parser (LightningCLI).
PASSTHROUGH = {"train": "train GameGPT with the Lightning CLI (fit, validate, ...; --help for its options)"}


class OneLineParser(argparse.ArgumentParser):
    """A parser whose usage mistakes reach `run_guarded`'s one-line handler instead of printing the whole usage.

    The benchmarks and scripts use it too, so a mistake on their command lines reads as one on the CLI's.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("gamegrammar ") if self.prog.startswith("gamegrammar ") else ""  # a subcommand ("export")
        raise GameGrammarError(f"{command + ': ' if command else ''}{message} (see `{self.prog} --help`)")


def _innermost_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser the parsed arguments ended in."""
    while True:
        chosen = [
            action.choices[getattr(args, action.dest)]
            for action in parser._actions
            if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None) in action.choices
        ]
        if not chosen:
            return parser
        parser = chosen[0]


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The whole command line's parser; `argv`'s `--game NAME`, if any, is the game whose defaults the help lists first."""
    from gamegrammar.commands.game_args import game_on_command_line, show_game_first

    show_game_first(game_on_command_line(argv))  # read off argv before the parsers exist: their help is fixed once built
    parser = OneLineParser(prog="gamegrammar", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"gamegrammar {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"gamegrammar.commands.{name}").register(sub)
    for name, help_text in PASSTHROUGH.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)

    def run() -> int | None:
        if argv and argv[0] in PASSTHROUGH:
            return importlib.import_module(f"gamegrammar.commands.{argv[0]}").main(argv[1:])
        parser = build_parser(argv)
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # name the subcommand that does not know them, not the top-level parser
            _innermost_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
        return args.run(args)

    return run_guarded(run)


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """While the body runs, SIGTERM raises Terminated where this process is, as Ctrl-C raises KeyboardInterrupt, so
    that both unwind the same way: atomic writes abandoned, worker pools ended (no orphan writes on, nothing leaks),
    journals kept for the rerun. A handler that wraps this one stops the work itself at its next safe point (Lightning's,
    while it trains: the running step ends and last.ckpt is written). A process forked meanwhile (a data-loading
    worker) ends as SIGTERM ends it by default."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    owner = os.getpid()

    def terminate(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        elif signal.getsignal(signal.SIGTERM) is terminate:
            raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_guarded(entry: Callable[[], int | None], prog: str = "gamegrammar") -> int:
    """Run a command's body with a user's mistakes, the operating system's refusals, Ctrl-C and SIGTERM as one line
    each (exit 2, 130, 143).

    Anything else is a bug and keeps its traceback. The benchmarks and scripts run under it as the CLI does.
    """
    try:
        with sigterm_raises():
            return entry() or 0
    except GameGrammarError as err:
        return _fail(str(err), prog)
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly, as other Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as err:  # the one path for the operating system's refusals: one line, no traceback
        return _fail(os_error_message(err), prog)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_SIGINT
    except Terminated:
        print(f"{prog}: terminated", file=sys.stderr)
        return EXIT_SIGTERM
    except RuntimeError as err:
        torch = sys.modules.get("torch")  # imported by whichever command ran out of memory; not at start-up
        if torch is not None and isinstance(err, torch.OutOfMemoryError):
            return _fail(f"out of {'GPU' if 'CUDA' in str(err) else 'device'} memory: lower the batch size (--batch-size)", prog)
        raise


def os_error_message(err: OSError) -> str:
    """'<path>: <reason>' for an operating-system error (the reason alone when it names no file)."""
    reason = err.strerror or str(err) or type(err).__name__
    names = [str(n) for n in (err.filename, err.filename2) if n is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason


def _fail(message: str, prog: str = "gamegrammar") -> int:
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"{prog}: error: {first}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
