"""The strict evaluator's core, for any game: dispatch through the registry, verdicts as JSON, summaries."""

from __future__ import annotations

import pytest

from gamegrammar.evaluation import summarize, validate, validate_many
from gamegrammar.games import load_game


def mutate(text: str, old: str, new: str) -> list[str]:
    assert old in text
    return text.replace(old, new, 1).split()


def test_to_json_has_exactly_the_report_keys(episode, board):
    verdict = validate(mutate(episode, "GROW LEN2", "GROW LEN3"), board)
    data = verdict.to_json()
    assert set(data) == {"valid", "tiers", "violations", "first_violation", "lenient"}
    assert data["valid"] is False and data["violations"] == ["grow_after_eat"]
    assert set(data["tiers"]) == {*load_game("snake").rules, "full"}


def test_summary_counts_rates_and_intervals(episode, board):
    rules = load_game("snake").rules
    verdicts = validate_many([episode, episode.split()[:20], " ".join(mutate(episode, "GROW LEN2", "GROW LEN3"))], board)
    summary = summarize(verdicts, rules)
    assert summary["sequences"] == 3
    assert summary["tiers"]["full"]["passed"] == 1 and summary["tiers"]["structural"]["passed"] == 2
    assert summary["lenient"]["structural"]["passed"] == 2
    assert summary["rules"]["complete"]["violated"] == 1 and summary["rules"]["grow_after_eat"]["rate"] == pytest.approx(1 / 3)
    assert summary["rules"]["complete"]["tier"] == "structural" and summary["rules"]["grow_after_eat"]["tier"] == "rules"
    lo, hi = summary["tiers"]["full"]["ci95"]
    assert 0 < lo < 1 / 3 < hi < 1
    assert summary["first_violations"]["complete"] == 1
    assert summarize([], rules)["tiers"]["full"] == {"passed": 0, "n": 0, "rate": None, "ci95": [0.0, 1.0], "not_checked": 0}


def test_validate_takes_strings_token_lists_and_ids(episode, board):
    ids = load_game("snake").vocabulary(board)
    as_ids = [ids.index(t) for t in episode.split()]
    verdicts = [validate(episode, board), *validate_many([episode, episode.split(), as_ids], board)]
    assert all(v.valid for v in verdicts)


def test_any_game_is_validated_and_summarised_by_its_own_rules(coin):
    verdicts = validate_many(["BOS TICK H TICK H END EOS", "BOS TICK T END EOS", "TICK H", [2, 4, 6]], coin)
    assert [v.violations for v in verdicts] == [[], ["heads_only"], ["grammar"], ["heads_only"]]  # ids 2 4 6: BOS TICK T
    summary = summarize(verdicts, load_game("coin").rules)
    assert list(summary["tiers"]) == ["structural", "rules", "full"]
    assert summary["rules"] == {
        "grammar": {"tier": "structural", "violated": 1, "n": 4, "rate": 0.25, "ci95": summary["rules"]["grammar"]["ci95"]},
        "heads_only": {"tier": "rules", "violated": 2, "n": 4, "rate": 0.5, "ci95": summary["rules"]["heads_only"]["ci95"]},
    }
    assert summary["first_violations"] == {"grammar": 1, "heads_only": 2}


def test_a_tier_whose_rules_never_ran_is_not_checked_not_passed(episode, board):
    """A sequence that breaks the grammar before its opening state is read has met no physical or rules rule."""
    rules = load_game("snake").rules
    broken = ["BOS", "TICK", *episode.split()[2:]]  # no opening keyframe: nothing to replay from
    verdicts = validate_many([episode, broken], board)
    assert verdicts[1].unchecked == ("physical", "rules") and verdicts[0].unchecked == ()
    assert verdicts[1].to_json()["unchecked"] == ["physical", "rules"]
    summary = summarize(verdicts, rules)
    for tier in ("physical", "rules"):
        assert summary["tiers"][tier] | {"ci95": None} == {"passed": 1, "n": 1, "rate": 1.0, "ci95": None, "not_checked": 1}
    assert summary["tiers"]["full"]["n"] == 2 and summary["tiers"]["full"]["passed"] == 1
    assert summary["rules"]["wall_death"]["n"] == 1 and summary["rules"]["grammar"]["n"] == 2
    only_broken = summarize(verdicts[1:], rules)
    assert only_broken["tiers"]["physical"]["rate"] is None and only_broken["tiers"]["physical"]["not_checked"] == 1
