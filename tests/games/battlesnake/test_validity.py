"""Battlesnake's strict evaluator: it accepts every real episode and names each kind of rule break, at the right token."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.agents import lineup
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec, Keyframe, Tick, keyframe_tokens, parse
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig
from gamegrammar.games.battlesnake.validity import RULE_NAMES, RULES, TIERS, validate

# exact_spawn_chance: the episodes these tests name were picked under the exact spawn chance (the official draw plays others)
SMALL = BattlesnakeConfig(7, 7, 2, max_ticks=30, exact_spawn_chance=True)
# Real episodes on SMALL (seed 0): greedy episode 25, random episodes 0, 5 and 4, greedy episode 26.
EXAMPLE = (
    "BOS SNAP S0 X5 Y3 LEN3 H100 B_S B_S S1 X1 Y3 LEN3 H100 B_S B_S FOOD X0 Y2 X3 Y3 X6 Y4 "
    "TICK S0 UP X5 Y4 S1 RIGHT X2 Y3 "
    "TICK S0 RIGHT X6 Y4 EAT LEN4 H100 S1 RIGHT X3 Y3 EAT LEN4 H100 SPAWN X5 Y1 "
    "TICK S0 DOWN X6 Y3 S1 DOWN X3 Y2 TICK S0 LEFT X5 Y3 S1 RIGHT X4 Y2 TICK S0 UP X5 Y4 S1 DOWN X4 Y1 "
    "TICK S0 RIGHT X6 Y4 S1 RIGHT X5 Y1 EAT LEN5 H100 TICK S0 DOWN X6 Y3 S1 UP X5 Y2 "
    "TICK S0 LEFT X5 Y3 S1 UP X5 Y3 S0 DIE_HEAD SPAWN X5 Y6 WIN EOS"
)
WALL = (
    "BOS SNAP S0 X5 Y3 LEN3 H100 B_S B_S S1 X3 Y5 LEN3 H100 B_S B_S FOOD X6 Y2 X3 Y3 X2 Y6 TICK S0 UP X5 Y4 S1 DOWN X3 Y4 "
    "TICK S0 LEFT X4 Y4 S1 DOWN X3 Y3 EAT LEN4 H100 TICK S0 DOWN X4 Y3 S1 DOWN X3 Y2 TICK S0 RIGHT X5 Y3 S1 DOWN X3 Y1 "
    "TICK S0 DOWN X5 Y2 S1 DOWN X3 Y0 TICK S0 DOWN X5 Y1 S1 LEFT X2 Y0 TICK S0 DOWN X5 Y0 S1 LEFT X1 Y0 SPAWN X2 Y3 "
    "TICK S0 LEFT X4 Y0 S1 UP X1 Y1 SPAWN X4 Y2 TICK S0 LEFT X3 Y0 S1 RIGHT X2 Y1 TICK S0 DOWN OUT S1 UP X2 Y2 S0 DIE_WALL WIN EOS"
)
BODY = (
    "BOS SNAP S0 X3 Y5 LEN3 H100 B_S B_S S1 X5 Y3 LEN3 H100 B_S B_S FOOD X6 Y2 X3 Y3 X4 Y6 TICK S0 RIGHT X4 Y5 S1 UP X5 Y4 "
    "TICK S0 UP X4 Y6 EAT LEN4 H100 S1 LEFT X4 Y4 SPAWN X0 Y4 TICK S0 RIGHT X5 Y6 S1 UP X4 Y5 S1 DIE_BODY WIN EOS"
)
HEADS = (
    "BOS SNAP S0 X1 Y5 LEN3 H100 B_S B_S S1 X5 Y5 LEN3 H100 B_S B_S FOOD X3 Y3 X0 Y4 X4 Y6 TICK S0 RIGHT X2 Y5 S1 LEFT X4 Y5 "
    "TICK S0 RIGHT X3 Y5 S1 LEFT X3 Y5 S0 DIE_HEAD S1 DIE_HEAD DRAW EOS"
)
TIMEOUT = BattlesnakeConfig(7, 7, 2, max_ticks=12, exact_spawn_chance=True)  # space episode 0 of seed 0 times out
MINFOOD = BattlesnakeConfig(
    7, 7, 2, minimum_food=4, max_ticks=20, exact_spawn_chance=True
)  # greedy episode 13 of seed 0 spawns a shortfall of 2 on tick 2
STARVING = BattlesnakeConfig(5, 6, 1, minimum_food=0, food_spawn_chance=0, max_ticks=150)  # greedy episode 0 starves


def tokens_of(config, agent, episode, codec=None):
    return GAME.play_episode(config, codec or CodecConfig(), agent, 0, episode).tokens


def replace(text, old, new, count=1):
    tokens = text if isinstance(text, list) else text.split()
    joined = " ".join(tokens)
    assert old in joined, old
    return joined.replace(old, new, count).split()


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def test_the_rule_table():
    assert TIERS == ("structural", "physical", "rules", "full")
    assert len(RULE_NAMES) == len(set(RULE_NAMES)) == 24
    assert RULES["structural"] == ("grammar", "complete", "keyframe_schedule")
    assert GAME.rules is RULES


@pytest.mark.parametrize("text", [EXAMPLE, WALL, BODY, HEADS], ids=["example", "wall", "body", "heads"])
def test_the_hand_picked_episodes_are_valid(text):
    verdict = validate(text, SMALL)
    assert verdict.valid and verdict.violations == [] and verdict.first_violation is None, verdict
    assert all(verdict.tiers.values()) and all(verdict.lenient.values())


def test_every_generated_episode_passes():
    """A few hundred episodes: mixed lineups, solo and crowded boards, fixed and random starts, both designs, keyframes."""
    mix = GAME.default_agents
    configs = [
        (BattlesnakeConfig(7, 7, 2, max_ticks=60), 90),
        (BattlesnakeConfig(5, 6, 1, minimum_food=2, max_ticks=40), 60),
        (BattlesnakeConfig(7, 7, 8, max_ticks=40), 40),
        (BattlesnakeConfig(6, 6, 3, food_spawn_chance=50, max_ticks=50), 60),
        (BattlesnakeConfig(11, 11, 4, max_ticks=60), 30),
        (BattlesnakeConfig(5, 5, 2, minimum_food=0, food_spawn_chance=0, max_ticks=120), 20),
    ]
    codecs = [
        CodecConfig(),
        CodecConfig(keyframe_interval=4),
        BattlesnakeCodec(keyframe_interval=7, tails=True, smell=True, sense=True, hits=True),
    ]
    ends, causes, count = Counter(), Counter(), 0
    for c, (config, episodes) in enumerate(configs):
        for episode in range(episodes):
            agents = ",".join(lineup(mix, c, episode, config.num_snakes))
            record = GAME.play_episode(config, codecs[episode % 3], agents, c, episode)
            verdict = validate(record.tokens, config)
            assert verdict.valid, (config, episode, agents, verdict.violations, verdict.positions)
            ends[record.end] += 1
            causes.update(e.payload["cause"] for e in record.events if e.type == "DIE")
            count += 1
    assert count == 300
    assert set(ends) == {"WIN", "DRAW", "DEATH", "TIMEOUT"}
    assert set(causes) == {"out-of-health", "wall-collision", "snake-self-collision", "snake-collision", "head-collision"}


def _starving():
    tokens = tokens_of(STARVING, "greedy", 0)
    assert "DIE_HEALTH" in tokens
    return tokens


def _keyframed():
    return tokens_of(SMALL, "greedy", 25, CodecConfig(keyframe_interval=3))


def _tails():
    return tokens_of(SMALL, "greedy", 25, BattlesnakeCodec(tails=True))


def _smell():
    return tokens_of(SMALL, "greedy", 25, BattlesnakeCodec(smell=True))


def _sense():
    return tokens_of(SMALL, "greedy", 25, BattlesnakeCodec(sense=True))


def _hits(episode=25):
    return tokens_of(SMALL, "greedy", episode, BattlesnakeCodec(hits=True))


# (name, mutated tokens, config, the broken rules, the first one)
MUTANTS = [
    ("grammar", lambda: replace(EXAMPLE, "S0 UP X5 Y4", "S0 UP SPAWN Y4"), SMALL, {"grammar"}),
    ("complete: cut off", lambda: EXAMPLE.split()[:40], SMALL, {"complete"}),
    ("complete: no EOS", lambda: EXAMPLE.split()[:-1], SMALL, {"complete"}),
    # K = 3 read off the keyframe after tick 3: the one after tick 6 is missing
    ("keyframe_schedule", lambda: _drop_keyframe(_keyframed(), 6)[0], SMALL, {"keyframe_schedule"}),
    ("in_bounds: spawn", lambda: replace(EXAMPLE, "SPAWN X5 Y1", "SPAWN X7 Y1"), SMALL, {"in_bounds"}),
    ("move_follows_input", lambda: replace(EXAMPLE, "S1 RIGHT X2 Y3", "S1 RIGHT X2 Y4"), SMALL, {"move_follows_input"}),
    (
        "move_follows_input: OUT on the board",
        lambda: replace(WALL, "S0 DOWN X4 Y3", "S0 DOWN OUT"),
        SMALL,
        {"move_follows_input", "wall_collision"},
    ),
    ("tail_freed: wrong cell", lambda: replace(_tails(), "S1 RIGHT FREE X1 Y3", "S1 RIGHT FREE X1 Y2"), SMALL, {"tail_freed"}),
    ("tail_freed: missing", lambda: replace(_tails(), "S1 RIGHT FREE X1 Y3 X4 Y2", "S1 RIGHT X4 Y2"), SMALL, {"tail_freed"}),
    ("wall_collision", lambda: replace(WALL, "S0 DIE_WALL", "S0 DIE_SELF"), SMALL, {"wall_collision", "self_collision"}),
    (
        "self_collision",
        lambda: replace(tokens_of(SMALL, "greedy", 26), "S1 DIE_SELF", "S1 DIE_BODY"),
        SMALL,
        {"self_collision", "body_collision"},
    ),
    ("body_collision", lambda: replace(BODY, "S1 DIE_BODY", "S1 DIE_HEAD"), SMALL, {"body_collision", "head_collision"}),
    ("head_collision", lambda: replace(HEADS, "S1 DIE_HEAD DRAW", "DRAW"), SMALL, {"head_collision", "end_when_decided"}),
    ("starvation", lambda: replace(_starving(), "S0 DIE_HEALTH DEATH", "DEATH"), STARVING, {"starvation", "end_when_decided"}),
    ("head_collision: read as starvation", lambda: replace(HEADS, "S1 DIE_HEAD", "S1 DIE_HEALTH"), SMALL, {"head_collision", "starvation"}),
    ("start_position: health", lambda: replace(EXAMPLE, "S0 X5 Y3 LEN3 H100", "S0 X5 Y3 LEN3 H99"), SMALL, {"start_position"}),
    ("start_position: food", lambda: replace(EXAMPLE, "FOOD X0 Y2", "FOOD X0 Y1"), SMALL, {"start_position"}),
    ("eat_iff_food: missing", lambda: replace(EXAMPLE, "X5 Y1 EAT LEN5 H100", "X5 Y1"), SMALL, {"eat_iff_food"}),
    ("eat_iff_food: spurious", lambda: replace(EXAMPLE, "S0 UP X5 Y4", "S0 UP X5 Y4 EAT LEN4 H100"), SMALL, {"eat_iff_food"}),
    ("food_smelled: wrong word", lambda: replace(_smell(), "S0 RIGHT SMELL_R X6 Y4", "S0 RIGHT SMELL_U X6 Y4"), SMALL, {"food_smelled"}),
    ("food_smelled: missing", lambda: replace(_smell(), "S1 RIGHT SMELL_NONE X2 Y3", "S1 RIGHT X2 Y3"), SMALL, {"food_smelled"}),
    ("body_sensed: wrong word", lambda: replace(_sense(), "S1 UP SENSE_DL X5 Y3", "S1 UP SENSE_L X5 Y3"), SMALL, {"body_sensed"}),
    ("body_sensed: missing", lambda: replace(_sense(), "S0 LEFT SENSE_U X5 Y3 S1 UP", "S0 LEFT X5 Y3 S1 UP"), SMALL, {"body_sensed"}),
    ("collision_marked: HIT spurious", lambda: replace(_hits(), "S0 UP X5 Y4 S1", "S0 UP HIT X5 Y4 S1"), SMALL, {"collision_marked"}),
    (
        "collision_marked: MEET spurious",
        lambda: replace(_hits(), "S1 RIGHT X2 Y3 TICK", "S1 RIGHT X2 Y3 MEET TICK"),
        SMALL,
        {"collision_marked"},
    ),
    ("grow_after_eat", lambda: replace(EXAMPLE, "EAT LEN5 H100", "EAT LEN6 H100"), SMALL, {"grow_after_eat"}),
    ("health_reset", lambda: replace(EXAMPLE, "X6 Y4 EAT LEN4 H100", "X6 Y4 EAT LEN4 H99"), SMALL, {"health_reset"}),
    ("spawn_allowed: on a head", lambda: replace(EXAMPLE, "SPAWN X5 Y1", "SPAWN X3 Y3"), SMALL, {"spawn_allowed"}),
    ("spawn_allowed: next to a head", lambda: replace(EXAMPLE, "SPAWN X5 Y1", "SPAWN X3 Y4"), SMALL, {"spawn_allowed"}),
    (
        "minimum_food: too few",
        lambda: replace(tokens_of(MINFOOD, "greedy", 13), "SPAWN X1 Y1 SPAWN X5 Y0", "SPAWN X1 Y1"),
        MINFOOD,
        {"minimum_food"},
    ),
    ("minimum_food: too many", lambda: replace(EXAMPLE, "SPAWN X5 Y1", "SPAWN X5 Y1 SPAWN X0 Y0"), SMALL, {"minimum_food"}),
    ("keyframe_matches_state", lambda: replace(_keyframed(), "LEN4 H96", "LEN4 H97"), SMALL, {"keyframe_matches_state"}),
    (
        "keyframe_matches_state: impossible",
        lambda: replace(_keyframed(), "LEN4 H99 B_U B_L B_D", "LEN4 H99 B_U B_L B_L"),
        SMALL,
        {"keyframe_matches_state"},
    ),
    (
        "in_bounds: keyframe",
        lambda: replace(_keyframed(), "FOOD X0 Y2 TICK", "FOOD X0 Y9 TICK"),
        SMALL,
        {"in_bounds", "keyframe_matches_state"},
    ),
    ("end_when_decided: wrong end", lambda: replace(EXAMPLE, "WIN EOS", "DRAW EOS"), SMALL, {"end_when_decided"}),
    ("end_when_decided: goes on", lambda: replace(EXAMPLE, "WIN EOS", "TICK S1 UP X5 Y4 TIMEOUT EOS"), SMALL, {"end_when_decided"}),
    ("timeout_at_limit", lambda: tokens_of(TIMEOUT, "space", 0), BattlesnakeConfig(7, 7, 2, max_ticks=13), {"timeout_at_limit"}),
    (
        "end_is_final",
        lambda: replace(EXAMPLE, "WIN EOS", "WIN SNAP S1 X5 Y3 LEN5 H100 B_D B_D B_R B_S FOOD X0 Y2 X5 Y6 EOS"),
        SMALL,
        {"end_is_final"},
    ),
    ("end_is_final: a tick", lambda: replace(EXAMPLE, "WIN EOS", "WIN TICK S1 UP X5 Y4 EOS"), SMALL, {"end_is_final"}),
]


@pytest.mark.parametrize(("name", "make", "config", "broken"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_each_kind_of_rule_break_is_named(name, make, config, broken):
    tokens = make()
    verdict = validate(tokens, config)
    assert set(verdict.violations) == broken, (verdict.violations, verdict.positions)
    assert verdict.violations[0] == name.split(":")[0]
    for tier, rules in RULES.items():
        assert verdict.tiers[tier] == (not broken & set(rules))
    assert not verdict.tiers["full"]


def test_the_mutants_cover_every_rule():
    assert {m[0].split(":")[0] for m in MUTANTS} == set(RULE_NAMES)


@pytest.mark.parametrize(
    ("old", "new", "config"),
    [
        ("S0 UP X5 Y4", "S0 UP SPAWN Y4", SMALL),
        ("S1 RIGHT X2 Y3", "S1 RIGHT X1 Y3", SMALL),
        ("SPAWN X5 Y1", "SPAWN X3 Y3", SMALL),
        ("X6 Y4 EAT LEN4 H100", "X6 Y4 EAT LEN4 H99", SMALL),
        ("WIN EOS", "DRAW EOS", SMALL),
        ("S0 X5 Y3 LEN3 H100", "S0 X5 Y3 LEN3 H99", SMALL),
    ],
)
def test_the_first_violation_is_the_changed_token(old, new, config):
    original = EXAMPLE.split()
    tokens = replace(EXAMPLE, old, new)
    assert validate(tokens, config).first_violation == first_difference(tokens, original)


def test_a_missing_hit_or_meet_is_reported_where_it_belongs_in_a_declared_hits_design():
    """Each game has one collision: read off the sequence, the design is plain once its only word is gone."""
    for tokens, word in ((_hits(26), "HIT"), (_hits(), "MEET")):
        at = tokens.index(word)
        cut = [*tokens[:at], *tokens[at + 1 :]]
        verdict = validate(cut, SMALL, hits=True)
        assert verdict.violations == ["collision_marked"] and verdict.positions["collision_marked"] == at
        assert validate(cut, SMALL).valid and validate(tokens, SMALL, hits=True).valid
        assert validate(tokens, SMALL, hits=False).violations == ["grammar"]


def test_missing_elements_are_reported_where_they_belong():
    # S0's death removed: its head-collision is missing where the death section was
    tokens = replace(EXAMPLE, "S0 DIE_HEAD SPAWN", "SPAWN")
    verdict = validate(tokens, SMALL)
    at = tokens.index("SPAWN", len(tokens) - 5)
    assert verdict.positions["head_collision"] == at and verdict.positions["end_when_decided"] == at + 3
    # an OUT with no death: the wall death is missing before the next element
    tokens = replace(WALL, "S0 DIE_WALL WIN", "WIN")
    verdict = validate(tokens, SMALL)
    assert verdict.positions["wall_collision"] == len(tokens) - 2
    # cut off right where a death belongs: not reported, the sequence is incomplete
    tokens = EXAMPLE.split()[: EXAMPLE.split().index("DIE_HEAD") - 1]
    assert validate(tokens, SMALL).violations == ["complete"]


def test_a_possible_keyframe_is_followed_after_a_divergence():
    # tick 1's S1 head is wrong: the replay loses the state; the keyframe after tick 3 re-establishes it,
    # so the wrong health written in the keyframe after tick 6 is reported again
    tokens = replace(_keyframed(), "S1 RIGHT X2 Y3", "S1 RIGHT X2 Y4")
    tokens = replace(tokens, "LEN4 H96", "LEN4 H97")
    verdict = validate(tokens, SMALL)
    assert set(verdict.violations) == {"move_follows_input", "keyframe_matches_state"}
    assert verdict.positions["keyframe_matches_state"] == tokens.index("H97")


def test_lenient_tiers_read_the_sequence_loosely():
    verdict = validate(replace(EXAMPLE, "S1 RIGHT X2 Y3", "S1 RIGHT X2 Y4"), SMALL)
    assert verdict.lenient["physical"] is False  # (2, 4) is not next to (1, 3)
    verdict = validate(replace(EXAMPLE, "S1 RIGHT X2 Y3", "S1 LEFT X2 Y3"), SMALL)
    assert not verdict.valid and verdict.lenient == {"structural": True, "physical": True, "rules": True, "full": True}
    verdict = validate(EXAMPLE.split()[:40], SMALL)
    assert verdict.lenient["structural"] is False


def test_validate_many_answers_like_validate_for_tokens_and_ids():
    from gamegrammar.games import tokenizer_for

    tokenizer = tokenizer_for(SMALL)
    sequences = [EXAMPLE.split(), WALL.split(), replace(EXAMPLE, "WIN EOS", "DRAW EOS")]
    want = [validate(s, SMALL) for s in sequences]
    assert GAME.validate_many(sequences, SMALL) == want
    assert GAME.validate_many([tokenizer.encode(s) for s in sequences], SMALL) == want


def test_a_declared_design_holds_a_sequence_to_it():
    """A tails model that leaves its FREE cells out breaks `tail_freed` once its codec is given; a FREE is checked in either design."""
    record = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True), "greedy", 0, 3)
    tokens = record.tokens
    bare = [t for i, t in enumerate(tokens) if "FREE" not in tokens[max(0, i - 2) : i + 1]]
    assert "FREE" not in bare and validate(bare, SMALL).valid  # read off the sequence: the plain design
    declared = GAME.validate(bare, SMALL, BattlesnakeCodec(tails=True))
    assert not declared.valid and declared.violations == ["tail_freed"]
    assert GAME.validate(tokens, SMALL, BattlesnakeCodec(tails=True)).valid
    at = tokens.index("FREE")
    wrong = [*tokens[: at + 1], "X6" if tokens[at + 1] != "X6" else "X5", *tokens[at + 2 :]]
    assert "tail_freed" in GAME.validate(wrong, SMALL, BattlesnakeCodec(tails=True)).violations
    assert "tail_freed" in validate(wrong, SMALL).violations  # read off the sequence: the tails design


# ---------------------------------------------------------------- the keyframe schedule and the declared design

LONG = BattlesnakeConfig(7, 7, 2, max_ticks=60, exact_spawn_chance=True)  # space episode 0 of seed 0 lasts 48 ticks


def _tick(tokens, number):
    return next(item for item in parse(tokens) if isinstance(item, Tick) and item.number == number)


def _drop_keyframe(tokens, after):
    """The episode without the keyframe written after tick `after`, and where it began."""
    kf = _tick(tokens, after).keyframe
    assert kf is not None
    return [*tokens[: kf.start], *tokens[kf.end :]], kf.start


def _add_keyframe(record, after):
    """The episode with a true keyframe (the state after tick `after`) where the codec wrote none, and where it begins."""
    tick = _tick(record.tokens, after)
    assert tick.keyframe is None and tick.end_event is None
    return [*record.tokens[: tick.end], *keyframe_tokens(record.states[after]), *record.tokens[tick.end :]], tick.end


def _long(codec):
    record = GAME.play_episode(LONG, codec, "space", 0, 0)
    assert record.ticks == 48
    return record


def _codecs_and_configs():
    configs = [BattlesnakeConfig(7, 7, 2, max_ticks=40), BattlesnakeConfig(6, 6, 3, max_ticks=30), BattlesnakeConfig(5, 6, 1, max_ticks=30)]
    return [(BattlesnakeCodec(k, tails=tails), config) for k in (0, 1, 3, 20) for tails in (False, True) for config in configs]


@pytest.mark.parametrize(("codec", "config"), _codecs_and_configs(), ids=lambda v: str(v.to_dict()))
def test_the_encoders_episodes_keep_the_schedule(codec, config):
    """The encoder's own episodes pass for K in (0, 1, 3, 20), both designs, declared and read off the sequence."""
    for episode, agent in enumerate(["random", "safe", "greedy", "space"]):
        record = GAME.play_episode(config, codec, agent, 5, episode)
        assert record.tokens.count("SNAP") == 1 + sum(codec.keyframe_after(t) for t in range(1, record.ticks))
        for verdict in (GAME.validate(record.tokens, config, codec), validate(record.tokens, config)):
            assert verdict.valid, (agent, episode, verdict.violations, verdict.positions)


@pytest.mark.parametrize("interval", [0, 20])
@pytest.mark.parametrize("tails", [False, True])
def test_a_corpus_from_the_batch_engine_stays_valid(interval, tails):
    """Episodes of the batch engine (a mixed corpus's lineups) are all valid, declared and undeclared."""
    from gamegrammar.games import tokenizer_for

    codec = BattlesnakeCodec(interval, tails=tails)
    episodes = np.arange(24)
    result = GAME.play_batch(LONG, codec, 7, episodes, GAME.episode_agent_codes(GAME.default_agents, 7, episodes, LONG))
    tok, ends = tokenizer_for(LONG), np.cumsum(result.lengths)
    sequences = [tok.decode(result.tokens[end - n : end]) for end, n in zip(ends, result.lengths)]
    assert any(seq.count("SNAP") > 1 for seq in sequences) == (interval > 0)
    for verdict in [*GAME.validate_many(sequences, LONG, codec), *GAME.validate_many(sequences, LONG)]:
        assert verdict.valid, (verdict.violations, verdict.positions)


@pytest.mark.parametrize("interval", [0, 20])
def test_an_extra_keyframe_breaks_the_schedule(interval):
    """A true keyframe after a tick where the design writes none is reported at its SNAP, and nothing else."""
    codec = BattlesnakeCodec(interval)
    tokens, at = _add_keyframe(_long(codec), 5)
    assert tokens[at] == "SNAP"
    verdict = GAME.validate(tokens, LONG, codec)
    assert verdict.violations == ["keyframe_schedule"] and verdict.positions["keyframe_schedule"] == at
    # undeclared, the interval is read off the sequence: 5, so the keyframe after tick 10 is missing
    verdict = validate(tokens, LONG)
    assert verdict.violations == ["keyframe_schedule"] and verdict.positions["keyframe_schedule"] == _tick(tokens, 10).end


def test_a_missing_keyframe_breaks_the_schedule():
    codec = CodecConfig(keyframe_interval=20)
    tokens, at = _drop_keyframe(_long(codec).tokens, 20)
    assert tokens[at] == "TICK"
    verdict = GAME.validate(tokens, LONG, codec)
    assert verdict.violations == ["keyframe_schedule"] and verdict.positions["keyframe_schedule"] == at
    assert validate(tokens, LONG).valid  # undeclared: the first keyframe, after tick 40, says K = 40
    codec = CodecConfig(keyframe_interval=3)
    tokens, at = _drop_keyframe(_long(codec).tokens, 3)
    assert GAME.validate(tokens, LONG, codec).positions == {"keyframe_schedule": at}
    # undeclared: K = 6 read off the keyframe after tick 6, so the one after tick 9 is extra
    assert validate(tokens, LONG).positions == {"keyframe_schedule": _tick(tokens, 9).keyframe.start}


def test_the_declared_interval_is_the_codecs():
    tokens = _long(CodecConfig(keyframe_interval=3)).tokens
    assert GAME.validate(tokens, LONG, CodecConfig(keyframe_interval=3)).valid
    verdict = GAME.validate(tokens, LONG, CodecConfig(keyframe_interval=4))
    assert verdict.violations == ["keyframe_schedule"] and verdict.positions["keyframe_schedule"] == _tick(tokens, 3).keyframe.start
    assert validate(tokens, LONG, keyframe_interval=0).positions == {"keyframe_schedule": _tick(tokens, 3).keyframe.start}


def test_a_cut_off_or_finished_episode_is_not_the_schedules_business():
    codec = CodecConfig(keyframe_interval=3)
    tokens = _long(codec).tokens
    cut = tokens[: _tick(tokens, 3).keyframe.start]  # cut off right where the keyframe begins
    assert GAME.validate(cut, LONG, codec).violations == ["complete"]
    assert validate(cut, LONG).violations == ["complete"]
    # a keyframe after the end event is end_is_final's alone, declared or not
    after_end = replace(EXAMPLE, "WIN EOS", "WIN SNAP S1 X5 Y3 LEN5 H100 B_D B_D B_R B_S FOOD X0 Y2 X5 Y6 EOS")
    for interval in (0, 8):  # the episode ends on tick 8
        assert GAME.validate(after_end, SMALL, CodecConfig(keyframe_interval=interval)).violations == ["end_is_final"]


def test_a_free_word_in_a_declared_plain_sequence_is_a_grammar_error():
    """The plain design's grammar has no FREE: the sequence stops parsing there, and nothing after it is replayed."""
    tails = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True), "greedy", 0, 3).tokens
    verdict = GAME.validate(tails, SMALL, BattlesnakeCodec())
    assert verdict.violations == ["grammar"] and verdict.first_violation == tails.index("FREE")
    assert GAME.validate(tails, SMALL, CodecConfig()).violations == ["grammar"]  # a plain codec declares the plain design
    # one right FREE in a plain episode, and a wrong head after it: only the FREE is reported
    plain = EXAMPLE.split()
    tokens = replace(EXAMPLE, "S0 UP X5 Y4 S1 RIGHT X2 Y3", "S0 UP X5 Y4 S1 RIGHT FREE X1 Y3 X2 Y3")
    tokens = replace(tokens, "S0 DOWN X6 Y3", "S0 DOWN X6 Y2")
    assert validate(replace(EXAMPLE, "S0 DOWN X6 Y3", "S0 DOWN X6 Y2"), SMALL).violations == ["move_follows_input"]
    verdict = GAME.validate(tokens, SMALL, BattlesnakeCodec())
    assert verdict.positions == {"grammar": tokens.index("FREE")}
    # undeclared, a FREE makes it the tails design: the other moving tails miss theirs
    assert "tail_freed" in validate(tokens, SMALL).violations
    assert GAME.validate(plain, SMALL, BattlesnakeCodec()).valid


def test_opening_perturbations_are_impossible_starts():
    """Each variant changes only the opening keyframe, still parses, and first breaks a rule inside it."""
    for config in GAME.test_configs():
        for episode, agent in enumerate(GAME.agent_names):
            tokens = GAME.play_episode(config, CodecConfig(keyframe_interval=3), agent, 2, episode).tokens
            opening = tokens.index("TICK")
            variants = GAME.opening_perturbations(tokens, config)
            assert len({name for name, _ in variants}) == len(variants) >= 4
            for name, variant in variants:
                start = variant.index("TICK")
                assert variant[start:] == tokens[opening:] and variant[:start] != tokens[:opening], name
                items = list(parse(variant))
                assert isinstance(items[0], Keyframe) and len(items) == len(list(parse(tokens)))
                for verdict in (validate(variant, config), GAME.validate(variant, config, CodecConfig(keyframe_interval=3))):
                    assert not verdict.valid and verdict.first_violation < start, (name, verdict.violations)
                    assert verdict.violations[0] == "start_position", (name, verdict.violations)
