from __future__ import annotations

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.replay import render_frame, render_html, replay, write_gif
from gamegrammar.games.go.rules import GoConfig

CONFIG = GoConfig(5, komi=0.5, max_ticks=60)


def test_a_game_replays_a_board_a_move_with_its_captures_marked():
    record = next(r for r in (play_episode(CONFIG, CodecConfig(), "capture", 3, e) for e in range(40)) if "TAKE" in r.tokens)
    rp = replay(record.tokens, CONFIG)
    assert rp.verdict.valid and len(rp.frames) == record.ticks + 1 and rp.summary().endswith("valid")
    assert [f.state.board for f in rp.frames] == [s.board for s in record.states]
    k = next(i for i, f in enumerate(rp.frames) if f.taken)
    text = render_frame(rp, k)
    assert "takes" in text.splitlines()[0] and "*" in text and ("(X)" in text or "(O)" in text)
    assert "TAKE" in text.splitlines()[-1]
    page = render_html(rp, title="t")
    assert page.startswith("<!DOCTYPE html>") and '"cap":' in page


def test_a_play_on_a_stone_is_shown_refused_and_named(tmp_path):
    tokens = [
        "BOS",
        "SNAP",
        "BLACK",
        "WHITE",
        "TO_BLACK",
        "TICK",
        "C3",
        "TICK",
        "C3",
        "TICK",
        "PASS",
        "TICK",
        "PASS",
        "AREA",
        "V25",
        "V0",
        "B_WINS",
        "TWO_PASSES",
        "EOS",
    ]
    rp = replay(tokens, CONFIG)
    second = rp.frames[2]
    assert not second.placed and second.rules_say == "C3 is refused (occupied)"
    assert rp.first_violation is not None and rp.first_violation.rule == "play_on_empty" and rp.first_violation.cell == (2, 2)
    assert "!!" in render_frame(rp, 2) and "(refused)" in render_frame(rp, 2)
    assert write_gif(rp, tmp_path / "g.gif", cell=12) == len(rp.frames) and (tmp_path / "g.gif").stat().st_size > 0


def test_nothing_to_replay_is_said_not_raised():
    rp = replay("BOS TICK", CONFIG)
    assert rp.frames == [] and "nothing to replay" in render_frame(rp, 0)
