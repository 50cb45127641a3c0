from __future__ import annotations

import pytest

from gamegrammar.cli import main
from gamegrammar.model.sample_journal import SampleJournal


def _interrupt_after_first_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    record = SampleJournal.record

    def record_then_stop(self, progress, stats):
        record(self, progress, stats)
        raise KeyboardInterrupt

    monkeypatch.setattr(SampleJournal, "record", record_then_stop)


def test_an_interrupted_sample_resumes_and_writes_what_an_uninterrupted_one_does(tiny_run, tmp_path, monkeypatch, capsys):
    _, _, ckpt = tiny_run
    args = ["sample", "--ckpt", str(ckpt), "--num", "5", "--batch-size", "2", "--seed", "3", "--quiet", "--device", "cpu"]
    assert main([*args, "--out", str(tmp_path / "whole.txt")]) == 0
    out, journal = tmp_path / "resumed.txt", tmp_path / "resumed.txt.partial"
    with monkeypatch.context() as m:
        _interrupt_after_first_batch(m)
        assert main([*args, "--out", str(out)]) == 130
    assert not out.exists() and journal.exists()
    capsys.readouterr()
    assert main([*args, "--out", str(out)]) == 0
    assert "resuming from" in (err := capsys.readouterr().err) and "2 of 5 sequences were sampled before" in err
    assert out.read_text() == (tmp_path / "whole.txt").read_text()
    assert not journal.exists()


@pytest.mark.parametrize(
    ("first", "then", "said"),
    [
        (["--seed", "1"], ["--seed", "2"], "computing in "),
        (["--dtype", "float32"], ["--dtype", "bfloat16"], "computing in bfloat16 (asked for)"),
    ],
    ids=["seed", "dtype"],
)
def test_a_journal_of_other_settings_is_replaced_not_resumed(tiny_run, tmp_path, monkeypatch, capsys, first, then, said):
    _, _, ckpt = tiny_run
    args = [
        "sample",
        "--ckpt",
        str(ckpt),
        "--num",
        "4",
        "--batch-size",
        "2",
        "--quiet",
        "--device",
        "cpu",
        "--out",
        str(tmp_path / "s.txt"),
    ]
    with monkeypatch.context() as m:
        _interrupt_after_first_batch(m)
        assert main([*args, *first]) == 130
    capsys.readouterr()
    assert main([*args, *then]) == 0
    err = capsys.readouterr().err
    assert "from another run" in err and said in err
    assert main([*args[:-2], "--out", str(tmp_path / "fresh.txt"), *then]) == 0
    assert (tmp_path / "s.txt").read_text() == (tmp_path / "fresh.txt").read_text()


def test_an_interrupted_evaluate_resumes_its_samples(tiny_run, tmp_path, monkeypatch, capsys):
    _, _, ckpt = tiny_run
    args = ["evaluate", "--ckpt", str(ckpt), "--num", "4", "--batch-size", "2", "--quiet", "--device", "cpu"]
    assert main([*args, "--out", str(tmp_path / "whole")]) == 0
    with monkeypatch.context() as m:
        _interrupt_after_first_batch(m)
        assert main([*args, "--out", str(tmp_path / "resumed")]) == 130
    assert (tmp_path / "resumed" / "samples.txt.partial").exists()
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "resumed")]) == 0
    assert "2 of 4 sequences were sampled before" in capsys.readouterr().err
    assert (tmp_path / "resumed" / "samples.txt").read_text() == (tmp_path / "whole" / "samples.txt").read_text()
    assert not (tmp_path / "resumed" / "samples.txt.partial").exists()


def test_evaluate_reports_the_dtype_it_sampled_in(tiny_run, tmp_path):
    import json

    _, _, ckpt = tiny_run
    args = ["evaluate", "--ckpt", str(ckpt), "--num", "2", "--quiet", "--device", "cpu", "--dtype", "auto", "--out", str(tmp_path / "r")]
    assert main(args) == 0
    said = json.loads((tmp_path / "r" / "report.json").read_text())["sampling"]["dtype"]
    assert said.startswith(("float32 (auto:", "bfloat16 (auto:"))


def test_the_rules_draft_writes_the_same_samples_in_fewer_passes(tiny_run, tmp_path):
    """`--draft rules` (the default) against one token a pass, in float32: the very same samples, and the report says so."""
    import json

    _, _, ckpt = tiny_run
    args = ["evaluate", "--ckpt", str(ckpt), "--num", "6", "--batch-size", "3", "--quiet", "--device", "cpu", "--dtype", "float32"]
    assert main([*args, "--out", str(tmp_path / "drafted")]) == 0
    assert main([*args, "--draft", "none", "--out", str(tmp_path / "plain")]) == 0
    assert (tmp_path / "drafted" / "samples.txt").read_text() == (tmp_path / "plain" / "samples.txt").read_text()
    drafted, plain = (json.loads((tmp_path / name / "report.json").read_text())["sampling"] for name in ("drafted", "plain"))
    assert drafted["draft"] == "rules" and plain["draft"] == "none" and plain["proposed_tokens"] == 0
    # a model trained for 4 steps leaves the rules at once: its proposals are mostly refused, and it saves no pass
    assert drafted["proposed_tokens"] > 0 and drafted["kept_tokens"] <= drafted["proposed_tokens"]
    assert drafted["forward_passes"] <= plain["forward_passes"]
