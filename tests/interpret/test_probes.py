"""World-state probes: targets from the rules, hooks that read the real hidden states, and probes that find a planted signal."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gamegrammar.games.snake.grammar import Tick, parse
from gamegrammar.corpus import Corpus, CorpusSpec, generate
from gamegrammar.evaluation import probes as pr
from gamegrammar.hidden import capture, layer_names, run_episodes
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import GameGPT, preset
from gamegrammar.replay import replay


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Corpus:
    """6x6 boards: few enough cells (4 planes x 36) for a planted linear code to be exact."""
    out = tmp_path_factory.mktemp("probes")
    generate(CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=60, seed=5), out)
    return Corpus(out)


def model_for(corpus: Corpus, seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=64)).eval()


def real_states(corpus: Corpus, episodes: int):
    """(states before each tick, episode of each) from the rules' replay."""
    states, groups = [], []
    for row in range(episodes):
        tokens = corpus.episode_tokens(row)
        frames = replay(tokens, corpus.game).frames
        for t in parse(tokens):
            if isinstance(t, Tick):
                states.append(frames[t.number - 1].state)
                groups.append(row)
    return states, np.array(groups)


def test_planes_partition_the_board(small_corpus):
    states, _ = real_states(small_corpus, 10)
    for s in states[:200]:
        planes = pr.state_planes(s, small_corpus.game)
        assert planes.shape == (4, 36)
        assert (planes.sum(0) == 1).all()  # each cell is exactly one of head, body, food, empty
        assert planes[0].sum() == 1 and planes[1].sum() == s.length - 1 and planes[2].sum() == (s.food is not None)
        x, y = s.head
        assert planes[0, y * 6 + x] == 1


def test_split_by_episode_keeps_episodes_whole():
    groups = np.repeat(np.arange(20), 7)
    train, test = pr.split_by_episode(groups, 0.3, seed=2)
    assert not set(groups[train]) & set(groups[test])
    assert len(set(groups[test])) == 6 and train.sum() + test.sum() == len(groups)


def test_hooks_read_the_states_the_model_computes(small_corpus):
    model = model_for(small_corpus)
    ids = [int(t) for t in small_corpus.episode_ids(0)][:60]
    idx = torch.tensor([ids])
    with capture(model, layer_names(model)) as store:
        logits = model(idx)[0]
    assert set(store) == set(layer_names(model))
    assert torch.allclose(model.head(store["final"]), logits, atol=1e-5)
    assert torch.allclose(model.ln_f(store[f"block{len(model.blocks)}"]), store["final"], atol=1e-5)
    clock = model.tick_clock(idx)
    embed = model.wte(idx) + model.wtick(clock)
    if model.wpe is not None:  # rotary presets have no position table: positions act inside attention
        embed = embed + model.wpe(torch.arange(len(ids)))
    assert torch.allclose(store["embed"], embed, atol=1e-6)
    with pytest.raises(ValueError, match="unknown layer"), capture(model, ["block99"]):
        pass


def test_collect_has_one_row_per_tick(small_corpus):
    model = model_for(small_corpus)
    rows = list(range(6))
    ids = [small_corpus.episode_ids(r) for r in rows]
    tokens = [small_corpus.episode_tokens(r) for r in rows]
    data = pr.collect(model, ids, tokens, small_corpus.game, ["final", "embed"])
    assert len(data) == int(small_corpus.index["ticks"][rows].sum())
    assert data.features["final"].shape == (len(data), model.config.n_embd)
    # The rows of episode 0 are its TICK tokens, in order.
    out = run_episodes(model, ids[:1], ["final"])[0]
    starts = [t.start for t in parse(tokens[0]) if isinstance(t, Tick)]
    assert np.allclose(data.features["final"][: len(starts)], out.hidden["final"][starts].numpy(), atol=1e-5)
    assert (data.length == data.score + 1).all()  # Snake: one segment per food eaten
    head_cell = data.planes[:, 0].argmax(1)
    assert (data.coords[:, 0] == head_cell % 6).all() and (data.coords[:, 1] == head_cell // 6).all()
    assert set(data.categorical()) == {"direction", *pr.COORDS} and data.categorical()["food_x"][1] == 7
    assert data.length[0] == 1 and data.score[0] == 0


def planted(corpus: Corpus, noise: float, signal: bool, seed: int = 0) -> pr.ProbeData:
    states, groups = real_states(corpus, 40)
    planes = np.stack([pr.state_planes(s, corpus.game) for s in states])
    direction = np.array([int(s.direction) for s in states])
    length = np.array([s.length for s in states])
    rng = np.random.default_rng(seed)
    code = np.concatenate([planes.reshape(len(states), -1), np.eye(4)[direction], length[:, None] / 10.0], axis=1)
    mix = rng.normal(size=(code.shape[1], 200))
    x = code @ mix if signal else rng.normal(size=(len(states), 200))
    x = x + noise * rng.normal(size=x.shape)
    return pr.ProbeData({"final": x.astype(np.float32)}, planes, length, length - 1, direction, groups)


def test_linear_probe_recovers_a_planted_code_and_not_noise(small_corpus):
    data = planted(small_corpus, noise=0.1, signal=True)
    train, test = pr.split_by_episode(data.episode, 0.3, seed=0)
    good = pr.evaluate_probes(data.features["final"], data, train, test, epochs=30)
    for plane in pr.PLANES:
        assert good["planes"][plane]["f1"] > 0.9, (plane, good["planes"][plane])
    assert good["direction"]["accuracy"] > 0.9
    assert good["length"]["r2"] > 0.9 and good["score"]["r2"] > 0.9

    noise = planted(small_corpus, noise=1.0, signal=False)
    bad = pr.evaluate_probes(noise.features["final"], noise, train, test, epochs=30)
    assert bad["planes"]["head"]["f1"] < 0.3 and bad["planes"]["food"]["f1"] < 0.3
    assert bad["direction"]["accuracy"] < 0.5
    assert bad["length"]["r2"] < 0.2


def test_mlp_probe_beats_linear_on_a_nonlinear_code():
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.normal(size=(n, 8)).astype(np.float32)
    y = ((x[:, 0] * x[:, 1]) > 0).astype(np.float32)[:, None]  # XOR-like: no linear probe can read it
    train, test = np.arange(n) < 2000, np.arange(n) >= 2000

    def acc(hidden: int) -> float:
        net = pr.fit_probe(x[train], y[train], "bce", hidden=hidden, epochs=30)
        with torch.no_grad():
            pred = net(torch.from_numpy(x[test])).numpy() > 0
        return float((pred == (y[test] > 0)).mean())

    assert acc(0) < 0.65 and acc(64) > 0.9


def test_world_state_probes_report(small_corpus):
    model = model_for(small_corpus)
    ids = [small_corpus.episode_ids(r) for r in range(10)]
    tokens = [small_corpus.episode_tokens(r) for r in range(10)]
    result = pr.world_state_probes(model, ids, tokens, small_corpus.game, mlp_hidden=32, max_ticks_per_episode=15, epochs=5, min_steps=40)
    assert result["train_episodes"] + result["test_episodes"] == 10
    assert 0 <= result["model"]["mlp"]["head_x"]["accuracy"] <= 1
    assert set(result["model"]["by_layer"]) == set(layer_names(model))
    for src in ("model", "untrained"):
        for kind in ("linear", "mlp"):
            e = result[src][kind]
            assert set(e["planes"]) == set(pr.PLANES) and 0 <= e["direction"]["accuracy"] <= 1
    assert any("head cells" in line for line in pr.markdown(result))
