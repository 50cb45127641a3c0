from __future__ import annotations

import numpy as np

from gamegrammar.act.play_journal import PlayedBatch, PlayJournal, play_fingerprint
from gamegrammar.core.gamespec import BatchResult, PlayerResult


def _batch(n: int, place: bool) -> PlayedBatch:
    rng = np.random.default_rng(n)
    episodes = BatchResult(rng.integers(0, 50, 7 * n), np.full(n, 7), rng.integers(1, 9, n), rng.integers(0, 4, n), rng.integers(0, 3, n))
    result = PlayerResult(
        episodes, rng.integers(0, 9, n), rng.integers(1, 9, n), rng.integers(0, 3, n), ("DIE_WALL", "DIE_SELF", "TIMEOUT")
    )
    if place:
        result.place = rng.integers(1, 4, n)
    return PlayedBatch(result, 1.25, 17)


def _same(a: PlayedBatch, b: PlayedBatch) -> bool:
    fields = ("tokens", "lengths", "ticks", "scores", "ends")
    same = all(np.array_equal(getattr(a.result.episodes, f), getattr(b.result.episodes, f)) for f in fields)
    same &= all(np.array_equal(getattr(a.result, f), getattr(b.result, f)) for f in ("score", "ticks", "fate"))
    same &= a.result.fates == b.result.fates and (a.seconds, a.forward_passes) == (b.seconds, b.forward_passes)
    return same and (a.result.place is None) == (b.result.place is None)


def test_batches_read_back_as_they_were_put(tmp_path):
    journal = PlayJournal(tmp_path / "play.partial", play_fingerprint({"seed": 1}))
    assert not journal.stale and journal.kept() == 0
    for first, n, place in ((0, 4, False), (4, 3, True)):
        journal.put(np.arange(first, first + n), _batch(n, place))
    again = PlayJournal(tmp_path / "play.partial", play_fingerprint({"seed": 1}))
    assert again.kept() == 2 and not again.stale
    assert _same(again.get(np.arange(0, 4)), _batch(4, False)) and _same(again.get(np.arange(4, 7)), _batch(3, True))
    assert np.array_equal(again.get(np.arange(4, 7)).result.place, _batch(3, True).result.place)
    assert again.get(np.arange(4, 8)) is None  # a batch of other episodes (a run of more games) is played afresh
    assert again.resumed == 3 and again.resumed_seconds == 3.75
    (tmp_path / "play.partial" / "batch-0-4.npz").write_bytes(b"cut off")
    assert again.get(np.arange(0, 4)) is None
    again.remove()
    assert not (tmp_path / "play.partial").exists()


def test_a_journal_of_other_settings_is_cleared(tmp_path):
    PlayJournal(tmp_path / "j", play_fingerprint({"seed": 1})).put(np.arange(2), _batch(2, False))
    other = PlayJournal(tmp_path / "j", play_fingerprint({"seed": 2}))
    assert other.stale and other.kept() == 0 and other.get(np.arange(2)) is None
    assert play_fingerprint({"a": 1, "b": 2}) == play_fingerprint({"b": 2, "a": 1})
