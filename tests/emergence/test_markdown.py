"""The tier-2 markdown tables every game's report is made of."""

from __future__ import annotations

from gamegrammar.emergence.markdown import context_tables, heading, probe_table, rule_table


def _em(tick_split=None):
    by_tick = {"1": {"count": 2, "mean_prob": 0.5}}
    return {
        "contexts": {"tick": ["1", "2+"], "ticks_since_keyframe": ["1", "2+"], "gap": ["0", "1+"]},
        "rules": {
            "eat": {
                "count": 2,
                "mean_prob": 0.5,
                "accuracy": 1.0,
                "untrained": {"mean_prob": 0.1, "accuracy": float("nan")},
                "by": {"tick": by_tick, "ticks_since_keyframe": tick_split or {"2+": {"count": 2, "mean_prob": 0.5}}, "gap": {}},
            },
            "die": {
                "count": 0,
                "mean_prob": float("nan"),
                "accuracy": float("nan"),
                "by": {"tick": {}, "ticks_since_keyframe": {}, "gap": {}},
            },
        },
    }


def test_rule_table_has_a_row_per_rule_with_the_untrained_model_beside_and_the_games_note():
    lines = rule_table(_em(), lambda e, u: f"note {e['count']}")
    assert lines[0].startswith("| rule | events | P | acc | untrained P")
    assert lines[2] == "| eat | 2 | 0.500 | 1.000 | 0.100 | n/a | note 2 |"
    assert lines[3] == "| die | 0 | n/a | n/a | n/a | n/a | note 0 |"


def test_context_tables_skip_empty_contexts_unless_kept():
    lines = context_tables(_em())
    assert "### By tick (P / events)" in lines and "| eat | 0.50 / 2 |  |" in lines
    assert "### By ticks since keyframe (P / events)" in lines and "| eat |  | 0.50 / 2 |" in lines
    assert not any("By gap" in line for line in lines)
    kept = context_tables(_em(), keep_empty=True)
    at = kept.index("### By gap (P / events)")
    assert kept[at + 2 :] == ["| rule | 0 | 1+ |", "| --- | --- | --- |"]


def test_ticks_since_keyframe_said_in_one_line_when_it_splits_as_the_tick():
    em = _em(tick_split={"1": {"count": 2, "mean_prob": 0.5}})
    em["contexts"]["ticks_since_keyframe"] = em["contexts"]["tick"]
    lines = context_tables(em)
    assert not any("By ticks since keyframe" in line for line in lines)
    assert any(line.startswith("(Ticks since the last keyframe equal the tick number") for line in lines)


def test_probe_table_shows_each_kind_and_names_the_mandated_token_of_a_kind_without_probes():
    scored = {"count": 3, "mandated": "EAT", "mean_prob": 0.4, "accuracy": 0.5, "control_mean_prob": 0.1, "control_accuracy": 1.0}
    cf = {
        "episodes": 4,
        "model": {"food": scored, "wall": {"count": 0, "mandated": "OUT"}},
        "untrained": {"food": {**scored, "mean_prob": 0.05}, "wall": {"count": 0, "mandated": "OUT"}},
    }
    lines = probe_table(cf, {"food": "EAT", "wall": "OUT"})
    assert lines[1] == "### Counterfactual probes (4 held-out episodes)"
    assert lines[-2] == "| food | EAT | 3 | 0.400 | 0.500 | 0.100 | 1.000 | 0.050 | 0.500 |"
    assert lines[-1] == "| wall | OUT | 0 | | | | | | |"


def test_heading_titles_the_section_and_says_what_p_and_acc_mean():
    lines = heading({"episodes": 7}, "spawn: P = mass on open cells.")
    assert lines[0] == "## Tier 2: rule emergence (7 held-out episodes, teacher forcing)" and lines[1] == lines[3] == ""
    assert lines[2].startswith("P = mean probability") and lines[2].endswith("it. spawn: P = mass on open cells.")
