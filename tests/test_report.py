"""The report's markdown and the README results table read what the evaluation measured."""

from __future__ import annotations

import json

import torch

from gamegrammar.cli import main
from gamegrammar.corpus import Corpus
from gamegrammar.evaluation.fidelity import teacher_forced
from gamegrammar.evaluation.report import render_markdown, results_table, write_report
from gamegrammar.evaluation.validity import summarize, validate_many
from gamegrammar.model import GameGPT, GPTConfig


def corpus_report(path) -> dict:
    corpus = Corpus(path)
    rows = range(4)
    ids = [corpus.episode_ids(r) for r in rows]
    tokens = [corpus.episode_tokens(r) for r in rows]
    torch.manual_seed(0)
    config = GPTConfig(vocab_size=len(corpus.tokenizer), block_size=64, n_layer=1, n_head=2, n_embd=16, tick_table=256)
    return {
        "meta": {"name": "corpus episodes"},
        "validity": summarize(validate_many(tokens, corpus.game)),
        "teacher_forced": teacher_forced(GameGPT(config), ids, tokens),
    }


def test_markdown_breaks_the_tick_outcome_down_by_kind(tiny_corpus):
    report = corpus_report(tiny_corpus)
    md = render_markdown(report)
    assert "| full | 100.0% [" in md  # corpus episodes are valid
    for kind, entry in report["teacher_forced"]["outcomes"].items():
        assert f"| {kind} | {entry['count']} |" in md


def test_results_table_has_a_column_per_report(tmp_path, tiny_corpus, capsys):
    report = corpus_report(tiny_corpus)
    table = results_table({"a": report, "b": report})
    assert table.startswith("| | a | b |")
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines()[2:]}
    assert {"samples", "strict full", "lenient structural", "teacher-forced", "teacher-forced outcomes"} <= set(rows)
    assert "MOVE" in rows["teacher-forced outcomes"]
    write_report(json.loads(json.dumps(report)), tmp_path / "a")  # as evaluate writes it
    assert main(["evaluate", "--table", str(tmp_path / "a")]) == 0
    assert "| teacher-forced outcomes |" in capsys.readouterr().out
