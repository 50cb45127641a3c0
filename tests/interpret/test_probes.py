"""World-state probes: targets through the game's trace, rows at the tick tokens, probes that find a planted signal."""

from __future__ import annotations

import itertools

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


def test_early_stopping_keeps_the_best_epoch_on_held_out_episodes():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 64)).astype(np.float32)
    y = (rng.random((600, 1)) < 0.5).astype(np.float32)  # labels with nothing to learn: held-out loss rises at once
    groups = np.repeat(np.arange(60), 10)
    net = pr.fit_probe(x, y, "bce", hidden=64, epochs=200, patience=3, groups=groups)
    assert net.epochs_run == net.best_epoch + 3 < 200  # stopped three epochs after its best, far before the cap
    fixed = pr.fit_probe(x, y, "bce", hidden=64, epochs=7, min_steps=0)  # no groups: every epoch, no stopping
    assert fixed.epochs_run == fixed.best_epoch == 7


def test_world_state_probes_report(small_corpus, tmp_path):
    model = model_for(small_corpus)
    ids = [small_corpus.episode_ids(r) for r in range(10)]
    tokens = [small_corpus.episode_tokens(r) for r in range(10)]
    heard: list[int] = []
    result = pr.world_state_probes(
        model,
        ids,
        tokens,
        small_corpus.game,
        mlp_hidden=16,
        max_ticks_per_episode=10,
        epochs=2,
        min_steps=10,
        progress=heard.append,
        all_layers=False,
    )
    layers = ["final"]
    curve = len(pr.CURVE_FRACTIONS)
    assert pr.probe_fits(model, all_layers=True) == 2 * (2 * len(layer_names(model)) * 3 + 2) + curve
    # Two positions x (model, untrained, relabelled) x (linear, MLP), the last tokens' two probes, and the curve's.
    assert sum(heard) == pr.probe_fits(model, all_layers=False) == 2 * (2 * 3 + 2) + curve
    assert result["train_episodes"] + result["test_episodes"] == 10
    assert 0 <= result["model"]["mlp"]["head_x"]["accuracy"] <= 1
    assert set(result["sweep"]) == {"tick", "tick+1"} and result["relative"] == "head"
    for pos in ("tick", "tick+1"):
        sweep = result["sweep"][pos]
        assert set(sweep) == {"model", "untrained", "relative", "tokens"}
        assert set(sweep["model"]["mlp"]) == set(layers) and set(sweep["relative"]["linear"]["final"]["planes"]) == {
            "body",
            "food",
            "empty",
        }
        body = sweep["untrained"]["linear"]["final"]["planes"]["body"]
        assert body["f1_ci95"][0] <= body["f1"] <= body["f1_ci95"][1]
    for src in ("model", "untrained"):
        for kind in ("linear", "mlp"):
            e = result[src][kind]
            assert e is result["sweep"]["tick"][src][kind]["final"]
            assert set(e["planes"]) == set(PLANES) and 0 <= e["direction"]["accuracy"] <= 1
            assert set(e) == {"train_rows", "test_rows", "epochs_run", "planes", "direction", *COORDS, "length", "score"}
            assert len(e["planes"]["body"]["per_cell_f1"]) == 36
    assert result["planes"] == list(PLANES)
    best = result["best"]["body"]
    assert set(best) == {"model", "untrained", "relative", "tokens", "beside"}
    assert best["model"]["f1"] == max(
        result["sweep"][pos]["model"][kind][layer]["planes"]["body"]["f1"]
        for pos in ("tick", "tick+1")
        for kind in ("linear", "mlp")
        for layer in layers
    )
    assert result["learning_curve"]["chosen_by"] == "body"  # the plane with the most occupied cells, empty aside
    points = result["learning_curve"]["points"]
    assert [p["fraction"] for p in points] == list(pr.CURVE_FRACTIONS) and points[-1]["train_rows"] == result["train_rows"]
    assert all(a["train_rows"] <= b["train_rows"] for a, b in itertools.pairwise(points))  # nested, growing
    assert points[0]["train_episodes"] == 2 < points[-1]["train_episodes"] == result["train_episodes"]
    rings = result["sweep"]["tick"]["relative"]["linear"]["final"]["planes"]["body"]["f1_by_ring"]
    assert set(rings) <= set(range(1, 11)) and 1 in rings  # distances from the head on a 6 x 6 board: 1 to 10
    lines = pr.markdown(result)
    assert any(line.startswith("| training episodes |") for line in lines) and any("d = 1" in line for line in lines)
    assert any("head cells" in line for line in lines) and any(line.startswith("| food_y | accuracy |") for line in lines)
    assert any(line.startswith("| body | ") for line in lines) and any(line.startswith("| final | ") for line in lines)
    assert pr.plot(result, tmp_path) == ["probes.png", "probes_by_layer.png"]
    assert (tmp_path / "probes_by_layer.png").stat().st_size > 1000


def test_collect_positions_reads_the_token_after_the_tick(small_corpus):
    model = model_for(small_corpus)
    ids = [small_corpus.episode_ids(r) for r in range(3)]
    tokens = [small_corpus.episode_tokens(r) for r in range(3)]
    data = pr.collect_positions(model, ids, tokens, small_corpus.game, ["block1"], {"tick": 0, "input": 1}, token_window=2)
    out = run_episodes(model, ids[:1], ["block1"])[0]
    starts = [t.start for t in parse(tokens[0]) if isinstance(t, Tick)]
    n = len(starts)
    assert np.allclose(data["input"].features["block1"][:n], out.hidden["block1"][[s + 1 for s in starts]].numpy(), atol=1e-5)
    assert all((data["input"].planes[k] == data["tick"].planes[k]).all() for k in PLANES) and (data["input"].episode[:n] == 0).all()
    # The last two tokens at the input: the tick token, then the input word.
    vocab = model.config.vocab_size
    one_hot = data["input"].features["tokens"][0].reshape(2, vocab)
    assert one_hot[0].argmax() == small_corpus.tokenizer.ids["TICK"] and one_hot[1].argmax() == int(ids[0][starts[0] + 1])
    assert one_hot.sum() == 2


def test_a_word_position_reads_each_spawn_against_the_board_it_was_drawn_on(small_corpus):
    """A position named by a word (Snake's FOOD_SPAWN) has a row per tick that writes it, at the word, and the state
    after that tick: the spawned food on a cell the new body leaves free."""
    model = model_for(small_corpus)
    ids = [small_corpus.episode_ids(r) for r in range(3)]
    tokens = [small_corpus.episode_tokens(r) for r in range(3)]
    data = pr.collect_positions(model, ids, tokens, small_corpus.game, ["block1"], {"tick": 0, "spawn": "FOOD_SPAWN"})
    spawn = data["spawn"]
    where = [i for i, t in enumerate(tokens[0]) if t == "FOOD_SPAWN"]
    assert len(where) > 0 and (spawn.episode == 0).sum() == len(where) and len(spawn) < len(data["tick"])
    out = run_episodes(model, ids[:1], ["block1"])[0]
    assert np.allclose(spawn.features["block1"][: len(where)], out.hidden["block1"][where].numpy(), atol=1e-5)
    states = trace(tokens[0], small_corpus.game)
    ticks = [sum(t == "TICK" for t in tokens[0][:i]) for i in where]  # tick k (1-based) wrote it: states[k] follows
    expected = np.stack([state_planes(states[k], small_corpus.game)[PLANES.index("body")] for k in ticks])
    assert (spawn.planes["body"][: len(where)] == expected).all()
    assert not (spawn.planes["body"] & spawn.planes["food"]).any() and (spawn.planes["food"].sum(1) == 1).all()
    assert game_of(small_corpus.game).probe_positions[-1] == ("spawn", "FOOD_SPAWN")


def test_a_word_no_episode_writes_is_said_unread_not_scored(small_corpus):
    model = model_for(small_corpus)
    ids = [small_corpus.episode_ids(r) for r in range(8)]
    tokens = [small_corpus.episode_tokens(r) for r in range(8)]
    positions = {"tick": 0, "spawn": "FOOD_SPAWN", "never": "NO_SUCH_WORD"}
    heard: list[int] = []
    options = {"mlp_hidden": 8, "max_ticks_per_episode": 6, "epochs": 1, "min_steps": 5, "all_layers": False, "curve": ()}
    result = pr.world_state_probes(model, ids, tokens, small_corpus.game, positions=positions, progress=heard.append, **options)
    assert sum(heard) == pr.probe_fits(model, False, positions, curve=0)  # the bar ends where it said it would
    assert result["unread_positions"] == {"never": "0 training and 0 test rows"} and set(result["sweep"]) == {"tick", "spawn"}
    assert result["positions"] == {"tick": 0, "spawn": "FOOD_SPAWN"} and 0 < result["rows_by_position"]["spawn"] < result["rows"]
    lines = pr.markdown(result)
    assert any("Not read at `never`" in line and "the first `FOOD_SPAWN` of a tick" in line for line in lines)


def test_relative_planes_put_the_head_at_the_centre():
    planes = {name: np.zeros((2, 9), np.uint8) for name in ("head", "body", "food")}
    planes["head"][0, 4] = planes["body"][0, 5] = planes["food"][0, 0] = 1  # 3x3: head centre, body right, food top left
    planes["head"][1, 0] = planes["body"][1, 1] = 1  # head top left, body right of it
    data = pr.ProbeData({"final": np.zeros((2, 4), np.float32)}, planes, {}, {}, np.array([0, 1]))
    rel = pr.relative_planes(data, (3, 3))
    assert set(rel.planes) == {"body", "food"} and rel.planes["body"].shape == (2, 25)
    grid = rel.planes["body"].reshape(2, 5, 5)
    assert grid[0, 2, 3] == 1 and grid[1, 2, 3] == 1 and grid.sum() == 2  # one to the right of the head, both rows
    assert rel.planes["food"].reshape(2, 5, 5)[0, 1, 1] == 1
    assert (rel.planes["body"].sum(1) == planes["body"].sum(1)).all()  # every body cell keeps a place: F1 counts the same cells


def test_plane_scores_count_per_episode():
    true = np.zeros((4, 3), bool)
    true[:, 0] = True
    pred = true.copy()
    pred[3, 1] = True  # one false positive, in episode 1
    scores = pr.plane_scores(pred, true, np.array([0, 0, 1, 1]))
    assert scores["f1"] == pytest.approx(8 / 9) and scores["cell_accuracy"] == pytest.approx(11 / 12)
    assert scores["f1_ci95"][0] <= scores["f1"] <= scores["f1_ci95"][1] == 1.0
    assert scores["per_cell_f1"][0] == 1.0 and scores["per_cell_f1"][1] == 0.0 and scores["per_cell_f1"][2] is None
