"""What fidelity reads of a Battlesnake sequence: its summary, the rule-determined tokens; and its states (trace, planes)."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.gamespec import CodecConfig, EpisodeSummary
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.fidelity import CATEGORIES, rule_determined_positions, summarize_episode
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec
from gamegrammar.games.battlesnake.planes import FEATURES, feature_planes, probe_targets
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Snake
from gamegrammar.games.battlesnake.trace import trace

# exact_spawn_chance: the episodes these tests name were picked under the exact spawn chance (the official draw plays others)
SMALL = BattlesnakeConfig(7, 7, 2, max_ticks=30, exact_spawn_chance=True)
EXAMPLE = GAME.play_episode(SMALL, CodecConfig(), "greedy", 0, 25).tokens  # S1 (length 5) wins on tick 8


def test_the_summary_reads_ticks_the_standing_length_and_the_end():
    assert summarize_episode(EXAMPLE) == EpisodeSummary(8, 5, "WIN", ("head-collision", "survived"))
    third = [i for i, t in enumerate(EXAMPLE) if t == "TICK"][2]
    cut = EpisodeSummary(2, 4, "none", ("unfinished", "unfinished"))  # cut off: both of length 4 so far, neither fate known
    assert summarize_episode(EXAMPLE[: third + 3]) == cut
    draw = "BOS SNAP S0 X1 Y5 LEN3 H100 B_S B_S S1 X5 Y5 LEN3 H100 B_S B_S FOOD X3 Y3 TICK S0 RIGHT X2 Y5 S1 LEFT X4 Y5 "
    draw += "TICK S0 RIGHT X3 Y5 S1 LEFT X3 Y5 S0 DIE_HEAD S1 DIE_HEAD DRAW EOS"
    both_died = ("head-collision", "head-collision")
    assert summarize_episode(draw.split()) == EpisodeSummary(2, 3, "DRAW", both_died)  # nobody left: the tied snakes' length
    assert summarize_episode(["BOS", "TICK"]) == EpisodeSummary(0, 0, "none")


@pytest.mark.parametrize("config", [SMALL, BattlesnakeConfig(5, 6, 1, max_ticks=40), BattlesnakeConfig(11, 11, 4, max_ticks=50)])
def test_the_summary_agrees_with_the_engine(config):
    for episode, agent in enumerate(["random", "safe", "greedy", "space"] * 2):
        record = GAME.play_episode(config, CodecConfig(keyframe_interval=episode % 3), agent, 1, episode)
        summary = summarize_episode(record.tokens)
        assert (summary.ticks, summary.score, summary.end) == (record.ticks, record.score, record.end)
        causes = [e.payload["cause"] for e in GAME.decode_events(record.tokens) if e.type == "DIE"]
        assert sorted(f for f in summary.outcomes if f != "survived") == sorted(causes)  # every snake's fate, once
        assert len(summary.outcomes) == config.num_snakes and (record.end != "WIN" or summary.outcomes.count("survived") == 1)


def test_rule_determined_positions_skip_inputs_chance_and_the_start():
    found = rule_determined_positions(EXAMPLE)
    by_position = {p: (c, k) for p, c, k in found}
    assert len(by_position) == len(found) and {c for _, c, _ in found} <= set(CATEGORIES)
    start = EXAMPLE.index("TICK")
    assert all(p >= start for p in by_position)  # the first keyframe is a random start
    for p in by_position:
        token = EXAMPLE[p]
        assert token not in ("UP", "DOWN", "LEFT", "RIGHT", "SPAWN", "TICK")
        assert not (EXAMPLE[p - 1] == "SPAWN" or EXAMPLE[p - 2] == "SPAWN")  # spawned cells are chance
    tokens = EXAMPLE
    kinds = {tokens[p]: k for p, (c, k) in by_position.items() if k}
    assert set(kinds.values()) <= {"MOVE", "EAT", "DIE_HEAD"}
    last = len(tokens) - 1 - tokens[::-1].index("TICK")
    outcome = [by_position[p] for p in range(last, len(tokens)) if p in by_position and by_position[p][1]]
    assert outcome == [("move", "DIE_HEAD"), ("move", "MOVE")]  # S0's head on the last tick: the rules say it dies there
    assert by_position[tokens.index("WIN")] == ("end", "") and by_position[len(tokens) - 1] == ("flow", "")
    eat = tokens.index("EAT")
    assert [by_position[eat + i][0] for i in range(3)] == ["eat", "grow", "health"]
    die = tokens.index("DIE_HEAD")
    assert by_position[die - 1][0] == by_position[die][0] == "death"


def test_rule_determined_positions_in_keyframes_and_the_tails_design():
    keyed = GAME.play_episode(SMALL, CodecConfig(keyframe_interval=3), "greedy", 0, 25).tokens
    found = {p: c for p, c, _ in rule_determined_positions(keyed)}
    second = [i for i, t in enumerate(keyed) if t == "SNAP"][1]
    assert second not in found and found[second + 1] == "keyframe"
    tails = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True), "greedy", 0, 25).tokens
    found = {p: (c, k) for p, c, k in rule_determined_positions(tails)}
    free = tails.index("FREE")
    assert found[free] == ("free", "MOVE") and found[free + 1][0] == found[free + 2][0] == "free"
    assert found[free + 3] == ("move", "")
    smell = GAME.play_episode(SMALL, BattlesnakeCodec(smell=True, tails=True), "greedy", 0, 25).tokens
    found = {p: (c, k) for p, c, k in rule_determined_positions(smell)}
    words = [i for i, t in enumerate(smell) if t.startswith("SMELL_")]
    assert words and all(found[i] == ("smell", "") for i in words)  # determined by the board: scored, every one
    assert found[words[0] + 1][0] in ("free", "move") and found[words[0] + 1][1] == "MOVE"  # the outcome keeps the kind
    sense = GAME.play_episode(SMALL, BattlesnakeCodec(smell=True, sense=True, cells=True), "greedy", 0, 25).tokens
    found = {p: (c, k) for p, c, k in GAME.rule_determined_positions(sense)}
    words = [i for i, t in enumerate(sense) if t.startswith("SENSE_")]
    assert words and all(found[i] == ("sense", "") and sense[i - 1].startswith("SMELL_") for i in words)
    assert [found[i + 1] for i in words[:4]] == [("move", "MOVE")] * 2 + [("move", "EAT")] * 2  # the head, with its outcome
    for episode, word, kind in ((26, "HIT", "DIE_SELF"), (25, "MEET", "")):  # the hits design: each word, category hit
        hits = GAME.play_episode(SMALL, BattlesnakeCodec(hits=True), "greedy", 0, episode).tokens
        found = {p: (c, k) for p, c, k in rule_determined_positions(hits)}
        at = hits.index(word)
        assert found[at] == ("hit", kind) and hits.count(word) == 1
        assert found[at + 1] == (("move", "") if word == "HIT" else ("death", ""))  # a HIT carries the outcome, not its head


def test_rule_determined_positions_of_the_cells_design_are_its_words():
    """A cell word is scored once, with the category and outcome its X has in the pair spelling."""
    from gamegrammar.games.battlesnake.grammar import as_pairs

    codec = BattlesnakeCodec(keyframe_interval=3, tails=True, cells=True)
    cells = GAME.play_episode(SMALL, codec, "greedy", 0, 25).tokens
    pairs, origin = as_pairs(cells)
    found = GAME.rule_determined_positions(cells)
    want = {origin[p]: (c, k) for p, c, k in reversed(rule_determined_positions(pairs))}  # the first of a word's two
    assert len(found) == len({p for p, _, _ in found}) and {p: (c, k) for p, c, k in found} == want
    tick = cells.index("TICK")
    assert dict((p, (c, k)) for p, c, k in found)[tick + 3] == ("move", "MOVE")  # TICK S0 UP X5Y4: the head's word


def test_trace_follows_the_engine_and_stops_at_a_departure():
    record = GAME.play_episode(SMALL, CodecConfig(keyframe_interval=2), "space", 3, 1)
    assert trace(record.tokens, SMALL) == record.states
    tokens = " ".join(EXAMPLE).replace("S1 RIGHT X5 Y1 EAT LEN5 H100", "S1 RIGHT X5 Y1").split()  # tick 6's eat is missing
    assert len(trace(tokens, SMALL)) == 6
    assert len(trace(EXAMPLE, BattlesnakeConfig(7, 7, 2, max_ticks=5))) == 6  # no further than the tick limit
    assert GAME.trace(EXAMPLE, SMALL) == GAME.play_episode(SMALL, CodecConfig(), "greedy", 0, 25).states


def test_feature_planes_from_one_snakes_point_of_view():
    config = BattlesnakeConfig(5, 4, 2)
    state = BattlesnakeState((Snake(((1, 1), (1, 0), (2, 0)), 40, "", "S0"), Snake(((3, 3), (3, 2), (3, 2)), 100, "", "S1")), ((0, 3),), 7)
    planes = feature_planes(state, config, 0)
    assert planes.shape == (8, 4, 5) and planes.dtype == np.float32 and len(FEATURES) == 8
    assert planes[0].all() and planes[6].sum() == 0 and np.allclose(planes[7], 0.4)
    assert planes[1, 3, 0] == 1 and planes[1].sum() == 1  # row y is the board's y
    assert planes[3, 1, 1] == 1 and planes[2, 0, 1] == planes[2, 0, 2] == 1 and planes[2].sum() == 2
    assert planes[5, 3, 3] == 1 and planes[4, 2, 3] == 1 and planes[4].sum() == 1
    theirs = feature_planes(state, config, 1)
    assert theirs[3, 3, 3] == 1 and theirs[5, 1, 1] == 1 and np.allclose(theirs[7], 1.0)
    targets = probe_targets(state, config)
    assert set(targets.planes) == {"food", "own_body", "own_head", "other_bodies", "other_heads"}
    assert all(p.shape == (20,) and set(np.unique(p)) <= {0, 1} for p in targets.planes.values())
    assert targets.scalars == {"health": 40.0, "length": 3.0, "alive": 2.0}
    assert targets.classes == {"head_x": (1, 6), "head_y": (1, 5)}
    assert GAME.board_shape(config) == (4, 5)
    gone = BattlesnakeState((Snake(((1, 1),) * 3, 0, "out-of-health", "S0"), state.snakes[1]), (), 8)
    assert probe_targets(gone, config).classes == {"head_x": (5, 6), "head_y": (4, 5)}
    assert feature_planes(gone, config, 0)[2:4].sum() == 0
