"""Tier 3: the statistics baseline clusters by agent, embeddings are what the model computes, scores are sane."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gamegrammar.data.corpus import Corpus
from gamegrammar.games import game_of
from gamegrammar.interpret import archetypes as ar
from gamegrammar.interpret.analysis import json_ready
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import run_episodes


@pytest.fixture(scope="module")
def corpus(tiny_corpus) -> Corpus:
    return Corpus(tiny_corpus)


def tiny_model(corpus: Corpus) -> GameGPT:
    torch.manual_seed(0)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256, tick_id=tick_id)).eval()


def test_statistics_baseline_clusters_by_agent(corpus):
    game = game_of(corpus.game)
    stats = np.stack([game.episode_statistics(corpus.episode_tokens(r), corpus.game) for r in range(len(corpus))])
    names = sorted(set(corpus.agent(r) for r in range(len(corpus))))
    labels = np.array([names.index(corpus.agent(r)) for r in range(len(corpus))])
    scores = ar.cluster_scores(stats, labels)
    assert scores["k"] == 3 and scores["n"] == len(corpus)
    assert scores["kmeans"]["nmi"] > 0.4 and scores["kmeans"]["ari"] > 0.3
    probe = ar.agent_probe(stats, labels)
    assert probe["accuracy"] > probe["majority"] + 0.2
    # Shuffled labels carry no information: NMI near 0.
    shuffled = np.random.default_rng(0).permutation(labels)
    assert ar.cluster_scores(stats, shuffled)["kmeans"]["nmi"] < 0.1


def test_embeddings_are_mean_and_last_state(corpus):
    model = tiny_model(corpus)
    ids = [corpus.episode_ids(r) for r in range(4)]
    emb = ar.episode_embeddings(model, ids)
    outs = run_episodes(model, ids, ["final"])
    assert emb["mean"].shape == emb["eos"].shape == (4, model.config.n_embd)
    for i, out in enumerate(outs):
        assert np.allclose(emb["mean"][i], out.hidden["final"].mean(0).numpy(), atol=1e-5)
        assert np.allclose(emb["eos"][i], out.hidden["final"][-1].numpy(), atol=1e-5)


def test_archetypes_report(corpus):
    model = tiny_model(corpus)
    rows = list(range(30))
    result = ar.archetypes(
        model,
        [corpus.episode_ids(r) for r in rows],
        [corpus.episode_tokens(r) for r in rows],
        [corpus.agent(r) for r in rows],
        corpus.game,
    )
    assert result["episodes"] == 30 and sum(result["agents"].values()) == 30
    assert set(result["features"]) == {"model_mean", "model_eos", "untrained_mean", "untrained_eos", "statistics"}
    for entry in result["features"].values():
        assert -1 <= entry["kmeans"]["ari"] <= 1 and 0 <= entry["kmeans"]["nmi"] <= 1
    json.dumps(json_ready({"tier3": result}))
    names = game_of(corpus.game).statistic_names
    assert all(list(s) == list(names) for s in result["statistics_by_agent"].values())
    lines = ar.markdown(result)
    assert "| agent | " + " | ".join(names) + " |" in lines


def test_an_agent_probe_with_one_agent_or_too_few_episodes_has_no_score():
    """`analyze --analysis-episodes 3` may draw one agent's episodes only: nothing to tell apart, not a traceback."""
    x = np.random.default_rng(0).normal(size=(6, 4))
    for labels in (np.zeros(6, dtype=int), np.array([0, 0, 0, 0, 0, 1])):
        probe = ar.agent_probe(x, labels)
        assert probe["folds"] == 0 and np.isnan(probe["accuracy"])
    assert ar.agent_probe(x, np.array([0, 0, 0, 1, 1, 1]))["folds"] == 3
