"""Differential tests: the vectorized engine against the scalar reference, tick by tick and byte by byte."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core import rng
from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.data.corpus import Corpus, CorpusSpec, batch_shard, engines, scalar_shard
from gamegrammar.games import tokenizer_for
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake import batch as sb
from gamegrammar.games.snake.agents import make_agent
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, agent_actions, scripted_policy
from gamegrammar.games.snake.grammar import COLUMN_OF, SnakeCodec
from gamegrammar.games.snake.rollout import play_batch
from gamegrammar.games.snake.rules import Direction, Outcome, SnakeConfig, SnakeGame, SnakeState, advance, resolve, spawn_food

BOARDS = [SnakeConfig(4, 4, 200), SnakeConfig(5, 7, 120), SnakeConfig(10, 10, 200), SnakeConfig(16, 12, 150)]


def scalar_episode(config: SnakeConfig, codec: CodecConfig, seed: int, episode: int, agent_name: str):
    """States after every tick and the tokens of one episode, from SnakeGame and the scalar agent."""
    record = GAME.play_episode(config, codec, agent_name, seed, episode)
    return record.states, record.tokens, record.end


def batch_episodes(config: SnakeConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, agent_name: str):
    """The same, from one `play_batch` call, with the states taken by its observer."""
    episodes = np.asarray(episodes)
    initial = sb.SnakeBatch.initial(config, seed, episodes)
    states = {int(e): [initial.state(i)] for i, e in enumerate(episodes)}

    def observe(batch: sb.SnakeBatch, games: np.ndarray, res: sb.Resolution) -> None:
        for row, game in enumerate(games):
            states[int(episodes[game])].append(batch.state(row))

    codes = np.full(len(episodes), AGENT_NAMES.index(agent_name))
    result = play_batch(config, codec, seed, episodes, scripted_policy(codes), observer=observe)
    tokenizer = tokenizer_for(config)
    ends = np.cumsum(result.lengths)
    tokens = [tokenizer.decode(result.tokens[end - n : end]) for end, n in zip(ends, result.lengths)]
    return states, tokens, result


@pytest.mark.parametrize("keyframe_interval", [0, 5])
@pytest.mark.parametrize("config", BOARDS, ids=lambda c: f"{c.width}x{c.height}")
@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_batch_plays_every_episode_like_the_scalar_engine(agent, config, keyframe_interval):
    codec = CodecConfig(keyframe_interval)
    seed = 7 + config.width
    episodes = np.arange(100, 112)
    states, tokens, result = batch_episodes(config, codec, seed, episodes, agent)
    for row, episode in enumerate(episodes):
        want_states, want_tokens, want_end = scalar_episode(config, codec, seed, int(episode), agent)
        assert states[int(episode)] == want_states, f"episode {episode}: states diverge"
        assert tokens[row] == want_tokens, f"episode {episode}: tokens diverge"
        assert result.ticks[row] == want_states[-1].tick and result.scores[row] == want_states[-1].score
        assert ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT")[result.ends[row]] == want_end


OPTIONS = [SnakeCodec(k, **{option: True}) for option in ("tail_events", "head_first", "sense") for k in (0, 4)]


def batch_is_scalar(config: SnakeConfig, codec: SnakeCodec, seed: int, episodes: np.ndarray, agent: str) -> list[list[str]]:
    """The batch engine's episodes, each checked against the scalar engine's states, tokens and end; their tokens."""
    states, tokens, result = batch_episodes(config, codec, seed, episodes, agent)
    for row, episode in enumerate(episodes):
        want_states, want_tokens, want_end = scalar_episode(config, codec, seed, int(episode), agent)
        assert states[int(episode)] == want_states, f"episode {episode}: states diverge"
        assert tokens[row] == want_tokens, f"episode {episode}: tokens diverge"
        assert ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT")[result.ends[row]] == want_end
    return tokens


@pytest.mark.parametrize("codec", OPTIONS, ids=["tails-K0", "tails-K4", "head-K0", "head-K4", "sense-K0", "sense-K4"])
@pytest.mark.parametrize("config", BOARDS[:3], ids=lambda c: f"{c.width}x{c.height}")
@pytest.mark.parametrize("agent", ["random", "greedy", "wall_follower"])
def test_batch_writes_each_grammar_option_like_the_scalar_engine(agent, config, codec):
    tokens = batch_is_scalar(config, codec, 3 + config.height, np.arange(40, 48), agent)
    if codec.tail_events:
        assert any("FREE" in t for t in tokens)
        return
    if codec.sense:  # a SENSE word right after every input
        assert all(t[i + 1].startswith("SENSE_") for t in tokens for i, token in enumerate(t) if token.startswith("INPUT_"))
        return
    # head first: every tick writes the head's cell right after its input (none on a wall death), then its outcome word
    for t in tokens:
        inputs = [i for i, token in enumerate(t) if token.startswith("INPUT_")]
        assert all(
            t[i + 1] == "DIE_WALL" or (t[i + 1][0], t[i + 2][0], t[i + 3]) in {("X", "Y", w) for w in ("MOVE", "EAT", "DIE_SELF")}
            for i in inputs
        )


# The spawn column alone and with each other design; at keyframe intervals 0 and 3; at saliences that keep every
# event (the plain ticks' fast path), keep FOOD_SPAWN but drop the moves (every tick on the general path), and drop it.
COLUMN_DESIGNS = {"column": {}, "column-tails": {"tail_events": True}, "column-head": {"head_first": True}, "column-sense": {"sense": True}}
COLUMN_SALIENCES = (Salience.TICK, Salience.RULE_EFFECT, Salience.PHASE)
COLUMN_BOARDS = [SnakeConfig(6, 5, 50), SnakeConfig(4, 4, 40), SnakeConfig(5, 7, 50), SnakeConfig(10, 10, 60)]  # long enough to grow


@pytest.mark.parametrize("min_salience", COLUMN_SALIENCES, ids=lambda s: f"S{int(s)}")
@pytest.mark.parametrize("keyframe_interval", [0, 3], ids=lambda k: f"K{k}")
@pytest.mark.parametrize("design", COLUMN_DESIGNS)
@pytest.mark.parametrize("config", COLUMN_BOARDS, ids=lambda c: f"{c.width}x{c.height}")
@pytest.mark.parametrize("agent", ["careless", "greedy"])
def test_batch_writes_the_spawn_column_like_the_scalar_engine(agent, config, design, keyframe_interval, min_salience):
    """Every eat's column words, read off the occupancy grid after the tick, in every design; dropped with FOOD_SPAWN."""
    codec = SnakeCodec(keyframe_interval, min_salience, spawn_column=True, **COLUMN_DESIGNS[design])
    tokens = batch_is_scalar(config, codec, 5 + config.width, np.arange(20, 25), agent)
    words = [sum(token in COLUMN_OF for token in t) for t in tokens]
    assert words == [t.count("FOOD_SPAWN") * config.height for t in tokens]  # H words after every spawn's X, none elsewhere
    assert (sum(words) > 0) == (min_salience <= Salience.RULE_EFFECT)  # the games eat: the words are there unless dropped


def test_the_batch_engines_column_corpus_is_the_scalar_engines(column_corpus):
    """`generate` (the batch engine by default) writes the spawn-column corpus the scalar engine writes, shard by shard."""
    corpus = Corpus(column_corpus)
    assert len(corpus.shards) == corpus.spec.num_shards > 1
    for shard, tokens in enumerate(corpus.shards):
        want_tokens, want_index = scalar_shard(corpus.spec, shard)
        assert np.asarray(tokens).tobytes() == want_tokens.tobytes()
        assert np.array_equal(corpus.index["length"][corpus.index["shard"] == shard], want_index["length"])
    assert {"VAC", "OCC"} <= set(corpus.tokenizer.decode(want_tokens))


# The body list alone and with each other design, at the same keyframe intervals and saliences as the spawn column.
LIST_DESIGNS = {"list": {}, "list-tails": {"tail_events": True}, "list-head": {"head_first": True}, "list-sense": {"sense": True}}


@pytest.mark.parametrize("min_salience", COLUMN_SALIENCES, ids=lambda s: f"S{int(s)}")
@pytest.mark.parametrize("keyframe_interval", [0, 3], ids=lambda k: f"K{k}")
@pytest.mark.parametrize("design", LIST_DESIGNS)
@pytest.mark.parametrize("config", COLUMN_BOARDS, ids=lambda c: f"{c.width}x{c.height}")
@pytest.mark.parametrize("agent", ["careless", "greedy"])
def test_batch_writes_the_body_list_like_the_scalar_engine(agent, config, design, keyframe_interval, min_salience):
    """Every spawn's listed cells, read off the ring after the tick, in every design; dropped with FOOD_SPAWN."""
    codec = SnakeCodec(keyframe_interval, min_salience, body_list=True, **LIST_DESIGNS[design])
    tokens = batch_is_scalar(config, codec, 5 + config.width, np.arange(20, 25), agent)
    listed = 0
    for t in tokens:
        for i, token in enumerate(t):
            if token == "FOOD_SPAWN":
                grown = next(int(t[j][3:]) for j in range(i - 1, 0, -1) if t[j].startswith("LEN"))
                cells = t[i - 2 * (grown - 1) : i]
                assert t[i - 2 * grown + 1].startswith("LEN") and all(c[0] == "XY"[k % 2] for k, c in enumerate(cells))
                listed += grown - 1
    assert (listed > 0) == (min_salience <= Salience.RULE_EFFECT)  # the games eat: the cells are there unless dropped


SMALL_BOARD_CODECS = [
    CodecConfig(3),
    *(SnakeCodec(3, salience, head_first=True) for salience in range(5)),
    SnakeCodec(3, spawn_column=True),
    SnakeCodec(3, spawn_column=True, head_first=True),
    SnakeCodec(3, body_list=True),
    SnakeCodec(3, body_list=True, sense=True),
]


@pytest.mark.parametrize(
    "codec", SMALL_BOARD_CODECS, ids=["v1", *(f"head-S{s}" for s in range(5)), "column", "column-head", "list", "list-sense"]
)
def test_small_board_reaches_every_end_reason(codec):
    """4x4 games win; a differential test that never sees WIN would not test it. Head first at every salience: a
    self-death writes the cell it runs into, a win's eat has no spawn (nor, with the spawn column, a column), and above
    a move's salience the cells go with the MOVE words."""
    config = SnakeConfig(4, 4, 40)
    episodes = np.arange(60)
    codes = np.arange(60) % 3
    result = play_batch(config, codec, 1, episodes, scripted_policy(codes))
    assert set(result.ends.tolist()) == {0, 1, 2, 3}
    tokenizer = tokenizer_for(config)
    ends = np.cumsum(result.lengths)
    for row in range(len(episodes)):
        _, want, end = scalar_episode(config, codec, 1, row, AGENT_NAMES[codes[row]])
        assert tokenizer.decode(result.tokens[ends[row] - result.lengths[row] : ends[row]]) == want, f"episode {row}"
        assert (end == "WIN") == (result.ends[row] == 2)
        if getattr(codec, "head_first", False) and end == "DIE_SELF" and codec.min_salience <= Salience.COLLISION:
            assert want[-2] == "DIE_SELF" and ((want[-4][0], want[-3][0]) == ("X", "Y")) == (codec.min_salience <= Salience.MOVEMENT)


@pytest.mark.parametrize(
    "spec",
    [
        CorpusSpec(episodes=80, seed=3, shard_episodes=80),
        CorpusSpec(game=SnakeConfig(6, 5, 80), codec=CodecConfig(1, 0), episodes=40, seed=9, shard_episodes=40),
        CorpusSpec(game=SnakeConfig(5, 7, 90), codec=CodecConfig(4, 1), agents={"greedy": 1.0}, episodes=40, shard_episodes=40),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=CodecConfig(2, 3), agents={"wall_follower": 0.5, "random": 0.5}, episodes=40),
        CorpusSpec(game=SnakeConfig(8, 6, 70), codec=CodecConfig(0, 4), episodes=40, seed=2**62 + 5, val_fraction=0.3),
        CorpusSpec(game=SnakeConfig(7, 7, 50), codec=CodecConfig(0, 2), episodes=40, seed=11),
        CorpusSpec(codec=SnakeCodec(tail_events=True), episodes=50, seed=3, shard_episodes=50),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=SnakeCodec(3, 0, True), episodes=40, seed=5),
        CorpusSpec(game=SnakeConfig(6, 5, 80), codec=SnakeCodec(1, 1, True), agents={"greedy": 1.0}, episodes=40, seed=9),
        CorpusSpec(game=SnakeConfig(7, 7, 50), codec=SnakeCodec(2, 2, True), episodes=40, seed=11),
        CorpusSpec(codec=SnakeCodec(head_first=True), episodes=50, seed=3, shard_episodes=50),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=SnakeCodec(3, 0, head_first=True), episodes=40, seed=5),
        CorpusSpec(game=SnakeConfig(6, 5, 80), codec=SnakeCodec(1, 1, head_first=True), agents={"greedy": 1.0}, episodes=40, seed=9),
        CorpusSpec(game=SnakeConfig(7, 7, 50), codec=SnakeCodec(2, 2, head_first=True), episodes=40, seed=11),
        CorpusSpec(codec=SnakeCodec(sense=True), agents={"careless": 0.5, "greedy": 0.5}, episodes=50, seed=3, shard_episodes=50),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=SnakeCodec(3, 0, sense=True), episodes=40, seed=5),
        CorpusSpec(game=SnakeConfig(6, 5, 80), codec=SnakeCodec(1, 1, sense=True), agents={"greedy": 1.0}, episodes=40, seed=9),
        CorpusSpec(game=SnakeConfig(7, 7, 50), codec=SnakeCodec(2, 2, sense=True), episodes=40, seed=11),
        CorpusSpec(codec=SnakeCodec(spawn_column=True), agents={"careless": 0.5, "greedy": 0.5}, episodes=50, seed=3, shard_episodes=50),
        CorpusSpec(
            game=SnakeConfig(6, 5, 80), codec=SnakeCodec(1, 1, True, spawn_column=True), agents={"greedy": 1.0}, episodes=40, seed=9
        ),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=SnakeCodec(3, 0, sense=True, spawn_column=True), episodes=40, seed=5),
        CorpusSpec(game=SnakeConfig(7, 5, 50), codec=SnakeCodec(2, 3, head_first=True, spawn_column=True), episodes=40, seed=11),
        CorpusSpec(codec=SnakeCodec(sense=True, body_list=True), agents={"careless": 0.5, "greedy": 0.5}, episodes=50, seed=3),
        CorpusSpec(game=SnakeConfig(6, 5, 80), codec=SnakeCodec(1, 1, True, body_list=True), agents={"greedy": 1.0}, episodes=40, seed=9),
        CorpusSpec(game=SnakeConfig(4, 4, 60), codec=SnakeCodec(3, 0, head_first=True, body_list=True), episodes=40, seed=5),
    ],
    ids=[
        *("default", "k1", "greedy-k4-sal1", "4x4-sal3", "sal4-bigseed", "sal2"),
        *("tails", "tails-4x4-k3", "tails-k1-sal1", "tails-sal2"),
        *("head-first", "head-first-4x4-k3", "head-first-k1-sal1", "head-first-sal2"),
        *("sense-careless", "sense-4x4-k3", "sense-k1-sal1", "sense-sal2"),
        *("column-careless", "column-tails-6x5-k1-sal1", "column-sense-4x4-k3", "column-head-7x5-sal3"),
        *("list-sense-careless", "list-tails-6x5-k1-sal1", "list-head-4x4-k3"),
    ],
)
def test_batch_shard_is_byte_identical_to_scalar_shard(spec):
    want_tokens, want_index = scalar_shard(spec, 0)
    several = len(want_index) // 3 + 1  # three batches, the last one shorter (each batch costs a fixed setup)
    for batch_episodes_ in (several, 4096):  # several batches per shard, and one
        tokens, index = batch_shard(spec, 0, batch_episodes_)
        assert tokens.dtype == want_tokens.dtype and tokens.tobytes() == want_tokens.tobytes()
        assert index.dtype == want_index.dtype and index.tobytes() == want_index.tobytes()


def test_later_shard_and_engine_registry():
    spec = CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=75, seed=4, shard_episodes=30)
    assert set(engines()) >= {"batch", "scalar"}
    for shard in range(spec.num_shards):
        a, b = scalar_shard(spec, shard), engines()["batch"](spec, shard)
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()


def random_states(config: SnakeConfig, n: int, seed: int) -> list[SnakeState]:
    """Mid-game states (long bodies, food, some next to walls) from scalar games driven by random inputs."""
    states = []
    for episode in range(n):
        game = SnakeGame(config)
        state = game.reset(seed, episode)
        agent = make_agent("greedy", config)
        agent.reset(seed, episode)
        stop = rng.choose(seed, episode, 0, 99, 40)
        while not game.done and state.tick < stop:
            state, _, _ = game.step(agent.act(state))
        if not game.done:
            states.append(state)
    return states


@pytest.mark.parametrize("config", [SnakeConfig(4, 4), SnakeConfig(9, 6)], ids=["4x4", "9x6"])
def test_step_api_matches_scalar_rules_with_supplied_food(config):
    """The evaluator's use: explicit states, any input (reversals too), food cells supplied from outside."""
    states = random_states(config, 80, seed=5)
    batch = sb.SnakeBatch.from_states(states, config)
    assert [batch.state(i) for i in range(len(batch))] == states
    gen = np.random.default_rng(0)
    actions = gen.integers(0, 4, len(states))
    food = gen.integers(0, config.cells, len(states))  # read only where the outcome is EAT
    res = sb.step(batch, actions, food=food)
    outcomes = set()
    for i, state in enumerate(states):
        direction, outcome, head = resolve(state, config, Direction(int(actions[i])))
        outcomes.add(outcome)
        assert sb.OUTCOMES[res.outcome[i]] is outcome and res.direction[i] == direction
        cell = (int(food[i]) % config.width, int(food[i]) // config.width) if outcome is Outcome.EAT else None
        assert batch.state(i) == advance(state, direction, outcome, head, cell)
    assert outcomes >= {Outcome.MOVE, Outcome.DIE_WALL}


def test_step_api_draws_food_like_the_scalar_engine():
    config = SnakeConfig(5, 5)
    states = random_states(config, 60, seed=8)
    episodes = np.arange(len(states)) + 1000
    batch = sb.SnakeBatch.from_states(states, config)
    agent = make_agent("greedy", config)
    actions = []
    for state, episode in zip(states, episodes):
        agent.reset(8, int(episode))
        actions.append(int(agent.act(state)))
    res = sb.step(batch, np.array(actions), seed=8, episodes=episodes)
    assert (res.outcome == sb.EAT).any()
    for i, (state, episode) in enumerate(zip(states, episodes)):
        direction, outcome, head = resolve(state, config, Direction(actions[i]))
        food = spawn_food((head, *state.body), config, 8, int(episode), state.tick + 1) if outcome is Outcome.EAT else None
        assert batch.state(i) == advance(state, direction, outcome, head, food)


def test_agent_actions_match_scalar_agents_on_mid_game_states():
    config = SnakeConfig(6, 5)
    states = random_states(config, 90, seed=13)
    batch = sb.SnakeBatch.from_states(states, config)
    for code, name in enumerate(AGENT_NAMES):
        agent = make_agent(name, config)
        draws = rng.draw_np(13, np.arange(len(states)), batch.tick, rng.Purpose.AGENT)
        got = agent_actions(batch, np.full(len(states), code), draws)
        for i, state in enumerate(states):
            agent.reset(13, i)
            assert got[i] == agent.act(state), f"{name} on state {i}"


def test_resolve_taken_matches_resolve():
    config = SnakeConfig(6, 5)
    batch = sb.SnakeBatch.initial(config, 3, np.arange(300))
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = rng.integers(0, 4, len(batch))
        full, taken = sb.resolve(batch, actions), sb.resolve_taken(batch, actions)
        for name in ("action", "direction", "outcome", "x", "y", "cell"):
            assert np.array_equal(getattr(full, name), getattr(taken, name)), name
        sb.advance(batch, taken)
        ate = np.flatnonzero(taken.outcome == sb.EAT)
        batch.food[ate] = sb.spawn_food(batch, ate, rng.integers(0, 1 << 30, len(ate)))
        batch = batch.take(np.flatnonzero(taken.outcome <= sb.EAT))
        if not len(batch):
            break


def test_from_cells_matches_from_states():
    config = SnakeConfig(6, 5)
    batch = sb.SnakeBatch.initial(config, 1, np.arange(50))
    rng = np.random.default_rng(1)
    for _ in range(12):
        res = sb.step(batch, rng.integers(0, 4, len(batch)), seed=1)
        batch = batch.take(np.flatnonzero(res.outcome <= sb.EAT))
    states = [batch.state(i) for i in range(len(batch))]
    width = max(s.length for s in states)
    cells = np.array([[y * config.width + x for x, y in s.body] + [0] * (width - s.length) for s in states])
    built = sb.SnakeBatch.from_cells(
        config,
        cells,
        np.array([s.length for s in states]),
        np.array([int(s.direction) for s in states]),
        np.array([-1 if s.food is None else s.food[1] * config.width + s.food[0] for s in states]),
        np.array([s.score for s in states]),
    )
    want = sb.SnakeBatch.from_states([s.__class__(s.body, s.direction, s.food, s.score, 0) for s in states], config)
    for name in sb.SnakeBatch._PER_GAME:
        assert np.array_equal(getattr(built, name), getattr(want, name)), name
