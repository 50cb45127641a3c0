"""The game and its config on the command line, for every command that needs one.

`--game NAME` picks a registered game (default: the registry's DEFAULT_GAME); every registered game's
config fields are flags (`--width`, `--max-ticks`, ...), default None so that a
corpus's config can be used and checked against them. Each flag's help is its config field's
(`metadata={"help": ...}`) with every game's own default, the chosen game's first: the CLI reads
`--game NAME` off the command line before it builds the parsers (`show_game_first`), so
`generate --game battlesnake --help` leads with Battlesnake's values.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import ConfigFlag
from gamegrammar.games import DEFAULT_GAME, game_names, load_game

_first_game: str | None = None  # the game whose defaults the help lists first (None: DEFAULT_GAME)


def game_on_command_line(argv: Sequence[str]) -> str | None:
    """The NAME of `--game NAME` (or `--game=NAME`) on a command line, if given there."""
    for i, arg in enumerate(argv):
        if arg == "--game" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--game="):
            return arg.split("=", 1)[1]
    return None


def show_game_first(name: str | None) -> None:
    """Make the help of the parsers built after this list `name`'s defaults first (None, or an unknown name: the default game's)."""
    global _first_game
    _first_game = name


def _games() -> list[str]:
    """The registered games, the one whose defaults the help shows first leading."""
    names = game_names()
    first = _first_game if _first_game in names else DEFAULT_GAME
    return sorted(names, key=lambda name: name != first)  # stable: the others keep the registry's order


def _declared(flags_of: str) -> dict[str, list[tuple[str, ConfigFlag]]]:
    """option -> [(game, its flag)] over every registered game that has the option, in `_games()` order."""
    out: dict[str, list[tuple[str, ConfigFlag]]] = {}
    for name in _games():
        for flag in getattr(load_game(name), flags_of)():
            out.setdefault(flag.option, []).append((name, flag))
    return out


def _show(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def flag_help(declared: list[tuple[str, ConfigFlag]], *, defaults: bool = True) -> str:
    """One flag's help: what it is (its field's help), then each game's default, or (switches) the games it belongs to.

    "board width in cells (snake: 10, battlesnake: 11)"; a flag of one game says so: "snakes on the board
    (battlesnake only: 4)", "write ... (snake only)"; one of some games names those without it."""
    text = next((flag.help for _, flag in declared if flag.help), declared[0][1].name.replace("_", " "))
    games = [name for name, _ in declared]
    missing = [name for name in game_names() if name not in games]
    if len(games) == 1 and missing:
        note = f"{games[0]} only" + (f": {_show(declared[0][1].default)}" if defaults else "")
    else:
        note = ", ".join(f"{name}: {_show(flag.default)}" for name, flag in declared) if defaults else ", ".join(games)
        note += f"; not {', '.join(missing)}" if missing else ""
    return f"{text} ({note})".replace("%", "%%")  # argparse formats help with %


def _flags() -> dict[str, ConfigFlag]:
    """option -> ConfigFlag, over every registered game (the first game to declare an option gives its type)."""
    return {option: declared[0][1] for option, declared in _declared("config_flags").items()}


def add_game_arguments(p: argparse.ArgumentParser, *, with_game: bool = True, what: str = "") -> None:
    """--game and the config flags of every registered game; `what` says when they apply (e.g. "without --corpus")."""
    first = _games()[0]
    group = p.add_argument_group(
        "game" + (f" ({what})" if what else ""),
        f"Each flag defaults to the game's own value; its help lists every game's, {first}'s first." if with_game else None,
    )
    if with_game:
        group.add_argument(
            "--game",
            default=None,
            metavar="NAME",
            help=f"the game: {', '.join(game_names())} (default: {DEFAULT_GAME}); with --help, its defaults come first",
        )
    for option, declared in _declared("config_flags").items():
        flag = declared[0][1]
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if flag.type is bool else flag.type
        group.add_argument(option, dest=flag.name, type=kind, default=None, metavar=flag.metavar, help=flag_help(declared))


def given_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The config flags given on the command line (not None)."""
    return {flag.name: getattr(args, flag.name) for flag in _flags().values() if getattr(args, flag.name, None) is not None}


def game_config(args: argparse.Namespace, corpus_config: Any | None = None) -> Any:
    """The game config of a command: the corpus's (flags must agree with it), else --game with the given flags."""
    flags = given_flags(args)
    game = getattr(args, "game", None)
    if corpus_config is not None:
        if game is not None and game != corpus_config.game:
            raise GameGrammarError(f"--game {game} disagrees with the corpus, which holds {corpus_config.game}")
        clash = [k for k, v in flags.items() if getattr(corpus_config, k, v) != v or not hasattr(corpus_config, k)]
        if clash:
            raise GameGrammarError(f"{', '.join('--' + k.replace('_', '-') for k in clash)} disagree with the corpus's game config")
        return corpus_config
    spec = load_game(game or DEFAULT_GAME)
    known = {f.name for f in spec.config_flags()}
    unknown = [k for k in flags if k not in known]
    if unknown:
        raise GameGrammarError(f"{', '.join('--' + k.replace('_', '-') for k in unknown)} is not an option of the game {spec.name}")
    return spec.make_config(**flags)


def _codec_flags() -> dict[str, ConfigFlag]:
    return {option: declared[0][1] for option, declared in _declared("codec_flags").items()}


def add_codec_arguments(p: argparse.ArgumentParser) -> None:
    """The games' own grammar options (beyond --keyframe-interval and --min-salience), default None (the game's default).

    Each says what it writes (its codec field's help) and which game it belongs to; a switch is off unless given."""
    declared_flags = _declared("codec_flags")
    if not declared_flags:
        return
    group = p.add_argument_group("grammar options of a game", "Each is one game's; a switch is off unless given.")
    for option, declared in declared_flags.items():
        flag = declared[0][1]
        if flag.type is bool:
            group.add_argument(
                option,
                dest=f"codec_{flag.name}",
                action="store_const",
                const=True,
                default=None,
                help=flag_help(declared, defaults=False),
            )
        else:
            group.add_argument(
                option, dest=f"codec_{flag.name}", type=flag.type, default=None, metavar=flag.metavar, help=flag_help(declared)
            )


def codec_options(args: argparse.Namespace, game: Any) -> dict[str, Any]:
    """The grammar options given for `game` (refusing those of other games)."""
    given = {
        flag.name: getattr(args, f"codec_{flag.name}")
        for flag in _codec_flags().values()
        if getattr(args, f"codec_{flag.name}", None) is not None
    }
    known = {flag.name for flag in game.codec_flags()}
    unknown = [k for k in given if k not in known]
    if unknown:
        raise GameGrammarError(f"{', '.join('--' + k.replace('_', '-') for k in unknown)} is not a grammar option of the game {game.name}")
    return given
