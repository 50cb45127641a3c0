"""gamegrammar evaluate with a corpus: the report gives the novelty of the sequences against the training corpus."""

from __future__ import annotations

import json

import pytest
import torch

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model.precision import Precision


def test_a_report_gives_the_novelty_of_the_sequences(tmp_path, capsys):
    config = SnakeConfig(6, 6, 60)
    generate(CorpusSpec(game=config, episodes=60, seed=4, shard_episodes=60, val_fraction=0.2), tmp_path / "corpus")
    generate(CorpusSpec(game=config, episodes=5, seed=9, shard_episodes=5), tmp_path / "other")
    corpus, other = Corpus(tmp_path / "corpus"), Corpus(tmp_path / "other")
    lines = [corpus.episode_tokens(int(corpus.split("train")[0])), *(other.episode_tokens(r) for r in range(5))]
    (tmp_path / "t.txt").write_text("".join(" ".join(t) + "\n" for t in lines))
    args = ["evaluate", "--tokens", str(tmp_path / "t.txt"), "--corpus", str(tmp_path / "corpus"), "--out", str(tmp_path / "r")]
    assert main(args) == 0
    assert "novelty: " in capsys.readouterr().out
    novelty = json.loads((tmp_path / "r" / "report.json").read_text())["novelty"]
    assert novelty["sequences"] == 6 and 0 < novelty["novel_states"] < novelty["states"]
    assert novelty["corpus"]["split"] == "train" and novelty["corpus"]["episodes"] == len(corpus.split("train"))
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "## Novelty against the training corpus (6 samples)" in markdown and f"| every state | {novelty['states']} |" in markdown


# ---------------------------------------------------------------- facts the rules fix (issue 43)


def _first_outcome(tokens: list[str]) -> str:
    """The outcome word of the first tick (after its input, and its SENSE word in the sense design)."""
    at = tokens.index("TICK") + 2
    return tokens[at + tokens[at].startswith("SENSE_")]


def _faults_of(tokens: list[str], config: SnakeConfig, codec) -> dict[str, list[str]]:
    """A real episode with one fault each that the rules or the declared design forbid, and nothing else wrong: the start
    moved by a flip of the (even) board, a tail-events FREE word (the cell the tail truly leaves) on its first tick, and a
    true keyframe after its first tick in a design that writes only the opening one."""
    from gamegrammar.games import tokenizer_for
    from gamegrammar.games.snake.grammar import keyframe_tokens
    from gamegrammar.games.snake.rules import Outcome, freed_cell
    from gamegrammar.games.snake.symmetry import SymmetryTransform
    from gamegrammar.games.snake.trace import trace

    states = trace(tokens, config)
    first_tick = tokens.index("TICK")
    second_tick = tokens.index("TICK", first_tick + 1)
    outcome = first_tick + 2 + (tokens[first_tick + 2].startswith("SENSE_"))
    assert tokens[outcome] == "MOVE"
    tail = freed_cell(states[0], Outcome.MOVE)
    flipped = SymmetryTransform(tokenizer_for(config, codec), config).apply_tokens(tokens, "flip_x")
    return {
        "start_position": flipped,
        "grammar": [*tokens[:outcome], "FREE", f"X{tail[0]}", f"Y{tail[1]}", *tokens[outcome:]],
        "keyframe_schedule": [*tokens[:second_tick], *keyframe_tokens(states[1]), *tokens[second_tick:]],
    }


def test_a_start_a_foreign_word_or_an_extra_keyframe_is_invalid_from_a_token_file(tmp_path, capsys):
    from gamegrammar.games.snake.grammar import SnakeCodec

    config, codec = SnakeConfig(6, 6, 60), SnakeCodec(sense=True)
    generate(CorpusSpec(game=config, codec=codec, episodes=40, seed=2, shard_episodes=40), tmp_path / "corpus")
    corpus = Corpus(tmp_path / "corpus")
    row = next(r for r in range(len(corpus)) if corpus.index["ticks"][r] > 3 and _first_outcome(corpus.episode_tokens(r)) == "MOVE")
    real = corpus.episode_tokens(row)
    faults = _faults_of(real, config, codec)
    lines = [real, *faults.values()]
    (tmp_path / "t.txt").write_text("".join(" ".join(t) + "\n" for t in lines))
    args = ["evaluate", "--tokens", str(tmp_path / "t.txt"), "--corpus", str(tmp_path / "corpus"), "--json", str(tmp_path / "v.json")]
    assert main([*args, "--out", str(tmp_path / "r")]) == 0
    verdicts = json.loads((tmp_path / "v.json").read_text())
    assert [v["valid"] for v in verdicts] == [True, False, False, False]
    assert [v["violations"] for v in verdicts[1:]] == [[rule] for rule in faults]
    validity = json.loads((tmp_path / "r" / "report.json").read_text())["validity"]
    assert validity["tiers"]["full"]["passed"] == 1
    # the design's rules only: a sense corpus lists body_sensed, not the other options' rules
    assert "body_sensed" in validity["rules"] and not {"tail_freed", "column_sensed", "body_listed"} & set(validity["rules"])


def test_a_start_a_foreign_word_or_an_extra_keyframe_is_invalid_in_a_model_report(tiny_run, tmp_path, monkeypatch, capsys):
    """`evaluate --ckpt` holds what the model writes to the rules and to its checkpoint's design (grammar v1, only the
    opening keyframe): the samples are replaced here by a real episode and its three faults."""
    import gamegrammar.commands.evaluate as evaluate

    corpus_path, _, ckpt = tiny_run
    corpus = Corpus(corpus_path)
    row = next(r for r in range(len(corpus)) if corpus.index["ticks"][r] > 3 and _first_outcome(corpus.episode_tokens(r)) == "MOVE")
    real = corpus.episode_tokens(row)
    faults = _faults_of(real, corpus.game, corpus.codec)
    faults["start_position"] = GAME.opening_perturbations(real, corpus.game)[0][1]  # 5x5: every flip keeps the centre
    written = ([real, *faults.values()], Precision(torch.float32, "asked for"), False)
    monkeypatch.setattr(evaluate, "sample_from_args", lambda *args, **kwargs: written)
    assert (
        main(
            [
                "evaluate",
                "--ckpt",
                str(ckpt),
                "--corpus",
                str(corpus_path),
                "--num",
                "4",
                "--teacher-episodes",
                "2",
                "--out",
                str(tmp_path / "r"),
            ]
        )
        == 0
    )
    validity = json.loads((tmp_path / "r" / "report.json").read_text())["validity"]
    assert validity["sequences"] == 4 and validity["tiers"]["full"]["passed"] == 1
    firsts = {rule: k for rule, k in validity["first_violations"].items() if k}
    assert firsts == dict.fromkeys(faults, 1)


# ---------------------------------------------------------------- the help says when --out is required (issue 44)


def test_the_help_says_when_out_is_required_as_the_command_does(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # one line per option
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out_help = next(line for line in capsys.readouterr().out.splitlines() if line.lstrip().startswith("--out"))
    assert "required with --ckpt" in out_help and "with --tokens, optional" in out_help
    assert main(["evaluate", "--ckpt", str(tmp_path / "model.ckpt")]) == 2  # refused before the checkpoint is read
    assert "--out REPORT_DIR is required with --ckpt" in capsys.readouterr().err
