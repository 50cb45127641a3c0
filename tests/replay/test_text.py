"""The terminal text around a board: its frame, the notes under it, and the print loop."""

from __future__ import annotations

import io
from types import SimpleNamespace

from gamegrammar.replay.text import boxed, notes, nothing_to_replay, play


def replay(first=None, grammar_error=None):
    frames = [SimpleNamespace(start=0, end=3, rules_say=None), SimpleNamespace(start=3, end=6, rules_say="X1 Y1")]
    tokens = ["BOS", "SNAP", "X0", "TICK", "L", "X2"]
    return SimpleNamespace(tokens=tokens, frames=frames, first_violation=first, grammar_error=grammar_error)


def test_boxed_and_nothing_to_replay() -> None:
    assert boxed(["ab", "cd"], 2) == ["+--+", "|ab|", "|cd|", "+--+"]
    assert nothing_to_replay(3, 2, None) == "nothing to replay\n+---+\n|...|\n|...|\n+---+\n!! empty sequence"
    assert nothing_to_replay(1, 1, "token 0: bad", " ").splitlines()[-2:] == ["+-+", "!! token 0: bad"]


def test_notes_show_the_tokens_the_rules_and_the_violation_on_its_frame() -> None:
    first = SimpleNamespace(rule="move", frame=1, message="tick 1: move")
    assert notes(replay(first), 0, max_token_chars=100) == ["   BOS SNAP X0"]
    assert notes(replay(first), 1, max_token_chars=100) == ["   TICK L X2", "   rules: X1 Y1", "!! tick 1: move"]
    assert notes(replay(), 0, max_token_chars=8) == ["   BOS S..."]


def test_a_grammar_error_is_noted_on_the_last_frame_unless_it_is_the_violation_there() -> None:
    err = "token 6: cut off"
    assert notes(replay(grammar_error=err), 1, max_token_chars=99)[-1] == "!! grammar error, frames end here: token 6: cut off"
    assert notes(replay(grammar_error=err), 0, max_token_chars=99) == ["   BOS SNAP X0"]
    first = SimpleNamespace(rule="grammar", frame=1, message="tick 1: grammar")
    assert notes(replay(first, err), 1, max_token_chars=99)[-1] == "!! tick 1: grammar"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_play_prints_every_frame_then_the_footer() -> None:
    out = io.StringIO()
    play(lambda k, tty: f"frame {k} {tty}", 3, "footer", delay=0, out=out)
    assert out.getvalue() == "frame 0 False\n\nframe 1 False\n\nframe 2 False\n\nfooter\n"
    out = io.StringIO()
    play(lambda k, tty: f"frame {k}", 0, "none", delay=0, out=out)  # no frames: the empty board, once
    assert out.getvalue() == "frame 0\n\nnone\n"


def test_play_on_a_terminal_redraws_in_place() -> None:
    out = Terminal()
    play(lambda k, tty: f"f{k} {tty}", 2, "end", delay=0.001, out=out)
    assert out.getvalue() == "\x1b[H\x1b[2Jf0 True\n\x1b[H\x1b[2Jf1 True\nend\n"
