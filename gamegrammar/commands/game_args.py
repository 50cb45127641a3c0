"""The game and its config on the command line, for every command that needs one.

`--game NAME` picks a registered game (default: the registry's DEFAULT_GAME); every registered game's
config fields are flags (`--width`, `--max-ticks`, ...), default None so that a
corpus's config can be used and checked against them.
"""

from __future__ import annotations

import argparse
from typing import Any

from gamegrammar.errors import GameGrammarError
from gamegrammar.games import DEFAULT_GAME, game_names, load_game


def _flags() -> dict[str, Any]:
    """option -> ConfigFlag, over every registered game (the first game to declare an option gives its type)."""
    out: dict[str, Any] = {}
    for name in game_names():
        for flag in load_game(name).config_flags():
            out.setdefault(flag.option, flag)
    return out


def add_game_arguments(p: argparse.ArgumentParser, *, with_game: bool = True, what: str = "") -> None:
    """--game and the config flags of every registered game; `what` says when they apply (e.g. "without --corpus")."""
    group = p.add_argument_group("game" + (f" ({what})" if what else ""))
    if with_game:
        group.add_argument("--game", default=None, help=f"the game: {', '.join(game_names())} (default: {DEFAULT_GAME})")
    for option, flag in _flags().items():
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if flag.type is bool else flag.type
        group.add_argument(option, dest=flag.name, type=kind, default=None, help=f"default: {flag.default}")


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


def _codec_flags() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in game_names():
        for flag in load_game(name).codec_flags():
            out.setdefault(flag.option, flag)
    return out


def add_codec_arguments(p: argparse.ArgumentParser) -> None:
    """The games' own grammar options (beyond --keyframe-interval and --min-salience), default None (the game's default)."""
    flags = _codec_flags()
    if not flags:
        return
    group = p.add_argument_group("grammar options of a game")
    for option, flag in flags.items():
        if flag.type is bool:
            group.add_argument(option, dest=f"codec_{flag.name}", action="store_const", const=True, default=None, help="default: off")
        else:
            group.add_argument(option, dest=f"codec_{flag.name}", type=flag.type, default=None, help=f"default: {flag.default}")


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
