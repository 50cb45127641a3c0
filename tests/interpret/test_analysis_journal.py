from __future__ import annotations

import math

import numpy as np

from gamegrammar.interpret.analysis_journal import AnalysisJournal, analysis_fingerprint


def test_parts_read_back_as_they_were_put_in_their_own_order(tmp_path):
    journal = AnalysisJournal(tmp_path / "j", "run-a")
    assert not journal.stale and journal.get("tier2", "game") is None
    tier2 = {"zeta": 1, "alpha": {"b": float("nan"), "a": [1, 2]}, "game": "snake"}
    tier3 = {"episodes": 3, "arrays": {"labels": np.array([0, 1, 1]), "names": ["greedy", "random"], "x": np.eye(3)}}
    journal.put("tier2", tier2, 12.5, "game")
    journal.put("tier3", tier3, 3.0, "arrays")
    again = AnalysisJournal(tmp_path / "j", "run-a")
    section, seconds = again.get("tier2", "game")
    assert seconds == 12.5 and list(section) == ["zeta", "alpha", "game"] and section["game"] == "snake"
    assert list(section["alpha"]) == ["b", "a"] and math.isnan(section["alpha"]["b"])
    section, _ = again.get("tier3", "arrays")
    assert section["arrays"]["names"] == ["greedy", "random"] and np.array_equal(section["arrays"]["x"], np.eye(3))
    assert again.get("probes", None) is None
    (tmp_path / "j" / "tier2.json").write_text('{"section": {"zeta"')  # cut off
    assert again.get("tier2", "game") is None


def test_another_run_clears_the_folder(tmp_path):
    AnalysisJournal(tmp_path / "j", "run-a").put("probes", {"x": 1}, 1.0, None)
    other = AnalysisJournal(tmp_path / "j", "run-b")
    assert other.stale and other.get("probes", None) is None


def test_the_fingerprint_follows_the_weights_the_corpus_and_the_settings(tmp_path):
    for name in ("c1", "c2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text(f'{{"name": "{name}"}}')
    base = analysis_fingerprint("w", tmp_path / "c1", {"seed": 0})
    assert base == analysis_fingerprint("w", tmp_path / "c1", {"seed": 0})
    others = {analysis_fingerprint("v", tmp_path / "c1", {"seed": 0}), analysis_fingerprint("w", tmp_path / "c2", {"seed": 0})}
    others.add(analysis_fingerprint("w", tmp_path / "c1", {"seed": 1}))
    assert base not in others and len(others) == 3
