"""Snake's tier 2: rule events and their context splits, counterfactual edits, and the tier-2 section."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.emergence.rule_emergence import bucket_label, bucket_labels
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake import emergence as em
from gamegrammar.games.snake.grammar import COLUMN_WORDS, Keyframe, SnakeCodec, Tick, parse, uses_spawn_column
from gamegrammar.games.snake.rules import Direction, Outcome, column_occupancy, resolve
from gamegrammar.games.snake.trace import trace
from gamegrammar.games.snake.validity import validate
from gamegrammar.model import GameGPT, hidden, preset
from gamegrammar.model.hidden import next_logprobs


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
            split = sum(b["count"] for b in buckets.values())
            # from_tail splits only the body's events (self death here: grammar v1 writes no SENSE word)
            assert split == (entry["count"] if context != "from_tail" or rule == "self_death" else 0), (rule, context)
            assert set(buckets) <= set(result["contexts"][context])
        if entry["count"]:
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["accuracy"] <= 1
    spawn = rules["spawn_on_empty"]
    if spawn["count"]:
        assert spawn["mean_prob"] + spawn["occupied_mass"] <= 1 + 1e-6
        # An untrained model spreads its mass almost evenly: its share on empty cells is about the empty fraction.
        share = spawn["mean_prob"] / (spawn["mean_prob"] + spawn["occupied_mass"])
        assert abs(share - spawn["empty_fraction"]) < 0.1
        # ... and so about an empty cell's mass on each body cell; every body cell is counted once, in one place.
        places = spawn["body_places"]
        assert "head" in places and all(0.5 < b["relative_mass"] < 2 for b in places.values())
        assert sum(b["cells"] for b in places.values()) == sum(
            len(e.body) for t in tokens for e in em.rule_events(t, corpus.game) if e.body
        )


def test_bucket_labels():
    edges = em.CONTEXTS["length"]
    assert bucket_label(1, edges) == "1" and bucket_label(3, edges) == "2-3" and bucket_label(40, edges) == "32+"
    assert bucket_labels(edges)[-1] == "32+"


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
            assert validate([*probe.tokens, *probe.mandated, "EOS"], corpus.game).valid
            assert probe.tokens[:-1] == probe.control[:-1] and probe.tokens[-1] != probe.control[-1]
            real = next(t for t in parse(tokens) if isinstance(t, Tick) and t.number == probe.tick)
            assert real.outcome == probe.control_mandated
    assert kinds == {"wall_ahead", "body_ahead"}


def test_counterfactuals_and_tier2_shape(corpus):
    rows = corpus.split("train")[:5]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    ids = [corpus.episode_ids(int(r)) for r in rows]
    model = tiny_model(corpus, seed=1)
    heard: list[int] = []
    result = em.tier2(model, ids, tokens, corpus.tokenizer, corpus.game, progress=heard.append)
    assert heard == [1] * 10  # each episode, read by the model and by the untrained one
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
            assert validate([*probe.tokens, *probe.mandated, "EOS"], tails.game).valid or probe.kind == "food_ahead"
            assert (probe.tokens[-3] == "FREE") == (probe.mandated == ["DIE_SELF"])  # only a self-death frees the tail
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
            for prefix, word in ((probe.tokens, probe.mandated[0]), (probe.control, probe.control_mandated)):
                # TICK INPUT_d, then the head's cell unless the input leads off the board
                assert (prefix[-1].startswith("INPUT_")) == (word == "DIE_WALL"), (probe.kind, prefix[-4:], word)
                if word != "DIE_WALL":
                    assert prefix[-3].startswith("INPUT_") and prefix[-2][0] == "X" and prefix[-1][0] == "Y"
            if probe.kind == "food_ahead":
                kf = next(parse(probe.tokens[:-4]))
                assert isinstance(kf, Keyframe) and probe.tokens[-2:] == [f"X{kf.food[0]}", f"Y{kf.food[1]}"]  # the head enters the food
                continue
            before = states[probe.tick - 1]
            direction = Direction[probe.tokens[-1 if probe.mandated == ["DIE_WALL"] else -3][len("INPUT_") :]]
            _, outcome, cell = resolve(before, head_first.game, direction)
            assert [outcome.value] == probe.mandated
            if probe.kind == "body_ahead":
                assert probe.tokens[-2:] == [f"X{cell[0]}", f"Y{cell[1]}"] and cell in before.body
            whole = [*probe.tokens, *probe.mandated, "EOS"]
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
        whole = [*probe.tokens, *probe.mandated, "EOS"]
        assert validate(whole, sensed.game).valid and validate(whole, sensed.game, sense=True).valid


# ---------------------------------------------------------------- the spawn-column option


def sense_corpus_with(tmp_path_factory, option: str) -> Corpus:
    """The sense corpus's games (10x10, 200 ticks, default agent mix, seed 11) with a spawn design's option on too."""
    out = tmp_path_factory.mktemp(f"{option}-corpus")
    generate(CorpusSpec(codec=SnakeCodec(sense=True, **{option: True}), episodes=120, seed=11, shard_episodes=50), out, engine="scalar")
    return Corpus(out)


def assert_the_rest_is_the_sense_design(events: list, sensed: Corpus, row: int, prefix: str) -> None:
    """A spawn design's episode has the sense design's rule events, once its own rules (named `prefix`...) are left out."""
    sense = em.rule_events(sensed.episode_tokens(row), sensed.game)
    assert [(e.rule, e.tick, e.length) for e in events if not e.rule.startswith(prefix)] == [(e.rule, e.tick, e.length) for e in sense]


@pytest.fixture(scope="module")
def columns(tmp_path_factory) -> Corpus:
    return sense_corpus_with(tmp_path_factory, "spawn_column")


def test_spawn_column_scores_the_column_words_and_leaves_the_rest_as_the_sense_design(columns, sensed):
    occ = 0
    for row in range(20):
        tokens = columns.episode_tokens(row)
        events = em.rule_events(tokens, columns.game)
        assert_the_rest_is_the_sense_design(events, sensed, row, "column")
        states = trace(tokens, columns.game)
        spawns = [e for e in events if e.rule == "spawn_on_empty"]
        words = [e for e in events if e.rule == "column_sensed"]
        assert len(words) == len(spawns) == tokens.count("FOOD_SPAWN")
        for spawn, e in zip(spawns, words):  # the H words between the spawn's X and its Y, for the grown body
            x = spawn.positions[0]
            assert e.positions == list(range(x + 1, x + 1 + columns.game.height)) and tokens[e.positions[-1] + 1][0] == "Y"
            truth = column_occupancy(states[e.tick].body, int(tokens[x][1:]), columns.game)
            assert [tokens[i] for i in e.positions] == [COLUMN_WORDS[o] for o in truth]
        body = [e for e in events if e.rule == "column_sensed_body"]  # one event per OCC word
        assert [tokens[e.positions[0]] for e in body] == ["OCC"] * tokens.count("OCC")
        occ += len(body)
    assert occ > 0


@torch.no_grad()
def _brute_spawns(model: GameGPT, corpus: Corpus, row: int, spawns: int) -> list[dict[str, float]]:
    """The first spawns' figures from whole forwards of prefix + X + column words (no cache), one per column."""
    tokens, ids = corpus.episode_tokens(row), [int(t) for t in corpus.episode_ids(row)]
    states, cfg, tok = trace(tokens, corpus.game), corpus.game, corpus.tokenizer
    column = uses_spawn_column(tokens)
    out = []
    for e in [e for e in em.rule_events(tokens, cfg) if e.rule == "spawn_on_empty"][:spawns]:
        p, body = e.positions[0], states[e.tick].body
        before = torch.log_softmax(model(torch.tensor([ids[:p]]))[0][0], -1)
        p_x = before[-1].exp()
        listed = e.positions[1:]  # the body-list design: the true list's probability multiplies every cell's
        p_list = float(sum(before[i - 1, ids[i]] for i in listed).exp()) if listed else 1.0
        list_right = all(int(before[i - 1].argmax()) == ids[i] for i in listed)
        empty = occupied = given_empty = given_all = mass = 0.0
        greedy, given = {}, {}
        for x in range(cfg.width):
            words = [COLUMN_WORDS[o] for o in column_occupancy(body, x, cfg)] if column else []
            seq = [*ids[:p], tok.ids[f"X{x}"], *(tok.ids[w] for w in words)]
            lp = torch.log_softmax(model(torch.tensor([seq]))[0][0], -1)
            said = [lp[p + j, tok.ids[w]] for j, w in enumerate(words)]
            p_words = float(torch.stack(said).sum().exp()) if said else 1.0
            p_y = lp[-1, [tok.ids[f"Y{y}"] for y in range(cfg.height)]].exp()
            px = float(p_x[tok.ids[f"X{x}"]])
            mass += px * p_words
            for y in range(cfg.height):
                on_body = (x, y) in body
                empty += 0 if on_body else px * p_words * float(p_y[y]) * p_list
                occupied += px * p_words * float(p_y[y]) * p_list if on_body else 0
                given_empty += 0 if on_body else px * float(p_y[y])
                given_all += px * float(p_y[y])
                given[x, y] = px * float(p_y[y])
            right = all(int(lp[p + j].argmax()) == tok.ids[w] for j, w in enumerate(words))
            greedy[x] = list_right and right and (x, int(p_y.argmax())) not in body
        best = max(range(cfg.width), key=lambda x: float(p_x[tok.ids[f"X{x}"]]))
        per_empty = given_empty / (cfg.cells - len(body))
        places: dict[str, list[float]] = {}
        for i, cell in enumerate(body):
            place = "head" if i == 0 else "tail" if i == len(body) - 1 else "before the tail" if i >= len(body) - 3 else "body"
            places.setdefault(place, []).append(given[cell] / per_empty)
        out.append(
            {
                "empty": empty,
                "occupied": occupied,
                "share": given_empty / given_all,
                "column": mass,
                "list": p_list,
                "hit": greedy[best],
                "places": places,
            }
        )
    return out


def _briefly_trained(corpus: Corpus, steps: int = 40) -> GameGPT:
    """A context of 1024 taught the first 256 tokens of 8 episodes: column words and rows with real mass, not 1/V each."""
    model = tiny_model(corpus, seed=3, block_size=1024)
    episodes = (corpus.episode_ids(int(r)) for r in corpus.split("train"))
    rows = [[int(t) for t in ids[:257]] for ids in episodes if len(ids) > 256][:8]
    batch, targets = torch.tensor([r[:-1] for r in rows]), torch.tensor([r[1:] for r in rows])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        model(batch, targets)[1].backward()
        opt.step()
    return model.eval()


@pytest.mark.parametrize(
    ("design", "trained"), [("v1", False), ("spawn_column", False), ("spawn_column", True), ("body_list", False), ("body_list", True)]
)
def test_spawn_mass_is_the_joint_of_the_column_words_and_the_row(design, trained, columns, listed, corpus):
    """Against whole forwards: P(X = x) · P(column x's true words | x) · P(Y | x, words) summed over the empty cells (in
    grammar v1, with no words, P(X) · P(Y | X) as before; in the body-list design times P(the true list)), its occupied
    twin, the share and greedy decoding's cell."""
    source = {"spawn_column": columns, "body_list": listed}.get(design, corpus)
    model = _briefly_trained(source) if trained else tiny_model(source, seed=3, block_size=1024)
    row = next(r for r in range(40) if int(source.index["score"][r]) >= 3 and len(source.episode_tokens(r)) < 1000)
    result = em.rule_emergence(
        model, [source.episode_ids(row)], [source.episode_tokens(row)], source.tokenizer, source.game, max_spawns_per_episode=3
    )
    spawn = result["rules"]["spawn_on_empty"]
    want = _brute_spawns(model, source, row, 3)
    assert spawn["count"] == 3
    assert spawn["mean_prob"] == pytest.approx(np.mean([w["empty"] for w in want]), rel=1e-3)
    assert spawn["occupied_mass"] == pytest.approx(np.mean([w["occupied"] for w in want]), rel=1e-3)
    assert spawn["empty_share"] == pytest.approx(np.mean([w["share"] for w in want]), rel=1e-4)
    assert spawn["accuracy"] == np.mean([w["hit"] for w in want])
    places = {p: [v for w in want for v in w["places"].get(p, [])] for p in em.BODY_PLACES}
    assert {p: b["cells"] for p, b in spawn["body_places"].items()} == {p: len(v) for p, v in places.items() if v}
    for place, b in spawn["body_places"].items():  # each body cell's mass against the mean empty cell's
        assert b["relative_mass"] == pytest.approx(np.mean(places[place]), rel=1e-3), place
    if design == "v1":
        assert "column_mass" not in spawn and "column_sensed" not in result["rules"] and "list_mass" not in spawn
        assert all(w["share"] == pytest.approx(w["empty"] / (w["empty"] + w["occupied"]), rel=1e-6) for w in want)  # as before
    elif design == "body_list":
        assert "column_mass" not in spawn and "column_sensed" not in result["rules"]
        assert spawn["list_mass"] == pytest.approx(np.mean([w["list"] for w in want]), rel=1e-3)
        assert all(w["share"] == pytest.approx(w["empty"] / (w["empty"] + w["occupied"]), rel=1e-5) for w in want)  # one factor
        assert not trained or spawn["list_mass"] > 1e-6  # a list the model writes: the list's factor is tested
    else:
        assert spawn["column_mass"] == pytest.approx(np.mean([w["column"] for w in want]), rel=1e-3)
        assert 0 < spawn["mean_prob"] + spawn["occupied_mass"] <= spawn["column_mass"] <= 1
        assert not trained or spawn["column_mass"] > 1e-3  # a column the model writes: the words' factor is tested


def test_tier2_on_spawn_column_reports_its_rules_and_the_probes_still_hold(columns):
    rows = [int(r) for r in columns.split("train")[:4]]
    tokens = [columns.episode_tokens(r) for r in rows]
    result = em.tier2(tiny_model(columns, seed=2), [columns.episode_ids(r) for r in rows], tokens, columns.tokenizer, columns.game)
    rules = result["emergence"]["rules"]
    assert list(rules) == [r for r in em.RULES if r != "tail_freed" and not r.startswith("body_listed")]  # sense's and the column's
    assert rules["column_sensed"]["count"] == sum(t.count("FOOD_SPAWN") for t in tokens) > 0
    assert rules["column_sensed_body"]["count"] == sum(t.count("OCC") for t in tokens) > 0
    for entry in rules.values():
        assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["accuracy"] <= 1
    spawn = rules["spawn_on_empty"]
    assert 0 <= spawn["mean_prob"] + spawn["occupied_mass"] <= spawn["column_mass"] <= 1 and "column_mass" in spawn["untrained"]
    # Given the true words an untrained model's row ignores them: its share on empty cells is about the blind guess's.
    assert abs(spawn["empty_share"] - spawn["empty_fraction"]) < 0.1
    lines = em.markdown(result)
    assert any(line.startswith("| column_sensed_body |") for line in lines) and any("column mass" in line for line in lines)
    json.dumps(result)
    # The probes edit inputs and food, never a spawn: the sense design's, with column words in the history.
    assert all(em._design(t) == "sense" for t in tokens)
    probes = em.make_probes([columns.episode_tokens(r) for r in range(20)], columns.game)
    assert {p.kind for p in probes} == {"food_ahead", "wall_ahead", "body_ahead"}
    assert any("OCC" in p.tokens for p in probes)
    for probe in probes:
        assert probe.tokens[-1].startswith("SENSE_") and probe.control[-1].startswith("SENSE_")
        if probe.kind != "food_ahead":
            whole = [*probe.tokens, *probe.mandated, "EOS"]
            assert validate(whole, columns.game, sense=True, spawn_column=True).valid
    counts = result["counterfactuals"]["model"]
    assert counts["food_ahead"]["count"] == len(rows)


def test_body_place_names_head_tail_and_the_two_cells_before_it():
    assert [em.body_place(i, 6) for i in range(6)] == ["head", "body", "body", "before the tail", "before the tail", "tail"]
    assert [em.body_place(i, 3) for i in range(3)] == ["head", "before the tail", "tail"]
    assert [em.body_place(i, 2) for i in range(2)] == ["head", "tail"]
    assert em.body_place(0, 1) == "head"  # a snake of one cell is all head


def test_tail_distance_beside_tells_the_tail_from_the_cell_before_it():
    from gamegrammar.games.snake.rules import Direction, SnakeState

    # a U: the head (2,1) has the neck (1,1) beside it, which never counts, and the tail (2,2): distance 0
    u = SnakeState(body=((2, 1), (1, 1), (1, 2), (2, 2)), direction=Direction.R, food=(5, 5))
    assert em.tail_distance_beside(u) == 0
    # one cell longer: (2,2) is now the cell before the tail, deadly: distance 1
    longer = SnakeState(body=((2, 1), (1, 1), (1, 2), (2, 2), (3, 2)), direction=Direction.R, food=(5, 5))
    assert em.tail_distance_beside(longer) == 1
    assert em.tail_distance_beside(longer, (1, 2)) == 2 and em.tail_distance_beside(longer, (7, 7)) is None
    straight = SnakeState(body=((3, 1), (2, 1), (1, 1)), direction=Direction.R, food=(5, 5))
    assert em.tail_distance_beside(straight) is None  # nothing beside the head but the neck


# ---------------------------------------------------------------- the body-list option


@pytest.fixture(scope="module")
def listed(tmp_path_factory) -> Corpus:
    return sense_corpus_with(tmp_path_factory, "body_list")


def test_body_list_scores_the_list_and_each_cell_and_leaves_the_rest_as_the_sense_design(listed, sensed):
    cells = 0
    for row in range(20):
        tokens = listed.episode_tokens(row)
        events = em.rule_events(tokens, listed.game)
        assert_the_rest_is_the_sense_design(events, sensed, row, "body_listed")
        states = trace(tokens, listed.game)
        spawns = [e for e in events if e.rule == "spawn_on_empty"]
        lists = [e for e in events if e.rule == "body_listed"]
        assert len(lists) == len(spawns) == tokens.count("FOOD_SPAWN")
        for spawn, e in zip(spawns, lists):  # the grown body behind the head, neck first, right before FOOD_SPAWN
            body = states[e.tick].body
            assert spawn.positions[1:] == e.positions and tokens[e.positions[-1] + 1] == "FOOD_SPAWN"
            assert [tokens[i] for i in e.positions] == [t for x, y in body[1:] for t in (f"X{x}", f"Y{y}")]
            assert tokens[e.positions[0] - 1] == f"LEN{len(body)}"
        each = [e for e in events if e.rule == "body_listed_cell"]  # one event per cell, the tail's at distance 0
        assert len(each) == sum(len(e.positions) // 2 for e in lists)
        assert all(tokens[e.positions[0]][0] == "X" and e.positions[1] == e.positions[0] + 1 for e in each)
        assert [e.from_tail for e in each] == [d for e in lists for d in range(len(e.positions) // 2 - 1, -1, -1)]
        cells += len(each)
    assert cells > 0


def test_tier2_on_body_list_reports_its_rules_and_the_probes_still_hold(listed):
    rows = [int(r) for r in listed.split("train")[:4]]
    tokens = [listed.episode_tokens(r) for r in rows]
    result = em.tier2(tiny_model(listed, seed=2), [listed.episode_ids(r) for r in rows], tokens, listed.tokenizer, listed.game)
    rules = result["emergence"]["rules"]
    assert list(rules) == [r for r in em.RULES if r != "tail_freed" and not r.startswith("column")]  # sense's and the list's
    assert rules["body_listed"]["count"] == sum(t.count("FOOD_SPAWN") for t in tokens) > 0
    spawn = rules["spawn_on_empty"]
    assert 0 <= spawn["mean_prob"] + spawn["occupied_mass"] <= spawn["list_mass"] <= 1 and "list_mass" in spawn["untrained"]
    assert set(rules["body_listed_cell"]["by"]["from_tail"]) >= {"0", "1"}
    lines = em.markdown(result)
    assert any(line.startswith("| body_listed_cell |") for line in lines) and any("list mass" in line for line in lines)
    json.dumps(result)
    assert all(em._design(t) == "sense" for t in tokens)
    for probe in em.make_probes([listed.episode_tokens(r) for r in range(20)], listed.game):
        if probe.kind != "food_ahead":
            assert validate([*probe.tokens, *probe.mandated, "EOS"], listed.game, sense=True, body_list=True).valid


# ---------------------------------------------------------------- probes scored as branches of one forward


@pytest.mark.parametrize("design", ["corpus", "sensed", "head_first", "tails", "columns", "listed"])
def test_probes_branched_from_the_episode_score_what_their_whole_prefixes_do(design, request, monkeypatch):
    data: Corpus = request.getfixturevalue(design)
    rows = data.split("train")[:4]
    tokens = [data.episode_tokens(int(r)) for r in rows]
    probes = em.make_probes(tokens, data.game, per_episode=3)
    model = tiny_model(data, seed=5, block_size=64)  # episodes longer than the context: both of branch_sequences' paths
    enc = data.tokenizer.encode
    want_edited = next_logprobs(model, [enc(p.tokens) for p in probes])
    want_control = next_logprobs(model, [enc(p.control) for p in probes])
    whole: list[int] = []
    monkeypatch.setattr(hidden, "next_logprobs", lambda m, prefixes: whole.append(len(prefixes)) or next_logprobs(m, prefixes))
    edited, control = em._probe_logprobs(model, probes, data.tokenizer, tokens)
    torch.testing.assert_close(edited, want_edited, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(control, want_control, atol=2e-5, rtol=1e-4)
    fatal = [p for p in probes if p.kind != "food_ahead"]
    assert fatal and sum(whole) < 2 * len(probes)  # the fatal-input probes were branched, not run whole
    if design not in ("tails", "head_first"):  # where one tail has a FREE cell or a head cell the other lacks, it is run whole
        assert sum(whole) <= 2 * (len(probes) - len(fatal))
