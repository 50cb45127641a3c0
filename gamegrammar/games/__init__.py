"""The game registry: `load_game(name)` finds a game's plug-in object (a `GameSpec`).

Built-in games are listed here by module path and imported only when asked for, so
the core never imports a game package itself. Other packages add games through the
`gamegrammar.games` entry point group (`name = "package.module:GAME"`), or at run
time with `register_game`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from gamegrammar.core.errors import GameGrammarError

if TYPE_CHECKING:
    from gamegrammar.core.gamespec import CodecConfig, GameSpec
    from gamegrammar.core.tokenizer import GameTokenizer

BUILTIN = {"snake": "gamegrammar.games.snake:GAME", "battlesnake": "gamegrammar.games.battlesnake:GAME", "go": "gamegrammar.games.go:GAME"}
DEFAULT_GAME = "snake"  # what `generate` plays, and what specs written before games were plug-ins hold
_registry: dict[str, str] = dict(BUILTIN)
_loaded: dict[str, GameSpec] = {}
_plugins_read = False


def register_game(name: str, target: str | GameSpec) -> None:
    """Register a game by 'module:attribute' (imported on first use) or by its spec object."""
    if isinstance(target, str):
        _registry[name] = target
        _loaded.pop(name, None)
    else:
        _registry[name] = f"<object {type(target).__name__}>"
        _loaded[name] = target


def _read_plugins() -> None:
    global _plugins_read
    if _plugins_read:
        return
    _plugins_read = True
    for ep in entry_points(group="gamegrammar.games"):
        _registry.setdefault(ep.name, ep.value)


def game_names() -> list[str]:
    _read_plugins()
    return sorted(_registry)


def load_game(name: str) -> GameSpec:
    """The plug-in object of the game `name`; a one-line error names the known games otherwise."""
    if name in _loaded:
        return _loaded[name]
    _read_plugins()
    target = _registry.get(name)
    if target is None:
        raise GameGrammarError(f"unknown game {name!r}; choose from {', '.join(game_names())}")
    module, _, attr = target.partition(":")
    spec = getattr(importlib.import_module(module), attr or "GAME")
    if getattr(spec, "name", None) != name:
        raise GameGrammarError(f"{target} is registered as game {name!r} but calls itself {getattr(spec, 'name', None)!r}")
    _loaded[name] = spec
    return spec


def game_of(config: Any) -> GameSpec:
    """The game a config belongs to (every game config names its game in a class variable `game`)."""
    name = getattr(config, "game", None)
    if not isinstance(name, str):
        raise GameGrammarError(f"{type(config).__name__} is not a game config (it names no game)")
    return load_game(name)


def tokenizer_for(config: Any, codec: CodecConfig | None = None) -> GameTokenizer:
    """The tokenizer of a game config's vocabulary; with a codec, of the corpus it writes (`GameSpec.codec_vocabulary`)."""
    from gamegrammar.core.tokenizer import GameTokenizer

    game = game_of(config)
    return GameTokenizer(game.vocabulary(config) if codec is None else game.codec_vocabulary(config, codec))
