import numpy as np

from gamegrammar.core.tokenlog import TokenLog


def test_chunks_written_tick_by_tick_come_out_episode_by_episode():
    rng = np.random.default_rng(0)
    n, want = 5, [[] for _ in range(5)]
    log = TokenLog(n)
    for tick in range(30):
        games = np.sort(rng.choice(n, size=rng.integers(1, n + 1), replace=False))
        ids = rng.integers(0, 1000, (len(games), 4))
        if tick % 3:
            mask = rng.random(ids.shape) < 0.6
            log.write(games, ids, mask)
            for g, row, keep in zip(games, ids, mask):
                want[g] += row[keep].tolist()
        else:
            log.write_dense(games, ids)
            for g, row in zip(games, ids):
                want[g] += row.tolist()
    flat, lengths = log.assemble(np.dtype(np.uint16))
    assert lengths.tolist() == [len(w) for w in want] and flat.dtype == np.uint16
    assert flat.tolist() == [t for w in want for t in w]


def test_an_episode_with_no_tokens_takes_no_room():
    log = TokenLog(3)
    log.write_dense(np.array([0, 2]), np.array([[1, 2], [3, 4]]))
    flat, lengths = log.assemble(np.dtype(np.int64))
    assert lengths.tolist() == [2, 0, 2] and flat.tolist() == [1, 2, 3, 4]
