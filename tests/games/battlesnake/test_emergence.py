"""Battlesnake's tier 2: rule events and their context splits, counterfactual edits, and the tier-2 section."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch

from gamegrammar.data.corpus import Corpus
from gamegrammar.emergence.rule_emergence import bucket_label
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake import emergence as em
from gamegrammar.games.battlesnake.grammar import CAUSE_OF, INPUT_OF, SMELL_OF, BattlesnakeCodec
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig
from gamegrammar.games.battlesnake.validity import validate
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import next_logprobs


@pytest.fixture(scope="module")
def corpus(bs_corpus) -> Corpus:
    return Corpus(bs_corpus)


def tiny_model(corpus: Corpus, seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    tick_id = corpus.tokenizer.ids[GAME.tick_token]
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256, tick_id=tick_id)).eval()


def test_rule_events_match_the_written_episode(corpus):
    cfg = corpus.game
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        counts = Counter(e.rule for e in em.rule_events(tokens, cfg))
        written = Counter(tokens)
        moves = sum(written[d] for d in ("UP", "DOWN", "LEFT", "RIGHT"))
        assert counts["move_follows_input"] == moves
        assert counts["eat_when_head_on_food"] == counts["grow_after_eat"] == counts["health_reset"] == written["EAT"]
        assert counts["spawn_on_open"] == written["SPAWN"]
        deaths = sum(written[t] for t in CAUSE_OF)
        rules = ("starvation", "wall_collision", "self_collision", "body_collision", "head_to_head_death")
        assert sum(counts[r] for r in rules) == deaths and counts["head_to_head_death"] >= written["DIE_HEAD"]
        assert counts["end_when_decided"] + counts["timeout_at_limit"] == 1
    events = [e for row in range(len(corpus)) for e in em.rule_events(corpus.episode_tokens(row), cfg)]
    meetings = [e for e in events if e.rule == "head_to_head_death"]
    assert meetings and all(e.gap is not None and e.gap >= 0 for e in meetings)


def test_the_smell_designs_words_are_rule_events():
    """Every SMELL word is a food_smelled event at its own position, and those that name food are food_smelled_beside."""
    config = GAME.test_configs()[0]
    tokens = GAME.play_episode(config, BattlesnakeCodec(smell=True), "greedy", 0, 25).tokens
    events = em.rule_events(tokens, config)
    words = [i for i, t in enumerate(tokens) if t.startswith("SMELL_")]
    assert sorted(e.positions[0] for e in events if e.rule == "food_smelled") == words
    beside = [i for i in words if tokens[i] != "SMELL_NONE"]
    assert beside and sorted(e.positions[0] for e in events if e.rule == "food_smelled_beside") == beside
    plain = GAME.play_episode(config, BattlesnakeCodec(), "greedy", 0, 25).tokens
    assert not {"food_smelled", "food_smelled_beside"} & {e.rule for e in em.rule_events(plain, config)}
    # food_ahead in the smell design: the edited prefix's last word names the food the edit put where the input goes
    rng = np.random.default_rng(0)
    episodes = (GAME.play_episode(config, BattlesnakeCodec(smell=True), "greedy", 0, e).tokens for e in range(20))
    probes = [p for e, tokens in enumerate(episodes) for p in em.food_ahead_probes(tokens, config, e, rng)]
    assert probes
    for probe in probes:
        edited, real = ([t for t in seq if t in SMELL_OF][-1] for seq in (probe.tokens, probe.control))
        at = max(i for i, t in enumerate(probe.tokens) if t in SMELL_OF)
        direction = int(INPUT_OF[probe.tokens[at - 1]])
        assert SMELL_OF[edited] >> direction & 1 and not SMELL_OF[real] >> direction & 1


def test_the_hits_designs_words_are_rule_events_and_probes_keep_the_design():
    """Every HIT and MEET is a collision_marked event; a wall probe's edited move off the board drops its HIT, and a
    head-to-head probe's edited tick writes the MEET its meeting makes."""
    config = BattlesnakeConfig(7, 7, 4, max_ticks=60)
    codec = BattlesnakeCodec(hits=True)
    episodes = [GAME.play_episode(config, codec, "safe,greedy,random,space", 0, e).tokens for e in range(12)]
    marks = [(e, i) for e, tokens in enumerate(episodes) for i, t in enumerate(tokens) if t in ("HIT", "MEET")]
    events = [
        (e, p)
        for e, tokens in enumerate(episodes)
        for ev in em.rule_events(tokens, config)
        if ev.rule == "collision_marked"
        for p in ev.positions
    ]
    assert marks and sorted(events) == marks
    rng = np.random.default_rng(0)
    walls = [p for e, tokens in enumerate(episodes) for p in em.wall_ahead_probes(tokens, config, e, rng, per_episode=50)]
    assert walls and not any(p.tokens[-1] == "HIT" for p in walls)
    heads = [p for p in em.make_probes(episodes, config) if p.kind == "head_to_head"]
    last_tick = [len(p.tokens) - 1 - p.tokens[::-1].index("TICK") for p in heads]
    assert heads and all("MEET" in p.tokens[at:] for p, at in zip(heads, last_tick))


def test_emergence_splits_add_up(corpus):
    rows = list(range(4))
    ids = [corpus.episode_ids(r) for r in rows]
    tokens = [corpus.episode_tokens(r) for r in rows]
    result = em.rule_emergence(tiny_model(corpus), ids, tokens, corpus.tokenizer, corpus.game)
    assert result["episodes"] == 4
    for rule, entry in result["rules"].items():
        for context, buckets in entry["by"].items():
            if context == "length_gap":
                continue
            assert sum(b["count"] for b in buckets.values()) == entry["count"], (rule, context)
        if entry["count"]:
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["accuracy"] <= 1
    gap = result["rules"]["head_to_head_death"]
    assert sum(b["count"] for b in gap["by"].get("length_gap", {}).values()) == gap["count"]
    spawn = result["rules"]["spawn_on_open"]
    if spawn["count"]:  # an untrained model spreads its cell mass about evenly: its open share is about the open fraction
        assert spawn["mean_prob"] <= 1 and abs(spawn["open_share"] - spawn["open_fraction"]) < 0.15


def test_probes_mandate_what_the_rules_give(corpus):
    tokens = [corpus.episode_tokens(r) for r in range(len(corpus))]
    probes = em.make_probes(tokens, corpus.game, seed=1)
    assert {p.kind for p in probes} == set(em.PROBE_KINDS)
    for p in probes:
        verdict = validate([*p.tokens, *p.mandated], corpus.game)
        allowed = {"complete", "keyframe_matches_state", "start_position"} if p.kind == "food_ahead" else {"complete"}
        assert set(verdict.violations) <= allowed, (p.kind, verdict.violations)
        assert p.mandated[-1] == em.PROBE_KINDS[p.kind]
        assert p.control == tokens[p.episode][: len(p.control)] and p.control_mandated == tokens[p.episode][len(p.control)]


def test_probes_branched_from_their_episodes_score_as_their_whole_prefixes(corpus):
    tokens = [corpus.episode_tokens(r) for r in range(len(corpus))]
    probes = em.make_probes(tokens, corpus.game, seed=1)
    model, tok = tiny_model(corpus), corpus.tokenizer
    scored = em.score_probes(model, probes, tok, tokens)
    for kind in em.PROBE_KINDS:  # the oracle: every prefix run whole
        rows = [p for p in probes if p.kind == kind]
        edited = next_logprobs(model, [tok.encode(p.tokens) for p in rows])
        control = next_logprobs(model, [tok.encode(p.control) for p in rows])
        first = torch.tensor([tok.ids[p.mandated[0]] for p in rows])
        logp = edited.gather(1, first[:, None])[:, 0]
        if len(rows[0].mandated) > 1:
            second = next_logprobs(model, [[*tok.encode(p.tokens), tok.ids[p.mandated[0]]] for p in rows])
            logp = logp + second.gather(1, torch.tensor([[tok.ids[p.mandated[1]]] for p in rows]))[:, 0]
        want = {"mean_prob": float(logp.exp().mean()), "control_mean_prob": float(control.gather(1, first[:, None]).exp().mean())}
        assert scored[kind]["count"] == len(rows) > 0
        assert {k: scored[kind][k] for k in want} == pytest.approx(want, rel=1e-4, abs=1e-6), kind


def test_tier2_section_renders(corpus, tmp_path):
    rows = list(range(3))
    ids = [corpus.episode_ids(r) for r in rows]
    tokens = [corpus.episode_tokens(r) for r in rows]
    heard: list[int] = []
    result = GAME.emergence().tier2(tiny_model(corpus), ids, tokens, corpus.tokenizer, corpus.game, seed=0, progress=heard.append)
    assert set(result) == {"emergence", "counterfactuals"} and heard == [1] * 6
    assert "untrained" in result["emergence"]["rules"]["move_follows_input"]
    lines = em.markdown(result)
    assert lines[0].startswith("## Tier 2") and any("head_to_head_death" in line for line in lines)
    assert em.plot(result, tmp_path) == ["emergence.png", "counterfactuals.png"]
    assert all((tmp_path / name).stat().st_size > 0 for name in ("emergence.png", "counterfactuals.png"))


def test_bucket_labels():
    edges = em.CONTEXTS["length"]
    assert bucket_label(3, edges) == "3" and bucket_label(5, edges) == "4-5" and bucket_label(30, edges) == "24+"
    assert bucket_label(0, em.CONTEXTS["length_gap"]) == "0"


def test_tier2_refuses_the_cells_design_in_one_line():
    """Tier 2 reads and edits the pair spelling: a cells corpus is refused before any model is read, not misread."""
    from gamegrammar.core.errors import GameGrammarError

    config = GAME.test_configs()[0]
    tokens = GAME.play_episode(config, BattlesnakeCodec(cells=True), "greedy", 0, 1).tokens
    with pytest.raises(GameGrammarError, match="cells design"):
        em.tier2(None, [], [tokens], None, config)  # type: ignore[arg-type]
