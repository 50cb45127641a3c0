"""The model as an agent: only inputs the mask allows, the cache equal to a full forward pass, reports with intervals."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import torch

from gamegrammar.act.play import (
    ModelAgent,
    Played,
    choose_inputs,
    mean_interval,
    play_agents,
    play_games,
    play_report,
    render_markdown,
    summarize_player,
    write_play_report,
)
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, CodecConfig, PlayerResult
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, Move, step
from gamegrammar.games.snake.rules import Direction, SnakeConfig
from gamegrammar.model import GameGPT, GPTConfig

SNAKE = SnakeConfig(6, 6, 60)
BATTLESNAKE = BattlesnakeConfig(7, 7, 3, max_ticks=40)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # a tiny model: more threads only wait on each other


class Biased(GameGPT):
    """A GameGPT whose logits prefer some tokens by far: the output bias its tied head does not have."""

    def __init__(self, config: GPTConfig, bias: dict[int, float]) -> None:
        super().__init__(config)
        self.bias = bias

    def forward(self, idx, targets=None, *, cache=None, real=None):
        logits, loss = super().forward(idx, targets, cache=cache, real=real)
        logits = logits.clone()
        for token, bias in self.bias.items():
            logits[..., token] += bias
        return logits, loss


def tiny(
    config, block: int, prefer: dict[str, float] | None = None, scale: float = 1.0, seed: int = 0, width: int = 16
) -> tuple[GameGPT, object]:
    """An untrained 1-layer model of two heads, its weights drawn with torch seed `seed`; `scale` multiplies them so that
    its choices depend on the context."""
    tokenizer = tokenizer_for(config)
    torch.manual_seed(seed)
    gpt = GPTConfig(
        vocab_size=len(tokenizer),
        block_size=block,
        n_layer=1,
        n_head=2,
        n_embd=width,
        tick_table=64,
        rope=True,
        tick_id=tokenizer.ids["TICK"],
    )
    model = GameGPT(gpt) if prefer is None else Biased(gpt, {tokenizer.ids[t]: b for t, b in prefer.items()})
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(scale)
    return model.eval(), tokenizer


def inputs_of(tokens: list[str]) -> list[str]:
    return [tokens[i + 1] for i, t in enumerate(tokens) if t == "TICK"]


def episodes_of(result: PlayerResult, tokenizer) -> list[list[str]]:
    starts = np.cumsum(result.episodes.lengths) - result.episodes.lengths
    return [tokenizer.decode(result.episodes.tokens[s : s + n]) for s, n in zip(starts, result.episodes.lengths)]


def test_choose_inputs_never_picks_a_masked_input():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(500, 4)) * 5
    scores[:, 0] += 100  # the model wants input 0 above all
    mask = rng.random((500, 4)) < 0.5
    mask[np.arange(500), rng.integers(0, 4, 500)] = True
    for temperature in (0.0, 0.5, 1.0, 10.0):
        for u in (np.zeros(500), np.full(500, 1 - 2**-53), rng.random(500)):
            pick = choose_inputs(scores, mask, temperature, u)
            assert mask[np.arange(500), pick].all()
    assert (choose_inputs(scores, mask, 1.0, rng.random(500))[mask[:, 0]] == 0).all()  # allowed: the model's choice
    with pytest.raises(GameGrammarError, match="at least one"):
        choose_inputs(scores[:1], np.zeros((1, 4), bool), 1.0, np.zeros(1))


@pytest.mark.parametrize(("temperature", "recompute"), [(0.0, False), (1.0, False), (1.0, True)])
def test_the_snake_model_never_plays_a_masked_input(temperature, recompute):
    """The model wants UP above all; UP is forbidden only while the snake goes DOWN (a reversal)."""
    model, tokenizer = tiny(SNAKE, block=24, prefer={"INPUT_U": 50.0})  # a short context: windows slide
    game = load_game("snake")
    codec = CodecConfig(keyframe_interval=5)
    agent = ModelAgent(model, tokenizer, game, SNAKE, codec, temperature=temperature, batch_size=16, recompute=recompute)
    result = play_games(game, SNAKE, agent.codec, 3, np.arange(40), agent)
    forbidden = allowed = 0
    for tokens in episodes_of(result, tokenizer):
        states = game.trace(tokens, SNAKE)
        inputs = inputs_of(tokens)
        assert len(states) == len(inputs) + 1
        for state, token in zip(states, inputs):
            if state.direction == Direction.D:
                assert token != "INPUT_U", "played a masked input"
                forbidden += 1
            else:
                assert token == "INPUT_U"  # the model's overwhelming choice, where the mask allows it
                allowed += 1
    assert forbidden and allowed
    assert max(len(t) for t in episodes_of(result, tokenizer)) > 24  # episodes outgrew the context


def test_the_battlesnake_model_never_moves_into_its_neck():
    """The model wants UP, then DOWN, above all: after a first move down, UP is its neck."""
    model, tokenizer = tiny(BATTLESNAKE, block=256, prefer={"UP": 50.0, "DOWN": 49.5})
    game = load_game("battlesnake")
    agent = ModelAgent(model, tokenizer, game, BATTLESNAKE, temperature=1.0, batch_size=8)
    result = play_games(game, BATTLESNAKE, agent.codec, 1, np.arange(24), agent)
    forbidden = 0
    for tokens in episodes_of(result, tokenizer):
        states = game.trace(tokens, BATTLESNAKE)
        ticks = [i for i, t in enumerate(tokens) if t == "TICK"]
        for state, i in zip(states, ticks):
            if tokens[i + 1] != "S0":
                continue
            snake = state.snakes[0]
            neck = next((c for c in snake.body[1:] if c != snake.head), None)
            if neck is not None and step(snake.head, Move.U) == neck:
                assert tokens[i + 2] == "DOWN", "moved into its neck"
                forbidden += 1
            else:
                assert tokens[i + 2] in ("UP", "DOWN")
    assert forbidden
    assert result.place is not None and ((result.place >= 1) & (result.place <= 3)).all()


def test_cached_choices_equal_a_full_forward_pass():
    """At temperature 0 every input is the masked argmax of a forward pass over the whole history."""
    model, tokenizer = tiny(SNAKE, block=512)
    game = load_game("snake")
    agent = ModelAgent(model, tokenizer, game, SNAKE, CodecConfig(keyframe_interval=7), temperature=0, batch_size=32)
    assert not agent.recompute  # a 512-token context: the KV cache
    result = play_games(game, SNAKE, agent.codec, 5, np.arange(32), agent)
    assert agent.forward_passes < 32 * result.ticks.max()  # games share forward passes
    inputs = torch.tensor(tokenizer.encode(game.input_tokens(SNAKE)))
    legal = np.array([[Direction(d).opposite != i for i in range(4)] for d in range(4)])
    checked = 0
    for tokens in episodes_of(result, tokenizer)[:8]:
        ids = tokenizer.encode(tokens)
        states = game.trace(tokens, SNAKE)
        for state, i in zip(states, [i for i, t in enumerate(tokens) if t == "TICK"]):
            with torch.no_grad():
                logits = model(torch.tensor([ids[: i + 1]]))[0][0, -1, inputs].numpy()
            want = choose_inputs(logits[None], legal[int(state.direction)][None], 0, np.zeros(1))[0]
            assert ids[i + 1] == int(inputs[want])
            checked += 1
    assert checked > 20


INITS = (0, 1, 2)  # torch seeds of the random models below: an agreement on one random model can be luck


@pytest.mark.parametrize("init", INITS)
def test_sliding_windows_make_the_environment_policys_choices(init):
    """Past the context, the batched agent slides its windows as `envs.ModelPolicy` does (to the last half-context,
    however much is new): the same inputs at temperature 0."""
    from gamegrammar.envs import ModelPolicy, SnakeEnv

    model, tokenizer = tiny(SNAKE, block=16, scale=10, seed=init)  # a window slides after every tick or two
    game = load_game("snake")
    codec = CodecConfig()
    agent = ModelAgent(model, tokenizer, game, SNAKE, codec, temperature=0, batch_size=8, recompute=False)
    result = play_games(game, SNAKE, codec, 2, np.arange(16), agent)
    episodes = episodes_of(result, tokenizer)
    assert len({t for tokens in episodes for t in inputs_of(tokens)}) >= 2  # choices depend on the context
    assert max(result.episodes.lengths) > 16
    # a tick that writes more than half the context (an EAT): the window then drops some of what is new
    assert any(b - a > 8 for tokens in episodes for a, b in itertools.pairwise(i for i, t in enumerate(tokens) if t == "TICK"))
    policy = ModelPolicy(model, tokenizer, game, SNAKE, codec, temperature=0)
    env = SnakeEnv(**policy.env_kwargs)
    for episode, tokens in enumerate(episodes):
        obs, info = env.reset(seed=2, options={"episode": episode})
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(policy(obs, info))
            done = terminated or truncated
        assert env.unwrapped.tokens == tokens


@pytest.mark.parametrize("init", INITS)
def test_recomputed_windows_are_forward_passes_over_the_last_context(init):
    """Short contexts (recompute): every input is the masked argmax over the last block_size tokens, clock carried."""
    model, tokenizer = tiny(SNAKE, block=16, scale=10, seed=init)
    game = load_game("snake")
    agent = ModelAgent(model, tokenizer, game, SNAKE, CodecConfig(), temperature=0, batch_size=8)
    assert agent.recompute  # a 16-token context
    result = play_games(game, SNAKE, agent.codec, 2, np.arange(16), agent)
    assert agent.forward_passes == result.ticks[:8].max() + result.ticks[8:].max()  # one pass per tick for a batch's games
    assert max(result.episodes.lengths) > 16
    inputs = torch.tensor(tokenizer.encode(game.input_tokens(SNAKE)))
    legal = np.array([[Direction(d).opposite != i for i in range(4)] for d in range(4)])
    for tokens in episodes_of(result, tokenizer):
        ids, states = tokenizer.encode(tokens), game.trace(tokens, SNAKE)
        for state, i in zip(states, [i for i, t in enumerate(tokens) if t == "TICK"]):
            start = max(0, i + 1 - 16)
            cache = model.new_cache(1, i + 1 - start)
            cache.ticks[:] = tokens[:start].count("TICK")
            with torch.no_grad():
                logits = model(torch.tensor([ids[start : i + 1]]), cache=cache)[0][0, -1, inputs].numpy()
            assert ids[i + 1] == int(inputs[choose_inputs(logits[None], legal[int(state.direction)][None], 0, np.zeros(1))[0]])


def test_a_game_is_the_same_whatever_the_batch():
    model, tokenizer = tiny(SNAKE, block=48, scale=10)
    game = load_game("snake")
    runs = [
        play_games(game, SNAKE, CodecConfig(), 7, np.arange(30), ModelAgent(model, tokenizer, game, SNAKE, batch_size=b, recompute=r))
        for b, r in ((30, False), (7, False), (7, True), (30, True))
    ]
    assert np.array_equal(runs[0].episodes.tokens, runs[1].episodes.tokens)
    assert np.array_equal(runs[2].episodes.tokens, runs[3].episodes.tokens)
    again = play_games(
        game, SNAKE, CodecConfig(), 7, np.arange(10, 30), ModelAgent(model, tokenizer, game, SNAKE, batch_size=9, recompute=False)
    )
    starts = np.cumsum(runs[0].episodes.lengths) - runs[0].episodes.lengths
    assert np.array_equal(again.episodes.tokens, runs[0].episodes.tokens[starts[10] :])  # keyed by (seed, episode) alone


def test_scripted_agents_play_as_their_batch_engine_does():
    for name, config in (("snake", SNAKE), ("battlesnake", BATTLESNAKE)):
        game = load_game(name)
        episodes = np.arange(20)
        mix = {"greedy": 1.0}
        codes = game.episode_agent_codes(mix, 4, episodes, config)
        engine = game.play_batch(config, game.codec_type(), 4, episodes, codes)
        opponents = mix if name == "battlesnake" else None  # Snake has one player
        played = play_games(game, config, game.codec_type(), 4, episodes, "greedy", opponents=opponents)
        assert np.array_equal(engine.tokens, played.episodes.tokens)
        assert np.array_equal(engine.scores, played.episodes.scores)
    with pytest.raises(GameGrammarError, match="unknown agent"):
        play_games(load_game("snake"), SNAKE, CodecConfig(), 0, np.arange(2), "nobody")
    with pytest.raises(GameGrammarError, match="no opponents"):
        play_games(load_game("snake"), SNAKE, CodecConfig(), 0, np.arange(2), "greedy", opponents={"random": 1.0})


def test_the_model_needs_full_salience():
    model, tokenizer = tiny(SNAKE, block=48)
    with pytest.raises(GameGrammarError, match="full-salience"):
        ModelAgent(model, tokenizer, load_game("snake"), SNAKE, CodecConfig(min_salience=1))


def fake_result(scores: np.ndarray, fates: tuple[str, ...] = ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"), place=None) -> PlayerResult:
    n = len(scores)
    fate = np.arange(n) % len(fates)
    episodes = BatchResult(np.zeros(0, np.int64), np.zeros(n, np.int64), np.full(n, 10), scores, fate)
    return PlayerResult(episodes, scores, np.arange(n) + 1, fate, fates, place)


def test_summaries_carry_intervals_that_narrow_with_more_games():
    rng = np.random.default_rng(1)
    small, large = (summarize_player(fake_result(rng.poisson(10, n))) for n in (50, 5000))
    for row in (small, large):
        lo, hi = row["score"]["ci95"]
        assert lo < row["score"]["mean"] < hi
        q = row["score"]["quantiles"]
        assert row["score"]["min"] <= q["p5"] <= q["p25"] <= q["p50"] <= q["p75"] <= q["p95"] <= row["score"]["max"]
        assert sum(e["share"] for e in row["fates"].values()) == pytest.approx(1.0)
        assert all(e["ci95"][0] <= e["share"] <= e["ci95"][1] for e in row["fates"].values())
        assert sum(row["score_histogram"].values()) == row["games"]
    assert large["score"]["ci95"][1] - large["score"]["ci95"][0] < 0.2 * (small["score"]["ci95"][1] - small["score"]["ci95"][0])
    assert abs(large["score"]["mean"] - 10) < 0.2
    several = summarize_player(fake_result(np.arange(8), ("WIN", "DRAW", "TIMEOUT", "DIE_WALL"), place=np.array([1, 1, 1, 2, 1, 3, 1, 4])))
    assert several["win"]["count"] == 2 and several["place"]["mean"] == pytest.approx(1.75)


def test_mean_intervals_stay_within_the_bounds_of_the_quantity():
    """A weak agent's mean score of 0.15 once read [-0.06, 0.36]: the bootstrap's interval stays within the values' range."""
    scores = np.array([0] * 17 + [1, 1, 1])  # mean 0.15; mean - 1.96 standard errors is below 0
    assert scores.mean() - 1.96 * scores.std(ddof=1) / np.sqrt(len(scores)) < 0
    lo, hi = mean_interval(scores)
    assert 0 <= lo <= scores.mean() <= hi <= 1
    assert mean_interval(scores) == (lo, hi)  # a fixed seed: the same report twice
    assert mean_interval(np.array([3, 3, 3])) == (3.0, 3.0) and mean_interval(np.array([4])) == (4.0, 4.0)
    places = np.array([1] * 30 + [4] * 2)  # between 1 and the players
    assert 1 <= mean_interval(places)[0] < places.mean() < mean_interval(places)[1] <= 4
    row = summarize_player(fake_result(scores))
    assert row["score"]["ci95"] == [lo, hi] and row["ticks"]["ci95"][0] >= 1
    report = {"meta": {"game": "snake", "board": "6x6", "fates": list(fake_result(scores).fates)}, "agents": {"random": row}}
    assert "0.15 [0.00, " in render_markdown(report) and "percentile-bootstrap" in render_markdown(report)


def test_a_report_holds_every_agent_on_the_same_games(tmp_path):
    model, tokenizer = tiny(BATTLESNAKE, block=256)
    game = load_game("battlesnake")
    agent = ModelAgent(model, tokenizer, game, BATTLESNAKE, batch_size=16)
    played = play_agents(game, BATTLESNAKE, agent.codec, 0, 16, {"model": agent, "greedy": "greedy"}, {"space": 1.0})
    report = play_report(game, BATTLESNAKE, played, {"games": 16, "seed": 0})
    assert list(report["agents"]) == ["model", "greedy"] and report["meta"]["game"] == "battlesnake"
    assert {"win", "place", "score", "ticks", "fates"} <= set(report["agents"]["model"])
    text = render_markdown(report)
    assert "| model | 16 |" in text and "| greedy | 16 |" in text and "place" in text
    path = write_play_report(report, tmp_path / "report")
    assert path.read_text().startswith("# Play: battlesnake")
    assert json.loads((tmp_path / "report" / "report.json").read_text())["plots"] == ["scores.png"]
    assert (tmp_path / "report" / "scores.png").stat().st_size > 0
    assert isinstance(played["model"], Played) and played["model"].seconds > 0
