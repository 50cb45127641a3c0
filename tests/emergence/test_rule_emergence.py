"""The tier-2 bookkeeping every game shares: the tally by rule and context bucket, teacher-forced scores, the
counterfactual section, and the bucket labels."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from gamegrammar.emergence.rule_emergence import (
    RuleTally,
    Scores,
    bucket_label,
    bucket_labels,
    probe_section,
    teacher_forced,
    traced_ticks,
)

CONTEXTS = {"length": [1, 2, 4], "tick": [0, 10]}


def test_bucket_labels():
    assert [bucket_label(v, [1, 2, 4]) for v in (0, 1, 2, 3, 4, 9)] == ["<1", "1", "2-3", "2-3", "4+", "4+"]
    assert bucket_labels([1, 2, 4]) == ["1", "2-3", "4+"]


def test_scores_summarise_their_events():
    s = Scores()
    assert s.summary()["count"] == 0 and math.isnan(s.summary()["mean_prob"])
    s.add(0.5, 1.0)
    s.add(0.25, 0.0)
    assert s.summary() == {"count": 2, "mean_prob": 0.375, "accuracy": 0.5}


def test_an_event_counts_in_its_rule_and_in_its_bucket_of_each_context():
    tally = RuleTally(["a", "b"], CONTEXTS, Scores)
    cells = tally.cells("a", {"length": 3, "tick": 12})
    assert cells == [tally.total["a"], tally.by["a"]["length"]["2-3"], tally.by["a"]["tick"]["10+"]]
    for cell in cells:
        cell.add(0.5, 1.0)
    for cell in tally.cells("a", {"length": 1}):  # an event without a tick: only the contexts it has
        cell.add(1.0, 1.0)
    result = tally.section(episodes=3)
    assert result["episodes"] == 3 and result["contexts"] == {"length": ["1", "2-3", "4+"], "tick": ["0-9", "10+"]}
    a = result["rules"]["a"]
    assert a["count"] == 2 and a["mean_prob"] == 0.75 and a["accuracy"] == 1.0
    assert a["by"] == {
        "length": {"1": {"count": 1, "mean_prob": 1.0, "accuracy": 1.0}, "2-3": {"count": 1, "mean_prob": 0.5, "accuracy": 1.0}},
        "tick": {"10+": {"count": 1, "mean_prob": 0.5, "accuracy": 1.0}},
    }  # empty buckets are left out
    assert result["rules"]["b"]["count"] == 0 and result["rules"]["b"]["by"] == {"length": {}, "tick": {}}
    assert list(tally.section(3, keep=lambda rule: rule != "a")["rules"]) == ["b"]


@dataclass
class _Extra(Scores):
    extra: list[float] = field(default_factory=list)

    def summary(self):
        return {**super().summary(), "extra": len(self.extra)}


def test_a_game_extends_what_a_cell_holds():
    tally = RuleTally(["a"], CONTEXTS, _Extra)
    for cell in tally.cells("a", {"tick": 0}):
        cell.add(0.1, 0.0)
        cell.extra.append(1.0)
    assert tally.section(1)["rules"]["a"]["by"]["tick"]["0-9"]["extra"] == 1


def test_teacher_forced_is_the_product_of_the_mandated_tokens_and_the_argmax_writing_all_of_them():
    # logp[i] predicts token i + 1; tokens 2 and 3 are mandated
    probs = torch.tensor([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4], [0.5, 0.5]])
    target = torch.tensor([0, 0, 1, 0])
    prob, hit = teacher_forced(probs.log(), target, [2, 3])
    assert math.isclose(prob, 0.7 * 0.6, rel_tol=1e-6) and hit == 1.0
    prob, hit = teacher_forced(probs.log(), torch.tensor([0, 0, 0, 0]), [2])
    assert math.isclose(prob, 0.3, rel_tol=1e-6) and hit == 0.0


@dataclass
class _Probe:
    kind: str
    tick: int


def test_the_probe_section_scores_model_and_baseline_with_one_example_per_kind():
    probes = [_Probe("x", 3), _Probe("y", 1), _Probe("x", 7)]
    seen = []

    def score(model, ps):
        seen.append(model)
        return {"n": len(ps), "by": model}

    result = probe_section("model", probes, 5, score, lambda p: {"tick": p.tick}, baseline="floor")
    assert seen == ["model", "floor"]
    assert result == {
        "episodes": 5,
        "model": {"n": 3, "by": "model"},
        "untrained": {"n": 3, "by": "floor"},
        "examples": {"x": {"tick": 3}, "y": {"tick": 1}},
    }


@dataclass
class _Tick:
    number: int
    keyframe: object = None


def test_traced_ticks_count_from_the_last_keyframe_and_stop_where_the_trace_does():
    elements = iter(["first keyframe", _Tick(1), _Tick(2, keyframe="kf"), _Tick(3), _Tick(4), _Tick(5), _Tick(6)])
    ticks = [(t.number, since) for t, since in traced_ticks(elements, reached=5)]
    assert ticks == [(1, 1), (2, 2), (3, 1), (4, 2)]
    assert next(elements).number == 6  # nothing is read past the first tick the trace does not reach
