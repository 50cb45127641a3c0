"""Tier 3: episode statistics tell the scripted agents apart, embeddings are what the model computes, scores are sane."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gamegrammar.corpus import Corpus
from gamegrammar.evaluation import archetypes as ar
from gamegrammar.interpret.analysis import json_ready
from gamegrammar.hidden import run_episodes
from gamegrammar.model import GameGPT, preset


@pytest.fixture(scope="module")
def corpus(tiny_corpus) -> Corpus:
    return Corpus(tiny_corpus)


def test_statistics_match_the_index_and_the_agents(corpus):
    stats = np.stack([ar.episode_statistics(corpus.episode_tokens(r), corpus.game) for r in range(len(corpus))])
    assert (stats[:, 3] == corpus.index["ticks"]).all() and (stats[:, 4] == corpus.index["score"]).all()
    assert ((stats[:, :2] >= 0) & (stats[:, :2] <= 1)).all()
    agents = np.array([corpus.agent(r) for r in range(len(corpus))])
    # The wall follower hugs the walls; the random agent turns most.
    wall = {a: stats[agents == a, 1].mean() for a in set(agents)}
    turn = {a: stats[agents == a, 0].mean() for a in set(agents)}
    assert wall["wall_follower"] > max(wall["random"], wall["greedy"]) + 0.3
    assert turn["random"] > turn["wall_follower"]


def test_statistics_baseline_clusters_by_agent(corpus):
    stats = np.stack([ar.episode_statistics(corpus.episode_tokens(r), corpus.game) for r in range(len(corpus))])
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
    torch.manual_seed(0)
    model = GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256)).eval()
    ids = [corpus.episode_ids(r) for r in range(4)]
    emb = ar.episode_embeddings(model, ids)
    outs = run_episodes(model, ids, ["final"])
    assert emb["mean"].shape == emb["eos"].shape == (4, model.config.n_embd)
    for i, out in enumerate(outs):
        assert np.allclose(emb["mean"][i], out.hidden["final"].mean(0).numpy(), atol=1e-5)
        assert np.allclose(emb["eos"][i], out.hidden["final"][-1].numpy(), atol=1e-5)


def test_archetypes_report(corpus):
    torch.manual_seed(0)
    model = GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256)).eval()
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
    assert any("statistics" in line for line in ar.markdown(result))
