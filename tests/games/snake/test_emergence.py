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
from gamegrammar.games.snake.rules import Outcome, resolve
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
    assert "tail_freed" not in v1["rules"] and list(v1["rules"]) == [r for r in em.RULES if r != "tail_freed"]
