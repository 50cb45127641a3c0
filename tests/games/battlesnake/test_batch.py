"""Differential tests: the batch engine against the scalar reference, turn by turn, state by state, byte by byte."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core import rng
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games.battlesnake import GAME, BattlesnakeConfig
from gamegrammar.games.battlesnake import batch as bb
from gamegrammar.games.battlesnake.agents import lineup, make_agent
from gamegrammar.games.battlesnake.batch_agents import AGENT_NAMES, agent_moves, lineup_codes, scripted_policy
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec
from gamegrammar.games.battlesnake.rollout import agent_draws, play_batch
from gamegrammar.games.battlesnake.rules import CAUSES, Move, advance, draw_spawns, initial_state, with_food

CONFIGS = [
    BattlesnakeConfig(11, 11, 4, max_ticks=120),
    BattlesnakeConfig(7, 7, 8, max_ticks=60),  # only the centre food; crowded: every collision
    BattlesnakeConfig(9, 5, 3, minimum_food=3, food_spawn_chance=100, max_ticks=60),  # random starts, several spawns a turn
    BattlesnakeConfig(5, 5, 1, minimum_food=0, food_spawn_chance=0, max_ticks=200),  # one snake, no spawns: it starves
]
MIX = {"random": 0.25, "safe": 0.25, "greedy": 0.25, "space": 0.25}
EVERY_AGENT = {"random": 0.2, "safe": 0.2, "greedy": 0.2, "space": 0.2, "careless": 0.2}


def batch_run(config, codec, seed, episodes, codes):
    """Tokens of each episode and the states after every turn, from one `play_batch` call (its observer)."""
    states = {int(e): [bb.BattlesnakeBatch.initial(config, seed, [e]).state(0)] for e in episodes}

    def observe(batch, games, turn):
        for row, game in enumerate(games):
            states[int(episodes[game])].append(batch.state(row))

    result = play_batch(config, codec, seed, episodes, scripted_policy(codes), observer=observe)
    tok = GameTokenizer(GAME.vocabulary(config))
    ends = np.cumsum(result.lengths)
    tokens = [tok.decode(result.tokens[end - n : end]) for end, n in zip(ends, result.lengths)]
    return states, tokens, result


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.width}x{c.height}x{c.num_snakes}")
def test_batch_plays_every_episode_like_the_scalar_engine(config):
    codec = BattlesnakeCodec(4, tails=config.num_snakes % 2 == 0)
    seed, episodes = 11, np.arange(20, 32)
    codes = lineup_codes(EVERY_AGENT, seed, episodes, config.num_snakes)
    states, tokens, result = batch_run(config, codec, seed, episodes, codes)
    for row, episode in enumerate(episodes.tolist()):
        record = GAME.play_episode(config, codec, ",".join(AGENT_NAMES[c] for c in codes[row]), seed, episode)
        assert states[episode] == record.states, f"episode {episode}: states diverge"
        assert tokens[row] == record.tokens, f"episode {episode}: tokens diverge"
        assert (result.ticks[row], result.scores[row], GAME.end_events[result.ends[row]]) == (record.ticks, record.score, record.end)


@pytest.mark.parametrize(
    "codec",
    [
        BattlesnakeCodec(0, 1),
        BattlesnakeCodec(3, 2, tails=True),
        BattlesnakeCodec(1, 3),
        BattlesnakeCodec(2, 4, tails=True),
        BattlesnakeCodec(0, 0, smell=True),
        BattlesnakeCodec(5, 0, tails=True, smell=True),
        BattlesnakeCodec(2, 2, smell=True),
        BattlesnakeCodec(0, 0, cells=True),
        BattlesnakeCodec(4, 0, tails=True, smell=True, cells=True),
        BattlesnakeCodec(3, 2, tails=True, cells=True),
        BattlesnakeCodec(0, 0, sense=True),
        BattlesnakeCodec(0, 0, cells=True, sense=True),
        BattlesnakeCodec(3, 0, tails=True, smell=True, cells=True, sense=True),
        BattlesnakeCodec(2, 3, sense=True),
        BattlesnakeCodec(0, 0, hits=True),
        BattlesnakeCodec(0, 0, cells=True, sense=True, hits=True),
        BattlesnakeCodec(3, 0, tails=True, smell=True, hits=True),
        BattlesnakeCodec(2, 3, hits=True),
    ],
    ids=lambda c: (
        f"K{c.keyframe_interval}-S{c.min_salience}-T{int(c.tails)}-F{int(c.smell)}-C{int(c.cells)}-B{int(c.sense)}-H{int(c.hits)}"
    ),
)
def test_every_codec_option_writes_the_scalar_bytes(codec):
    config = BattlesnakeConfig(7, 7, 4, max_ticks=50)
    episodes = np.arange(8)
    codes = lineup_codes(GAME.default_agents, 2, episodes, 4)
    result = GAME.play_batch(config, codec, 2, episodes, codes)
    tok = GameTokenizer(GAME.vocabulary(config))
    if codec.hits and not codec.min_salience:  # the batch engine's own HIT and MEET columns are exercised
        assert {"HIT", "MEET"} <= set(tok.decode(result.tokens))
    ends = np.cumsum(result.lengths)
    for row, episode in enumerate(episodes.tolist()):
        agents = ",".join(GAME.episode_agents(GAME.default_agents, 2, episode, config))
        want = GAME.play_episode(config, codec, agents, 2, episode).tokens
        assert tok.decode(result.tokens[ends[row] - result.lengths[row] : ends[row]]) == want


def test_the_engines_reach_every_end_and_every_cause():
    config = BattlesnakeConfig(7, 7, 4, max_ticks=40)
    episodes = np.arange(150)
    result = GAME.play_batch(config, BattlesnakeCodec(), 4, episodes, lineup_codes(MIX, 4, episodes, 4))
    assert set(result.ends.tolist()) == {GAME.end_events.index(e) for e in ("WIN", "DRAW", "TIMEOUT")}
    tok = GameTokenizer(GAME.vocabulary(config))
    written = set(tok.decode(result.tokens))
    assert {"DIE_WALL", "DIE_SELF", "DIE_BODY", "DIE_HEAD", "EAT", "SPAWN", "OUT"} <= written
    alone = GAME.play_batch(CONFIGS[3], BattlesnakeCodec(), 4, np.arange(4), np.full(4, AGENT_NAMES.index("space")))
    assert set(alone.ends.tolist()) == {GAME.end_events.index("DEATH")}
    assert "DIE_HEALTH" in GameTokenizer(GAME.vocabulary(CONFIGS[3])).decode(alone.tokens)


def test_one_agent_code_per_episode_means_every_snake_plays_it():
    config = BattlesnakeConfig(7, 7, 3, max_ticks=30)
    episodes = np.arange(6)
    codes = np.arange(6) % len(AGENT_NAMES)
    a = GAME.play_batch(config, BattlesnakeCodec(), 1, episodes, codes)
    b = GAME.play_batch(config, BattlesnakeCodec(), 1, episodes, np.repeat(codes[:, None], 3, axis=1))
    assert np.array_equal(a.tokens, b.tokens)
    with pytest.raises(ValueError, match="agent_codes"):
        GAME.play_batch(config, BattlesnakeCodec(), 1, episodes, np.zeros((6, 2), int))


def test_lineup_codes_are_the_scalar_lineups():
    episodes = np.arange(300)
    mix = {"space": 0.5, "random": 0.2, "greedy": 0.3}
    codes = lineup_codes(mix, 9, episodes, 5)
    want = [[AGENT_NAMES.index(a) for a in lineup(mix, 9, e, 5)] for e in episodes.tolist()]
    assert codes.tolist() == want
    assert np.array_equal(GAME.episode_agent_codes(mix, 9, episodes, BattlesnakeConfig(num_snakes=5)), codes)


# ---------------------------------------------------------------- one turn, on states the agents would not make


def _random_turns(config, seed, games, turns):
    """States along random play (every move word, and no move: along the neck), and each turn's moves."""
    gen = np.random.default_rng(seed)
    out = []
    for episode in range(games):
        state = initial_state(config, seed, episode)
        for _ in range(turns):
            if len(state.alive) < 2:
                break
            moves = [None if gen.random() < 0.15 else Move(int(gen.integers(4))) for _ in state.snakes]
            out.append((state, moves))
            after, _ = advance(state, moves, config)
            state = with_food(after, draw_spawns(after, config, seed, episode))
    return out


@pytest.mark.parametrize("config", [BattlesnakeConfig(7, 7, 6), BattlesnakeConfig(6, 4, 3, minimum_food=4)], ids=str)
def test_advance_and_spawns_are_the_rules_on_any_moves(config):
    cases = _random_turns(config, 3, 30, 25)
    batch = bb.BattlesnakeBatch.from_states([s for s, _ in cases], config)
    assert [batch.state(i) for i in range(len(cases))] == [s for s, _ in cases]
    moves = np.array([[-1 if m is None else int(m) for m in ms] for _, ms in cases])
    turn = bb.advance(batch, moves)
    keys = rng.tick_keys(rng.episode_keys(3, np.arange(len(cases))), batch.tick)
    spawned = bb.draw_spawns(batch, keys)
    for i, (state, ms) in enumerate(cases):
        after, want = advance(state, ms, config)
        cells = draw_spawns(after, config, 3, i)
        assert batch.state(i) == with_food(after, cells)
        assert [tuple(batch.board.xy(c)) for c in spawned[i] if c >= 0] == list(cells)
        movers = list(want.movers)
        assert np.flatnonzero(turn.movers[i]).tolist() == movers
        assert [Move(int(m)) for m in turn.moves[i, movers]] == list(want.moves)
        assert [tuple(batch.board.xy(c)) for c in turn.heads[i, movers]] == list(want.heads)
        assert turn.ate[i, movers].tolist() == list(want.ate)
        assert [None if c < 0 else tuple(batch.board.xy(c)) for c in turn.freed[i, movers]] == list(want.freed)
        assert {k: CAUSES[c - 1] for k, c in enumerate(turn.eliminated[i]) if c} == want.eliminated


def test_agents_choose_the_scalar_moves_on_any_state():
    config = BattlesnakeConfig(7, 7, 6)
    states = [s for s, _ in _random_turns(config, 5, 20, 20)]
    batch = bb.BattlesnakeBatch.from_states(states, config)
    episodes = np.arange(len(states))
    draws = agent_draws(rng.tick_keys(rng.episode_keys(5, episodes), batch.tick), 6)
    for code, name in enumerate(AGENT_NAMES):
        moves = agent_moves(batch, np.full((len(states), 6), code), draws)
        for i, state in enumerate(states):
            players = [make_agent(name, config, k) for k in range(6)]
            for p in players:
                p.reset(5, i)
            want = [int(p.act(state)) if state.snakes[k].alive else -1 for k, p in enumerate(players)]
            assert moves[i].tolist() == want, f"{name} on state {i}"


def test_a_mixed_corpus_shard_is_the_batch_engine_given_each_episodes_lineup():
    """What the corpus's batch writer must pass for a mixed agent mix: each episode's lineup (`episode_agent_codes`),
    whose column 0 is the index's agent code; then the bytes are the scalar writer's."""
    from gamegrammar.data.corpus import CorpusSpec, scalar_shard

    spec = CorpusSpec(game=BattlesnakeConfig(7, 7, 4, max_ticks=40), codec=BattlesnakeCodec(6), episodes=24, seed=5, shard_episodes=24)
    tokens, index = scalar_shard(spec, 0)
    episodes = index["episode"].astype(np.int64)
    lineups = GAME.episode_agent_codes(spec.agents, spec.seed, episodes, spec.game)
    result = GAME.play_batch(spec.game, spec.codec, spec.seed, episodes, lineups)
    assert np.array_equal(result.tokens, tokens) and np.array_equal(lineups[:, 0], index["agent"])
    assert np.array_equal(result.ticks, index["ticks"]) and np.array_equal(result.scores, index["score"])
    assert np.array_equal(result.ends, index["end"]) and np.array_equal(result.lengths, index["length"])


def test_the_narrow_sums_are_numpys_and_the_board_tables_are_shared():
    rows = np.random.default_rng(0).random((50, 169)) < 0.3
    assert (bb.cell_counts(rows) == rows.sum(axis=1)).all()
    assert (bb.row_counts(rows[:, :4]) == rows[:, :4].sum(axis=1)).all()
    assert bb.board_of(11, 11) is bb.BattlesnakeBatch.empty(CONFIGS[0], 1).board
    with pytest.raises(ValueError):  # a cached table is read-only: no caller can change every batch's board
        bb.board_of(11, 11).on_board[0] = True


def test_advance_writes_through_or_refuses_a_batch_it_cannot_write_in_place():
    config = CONFIGS[0]
    batch = bb.BattlesnakeBatch.initial(config, 0, np.arange(3))
    strided = bb.BattlesnakeBatch(config, *(getattr(batch, f) for f in batch._PER_GAME[:-2]), batch.occ[:, :, ::-1], batch.food)
    with pytest.raises(AttributeError):  # a view that is not contiguous would be written as a copy, and lost
        bb.advance(strided, np.zeros((3, config.num_snakes), np.int64))
