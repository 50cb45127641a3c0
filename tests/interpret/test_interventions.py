"""Interventions: the edited forward is the model's own, an edit moves the probe exactly where asked, and the scores
read the model's first choice against the edited board's word."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import game_of
from gamegrammar.games.snake.grammar import SnakeCodec
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.interpret import interventions as iv
from gamegrammar.interpret import probes as pr
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import layer_names


@pytest.fixture(scope="module")
def sense_corpus(tmp_path_factory) -> Corpus:
    out = tmp_path_factory.mktemp("interventions")
    generate(CorpusSpec(game=SnakeConfig(6, 6, 40), codec=SnakeCodec(sense=True), episodes=16, seed=3), out)
    return Corpus(out)


def model_for(corpus: Corpus, seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=64, tick_id=tick_id)).eval()


def test_edited_step_without_edits_is_the_models_forward(sense_corpus):
    model = model_for(sense_corpus)
    ids = [int(t) for t in sense_corpus.episode_ids(0)]
    cache, clock = iv.prefix_cache(model, ids, 30)
    for p in (1, 12, 29):
        got = iv.edited_step(model, cache, clock, ids[p], p, [None, None])
        with torch.no_grad():
            want = torch.log_softmax(model(torch.tensor([ids[: p + 1]]))[0][0, -1], -1)
        assert torch.allclose(got[0], want, atol=1e-5) and torch.equal(got[0], got[1])


def test_edited_steps_feed_several_tokens_as_the_models_forward_does(sense_corpus):
    """Several tokens after the cache: each reads the prefix and the ones before it; an edit of the first reaches the
    later ones through attention only (its own row's later tokens, never another row's)."""
    model = model_for(sense_corpus)
    ids = [int(t) for t in sense_corpus.episode_ids(0)]
    cache, clock = iv.prefix_cache(model, ids, 25)
    push = torch.randn(model.config.n_embd, generator=torch.Generator().manual_seed(0)) * 20.0
    got = iv.edited_steps(model, cache, clock, ids[25:28], 25, [None, ("block1", lambda h: push.expand_as(h))])
    with torch.no_grad():
        want = torch.log_softmax(model(torch.tensor([ids[:28]]))[0][0, 25:28], -1)
    assert got.shape == (2, 3, model.config.vocab_size) and torch.allclose(got[0], want, atol=1e-5)
    assert torch.allclose(got[0, 0], iv.edited_step(model, cache, clock, ids[25], 25, [None])[0], atol=1e-6)
    assert not torch.allclose(got[1, 0], got[0, 0]) and not torch.allclose(got[1, 2], got[0, 2])


def test_an_edit_changes_only_its_row_and_pushes_where_asked(sense_corpus):
    model = model_for(sense_corpus)
    ids = [int(t) for t in sense_corpus.episode_ids(1)]
    cache, clock = iv.prefix_cache(model, ids, 20)
    target = sense_corpus.tokenizer.ids["SENSE_UL"]
    push = model.wte.weight[target].detach() * 50.0

    def along(h: torch.Tensor) -> torch.Tensor:
        return push.expand_as(h)

    out = iv.edited_step(model, cache, clock, ids[20], 20, [None, ("final", along), ("block1", along)])
    assert int(out[0].argmax()) != target and int(out[1].argmax()) == target  # the final state read by the tied head
    assert not torch.allclose(out[0], out[2])  # an edit low down changes what the layers above make of it


def planted_probe(rng: np.random.Generator, width: int, cells: int) -> pr.LinearPlaneProbe:
    planes = ["head", "body", "food", "empty"]
    columns = len(planes) * cells
    typical = {0: -rng.uniform(2, 5, columns), 1: rng.uniform(2, 5, columns)}
    return pr.LinearPlaneProbe(planes, cells, rng.normal(size=(width, columns)), rng.normal(size=columns), typical)


def test_probe_edit_is_the_shortest_shift_to_the_targets():
    rng = np.random.default_rng(0)
    probe = planted_probe(rng, 32, 36)
    edits = (("body", 7, 1), ("empty", 7, 0))
    shift, u, t = iv.probe_edit(probe, edits, 2.0)
    h = torch.randn(3, 32)
    moved = h + shift(h)
    logits = moved.double() @ torch.as_tensor(probe.weight[:, [probe.column("body", 7), probe.column("empty", 7)]]) + torch.as_tensor(
        probe.bias[[probe.column("body", 7), probe.column("empty", 7)]]
    )
    assert torch.allclose(logits.float(), t.expand(3, 2), atol=1e-3)
    assert t[0] == 2.0 * probe.typical[1][probe.column("body", 7)] and t[1] < 0
    # Shortest: the shift lies in the span of the two probe directions.
    coef = torch.linalg.lstsq(u, shift(h).T).solution
    assert torch.allclose(u @ coef, shift(h).T, atol=1e-4)
    control = iv.random_edit(shift, torch.randn(32))(h)
    assert torch.allclose(control.norm(dim=-1), shift(h).norm(dim=-1), atol=1e-4)


def test_run_interventions_on_a_random_model(sense_corpus):
    model = model_for(sense_corpus)
    rows = range(16)
    ids = [sense_corpus.episode_ids(r) for r in rows]
    tokens = [sense_corpus.episode_tokens(r) for r in rows]
    rng = np.random.default_rng(1)
    probes = {1: {name: planted_probe(rng, model.config.n_embd, 36) for name in layer_names(model)}}
    for name, probe in probes[1].items():
        probe.layer = name
    vocab = dict(sense_corpus.tokenizer.ids)
    result = iv.run_interventions(
        model, ids, tokens, sense_corpus.game, probes, vocab, list(rows), max_cases_per_episode=3, strengths=(1.0, 4.0)
    )
    names = layer_names(model)
    assert result["checked"] and [s["probe"] for s in result["sections"]] == [1]  # no probe read at FOOD_SPAWN: its cases wait
    result = result["sections"][0]
    assert result["layers"] == [*names, *(f"{n} and above" for n in names[:-1])]
    assert len(result["calibration"]["sweep"]) == 2 * len(result["layers"])
    ev, cal = result["evaluation"], result["calibration"]
    assert ev["episodes"] + cal["episodes"] <= 16 and ev["cases"] <= 3 * ev["episodes"]
    everything = ev["by_kind"]["all"]
    assert everything["cases"] == sum(e["cases"] for k, e in ev["by_kind"].items() if k != "all") == ev["cases"]
    for key in ("success", "control_success", "unedited_right", "control_unchanged"):
        low, high = everything[key]["ci95"]
        assert 0 <= low <= everything[key]["rate"] <= high <= 1
    x = result["example"]
    assert x["expected"] != x["actual"] and len(x["top_edited"]) == 3
    lines = iv.markdown({"interventions": {"checked": True, "sections": [result]}})
    assert any(line.startswith("| all |") for line in lines) and any("Calibration" in line for line in lines)
    # Grammar v1 (no SENSE word) gives nothing to check at the input: said, not scored.
    plain = [[t for t in toks if not t.startswith("SENSE_")] for toks in tokens]
    none = iv.run_interventions(model, ids, plain, sense_corpus.game, probes, vocab, list(rows))
    assert none["checked"] is False and "Not checked" in iv.markdown({"interventions": none})[-1]


def test_edit_plans_edit_one_layer_or_every_layer_above_of_one_kind(sense_corpus):
    model = model_for(sense_corpus)
    rng = np.random.default_rng(0)
    probes = {}
    for layer in ("block1", "block2", "final"):
        probes[layer] = planted_probe(rng, 8, 36)
        probes[layer].layer = layer
        probes[f"{layer}, relative"] = planted_probe(rng, 8, 121)
        probes[f"{layer}, relative"].layer = layer
        probes[f"{layer}, relative"].anchor = ("head", 6, 6)
    plans = iv.edit_plans(list(probes), probes, model)
    assert plans["block2"] == ["block2"] and plans["block1 and above"] == ["block1", "block2", "final"]
    assert plans["block2, relative and above"] == ["block2, relative", "final, relative"]
    assert "final and above" not in plans and len(plans) == 6 + 4
    # Two edits in one row: each at its layer, and the row differs from one edited once.
    ids = [int(t) for t in sense_corpus.episode_ids(2)]
    cache, clock = iv.prefix_cache(model, ids, 15)

    def push(h: torch.Tensor) -> torch.Tensor:
        return torch.ones_like(h)

    out = iv.edited_step(model, cache, clock, ids[15], 15, [[("block1", push)], [("block1", push), ("final", push)], ("block1", push)])
    assert torch.equal(out[0], out[2]) and not torch.allclose(out[0], out[1])


def test_a_case_of_chance_succeeds_past_the_midpoint_of_the_rules_two_probabilities():
    """An added body cell (rules: 1/20, then 0) succeeds below 1/40; a freed one (0, then 1/21) above 1/42; the
    probability is that of the path and the expected word together."""
    from gamegrammar.core.gamespec import InterventionCase

    vocab = {"X3": 0, "Y4": 1}
    add = InterventionCase(0, 9, "add", (("body", 43, 1),), "Y4", "X1", "FOOD_SPAWN", 1, ("X3",), (1 / 20, 0.0))
    freed = InterventionCase(0, 9, "free", (("body", 43, 0),), "Y4", "X1", "FOOD_SPAWN", 1, ("X3",), (0.0, 1 / 21))
    row = torch.log(torch.tensor([[0.1, 0.9], [0.5, 0.2]]))  # P(X3) 0.1, then P(Y4 | X3) 0.2: 0.02 for the cell
    assert iv._read(row, add, vocab) == pytest.approx(math.log(0.02))
    setting = ("final", 1.0)
    rows = [
        {"episode": e, "case": case, "unedited": math.log(u), "edited": {setting: math.log(p)}, "control": {setting: math.log(c)}}
        for e, (case, u, p, c) in enumerate(
            [(add, 0.05, 0.02, 0.03), (add, 0.05, 0.04, 0.05), (freed, 0.001, 0.03, 0.02), (freed, 1e-9, 0.02, 0.001)]
        )
    ]
    scores = iv._score(rows, setting, vocab, 0)
    assert scores["add"]["success"]["rate"] == 0.5 and scores["free"]["success"]["rate"] == 0.5
    assert scores["all"]["control_success"]["rate"] == 0.0 and scores["all"]["unedited_right"]["rate"] == 1.0
    assert scores["add"]["p_rules"] == {"real": 0.05, "edited": 0.0}


def test_calibration_ranks_an_edit_by_what_it_does_beyond_its_random_control():
    layers = ["block1", "final"]

    def scores(success: float, control: float) -> dict:
        return {"success": {"rate": success}, "control_success": {"rate": control}}

    # A push that "succeeds" 99% with a control that does as well is worth less than 30% against 1%.
    assert iv._merit(scores(0.30, 0.01), ("block1", 256.0), layers) > iv._merit(scores(0.99, 0.99), ("final", 1.0), layers)
    assert iv._merit(scores(0.3, 0.0), ("final", 4.0), layers) > iv._merit(scores(0.3, 0.0), ("final", 16.0), layers)
    assert iv._merit(scores(0.3, 0.0), ("block1", 4.0), layers) > iv._merit(scores(0.3, 0.0), ("final", 4.0), layers)


def test_scores_read_the_first_choice_against_the_edited_board():
    from gamegrammar.core.gamespec import InterventionCase

    vocab = {"A": 0, "B": 1, "C": 2}

    def logp(best: int) -> torch.Tensor:
        v = torch.full((3,), -5.0)
        v[best] = -0.01
        return v

    setting = ("block1", 1.0)
    rows = []
    for e, (edited, control) in enumerate([(1, 0), (1, 1), (2, 0), (1, 0)]):
        case = InterventionCase(0, 1, "add body", (("body", 0, 1),), "B", "A")
        rows.append(
            {
                "episode": e,
                "position": 3,
                "case": case,
                "unedited": logp(0),
                "edited": {setting: logp(edited)},
                "control": {setting: logp(control)},
            }
        )
    scores = iv._score(rows, setting, vocab, 0)["all"]
    assert scores["success"]["rate"] == 0.75 and scores["control_success"]["rate"] == 0.25
    assert scores["unedited_right"]["rate"] == 1.0 and scores["control_unchanged"]["rate"] == 0.75
