from __future__ import annotations

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.fidelity import exact_groups, move_choices
from gamegrammar.games.go.rules import GoConfig, GoState, advance, parse_vertex

CONFIG = GoConfig(5, komi=0.5, max_ticks=60)


def test_every_written_move_is_among_the_legal_ones_and_occupied_points_are_not():
    for e in range(6):
        record = play_episode(CONFIG, CodecConfig(), "capture", 3, e)
        tokens = record.tokens
        choices = move_choices(tokens, CONFIG)
        assert len(choices) == record.ticks
        for (p, legal), state in zip(choices, record.states):
            assert tokens[p - 1] == "TICK" and tokens[p] in legal and {"PASS", "RESIGN"} <= legal
            occupied = {t for t in legal if t[0].isupper() and t[1:].isdigit() and state.board[parse_vertex(t, 5)]}
            assert not occupied


def test_a_refused_move_is_the_last_choice_and_a_wrong_start_has_none():
    state, _ = advance(GoState.empty(5), parse_vertex("C3", 5))
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
        "D4",
        "TICK",
        "PASS",
    ]  # White plays on Black's stone
    choices = move_choices(tokens, CONFIG)
    assert [p for p, _ in choices] == [6, 8] and "C3" not in choices[1][1] and state.board[12]
    assert move_choices(["BOS", "SNAP", "BLACK", "c3", "WHITE", "TO_WHITE", "TICK", "D4"], CONFIG) == []


def test_groups_hold_a_capture_with_its_whole_list_and_the_end():
    for e in range(40):
        tokens = play_episode(CONFIG, CodecConfig(), "capture", 3, e).tokens
        if "TAKE" in tokens:
            break
    groups = exact_groups(tokens)
    captures = [at for name, at in groups if name == "capture"]
    assert len(captures) == tokens.count("TAKE")
    for at in captures:
        assert tokens[at[0]] == "TAKE" and all(tokens[q].islower() for q in at[1:-1]) and not tokens[at[-1]].islower()
        assert at == list(range(at[0], at[-1] + 1))
    (end,) = [at for name, at in groups if name == "end"]
    assert [tokens[q] for q in end][:1] == ["AREA"] and tokens[end[-1]] in ("TWO_PASSES", "MOVE_LIMIT")
