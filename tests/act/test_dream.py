"""Dreams: forced inputs stay where the agent chose them, and the measures tell a perfect simulator from a broken one.

The perfect simulator is a stand-in model that writes what Snake's rules write (the engine's tick from the
dreamed state, spawns drawn as the engine draws them), so its dreams are the real games themselves.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from torch import nn

from gamegrammar.act import dream as D
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.model.sampling import SamplingConfig

SNAKE = load_game("snake")
CONFIG = SNAKE.make_config(width=5, height=5, max_ticks=30)
CODEC = SNAKE.codec_type(keyframe_interval=4)
GAMES = 6


class _Cache:
    """What the dream loop uses of a KV cache: rows (here: each row's whole history), pos, max_len, ticks, select."""

    def __init__(self, rows: int, max_len: int) -> None:
        self.history: list[list[int]] = [[] for _ in range(rows)]
        self.episodes = list(range(rows))
        self.pos, self.max_len = 0, max_len
        self.ticks = torch.zeros(rows, dtype=torch.long)

    def select(self, rows: torch.Tensor) -> None:
        keep = rows.tolist()
        self.history = [self.history[i] for i in keep]
        self.episodes = [self.episodes[i] for i in keep]


class RulesModel(nn.Module):
    """Writes, after each input, the tick Snake's engine plays from the dreamed state (episode = row, seed 0).

    `wrong_move_at`: on that tick, the MOVE cell it writes is one column off (a broken simulator).
    """

    def __init__(self, seed: int = 0, wrong_move_at: int | None = None) -> None:
        super().__init__()
        self.tok = tokenizer_for(CONFIG)
        self.config = SimpleNamespace(block_size=4096, tick_id=self.tok.ids["TICK"])
        self.weight = nn.Parameter(torch.zeros(1))
        self.seed, self.wrong_move_at = seed, wrong_move_at
        self._ticks: dict[tuple[int, int], list[str]] = {}  # (episode, position of the tick token) -> the tick's tokens

    def new_cache(self, batch_size: int, max_len: int | None = None) -> _Cache:
        return _Cache(batch_size, max_len or 4096)

    def forward(self, idx: torch.Tensor, cache: _Cache) -> tuple[torch.Tensor, None]:
        logits = torch.zeros(idx.shape[0], idx.shape[1], len(self.tok))
        for j, row in enumerate(idx.tolist()):
            cache.history[j] += row
            logits[j, -1, self.tok.ids[self._next(self.tok.decode(cache.history[j]), cache.episodes[j])]] = 100.0
        cache.pos += idx.shape[1]
        return logits, None

    def _next(self, history: list[str], episode: int) -> str:
        from gamegrammar.games.snake.grammar import EpisodeEncoder
        from gamegrammar.games.snake.rules import Direction, SnakeGame

        last = max(i for i, t in enumerate(history) if t == "TICK")
        if last >= len(history) - 1 or "EOS" in history or not history[last + 1].startswith("INPUT_"):
            return "EOS"  # the input slot (forced, never read), or a dream that stopped and rides along
        tick = self._ticks.get((episode, last))
        if tick is None:  # the tick the engine plays from the dreamed state, once per tick
            state = SNAKE.trace(history[:last], CONFIG)[-1]
            game = SnakeGame.from_state(state, CONFIG, self.seed, episode)
            after, events, done = game.step(Direction[history[last + 1][len("INPUT_") :]])
            encoder = EpisodeEncoder(CODEC)
            encoder.tick(events, after, done)
            tick = self._ticks[episode, last] = encoder.tokens
            if after.tick == self.wrong_move_at and "MOVE" in tick:
                x = tick.index("MOVE") + 1
                tick[x] = f"X{(int(tick[x][1:]) + 1) % CONFIG.width}"
        k = len(history) - last
        return tick[k] if k < len(tick) else "TICK"


def _dream(model: nn.Module, agent: str = "greedy", **kwargs) -> tuple[list[D.Dream], list]:
    records = D.real_games(SNAKE, CONFIG, CODEC, agent, 0, range(GAMES))
    starts = [D.start_of(SNAKE, r, 0, e) for e, r in enumerate(records)]
    policies = [SNAKE.input_policy(agent, CONFIG) for _ in starts]
    sampling = SamplingConfig(temperature=kwargs.pop("temperature", 1.0), max_length=kwargs.pop("max_length", 1000), batch_size=GAMES)
    return D.dream(model, tokenizer_for(CONFIG), SNAKE, CONFIG, CODEC, starts, policies, sampling, **kwargs), records


def _check_inputs_forced(dreams: list[D.Dream], agent: str) -> None:
    """Every input slot holds what a fresh agent chooses on the dreamed state, and every forced token is an input."""
    for d in dreams:
        tokens = d.tokens
        slots = [i + 1 for i, t in enumerate(tokens) if t == "TICK" and i + 1 < len(tokens)]
        assert d.inputs == slots
        policy = SNAKE.input_policy(agent, CONFIG)
        policy.reset(d.seed, d.episode)
        states = SNAKE.trace(tokens, CONFIG)
        for tick, at in enumerate(slots):
            assert [tokens[at]] == policy.inputs(states[tick]), (d.episode, tick)
        assert d.states == states[: len(slots)]


def test_perfect_simulator_dreams_the_real_games():
    dreams, records = _dream(RulesModel())
    assert [d.tokens for d in dreams] == [r.tokens for r in records]  # same inputs, same spawns: the real games
    assert {d.stop for d in dreams} == {"end"}
    _check_inputs_forced(dreams, "greedy")
    m = D.measure(SNAKE, CONFIG, dreams, records)
    assert m["agreement"]["rate"] == 1.0 and m["agreement"]["ticks"] == sum(r.ticks for r in records)
    assert m["horizon"]["events"] == 0 and m["horizon"]["median"] is None
    assert all(row["survival"] == 1.0 for row in m["horizon"]["curve"])
    assert [d.horizon for d in dreams] == [(r.ticks, False) for r in records]  # censored at the game's end
    assert m["fidelity"]["length_ticks"]["tv"] == 0 and m["fidelity"]["score"]["ks"] == 0
    assert m["validity"]["tiers"]["full"]["rate"] == 1.0


def test_a_broken_simulator_breaks_where_it_goes_wrong():
    dreams, records = _dream(RulesModel(wrong_move_at=3))
    m = D.measure(SNAKE, CONFIG, dreams, records)
    longer = [d for d, r in zip(dreams, records) if r.ticks > 3]
    assert longer and all(d.horizon == (3, True) and d.stop == "broken" and d.ticks[-1] for d in longer)
    assert all(len(d.ticks) == 3 and d.tokens.count("TICK") == 3 for d in longer)  # stopped before the next tick
    assert m["agreement"]["rate"] < 1.0
    assert m["horizon"]["events"] == len(longer) and m["horizon"]["curve"][2]["events"] == len(longer)
    assert m["agreement"]["broken_rules"].get("move_follows_input") == len(longer)
    _check_inputs_forced(dreams, "greedy")


def test_forced_inputs_are_the_agents_whatever_the_model_writes():
    """An untrained model: whatever it writes, each input slot holds the agent's choice on the dreamed state."""
    torch.manual_seed(0)
    tok = tokenizer_for(CONFIG)
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=64, n_layer=1, n_head=2, n_embd=16, tick_table=64, tick_id=tok.ids["TICK"]))
    dreams, records = _dream(model, agent="random")
    _check_inputs_forced(dreams, "random")
    assert all(d.ticks for d in dreams)
    m = D.measure(SNAKE, CONFIG, dreams, records)
    assert m["agreement"]["rate"] < 0.5  # an untrained model is no simulator
    assert m["horizon"]["curve"][0]["survival"] < 1.0


def test_the_model_writes_past_the_context_by_sliding():
    tok = tokenizer_for(CONFIG)
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=24, n_layer=1, n_head=2, n_embd=16))
    stats = D.DreamStats()
    dreams, _ = _dream(model, temperature=0.0, stats=stats)
    assert all(d.stop in D.STOPS for d in dreams)
    _check_inputs_forced(dreams, "greedy")


def test_tick_and_length_caps():
    dreams, records = _dream(RulesModel(), max_ticks=4)
    for d, r in zip(dreams, records):
        assert len(d.ticks) == min(4, r.ticks) and d.stop == ("ticks" if r.ticks > 4 else "end")
        assert d.tokens == (SNAKE.episode_prefix(r.tokens, 4) if r.ticks > 4 else r.tokens)
    m = D.measure(SNAKE, CONFIG, dreams, records, max_ticks=4)
    assert m["fidelity"]["length_ticks"]["tv"] == 0  # the real games are read up to the cap too
    dreams, _ = _dream(RulesModel(), max_length=30)
    assert {d.stop for d in dreams} <= {"length", "end"} and all(len(d.tokens) <= 30 for d in dreams)
    assert any(d.stop == "length" for d in dreams)


def test_without_the_grammar_mask_an_ungrammatical_token_stops_the_dream():
    torch.manual_seed(1)
    tok = tokenizer_for(CONFIG)
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=64, n_layer=1, n_head=2, n_embd=16))
    records = D.real_games(SNAKE, CONFIG, CODEC, "greedy", 0, range(GAMES))
    starts = [D.start_of(SNAKE, r, 0, e) for e, r in enumerate(records)]
    policies = [SNAKE.input_policy("greedy", CONFIG) for _ in starts]
    dreams = D.dream(model, tok, SNAKE, CONFIG, CODEC, starts, policies, SamplingConfig(constrained=False, max_length=400))
    assert any(d.stop == "grammar" for d in dreams)
    for d in dreams:
        if d.stop == "grammar":
            assert d.ticks[-1] == ("grammar",) and d.horizon == (len(d.ticks), True)
            assert not SNAKE.validate(d.tokens, CONFIG).tiers["structural"]


def test_battlesnake_dreams_force_every_snakes_input():
    game = load_game("battlesnake")
    config = game.make_config(width=7, height=7, num_snakes=2, max_ticks=30)
    codec = game.codec_type()
    tok = tokenizer_for(config)
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=256, n_layer=1, n_head=2, n_embd=16, tick_table=64, tick_id=tok.ids["TICK"]))
    records = D.real_games(game, config, codec, "safe,greedy", 0, range(4))
    starts = [D.start_of(game, r, 0, e) for e, r in enumerate(records)]
    policies = [game.input_policy("safe,greedy", config) for _ in starts]
    dreams = D.dream(model, tok, game, config, codec, starts, policies, SamplingConfig(max_length=600, constrained=True))
    for d in dreams:
        assert d.tokens[: d.prompt] == starts[d.episode].tokens
        policy = game.input_policy("safe,greedy", config)
        policy.reset(0, d.episode)
        states = game.trace(d.tokens, config)
        ticks = [i for i, t in enumerate(d.tokens) if t == "TICK"] + [len(d.tokens)]
        first_tick = [i for i in d.inputs if i < ticks[1]]
        assert len(first_tick) == len(states[0].alive)  # one input per snake, each after its snake's token
        assert [d.tokens[i] for i in first_tick] == policy.inputs(states[0])
        assert [d.tokens[i - 1] for i in first_tick] == [f"S{k}" for k in states[0].alive]
    m = D.measure(game, config, dreams, records)
    assert m["dreams"]["n"] == 4 and "outcomes" in m["fidelity"]


def test_bad_calls_fail_in_one_line():
    records = D.real_games(SNAKE, CONFIG, CODEC, "greedy", 0, range(2))
    starts = [D.start_of(SNAKE, r, 0, e) for e, r in enumerate(records)]
    with pytest.raises(GameGrammarError, match="input policies"):
        D.dream(RulesModel(), tokenizer_for(CONFIG), SNAKE, CONFIG, CODEC, starts, [], SamplingConfig())
    with pytest.raises(GameGrammarError, match="max_ticks"):
        D.dream(RulesModel(), tokenizer_for(CONFIG), SNAKE, CONFIG, CODEC, starts, [SNAKE.input_policy("greedy", CONFIG)] * 2, max_ticks=0)
    with pytest.raises(GameGrammarError, match="token cap"):
        D.dream(
            RulesModel(),
            tokenizer_for(CONFIG),
            SNAKE,
            CONFIG,
            CODEC,
            starts,
            [SNAKE.input_policy("greedy", CONFIG)] * 2,
            SamplingConfig(max_length=5),
        )
    summary = SNAKE.codec_type(min_salience=2)
    with pytest.raises(GameGrammarError, match="salience 2"):
        D.dream(RulesModel(), tokenizer_for(CONFIG), SNAKE, CONFIG, summary, starts, [SNAKE.input_policy("greedy", CONFIG)] * 2)
    with pytest.raises(GameGrammarError, match="unknown agent"):
        SNAKE.input_policy("nobody", CONFIG)
