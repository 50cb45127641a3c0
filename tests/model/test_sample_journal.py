from __future__ import annotations

import torch

from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.model.sample_journal import SampleJournal, run_fingerprint
from gamegrammar.model.sampling import SamplingConfig, SamplingProgress, SamplingStats

CPU = torch.device("cpu")


def _model(seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    return GameGPT(GPTConfig(vocab_size=20, block_size=32, n_layer=1, n_head=2, n_embd=16)).eval()


def test_the_fingerprint_changes_with_anything_that_changes_the_samples():
    model, prompts, config = _model(), [[2]] * 4, SamplingConfig(seed=1)
    base = run_fingerprint(model, prompts, config, CPU)
    assert base == run_fingerprint(_model(), [[2]] * 4, SamplingConfig(seed=1), CPU)
    others = [
        run_fingerprint(_model(1), prompts, config, CPU),
        run_fingerprint(model, [[2]] * 5, config, CPU),
        run_fingerprint(model, prompts, SamplingConfig(seed=2), CPU),
        run_fingerprint(model, prompts, SamplingConfig(seed=1, temperature=0.5), CPU),
        run_fingerprint(model, prompts, config, torch.device("meta")),
        run_fingerprint(model, prompts, config, CPU, drafted=True),  # the same samples but for rounding: not resumed across
    ]
    assert len({base, *others}) == 7


def test_recorded_batches_load_back_and_a_torn_line_is_dropped(tmp_path):
    path = tmp_path / "samples.txt.partial"
    journal = SampleJournal(path, "run-a")
    assert journal.load() is None and not journal.stale
    stats = SamplingStats(sequences=2, generated_tokens=30, seconds=1.5, slides=1, passes=9, proposed=20, accepted=19)
    journal.record(SamplingProgress([[2, 5, 3], [2, 3]]), stats)
    stats = SamplingStats(sequences=4, generated_tokens=70, seconds=3.0, slides=2)
    journal.record(SamplingProgress([[2, 5, 3], [2, 3], [2, 7], [2, 7, 7, 3]]), stats)
    with path.open("a") as f:
        f.write('{"first":4,"sequences":[[2,')  # killed mid-write

    again = SampleJournal(path, "run-a")
    progress, loaded_stats = again.load()
    assert progress.sequences == [[2, 5, 3], [2, 3], [2, 7], [2, 7, 7, 3]]
    assert loaded_stats == stats
    assert len(path.read_text().splitlines()) == 3  # header and two batches: the torn line is gone
    again.record(SamplingProgress([*progress.sequences, [2, 4]]), SamplingStats(sequences=5))
    assert SampleJournal(path, "run-a").load()[0].sequences[-1] == [2, 4]


def test_a_journal_of_another_run_is_not_resumed_and_is_replaced(tmp_path):
    path = tmp_path / "out.txt.partial"
    SampleJournal(path, "run-a").record(SamplingProgress([[2, 3]]), SamplingStats(sequences=1))
    other = SampleJournal(path, "run-b")
    assert other.load() is None and other.stale
    other.record(SamplingProgress([[2, 5]]), SamplingStats(sequences=1))
    assert SampleJournal(path, "run-b").load()[0].sequences == [[2, 5]]
    assert SampleJournal(path, "run-a").load() is None
    path.write_text("not json\n")
    assert SampleJournal(path, "run-a").load() is None
