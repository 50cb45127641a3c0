"""Snake's replays: frames follow the simulator exactly, and every output renders any sequence, valid or not."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.evaluation import validate
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake import replay as renderer
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import EXAMPLE, EXAMPLE_TAILS, vocabulary
from gamegrammar.games.snake.replay import gif_bytes, play, render_frame, render_html, replay, replay_data, write_gif
from gamegrammar.games.snake.replay.ascii import FOOD, HEAD, MARK, RULES_HEAD
from gamegrammar.games.snake.replay.frames import RULE_HINTS
from gamegrammar.games.snake.rules import SnakeConfig, SnakeState
from gamegrammar.games.snake.validity import RULE_NAMES

BOARD = SnakeConfig()
BASE_TEXT = EXAMPLE  # a valid 10x10 episode: eats on tick 2, a keyframe after tick 3, dies in the top wall on tick 8
BASE = BASE_TEXT.split()


def simulate(config: SnakeConfig, codec: CodecConfig, agent_name: str, seed: int, episode: int) -> tuple[list[str], list[SnakeState]]:
    """Tokens and the simulator's state at every tick (tick 0 first)."""
    record = GAME.play_episode(config, codec, agent_name, seed, episode)
    return record.tokens, record.states


def grid_of(text: str) -> list[str]:
    """The board rows of an ASCII frame (between the +---+ lines)."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("+"))
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("+"))
    return [row[1:-1] for row in lines[top + 1 : bottom]]


def html_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def mutate_at(tokens: list[str], index: int, token: str) -> list[str]:
    out = list(tokens)
    out[index] = token
    return out


# ---------------------------------------------------------------- frames


@pytest.mark.parametrize(
    ("config", "interval"),
    [(BOARD, 0), (BOARD, 5), (SnakeConfig(6, 5, 40), 1), (SnakeConfig(4, 4, 300), 3)],
)
def test_frames_equal_the_simulators_states(config: SnakeConfig, interval: int) -> None:
    for agent in AGENTS:
        for episode in range(3):
            tokens, states = simulate(config, CodecConfig(keyframe_interval=interval), agent, 7, episode)
            rp = replay(tokens, config)
            assert [f.state for f in rp.frames] == states
            assert [f.tick for f in rp.frames] == list(range(len(states)))
            assert rp.verdict.valid and rp.first_violation is None and rp.grammar_error is None
            assert all(f.rules_say is None for f in rp.frames)
            assert rp.frames[-1].end_event is not None


def test_a_wrong_move_is_shown_as_written_and_marked() -> None:
    move = BASE.index("X6")  # tick 1 moves to X6 Y5; write X5 Y4 instead (the input says right)
    bad = [*BASE[:move], "X5", "Y4", *BASE[move + 2 :]]
    rp = replay(bad, BOARD)
    frame = rp.frames[1]
    assert frame.state.head == (5, 4)  # what the sequence wrote
    assert frame.rules_say == "MOVE X6 Y5" and frame.rules_head == (6, 5)
    first = rp.first_violation
    assert first is not None and first.rule == "move_follows_input"
    assert (first.index, first.frame, first.cell) == (move, 1, (5, 4))
    assert first.index == validate(bad, BOARD).first_violation
    assert len(rp.frames) == 9  # it still renders to the end


def test_a_keyframe_is_where_the_next_tick_starts() -> None:
    at = BASE.index("SNAP", 5)  # the keyframe after tick 3 claims the head is at X2 Y2
    bad = mutate_at(mutate_at(BASE, at + 2, "X2"), at + 3, "Y2")
    rp = replay(bad, BOARD)
    assert rp.frames[3].state.head == (7, 4)  # the tick's own MOVE
    # The next tick starts from the keyframe: the rules go up from X2 Y2, the sequence wrote X7 Y3.
    assert rp.frames[4].rules_head == (2, 1) and rp.frames[4].rules_say == "MOVE X2 Y1"
    assert rp.frames[4].state.body == ((7, 3), (2, 2))
    assert rp.first_violation is not None and rp.first_violation.rule == "keyframe_matches_state"


def test_a_grammar_error_ends_the_frames() -> None:
    at = BASE.index("TICK", 20)  # the start of tick 3
    bad = [*BASE[:at], "TICK", "INPUT_U", "GROW", *BASE[at:]]
    rp = replay(bad, BOARD)
    assert len(rp.frames) == 3  # ticks 0, 1, 2
    assert rp.grammar_error is not None and rp.first_violation is not None
    assert rp.first_violation.rule == "grammar" and rp.first_violation.frame == 2


def test_a_cut_off_sequence_renders_what_it_has() -> None:
    rp = replay(BASE[:30], BOARD)
    assert rp.first_violation is not None and rp.first_violation.rule == "complete"
    assert rp.first_violation.index == 30
    assert rp.first_violation.frame == len(rp.frames) - 1


@pytest.mark.parametrize("cut", [0, 1, 5, 13, 14, 17])
def test_prefixes_never_crash_any_renderer(cut: int) -> None:
    rp = replay(BASE[:cut], BOARD)
    for k in range(max(1, len(rp.frames))):
        render_frame(rp, k)
    assert "<canvas" in render_html(rp)
    assert Image.open(io.BytesIO(gif_bytes(rp, cell=4))).n_frames == max(1, len(rp.frames))


def test_random_mutations_never_crash() -> None:
    vocab = vocabulary(BOARD)
    for k in range(len(BASE)):
        for token in (vocab[(7 * k) % len(vocab)], vocab[(13 * k + 5) % len(vocab)], "X99", "EOS"):
            for seq in (mutate_at(BASE, k, token), BASE[:k] + BASE[k + 1 :], [*BASE[:k], token, *BASE[k:]]):
                rp = replay(seq, BOARD)
                for f in range(len(rp.frames)):
                    render_frame(rp, f)
                replay_data(rp)  # everything the HTML and GIF draw from
                assert (rp.first_violation is None) == rp.verdict.valid


# ---------------------------------------------------------------- outputs


def test_ascii_frame_shows_head_and_food_at_their_cells() -> None:
    rp = replay(BASE, BOARD)
    rows = grid_of(render_frame(rp, 0))
    assert len(rows) == 10 and all(len(r) == 10 for r in rows)
    assert rows[5][5] == HEAD and rows[5][7] == FOOD
    assert sum(r.count(HEAD) for r in rows) == 1
    rows = grid_of(render_frame(rp, 2))  # after the eat: head on the old food, new food at X2 Y7
    assert rows[5][7] == HEAD and rows[5][6] == "o" and rows[7][2] == FOOD


def test_ascii_marks_the_rules_head_and_the_violation() -> None:
    move = BASE.index("X6")
    bad = [*BASE[:move], "X5", "Y4", *BASE[move + 2 :]]
    text = render_frame(replay(bad, BOARD), 1)
    rows = grid_of(text)
    assert rows[4][5] == HEAD and rows[5][6] == RULES_HEAD
    assert "move_follows_input" in text and "rules: MOVE X6 Y5" in text
    food_bad = mutate_at(mutate_at(BASE, BASE.index("FOOD_SPAWN") + 1, "X6"), BASE.index("FOOD_SPAWN") + 2, "Y5")  # on the body
    assert grid_of(render_frame(replay(food_bad, BOARD), 2))[5][6] == MARK


def test_ascii_play_prints_every_frame() -> None:
    out = io.StringIO()
    play(replay(BASE, BOARD), delay=0, out=out)
    assert out.getvalue().count("+----------+") == 2 * 9
    assert "8 ticks; valid" in out.getvalue()


def test_gif_has_one_frame_per_tick_plus_the_start(tmp_path) -> None:
    tokens, states = simulate(BOARD, CodecConfig(), "greedy", 3, 1)
    path = tmp_path / "replay.gif"
    assert write_gif(replay(tokens, BOARD), path, cell=8) == len(states)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == len(states)
        assert im.size == (10 * 8 + 12, 10 * 8 + 34 + 12)


def test_html_is_self_contained_and_carries_the_tokens() -> None:
    tokens, _ = simulate(BOARD, CodecConfig(keyframe_interval=4), "wall_follower", 1, 0)
    page = render_html(replay(tokens, BOARD), start_tick=3)
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    data = html_data(page)
    assert data["tokens"] == tokens and data["first"] is None and data["start"] == 3
    assert data["frames"][3]["t"] == 3


def test_html_marks_the_first_violation() -> None:
    at = BASE.index("V1")  # SCORE V1 after the eat: write V3
    bad = mutate_at(BASE, at, "V3")
    data = html_data(render_html(replay(bad, BOARD)))
    assert data["first"]["rule"] == "score_after_eat" and data["first"]["index"] == at
    assert data["first"]["frame"] == 2
    assert data["violations"][0] == ["score_after_eat", at]


def test_html_survives_tokens_that_look_like_markup() -> None:
    page = render_html(replay(["BOS", "</script><script>alert(1)</script>"], BOARD))
    assert page.count("</script>") == 2  # the data element's and the player's, nothing injected
    assert html_data(page)["tokens"][1] == "</script><script>alert(1)</script>"


def test_the_game_spec_gives_this_renderer() -> None:
    assert GAME.renderer() is renderer
    for name in ("replay", "render_frame", "play", "write_gif", "write_html"):
        assert callable(getattr(renderer, name))


def test_a_tail_events_sequence_replays_like_its_v1_twin_and_every_rule_has_a_hint():
    tails, v1 = replay(EXAMPLE_TAILS, BOARD), replay(BASE, BOARD)
    assert [f.state for f in tails.frames] == [f.state for f in v1.frames] and tails.verdict.valid
    broken = replay(EXAMPLE_TAILS.replace("FREE X5 Y5", "FREE X4 Y5"), BOARD)
    first = broken.first_violation
    assert first.rule == "tail_freed" and first.cell == (4, 5) and RULE_HINTS["tail_freed"] in first.message
    assert set(RULE_HINTS) == set(RULE_NAMES)
    assert render_frame(broken, 1)
