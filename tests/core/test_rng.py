import numpy as np

from gamegrammar.core import rng


def test_mix64_is_splitmix64():
    # SplitMix64's first output from state 0: pins the stream, and with it every corpus's bytes
    assert rng.mix64(0) == 0xE220A8397B1DCDAF
    assert rng.draw(1337, 5, 7, rng.Purpose.FOOD) == 0x460FB0F2467752D3


def test_vectorized_draws_equal_scalar_draws_for_any_keys():
    gen = np.random.default_rng(0)
    episodes = np.concatenate([gen.integers(0, 2**62, 50), [0, -1, -(2**40)]])
    ticks = gen.integers(-5, 10_000, len(episodes))
    for seed in (0, 1337, 2**63 - 1):
        for purpose in rng.Purpose:
            got = rng.draw_np(seed, episodes, ticks, purpose)
            want = [rng.draw(seed, int(e), int(t), purpose) for e, t in zip(episodes, ticks)]
            assert got.dtype == np.uint64 and got.tolist() == want
    seeds = gen.integers(0, 2**63, len(episodes))  # one seed per game, as the vector env has
    assert rng.draw_np(seeds, episodes, 3, 2).tolist() == [rng.draw(int(s), int(e), 3, 2) for s, e in zip(seeds, episodes)]


def test_keyed_draws_reuse_the_episode_and_tick_prefix():
    episodes = np.arange(-3, 40)
    keys = rng.episode_keys(99, episodes)
    for tick in (0, 1, 199):
        assert (
            rng.keyed_draw(rng.tick_keys(keys, tick), rng.Purpose.AGENT).tolist()
            == rng.draw_np(99, episodes, tick, rng.Purpose.AGENT).tolist()
        )


def test_choose_and_unit_stay_in_range_and_are_spread():
    picks = [rng.choose(7, e, 0, rng.Purpose.FOOD, 5) for e in range(5000)]
    units = [rng.unit(7, e, 0, rng.Purpose.AGENT) for e in range(5000)]
    assert set(picks) == set(range(5)) and max(np.bincount(picks)) < 1100  # 1000 each expected
    assert min(units) >= 0.0 and max(units) < 1.0 and abs(np.mean(units) - 0.5) < 0.02
    assert rng.unit(7, 0, 0, rng.Purpose.AGENT) == (int(rng.draw_np(7, np.array([0]), 0, rng.Purpose.AGENT)[0]) >> 11) / 2**53
