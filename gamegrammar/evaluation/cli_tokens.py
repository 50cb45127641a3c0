"""Reading a text file of token sequences for `gamegrammar evaluate --tokens FILE`, for any game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.evaluation.report import describe_game
from gamegrammar.evaluation.validity import validate
from gamegrammar.games import game_of


def read_token_file(path: str | Path, game_config: Any) -> list[tuple[int, list[str]]]:
    """(line number, tokens) for each non-blank line; refuses an empty file or a token outside the vocabulary.

    An unknown token means the file was written for another board or by
    something else entirely; scoring it as a mere grammar error would hide that.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise GameGrammarError(f"cannot read token file {path}: {err}") from None
    game = game_of(game_config)
    vocab = set(game.vocabulary(game_config))
    sequences = []
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens:
            continue
        unknown = next((t for t in tokens if t not in vocab), None)
        if unknown is not None:
            which = describe_game(game_config, ticks=False) or game.name
            raise GameGrammarError(f"{path} line {number}: token {unknown!r} is not in the vocabulary of the {which} game")
        sequences.append((number, tokens))
    if not sequences:
        raise GameGrammarError(f"token file {path} holds no sequences (expected one space-separated sequence per line)")
    return sequences


def validate_token_file(path: str | Path, game_config: Any) -> list[dict[str, Any]]:
    """One verdict per sequence (Verdict.to_json() plus its "line" in the file)."""
    return [{"line": number, **validate(tokens, game_config).to_json()} for number, tokens in read_token_file(path, game_config)]
