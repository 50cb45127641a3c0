"""The report's markdown and the README results table read what the evaluation measured."""

from __future__ import annotations

import json

from gamegrammar.cli import main
from gamegrammar.corpus import Corpus
from gamegrammar.evaluation.report import render_markdown, results_table, write_report
from gamegrammar.games.snake.validity import summarize, validate_many


def corpus_report(tiny_corpus, untrained_teacher_forced) -> dict:
    tokens, teacher = untrained_teacher_forced
    return {
        "meta": {"name": "corpus episodes", "max_length": 2048},
        "validity": summarize(validate_many(tokens, Corpus(tiny_corpus).game)),
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
