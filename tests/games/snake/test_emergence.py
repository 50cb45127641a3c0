"""Snake's tier 2: rule events and their context splits, counterfactual edits, and the tier-2 section."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gamegrammar.corpus import Corpus
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake import emergence as em
from gamegrammar.games.snake.grammar import Keyframe, Tick, parse
from gamegrammar.games.snake.rules import Direction, Outcome, resolve
from gamegrammar.games.snake.trace import trace
from gamegrammar.games.snake.validity import validate
from gamegrammar.hidden import next_logprobs
from gamegrammar.model import GameGPT, preset


def tiny_model(corpus: Corpus, seed: int = 0, **overrides: int) -> GameGPT:
    torch.manual_seed(seed)
    tick_id = corpus.tokenizer.ids[GAME.tick_token]
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256, tick_id=tick_id, **overrides)).eval()


@pytest.fixture(scope="module")
def corpus(tiny_corpus) -> Corpus:
    return Corpus(tiny_corpus)


def test_rule_events_match_the_episode(corpus):
    cfg = corpus.game
    for row in range(12):
        tokens = corpus.episode_tokens(row)
        events = em.rule_events(tokens, cfg)
        counts = {r: sum(e.rule == r for e in events) for r in em.RULES}
        r = corpus.index[row]
        assert counts["eat_when_food"] == counts["grow_after_eat"] == counts["score_increments"] == r["score"]
        assert counts["spawn_on_empty"] == r["score"]  # no WIN on a 10x10 board in 200 ticks
        end = corpus.index["end"][row]
        assert counts["wall_death"] == (end == 0) and counts["self_death"] == (end == 1) and counts["timeout_at_limit"] == (end == 3)
        alive = r["ticks"] - (end in (0, 1))
        assert counts["move_follows_input"] == alive
        for e in events:
            if e.rule == "eat_when_food":
                assert tokens[e.positions[0]] == "EAT"
            if e.rule == "move_follows_input":
                assert tokens[e.positions[0]] == "MOVE" and tokens[e.positions[1]].startswith("X")
            if e.rule == "spawn_on_empty":
                assert tokens[e.positions[0] - 1] == "FOOD_SPAWN"
                cell = (int(tokens[e.positions[0]][1:]), int(tokens[e.positions[0] + 1][1:]))
                assert cell not in e.occupied and len(e.occupied) == e.length + 1


def test_emergence_splits_add_up_and_eats_are_counted(corpus):
    rows = corpus.split("train")[:6]
    ids = [corpus.episode_ids(int(r)) for r in rows]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    result = em.rule_emergence(tiny_model(corpus), ids, tokens, corpus.tokenizer, corpus.game)
    assert result["episodes"] == 6
    rules = result["rules"]
    assert rules["eat_when_food"]["count"] == int(corpus.index["score"][rows].sum())
    for rule, entry in rules.items():
        for context, buckets in entry["by"].items():
            assert sum(b["count"] for b in buckets.values()) == entry["count"], (rule, context)
            assert set(buckets) <= set(result["contexts"][context])
        if entry["count"]:
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["accuracy"] <= 1
    spawn = rules["spawn_on_empty"]
    if spawn["count"]:
        assert spawn["mean_prob"] + spawn["occupied_mass"] <= 1 + 1e-6
        # An untrained model spreads its mass almost evenly: its share on empty cells is about the empty fraction.
        share = spawn["mean_prob"] / (spawn["mean_prob"] + spawn["occupied_mass"])
        assert abs(share - spawn["empty_fraction"]) < 0.1


def test_bucket_labels():
    edges = em.CONTEXTS["length"]
    assert em.bucket_label(1, edges) == "1" and em.bucket_label(3, edges) == "2-3" and em.bucket_label(40, edges) == "32+"
    assert em.bucket_labels(edges)[-1] == "32+"


def test_food_ahead_edit_puts_the_food_in_front_of_the_head(corpus):
    rng = np.random.default_rng(0)
    made = 0
    for row in range(20):
        tokens = corpus.episode_tokens(row)
        for probe in em.food_ahead_probes(tokens, corpus.game, row, rng):
            made += 1
            kf = next(parse(probe.tokens[:-2]))
            original = next(parse(probe.control[:-2]))
            assert isinstance(kf, Keyframe) and isinstance(original, Keyframe)
            d = kf.direction
            assert kf.food == (kf.head[0] + d.delta[0], kf.head[1] + d.delta[1]) != original.food
            assert probe.tokens[-1] == f"INPUT_{d.name}"
            # Everything but the food is untouched, and the rules say EAT.
            assert (kf.head, kf.body_steps, kf.score) == (original.head, original.body_steps, original.score)
            assert resolve(kf.state(0), corpus.game, d)[1] is Outcome.EAT
            assert resolve(original.state(0), corpus.game, d)[1].value == probe.control_mandated == "MOVE"
    assert made >= 15


def test_fatal_input_probes_are_what_the_rules_say(corpus):
    rng = np.random.default_rng(1)
    kinds = set()
    for row in range(30):
        tokens = corpus.episode_tokens(row)
        for probe in em.fatal_input_probes(tokens, corpus.game, row, rng):
            kinds.add(probe.kind)
            # The edited prefix with the mandated death is a complete, valid episode for the strict evaluator.
            assert validate([*probe.tokens, probe.mandated, "EOS"], corpus.game).valid
            assert probe.tokens[:-1] == probe.control[:-1] and probe.tokens[-1] != probe.control[-1]
            real = next(t for t in parse(tokens) if isinstance(t, Tick) and t.number == probe.tick)
            assert real.outcome == probe.control_mandated
    assert kinds == {"wall_ahead", "body_ahead"}


def test_counterfactuals_and_tier2_shape(corpus):
    rows = corpus.split("train")[:5]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    ids = [corpus.episode_ids(int(r)) for r in rows]
    model = tiny_model(corpus, seed=1)
    result = em.tier2(model, ids, tokens, corpus.tokenizer, corpus.game)
    cf = result["counterfactuals"]
    assert cf["model"]["food_ahead"]["count"] == 5
    for kind, entry in cf["model"].items():
        if entry["count"]:
            assert cf["untrained"][kind]["count"] == entry["count"]
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["control_mean_prob"] <= 1
    assert "untrained" in result["emergence"]["rules"]["move_follows_input"]
    lines = em.markdown(result)
    assert any("food_ahead" in line for line in lines)
    json.dumps(result)  # plain python values only


def test_traced_states_are_the_states_after_ticks(corpus):
    """The convention rule_events relies on: trace(...)[k] is the state after tick k."""
    tokens = corpus.episode_tokens(0)
    states = trace(tokens, corpus.game)
    ticks = [t for t in parse(tokens) if isinstance(t, Tick)]
    assert len(states) == len(ticks) + 1
    for t in ticks[:20]:
        if t.move is not None:
            assert states[t.number].head == t.move


def test_game_spec_gives_this_module():
    assert GAME.emergence() is em


# ---------------------------------------------------------------- the tail-events design


@pytest.fixture(scope="module")
def tails(tails_corpus) -> Corpus:
    return Corpus(tails_corpus)


def test_tail_events_add_the_tail_freed_rule_and_keep_the_outcomes_where_they_are_written(tails):
    for row in range(12):
        tokens = tails.episode_tokens(row)
        events = em.rule_events(tokens, tails.game)
        freed = [e for e in events if e.rule == "tail_freed"]
        assert len(freed) == tokens.count("FREE") > 0
        for e in freed:
            assert tokens[e.positions[0]] == "FREE" and tokens[e.positions[1]][0] == "X" and tokens[e.positions[2]][0] == "Y"
        for e in events:
            if e.rule == "self_death":  # P(DIE_SELF | ... INPUT_d FREE Xt Yt): the head enters the body, the freed cell known
                assert tokens[e.positions[0]] == "DIE_SELF" and tokens[e.positions[0] - 3] == "FREE"
            if e.rule == "wall_death":
                assert tokens[e.positions[0]] == "DIE_WALL" and tokens[e.positions[0] - 1].startswith("INPUT_")


def test_tail_events_probes_run_up_to_the_outcome_word(tails):
    rng = np.random.default_rng(1)
    kinds = set()
    for row in range(30):
        tokens = tails.episode_tokens(row)
        for probe in em.fatal_input_probes(tokens, tails.game, row, rng) + em.food_ahead_probes(tokens, tails.game, row, rng):
            kinds.add(probe.kind)
            assert validate([*probe.tokens, probe.mandated, "EOS"], tails.game).valid or probe.kind == "food_ahead"
            assert (probe.tokens[-3] == "FREE") == (probe.mandated == "DIE_SELF")  # only a self-death frees the tail
            assert (probe.control[-3] == "FREE") == (probe.control_mandated in ("MOVE", "DIE_SELF"))
            if probe.kind != "food_ahead":  # the control is the real episode up to its outcome word
                assert tokens[: len(probe.control)] == probe.control and tokens[len(probe.control)] == probe.control_mandated
    assert kinds == {"wall_ahead", "body_ahead", "food_ahead"}


def test_tier2_on_tail_events_and_only_there_scores_tail_freed(tails, corpus):
    rows = tails.split("train")[:4]
    model = tiny_model(tails, seed=2)
    result = em.tier2(
        model, [tails.episode_ids(int(r)) for r in rows], [tails.episode_tokens(int(r)) for r in rows], tails.tokenizer, tails.game
    )
    entry = result["emergence"]["rules"]["tail_freed"]
    assert entry["count"] == sum(tails.episode_tokens(int(r)).count("FREE") for r in rows) and 0 <= entry["mean_prob"] <= 1
    body = [p for p in em.make_probes([tails.episode_tokens(int(r)) for r in rows], tails.game) if p.kind == "body_ahead"]
    if body:  # scored on the whole edited prefix, FREE cell included
        want = float(next_logprobs(model, [tails.tokenizer.encode(body[0].tokens)])[0, tails.tokenizer.ids["DIE_SELF"]].exp())
        alone = em.score_probes(model, body[:1], tails.tokenizer, [tails.episode_tokens(int(r)) for r in rows])
        assert alone["body_ahead"]["mean_prob"] == pytest.approx(want, rel=1e-5)
    v1_rows = corpus.split("train")[:2]
    v1 = em.rule_emergence(
        tiny_model(corpus),
        [corpus.episode_ids(int(r)) for r in v1_rows],
        [corpus.episode_tokens(int(r)) for r in v1_rows],
        corpus.tokenizer,
        corpus.game,
    )
    assert "tail_freed" not in v1["rules"] and list(v1["rules"]) == [r for r in em.RULES if r not in em.DESIGN_RULES]


# ---------------------------------------------------------------- the head-first design


@pytest.fixture(scope="module")
def head_first(head_first_corpus) -> Corpus:
    return Corpus(head_first_corpus)


def test_head_first_scores_the_cell_after_the_input_and_the_outcome_word_after_the_cell(head_first, corpus):
    """The same games as the tiny corpus: the same rule events at the same ticks, at the head-first positions."""
    self_deaths = 0
    for row in range(20):
        tokens, v1_tokens = head_first.episode_tokens(row), corpus.episode_tokens(row)
        events, v1 = em.rule_events(tokens, head_first.game), em.rule_events(v1_tokens, corpus.game)
        assert not any(e.rule == "tail_freed" for e in events)
        end = tokens[-2]
        self_deaths += end == "DIE_SELF"
        moves = [e for e in events if e.rule == "move_follows_input"]
        assert len(moves) == sum(e.rule == "move_follows_input" for e in v1) + (end == "DIE_SELF")  # a self-death's cell too
        assert [(e.rule, e.tick, e.length, e.ticks_since_keyframe) for e in events if e.rule != "move_follows_input"] == [
            (e.rule, e.tick, e.length, e.ticks_since_keyframe) for e in v1 if e.rule != "move_follows_input"
        ]
        for e in moves:  # the two cell tokens right after INPUT_d, not the outcome word after them
            x, y = e.positions
            assert tokens[x - 1].startswith("INPUT_") and tokens[x][0] == "X" and y == x + 1 and tokens[y][0] == "Y"
        for e in events:
            at = e.positions[0]
            if e.rule == "self_death":  # P(DIE_SELF | ... TICK INPUT_d Xx Yy): the cell it runs into written first
                assert tokens[at] == "DIE_SELF" and tokens[at - 3].startswith("INPUT_") and tokens[at - 2][0] == "X"
            if e.rule == "eat_when_food":
                assert tokens[at] == "EAT" and tokens[at - 3].startswith("INPUT_") and tokens[at + 1] == "GROW"
            if e.rule == "wall_death":
                assert tokens[at] == "DIE_WALL" and tokens[at - 1].startswith("INPUT_")
    assert self_deaths > 0


def test_head_first_probes_write_the_heads_cell_before_the_outcome_word(head_first):
    rng = np.random.default_rng(1)
    kinds = set()
    for row in range(30):
        tokens = head_first.episode_tokens(row)
        states = trace(tokens, head_first.game)
        for probe in em.fatal_input_probes(tokens, head_first.game, row, rng) + em.food_ahead_probes(tokens, head_first.game, row, rng):
            kinds.add(probe.kind)
            for prefix, word in ((probe.tokens, probe.mandated), (probe.control, probe.control_mandated)):
                # TICK INPUT_d, then the head's cell unless the input leads off the board
                assert (prefix[-1].startswith("INPUT_")) == (word == "DIE_WALL"), (probe.kind, prefix[-4:], word)
                if word != "DIE_WALL":
                    assert prefix[-3].startswith("INPUT_") and prefix[-2][0] == "X" and prefix[-1][0] == "Y"
            if probe.kind == "food_ahead":
                kf = next(parse(probe.tokens[:-4]))
                assert isinstance(kf, Keyframe) and probe.tokens[-2:] == [f"X{kf.food[0]}", f"Y{kf.food[1]}"]  # the head enters the food
                continue
            before = states[probe.tick - 1]
            direction = Direction[probe.tokens[-1 if probe.mandated == "DIE_WALL" else -3][len("INPUT_") :]]
            _, outcome, cell = resolve(before, head_first.game, direction)
            assert outcome.value == probe.mandated
            if probe.kind == "body_ahead":
                assert probe.tokens[-2:] == [f"X{cell[0]}", f"Y{cell[1]}"] and cell in before.body
            whole = [*probe.tokens, probe.mandated, "EOS"]
            assert validate(whole, head_first.game).valid and validate(whole, head_first.game, head_first=True).valid
            assert tokens[: len(probe.control)] == probe.control and tokens[len(probe.control)] == probe.control_mandated
    assert kinds == {"wall_ahead", "body_ahead", "food_ahead"}


def test_tier2_on_head_first_scores_the_outcome_word_with_the_cell_known(head_first):
    rows = head_first.split("train")[:3]
    tokens = [head_first.episode_tokens(int(r)) for r in rows]
    model = tiny_model(head_first, seed=2)
    result = em.rule_emergence(
        model, [head_first.episode_ids(int(r)) for r in rows], tokens, head_first.tokenizer, head_first.game, spawn=False
    )
    assert "tail_freed" not in result["rules"]
    events = [e for t in tokens for e in em.rule_events(t, head_first.game)]
    assert result["rules"]["move_follows_input"]["count"] == sum(e.rule == "move_follows_input" for e in events)
    body = [p for p in em.make_probes(tokens, head_first.game) if p.kind == "body_ahead"]
    assert body
    want = float(next_logprobs(model, [head_first.tokenizer.encode(body[0].tokens)])[0, head_first.tokenizer.ids["DIE_SELF"]].exp())
    alone = em.score_probes(model, body[:1], head_first.tokenizer, tokens)  # scored on the whole edited prefix, the cell included
    assert alone["body_ahead"]["mean_prob"] == pytest.approx(want, rel=1e-5)


# ---------------------------------------------------------------- the sense design


@pytest.fixture(scope="module")
def sensed(sense_corpus) -> Corpus:
    return Corpus(sense_corpus)


def test_sense_scores_every_sense_word_and_self_death_jointly_with_it(sensed, corpus):
    """The same games as the tiny corpus: grammar v1's rule events at the same ticks, plus one SENSE word per tick."""
    beside = 0
    for row in range(20):
        tokens, v1_tokens = sensed.episode_tokens(row), corpus.episode_tokens(row)
        events, v1 = em.rule_events(tokens, sensed.game), em.rule_events(v1_tokens, corpus.game)
        states = trace(tokens, sensed.game)
        mine = [e for e in events if not e.rule.startswith("body_sensed")]
        assert [(e.rule, e.tick, e.length) for e in mine] == [(e.rule, e.tick, e.length) for e in v1]
        words = [e for e in events if e.rule == "body_sensed"]
        assert [tokens[e.positions[0]] for e in words] == [t for t in tokens if t.startswith("SENSE_")]
        for e in events:
            if e.rule == "body_sensed_beside":  # body other than the neck is beside the head
                before = states[e.tick - 1]
                assert set(before.body[:-1]) & {(before.head[0] + d.delta[0], before.head[1] + d.delta[1]) for d in Direction} - {
                    before.body[1]
                }
                beside += 1
            if e.rule == "self_death":  # the SENSE word and DIE_SELF, jointly
                sense, word = e.positions
                assert tokens[sense].startswith("SENSE_") and tokens[word] == "DIE_SELF" and word == sense + 1
    assert beside > 0


def test_tier2_on_sense_reports_its_rules_and_probes_hold_the_true_sense_word(sensed):
    rows = sensed.split("train")[:3]
    tokens = [sensed.episode_tokens(int(r)) for r in rows]
    model = tiny_model(sensed, seed=2)
    result = em.rule_emergence(model, [sensed.episode_ids(int(r)) for r in rows], tokens, sensed.tokenizer, sensed.game, spawn=False)
    assert "tail_freed" not in result["rules"] and result["rules"]["body_sensed"]["count"] == sum(
        t.startswith("SENSE_") for episode in tokens for t in episode
    )
    rng = np.random.default_rng(1)
    probes = [p for r in range(20) for p in em.fatal_input_probes(sensed.episode_tokens(r), sensed.game, r, rng)]
    assert {p.kind for p in probes} == {"wall_ahead", "body_ahead"}
    for probe in probes:  # TICK INPUT_d SENSE_s: the true word of the state, the same in the edit and the control
        assert probe.tokens[-2].startswith("INPUT_") and probe.tokens[-1] == probe.control[-1] and probe.tokens[-1].startswith("SENSE_")
        whole = [*probe.tokens, probe.mandated, "EOS"]
        assert validate(whole, sensed.game).valid and validate(whole, sensed.game, sense=True).valid
