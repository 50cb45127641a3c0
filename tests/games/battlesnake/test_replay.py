"""Battlesnake's replays: frames through the rules, any sequence renders, the first violation is marked, one colour per snake."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from gamegrammar.games.battlesnake import GAME, BattlesnakeConfig
from gamegrammar.games.battlesnake import replay as rp_module
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec
from gamegrammar.games.battlesnake.replay import gif_bytes, play, render_frame, render_html, replay
from gamegrammar.games.battlesnake.replay.style import SNAKE_COLORS, rgb
from gamegrammar.games.conformance import mutate

CFG = BattlesnakeConfig(7, 7, 4, max_ticks=60)
LINEUP = "safe,greedy,space,random"


@pytest.fixture(scope="module")
def record():
    return GAME.play_episode(CFG, BattlesnakeCodec(5), LINEUP, 1, 3)


@pytest.mark.parametrize(
    "codec",
    [BattlesnakeCodec(), BattlesnakeCodec(4, tails=True), BattlesnakeCodec(smell=True), BattlesnakeCodec(4, cells=True)],
    ids=["plain", "tails", "smell", "cells"],
)
def test_frames_are_the_engines_states(codec):
    for episode in range(3):
        rec = GAME.play_episode(CFG, codec, LINEUP, 2, episode)
        rp = replay(rec.tokens, CFG)
        assert [f.state for f in rp.frames] == rec.states
        assert rp.verdict.valid and rp.first_violation is None and rp.summary().endswith("valid")
        assert all(f.rules_say is None for f in rp.frames)
        assert rp.frames[-1].end_event == rec.end
        died = {k for f in rp.frames for k in f.died}
        assert died == {k for k, s in enumerate(rec.states[-1].snakes) if not s.alive}


def _first_move(tokens):
    """(index of the first tick's first head X, that snake's index)."""
    i = tokens.index("TICK")
    return i + 3, int(tokens[i + 1][1:])


def test_a_wrong_head_is_shown_as_written_and_marked(record):
    tokens = list(record.tokens)
    at, k = _first_move(tokens)
    right = (int(tokens[at][1:]), int(tokens[at + 1][1:]))
    tokens[at] = f"X{(right[0] + 3) % CFG.width}"
    rp = replay(tokens, CFG)
    frame = rp.frames[1]
    assert frame.state.snakes[k].head == ((right[0] + 3) % CFG.width, right[1])
    assert dict(frame.rules_heads)[k] == right and f"S{k} X{right[0]} Y{right[1]}" in frame.rules_say
    first = rp.first_violation
    assert first.rule == "move_follows_input" and first.index == at and first.frame == 1 and first.snake == k
    assert "the rules give" in first.message and first.message in rp.summary()


def test_a_wrong_death_is_shown_and_the_rules_survivor_named(record):
    tokens = list(record.tokens)
    i = tokens.index("TICK")
    j = tokens.index("TICK", i + 1)
    tokens[j:j] = ["S0", "DIE_HEAD"]  # S0 dies at tick 1 where the rules keep it
    rp = replay(tokens, CFG)
    assert not rp.frames[1].state.snakes[0].alive and rp.frames[1].died == (0,)
    assert "S0 survives" in rp.frames[1].rules_say
    assert rp.first_violation.rule == "head_collision"


def test_a_keyframe_is_where_the_next_tick_starts(record):
    tokens = list(record.tokens)
    at = tokens.index("SNAP", 5)  # the keyframe after tick 5
    k = int(tokens[at + 1][1:])
    tokens[at + 5] = "H50"  # the first listed snake's health as written there (SNAP Sk Xx Yy LENn Hh)
    rp = replay(tokens, CFG)
    assert rp.frames[5].state.snakes[k].health != 50 and rp.frames[6].state.snakes[k].health in (49, 100)
    assert rp.first_violation.rule == "keyframe_matches_state"


def test_grammar_errors_and_cut_offs_end_the_frames(record):
    tokens = list(record.tokens)
    at = tokens.index("TICK", tokens.index("TICK") + 1) + 2  # the second tick's first input
    bad = replay([*tokens[:at], "FOOD", *tokens[at + 1 :]], CFG)
    assert bad.grammar_error is not None and bad.first_violation.rule == "grammar" and len(bad.frames) == 2
    cut = replay(tokens[:120], CFG)
    assert cut.first_violation.rule == "complete" and 1 <= len(cut.frames) < len(record.states)
    empty = replay([], CFG)
    assert empty.frames == [] and "nothing to replay" in render_frame(empty, 0)


def test_random_mutations_never_crash_a_renderer(record):
    gen = np.random.default_rng(0)
    vocab = GAME.vocabulary(CFG)
    for n in range(25):
        tokens = mutate(record.tokens, vocab, gen, ("replace", "nudge", "delete", "duplicate", "truncate")[n % 5])
        rp = replay(tokens, CFG)
        for k in range(len(rp.frames)):
            assert render_frame(rp, k).startswith("tick ")
        assert rp.summary() in render_html(rp) or "first violation" in rp.summary()
    assert gif_bytes(rp, cell=4)


def test_ascii_draws_y_up_with_a_letter_per_snake(record):
    rp = replay(record.tokens, CFG)
    text = render_frame(rp, 0)
    rows = text.splitlines()[2 : 2 + CFG.height]
    for k, s in enumerate(record.states[0].snakes):
        x, y = s.head
        assert rows[CFG.height - 1 - y][1 + x] == "ABCD"[k]
    for x, y in record.states[0].food:
        assert rows[CFG.height - 1 - y][1 + x] == "*"
    assert "\x1b[32m" in render_frame(rp, 0, color=True) and "\x1b[" not in text
    out = io.StringIO()
    play(rp, delay=0, out=out)
    assert sum(line.startswith("tick ") for line in out.getvalue().splitlines()) == len(rp.frames) and "valid" in out.getvalue()


def test_gif_has_a_frame_per_tick_and_each_snake_in_its_colour(record, tmp_path):
    rp = replay(record.tokens, CFG)
    path = tmp_path / "r.gif"
    assert rp_module.write_gif(rp, path, cell=12) == len(rp.frames)
    image = Image.open(path)
    assert image.n_frames == len(rp.frames)
    colours = {c for _, c in image.convert("RGB").getcolors(1 << 16)}
    assert {rgb(SNAKE_COLORS[k][0]) for k in range(4)} <= colours


def test_html_is_self_contained_with_the_snake_colours_and_the_first_violation(record, tmp_path):
    tokens = list(record.tokens)
    at, _ = _first_move(tokens)
    tokens[at] = "X0" if tokens[at] != "X0" else "X1"
    rp = replay(tokens, CFG)
    page = render_html(rp, start_tick=1, title="t <b>")
    assert "http://" not in page and "https://" not in page and "t &lt;b&gt;" in page
    assert all(body in page for body, _ in SNAKE_COLORS) and '"first":{"rule":"move_follows_input"' in page
    rp_module.write_html(rp, tmp_path / "r.html", start_tick=1)
    assert (tmp_path / "r.html").read_text() == render_html(rp, start_tick=1)


def test_the_game_spec_gives_this_renderer():
    renderer = GAME.renderer()
    assert renderer is rp_module
    for name in ("replay", "render_frame", "play", "write_gif", "write_html"):
        assert callable(getattr(renderer, name))
