"""Token files for `evaluate --tokens`: one verdict per line, and one-line errors for what is not a token file."""

from __future__ import annotations

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.evaluation.cli_tokens import validate_token_file


def test_token_file(tmp_path, episode, board):
    path = tmp_path / "samples.txt"
    path.write_text(episode + "\n\n" + " ".join(episode.split()[:20]) + "\n")
    results = validate_token_file(path, board)
    assert [r["line"] for r in results] == [1, 3]
    assert results[0]["valid"] and results[1]["violations"] == ["complete"]
    assert set(results[0]) == {"line", "valid", "tiers", "violations", "first_violation", "lenient"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "holds no sequences"),
        ("\n  \n", "holds no sequences"),
        ("{episode}\nBOS SNAP X10\n", "line 2: token 'X10' is not in the vocabulary of the 10x10 game"),
    ],
)
def test_token_file_errors_are_one_line(tmp_path, episode, board, text, message):
    path = tmp_path / "samples.txt"
    path.write_text(text.format(episode=episode))
    with pytest.raises(GameGrammarError, match=message) as err:
        validate_token_file(path, board)
    assert "\n" not in str(err.value)
    with pytest.raises(GameGrammarError, match="cannot read"):
        validate_token_file(tmp_path / "missing.txt", board)
