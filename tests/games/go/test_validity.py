"""Go's strict evaluator: it accepts every real episode and names each kind of rule break alone, at the right token."""

from __future__ import annotations

import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go import GAME
from gamegrammar.games.go.grammar import Keyframe, Tick, parse, stone
from gamegrammar.games.go.rules import EMPTY, GoConfig, legality, vertex
from gamegrammar.games.go.validity import RULE_NAMES, RULES, TIERS, validate

SMALL = GoConfig(7, max_ticks=150)
LIMITED = GoConfig(7, max_ticks=40)  # random games there end at the limit


def record(config=SMALL, agent="random", episode=0, keyframes=0):
    return GAME.play_episode(config, CodecConfig(keyframes), agent, 0, episode)


def ticks(tokens, config=SMALL):
    return [item for item in parse(tokens, config.size) if isinstance(item, Tick)]


def first_with(predicate, config=SMALL, agent="random", keyframes=0):
    """(record, tick number, found) of the first tick of the first episode where predicate(state before, tick) finds
    something (not None)."""
    for episode in range(40):
        rec = record(config, agent, episode, keyframes)
        for tick in ticks(rec.tokens, config):
            found = predicate(rec.states[tick.number - 1], tick)
            if found is not None:
                return rec, tick, found
    raise AssertionError("no such position in 40 episodes")


def refused(reason):
    def find(state, tick):
        if tick.move < 0 or tick.number < 3:
            return None
        return next((p for p in range(state.size**2) if state.board[p] == EMPTY and legality(state, p)[0] == reason), None)

    return find


def swap_move(rec, tick, point, config=SMALL):
    """The episode with one tick's move replaced by a play at `point` (its TAKE list dropped)."""
    t = rec.tokens
    return [*t[: tick.positions["move"]], vertex(point, config.size), *t[tick.positions["end"] :]]


def only(verdict, rule, at=None):
    assert verdict.violations == [rule], verdict
    if at is not None:
        assert verdict.first_violation == at, verdict


def test_the_rule_table():
    assert TIERS == ("structural", "physical", "rules", "full")
    assert len(RULE_NAMES) == len(set(RULE_NAMES)) == 15
    assert GAME.rules is RULES


@pytest.mark.parametrize(
    ("config", "agent", "keyframes"),
    [(SMALL, "random", 0), (SMALL, "capture", 5), (LIMITED, "random,capture", 3), (GoConfig(5, komi=0.0), "capture,random", 1)],
)
def test_every_generated_episode_passes(config, agent, keyframes):
    for episode in range(8):
        rec = record(config, agent, episode, keyframes)
        for declared in (None, keyframes):
            verdict = validate(rec.tokens, config, keyframe_interval=declared)
            assert verdict.valid, (episode, verdict)


def test_a_resignation_is_valid_and_its_winner_is_the_opponent():
    text = "BOS SNAP BLACK WHITE TO_BLACK TICK C3 TICK RESIGN B_WINS RESIGNATION EOS"
    assert validate(text, SMALL).valid
    only(validate(text.replace("B_WINS", "W_WINS"), SMALL), "result", 9)


def test_a_play_on_a_stone():
    rec, tick, point = first_with(
        lambda s, t: next((p for p, c in enumerate(s.board) if c), None) if t.number > 4 and t.move >= 0 else None
    )
    only(validate(swap_move(rec, tick, point), SMALL), "play_on_empty", tick.positions["move"])


def test_suicide():
    rec, tick, point = first_with(refused("suicide"))
    only(validate(swap_move(rec, tick, point), SMALL), "suicide", tick.positions["move"])


def test_superko():
    rec, tick, point = first_with(refused("superko"), agent="capture")
    only(validate(swap_move(rec, tick, point), SMALL), "superko", tick.positions["move"])


def test_captures_missing_extra_and_wrong():
    rec, tick, _ = first_with(lambda s, t: True if t.taken else None)
    t, p = rec.tokens, tick.positions
    only(validate([*t[: p["after"]], *t[p["end"] :]], SMALL), "captures", p["after"])  # the TAKE left out
    other = next(stone(q, 7) for q in range(49) if stone(q, 7) not in t[p["after"] : p["end"]])
    only(validate([*t[: p["after"] + 1], other, *t[p["after"] + 2 :]], SMALL), "captures", p["after"] + 1)  # a wrong stone
    rec, tick, victim = first_with(
        lambda s, t: next((q for q, c in enumerate(s.board) if c and c != s.colour), None) if t.move >= 0 and not t.taken else None
    )
    t, at = rec.tokens, tick.positions["after"]
    only(validate([*t[:at], "TAKE", stone(victim, 7), *t[at:]], SMALL), "captures", at)  # a capture that is not one


def test_keyframes_say_the_board_the_turn_and_the_pass():
    rec = record(keyframes=4)
    kf = next(t.keyframe for t in ticks(rec.tokens) if t.keyframe is not None and t.move >= 0 and t.keyframe.black)
    t = rec.tokens
    turn = "TO_BLACK" if t[kf.turn_at] == "TO_WHITE" else "TO_WHITE"
    only(validate([*t[: kf.turn_at], turn, *t[kf.turn_at + 1 :]], SMALL), "turn_order", kf.turn_at)
    only(validate([*t[: kf.turn_at + 1], "PASSED", *t[kf.turn_at + 1 :]], SMALL), "keyframe_matches_state", kf.turn_at + 1)
    dropped = validate([*t[: kf.black[0][1]], *t[kf.black[0][1] + 1 :]], SMALL)
    assert dropped.violations[0] == "keyframe_matches_state" and dropped.first_violation == kf.black[0][1]


def test_the_start():
    rec = record()
    for what, tokens in GAME.opening_perturbations(rec.tokens, SMALL):
        verdict = validate(tokens, SMALL)
        assert verdict.first_violation is not None and verdict.first_violation < tokens.index("TICK"), (what, verdict)
        assert verdict.violations[0] == ("turn_order" if what == "White to move first" else "start_position"), (what, verdict)


def test_a_game_that_goes_on_after_two_passes():
    rec = record()
    assert rec.end == "TWO_PASSES" and rec.ticks + 2 < SMALL.max_ticks
    t = rec.tokens
    at = t.index("TICK", 20)
    verdict = validate([*t[:at], "TICK", "PASS", "TICK", "PASS", *t[at:]], SMALL)
    only(verdict, "two_passes_end", at + 4)
    end = len(t) - t[::-1].index("TICK") - 1  # the last tick: the second pass
    only(validate([*t[: end - 2], *t[end:]], SMALL), "two_passes_end")  # TWO_PASSES after one pass


def test_the_move_limit():
    rec = next(r for r in (record(LIMITED, "random", e) for e in range(10)) if r.end == "MOVE_LIMIT")
    only(validate(rec.tokens, GoConfig(7, max_ticks=41)), "move_limit")  # written a turn early
    late = validate(rec.tokens, GoConfig(7, max_ticks=39))
    assert late.violations[0] == "move_limit"  # the game goes on past the limit


def test_area_result_and_the_end():
    rec = next(r for r in (record(SMALL, "capture", e) for e in range(10)) if 0 < ticks(r.tokens)[-1].area[0] < 48)
    t = rec.tokens
    tick = ticks(t)[-1]
    at = tick.positions["area"]
    black, white = tick.area
    only(validate([*t[:at], f"V{black + 1}", f"V{white + 1}", *t[at + 2 :]], SMALL), "area_score", at)  # the same margin
    won = t[tick.positions["result"]]
    flipped = {"B_WINS": "W_WINS", "W_WINS": "B_WINS"}[won]
    only(validate([*t[: at + 2], flipped, *t[at + 3 :]], SMALL), "result", at + 2)
    only(validate([*t[:-1], "TICK", "PASS", "EOS"], SMALL), "end_is_final", len(t) - 1)


def test_the_structural_rules():
    rec = record(keyframes=3)
    t = rec.tokens
    assert validate(t[:-10], SMALL).violations == ["complete"]
    passed = t.index("PASS")
    assert validate([*t[: passed + 1], "TAKE", *t[passed + 1 :]], SMALL).violations[0] == "grammar"
    snap = t.index("SNAP", 5)
    kf = next(item for item in parse(t, 7) if isinstance(item, Tick) and item.keyframe is not None).keyframe
    assert isinstance(kf, Keyframe) and kf.start == snap
    only(validate([*t[:snap], *t[kf.end :]], SMALL, keyframe_interval=3), "keyframe_schedule", snap)
    assert validate([*t[:snap], *t[kf.end :]], SMALL).violations == ["keyframe_schedule"]  # read off the sequence: 6, not 3
    assert "T19" not in GAME.vocabulary(SMALL) and validate([*t[:7], "T19", *t[8:]], SMALL).violations[0] == "grammar"
