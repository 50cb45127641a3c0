"""Tier 3: windows end where the next tick starts, the readers see the same ticks, the scores and intervals are sane."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
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


def test_a_window_ends_where_the_next_tick_starts_or_at_the_last_token():
    tokens = ["BOS", "SNAP", "X", "TICK", "A", "B", "TICK", "C", "D", "TICK", "E", "EOS"]
    assert ar.window_ends(tokens, "TICK", [1, 2, 3, 10]) == [6, 9, 11, 11]
    assert ar.window_ends(tokens, "TICK", [0]) == [3]


def test_window_states_are_the_models_states_at_the_window_ends(corpus):
    model = tiny_model(corpus)
    game = game_of(corpus.game)
    ids = [corpus.episode_ids(r) for r in range(4)]
    ends = [ar.window_ends(corpus.episode_tokens(r), game.tick_token, [1, 3, 500]) for r in range(4)]
    emb = ar.window_embeddings(model, ids, ends)
    assert emb["last"].shape == emb["mean"].shape == (3, 4, model.config.n_embd)
    for i, out in enumerate(run_episodes(model, ids, ["final"])):
        h = out.hidden["final"].numpy()
        assert ends[i][2] == len(ids[i]) - 1  # 500 ticks: past every episode's end, its last token
        for w, end in enumerate(ends[i]):
            assert np.allclose(emb["last"][w, i], h[end], atol=1e-4)
            assert np.allclose(emb["mean"][w, i], h[: end + 1].mean(0), atol=1e-4)


def test_readers_are_scored_with_paired_intervals():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 40)
    perfect = np.eye(3)[labels] + rng.normal(scale=0.05, size=(120, 3))
    noise = rng.normal(size=(120, 3))
    found = ar.compare_readers({"trained": perfect, "untrained": noise, "statistics": noise}, labels, resamples=200)
    r = found["readers"]
    assert r["trained"]["accuracy"] == 1.0 and r["trained"]["nmi"] == pytest.approx(1.0)
    assert r["untrained"]["accuracy"] < 0.6 and r["untrained"]["nmi"] < 0.2
    lo, hi = r["untrained"]["accuracy_ci"]
    assert lo <= r["untrained"]["accuracy"] <= hi and hi - lo > 0.05
    diff = found["differences"]["trained - statistics"]
    assert diff["ci"][0] > 0.3 and diff["accuracy"] == pytest.approx(1.0 - r["statistics"]["accuracy"])
    assert found["majority"] == pytest.approx(1 / 3) and found["episodes"] == 120


def test_nmi_and_ari_agree_with_scikit_learn():
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    rng = np.random.default_rng(2)
    for k in (2, 3, 5):
        labels = rng.integers(0, k, 200)
        found = np.where(rng.random(200) < 0.6, labels, rng.integers(0, k, 200))
        nmi, ari = ar.nmi_ari(labels, found)
        assert nmi == pytest.approx(normalized_mutual_info_score(labels, found))
        assert ari == pytest.approx(adjusted_rand_score(labels, found))
    assert ar.nmi_ari(np.array([0, 0, 1, 1]), np.array([5, 5, 7, 7])) == pytest.approx((1.0, 1.0))
    assert ar.nmi_ari(np.array([0, 1, 0, 1]), np.zeros(4, dtype=int))[0] == 0.0


def test_resampled_nmi_and_ari_are_scikit_learns_on_each_resample():
    """Resamples of a few episodes lose whole classes on one side or both: each is scored as scikit-learn scores it."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    rng = np.random.default_rng(3)
    labels, found = rng.integers(0, 3, 7), rng.integers(0, 4, 7)
    draws = rng.integers(0, 7, (300, 7))
    nmi, ari = ar.resampled_nmi_ari(labels, found, draws)
    assert any(len(set(labels[d])) == 1 for d in draws) and any(len(set(found[d])) < 4 for d in draws)
    for d, got_nmi, got_ari in zip(draws, nmi, ari):
        assert got_nmi == pytest.approx(normalized_mutual_info_score(labels[d], found[d]), abs=1e-12)
        assert got_ari == pytest.approx(adjusted_rand_score(labels[d], found[d]), abs=1e-12)


def test_the_hardest_pair_is_the_one_the_statistics_cannot_split():
    rng = np.random.default_rng(1)
    labels = np.repeat([0, 1, 2], 30)
    stats = rng.normal(scale=0.1, size=(90, 2))
    stats[labels == 2] += 5.0  # agents a and b look alike; c stands apart
    found = ar.hardest_pair(stats, labels, ["a", "b", "c"])
    assert found["agents"] == ["a", "b"]
    assert found["statistics_accuracy"]["a vs c"] == 1.0 and found["statistics_accuracy"]["a vs b"] < 0.75


def test_tier3_report(corpus, tmp_path):
    model = tiny_model(corpus)
    rows = list(range(24))
    tokens = [corpus.episode_tokens(r) for r in rows]
    agents = [corpus.agent(r) for r in rows]
    args = ([corpus.episode_ids(r) for r in rows], tokens, agents, corpus.game)
    result = ar.archetypes(model, *args, windows=(3, 1), resamples=50)
    assert result["episodes"] == 24 and sum(result["agents"].values()) == 24 and result["windows"] == [1, 3]
    names = game_of(corpus.game).statistic_names
    # the statistics read the same first ticks as the models
    assert result["arrays"]["statistics"].shape == (2, 24, len(names))
    assert (result["arrays"]["statistics"][0][:, list(names).index("ticks")] <= 1).all()
    # the ceiling reads each window's inputs under every agent's code: three ticks are never likelier than one
    policies = result["arrays"]["policies"]
    assert policies.shape == (2, 24, len(result["agents"])) and (policies[1] <= policies[0] + 1e-9).all()
    tasks = list(result["tasks"])
    assert tasks[0] == "all agents" and len(tasks) == 2 and result["tasks"][tasks[1]]["chosen"].startswith("the statistics")
    for entry in result["tasks"].values():
        assert list(entry["windows"]) == ["1", "3"]
        for w in entry["windows"].values():
            assert set(w["readers"]) == {"trained", "untrained", "statistics", "trained_mean", "untrained_mean", "policies"}
            for reader in w["readers"].values():
                assert 0 <= reader["nmi"] <= 1 and reader["nmi_ci"][0] <= reader["nmi_ci"][1]
    json.dumps(json_ready({"tier3": result}))
    lines = ar.markdown(result)
    assert "| agent | " + " | ".join(names) + " |" in lines and "### all agents (24 episodes)" in lines
    assert ar.plot(result, tmp_path) == ["archetypes.png"] and (tmp_path / "archetypes.png").stat().st_size > 1000
    names = sorted(set(agents))
    labels = result["arrays"]["labels"]
    tasks = ar.task_rows(labels, names, result["arrays"]["statistics"][-1], names[:2], "unused")
    assert [t[0] for t in tasks] == ["all agents", " vs ".join(names[:2])] and tasks[1][2]["chosen"] == "named"
    assert (tasks[1][1] == (labels < 2)).all() and tasks[0][1].all()
    with pytest.raises(GameGrammarError, match="two different agents"):
        ar.archetypes(model, *args, windows=(2,), pair=["greedy", "nobody"])


def test_windows_parse_or_fail_in_one_line():
    assert ar.parse_windows("20, 5,5,1") == (1, 5, 20)
    for bad in ("", "0,5", "five"):
        with pytest.raises(GameGrammarError, match="tick counts"):
            ar.parse_windows(bad)


def test_an_agent_probe_with_one_agent_or_too_few_episodes_has_no_score():
    """`analyze --analysis-episodes 3` may draw one agent's episodes only: nothing to tell apart, not a traceback."""
    x = np.random.default_rng(0).normal(size=(6, 4))
    for labels in (np.zeros(6, dtype=int), np.array([0, 0, 0, 0, 0, 1])):
        probe = ar.agent_probe(x, labels)
        assert probe["folds"] == 0 and np.isnan(probe["accuracy"])
    assert ar.agent_probe(x, np.array([0, 0, 0, 1, 1, 1]))["folds"] == 3
    found = ar.compare_readers({"trained": x}, np.zeros(6, dtype=int), resamples=10)
    assert "accuracy" not in found["readers"]["trained"] and found["differences"] == {}
