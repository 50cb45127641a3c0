"""Where a replayed sequence comes from: one line of a token file, or one episode of a corpus."""

from __future__ import annotations

from pathlib import Path

from gamegrammar.games.snake.grammar import vocabulary
from gamegrammar.errors import GameGrammarError
from gamegrammar.games.snake.rules import SnakeConfig


def token_file_line(path: str | Path, line: int, config: SnakeConfig) -> list[str]:
    """The tokens on line `line` (1-based) of a text file with one space-separated sequence per line.

    Only that line is checked against the board's vocabulary: a file of model
    samples may hold a bad line elsewhere, and one replay should not depend on it.
    An unknown token is refused rather than replayed, because it usually means
    the wrong board size (--width/--height or --corpus).
    """
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise GameGrammarError(f"cannot read token file {path}: {err}") from None
    if line < 1 or line > len(lines):
        raise GameGrammarError(f"--line {line} is out of range: {path} has {len(lines)} line{'s' * (len(lines) != 1)}")
    tokens = lines[line - 1].split()
    if not tokens:
        raise GameGrammarError(f"{path} line {line} is blank")
    vocab = set(vocabulary(config))
    unknown = next((t for t in tokens if t not in vocab), None)
    if unknown is not None:
        board = f"{config.width}x{config.height}"
        raise GameGrammarError(f"{path} line {line}: token {unknown!r} is not in the vocabulary of the {board} game")
    return tokens


def corpus_episode(path: str | Path, row: int) -> tuple[list[str], SnakeConfig]:
    """The tokens of episode `row` (0-based, in corpus order) and the corpus's game config."""
    from gamegrammar.corpus import Corpus  # numpy-backed; only needed for this source

    corpus = Corpus(path)
    if not 0 <= row < len(corpus):
        raise GameGrammarError(f"--episode {row} is out of range: {path} has {len(corpus)} episodes (0..{len(corpus) - 1})")
    return corpus.episode_tokens(row), corpus.game
