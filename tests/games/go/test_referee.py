"""The GNU Go differential: every play these rules allow GNU Go accepts, every one they refuse it refuses, and the
boards agree after every move (GNU Go with --chinese-rules --positional-superko --forbid-suicide)."""

from __future__ import annotations

from gamegrammar.games.go import referee
from gamegrammar.games.go.rules import GoConfig
from tests.games.go.conftest import needs_gnugo


@needs_gnugo
def test_gnugo_and_these_rules_agree_on_every_play_and_board():
    runs = [
        referee.differential(GoConfig(5, max_ticks=100), 8, seed=1),
        referee.differential(GoConfig(7, komi=0.5), 4, seed=2),
        referee.differential(GoConfig(9), 2, seed=3),
    ]
    for run in runs:
        assert run.disagreements == [], run.disagreements[:5]
    total = sum((run.verdicts for run in runs), start=referee.Counter())
    assert sum(run.positions for run in runs) > 400 and sum(run.plays for run in runs) > 20_000
    assert min(total[k] for k in ("legal", "occupied", "suicide", "superko")) > 0, total  # every verdict was put to GNU Go


@needs_gnugo
def test_the_differential_catches_rules_that_forget_superko(monkeypatch):
    real = referee.legality

    def no_superko(state, p, position=None):
        refusal, *rest = real(state, p, position)
        return (None if refusal == "superko" else refusal, *rest)

    monkeypatch.setattr(referee, "legality", no_superko)
    run = referee.differential(GoConfig(5, max_ticks=100), 8, seed=1)
    assert run.disagreements and all("GNU Go illegal move" in d for d in run.disagreements)
