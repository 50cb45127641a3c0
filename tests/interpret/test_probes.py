"""World-state probes: targets through the game's trace, rows at the tick tokens, probes that find a planted signal."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import game_of
from gamegrammar.games.snake.grammar import Tick, parse
from gamegrammar.games.snake.planes import PLANES, state_planes
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.trace import trace
from gamegrammar.interpret import probes as pr
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import layer_names, run_episodes

COORDS = ("head_x", "head_y", "food_x", "food_y")


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Corpus:
    """6x6 boards: few enough cells (4 planes x 36) for a planted linear code to be exact."""
    out = tmp_path_factory.mktemp("probes")
    generate(CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=60, seed=5), out)
    return Corpus(out)


def model_for(corpus: Corpus, seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=64, tick_id=tick_id)).eval()


def real_states(corpus: Corpus, episodes: int):
    """(states before each tick, episode of each) from the rules' trace."""
    states, groups = [], []
    for row in range(episodes):
        tokens = corpus.episode_tokens(row)
        traced = trace(tokens, corpus.game)
        for t in parse(tokens):
            if isinstance(t, Tick):
                states.append(traced[t.number - 1])
                groups.append(row)
    return states, np.array(groups)


def test_split_by_episode_keeps_episodes_whole():
    groups = np.repeat(np.arange(20), 7)
    train, test = pr.split_by_episode(groups, 0.3, seed=2)
    assert not set(groups[train]) & set(groups[test])
    assert len(set(groups[test])) == 6 and train.sum() + test.sum() == len(groups)


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
    assert list(data.planes) == list(PLANES) and list(data.scalars) == ["length", "score"]
    assert list(data.classes) == ["direction", *COORDS] and data.classes["food_x"][1] == 7
    assert (data.scalars["length"] == data.scalars["score"] + 1).all()  # Snake: one segment per food eaten
    head_cell = data.planes["head"].argmax(1)
    assert (data.classes["head_x"][0] == head_cell % 6).all() and (data.classes["head_y"][0] == head_cell // 6).all()
    assert data.scalars["length"][0] == 1 and data.scalars["score"][0] == 0


def test_collect_leaves_out_ticks_the_trace_cannot_follow(small_corpus):
    model = model_for(small_corpus)
    tokens = small_corpus.episode_tokens(0)
    move = tokens.index("MOVE", tokens.index("TICK") + 20)  # a move past tick 5 goes somewhere the rules never would
    bad = [*tokens[: move + 1], "X0" if tokens[move + 1] != "X0" else "X5", *tokens[move + 2 :]]
    data = pr.collect(model, [small_corpus.tokenizer.encode(bad)], [bad], small_corpus.game)
    assert len(data) == len(trace(bad, small_corpus.game)) < int(small_corpus.index["ticks"][0])


def planted(corpus: Corpus, noise: float, signal: bool, seed: int = 0) -> pr.ProbeData:
    states, groups = real_states(corpus, 40)
    planes = np.stack([state_planes(s, corpus.game) for s in states])
    direction = np.array([int(s.direction) for s in states])
    length = np.array([s.length for s in states])
    rng = np.random.default_rng(seed)
    code = np.concatenate([planes.reshape(len(states), -1), np.eye(4)[direction], length[:, None] / 10.0], axis=1)
    mix = rng.normal(size=(code.shape[1], 200))
    x = code @ mix if signal else rng.normal(size=(len(states), 200))
    x = x + noise * rng.normal(size=x.shape)
    return pr.ProbeData(
        {"final": x.astype(np.float32)},
        dict(zip(PLANES, planes.transpose(1, 0, 2))),
        {"length": length, "score": length - 1},
        {"direction": (direction, 4)},
        groups,
    )


def test_linear_probe_recovers_a_planted_code_and_not_noise(small_corpus):
    data = planted(small_corpus, noise=0.1, signal=True)
    train, test = pr.split_by_episode(data.episode, 0.3, seed=0)
    good = pr.evaluate_probes(data.features["final"], data, train, test, epochs=30)
    for plane in PLANES:
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
    heard: list[int] = []
    result = pr.world_state_probes(
        model, ids, tokens, small_corpus.game, mlp_hidden=32, max_ticks_per_episode=15, epochs=5, min_steps=40, progress=heard.append
    )
    assert len(heard) == pr.probe_fits(model, all_layers=True) == 2 * (2 + len(layer_names(model)) - 1)
    assert result["train_episodes"] + result["test_episodes"] == 10
    assert 0 <= result["model"]["mlp"]["head_x"]["accuracy"] <= 1
    assert set(result["model"]["by_layer"]) == set(layer_names(model))
    for src in ("model", "untrained"):
        for kind in ("linear", "mlp"):
            e = result[src][kind]
            assert set(e["planes"]) == set(PLANES) and 0 <= e["direction"]["accuracy"] <= 1
            assert set(e) == {"train_rows", "test_rows", "planes", "direction", *COORDS, "length", "score"}
    assert result["planes"] == list(PLANES)
    lines = pr.markdown(result)
    assert any("head cells" in line for line in lines) and any(line.startswith("| food_y | accuracy |") for line in lines)
    assert any(line.startswith("| layer | head F1 |") and "food y acc" in line and "score R²" in line for line in lines)
