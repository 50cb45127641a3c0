"""The report's markdown and the README results table read what the evaluation measured."""

from __future__ import annotations

import json

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus
from gamegrammar.evaluation import summarize, validate_many
from gamegrammar.evaluation.report import describe_game, render_markdown, results_table, write_report
from gamegrammar.games import game_of, load_game


def corpus_report(tiny_corpus, untrained_teacher_forced) -> dict:
    tokens, teacher = untrained_teacher_forced
    config = Corpus(tiny_corpus).game
    return {
        "meta": {"name": "corpus episodes", "max_length": 2048},
        "validity": summarize(validate_many(tokens, config), game_of(config).rules),
        "teacher_forced": teacher,
    }


def test_markdown_breaks_the_tick_outcome_down_by_kind(tiny_corpus, untrained_teacher_forced):
    report = corpus_report(tiny_corpus, untrained_teacher_forced)
    md = render_markdown(report)
    assert "| full | 100.0% [" in md  # corpus episodes are valid
    for kind, entry in report["teacher_forced"]["outcomes"].items():
        assert f"| {kind} | {entry['count']} |" in md


def test_results_table_has_a_column_per_report(tmp_path, tiny_corpus, untrained_teacher_forced, capsys):
    report = corpus_report(tiny_corpus, untrained_teacher_forced)
    table = results_table({"a": report, "b": report})
    assert table.startswith("| | a | b |")
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines()[2:]}
    assert {"samples", "strict full", "lenient structural", "teacher-forced", "teacher-forced outcomes"} <= set(rows)
    assert rows["tokens per sample, at most"] == "| tokens per sample, at most | 2048 | 2048 |"
    assert "MOVE" in rows["teacher-forced outcomes"]
    write_report(json.loads(json.dumps(report)), tmp_path / "a")  # as evaluate writes it
    assert main(["evaluate", "--table", str(tmp_path / "a")]) == 0
    assert "| teacher-forced outcomes |" in capsys.readouterr().out


def test_markdown_lists_every_rule_under_its_tier(tiny_corpus, untrained_teacher_forced):
    md = render_markdown(corpus_report(tiny_corpus, untrained_teacher_forced))
    for tier, rules in load_game("snake").rules.items():
        for rule in rules:
            assert f"| {tier} | `{rule}` | 0 (0.0% [" in md


def test_a_report_of_any_game_renders_without_it(tmp_path, coin):
    verdicts = validate_many(["BOS TICK H END EOS", "BOS TICK T END EOS"], coin)
    report = {"meta": {"name": "coins", "board": describe_game(coin)}, "validity": summarize(verdicts, load_game("coin").rules)}
    md = render_markdown(json.loads(json.dumps(report)))
    assert "| rules | `heads_only` | 1 (50.0% [" in md and "- board: max 4 ticks" in md
    assert (write_report(report, tmp_path / "coins")).exists()


def test_games_are_described_by_their_spec(board):
    assert describe_game(board) == "10x10, max 200 ticks"
    assert describe_game(board, ticks=False) == "10x10"
