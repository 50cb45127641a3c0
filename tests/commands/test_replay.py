"""gamegrammar replay: where a sequence comes from, the game's renderer drawing it, and bad input as one clear error."""

from __future__ import annotations

import argparse
import json
import re

import pytest
from PIL import Image

from gamegrammar.cli import main
from gamegrammar.commands import replay as replay_command
from gamegrammar.commands.replay import corpus_episode, token_file_line
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus
from gamegrammar.games.snake.grammar import EXAMPLE
from gamegrammar.games.snake.replay import replay
from gamegrammar.games.snake.rules import SnakeConfig

BOARD = SnakeConfig()
BASE_TEXT = EXAMPLE  # a valid 10x10 episode: eats on tick 2, a keyframe after tick 3, dies in the top wall on tick 8
BASE = BASE_TEXT.split()


def grid_of(text: str) -> list[str]:
    """The board rows of an ASCII frame (between the +---+ lines)."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("+"))
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("+"))
    return [row[1:-1] for row in lines[top + 1 : bottom]]


def html_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def run_replay(*argv: str) -> int:
    """The replay subcommand through its own parser (the full CLI imports the training stack)."""
    parser = argparse.ArgumentParser()
    replay_command.register(parser.add_subparsers())
    args = parser.parse_args(["replay", *argv])
    return args.run(args)


def test_corpus_episodes_replay_to_the_indexed_ticks_and_score(tiny_corpus) -> None:
    corpus = Corpus(tiny_corpus)
    for row in range(0, len(corpus), 17):
        tokens, config = corpus_episode(tiny_corpus, row)
        assert config == corpus.game
        rp = replay(tokens, config)
        assert rp.verdict.valid
        assert len(rp.frames) - 1 == corpus.index[row]["ticks"]
        assert rp.frames[-1].state.score == corpus.index[row]["score"]
        assert " ".join(rp.tokens[rp.frames[0].start : rp.frames[-1].end]) + " EOS" == " ".join(tokens)


def test_command_writes_gif_html_and_ascii(tmp_path, tiny_corpus, capsys) -> None:
    gif, page = tmp_path / "r.gif", tmp_path / "r.html"
    assert run_replay("--corpus", str(tiny_corpus), "--episode", "3", "--gif", str(gif), "--html", str(page), "--start-tick", "2") == 0
    ticks = int(Corpus(tiny_corpus).index[3]["ticks"])
    assert Image.open(gif).n_frames == ticks + 1
    assert html_data(page.read_text())["start"] == 2
    assert f"{ticks} ticks; valid" in capsys.readouterr().out
    lines = tmp_path / "tokens.txt"
    lines.write_text(" ".join(BASE) + "\n\n" + " ".join(BASE[:20]) + "\n")
    assert run_replay("--tokens", str(lines), "--line", "3", "--frame", "1") == 0
    out = capsys.readouterr().out
    assert grid_of(out)[5][6] == "@" and "complete" in out


def test_game_flags_pick_the_board_without_a_corpus(tmp_path, capsys) -> None:
    lines = tmp_path / "tokens.txt"
    lines.write_text("BOS SNAP PLAYER X6 Y5 DIR_R LEN1 BODY FOOD X0 Y0 SCORE V0 TICK INPUT_R MOVE X7 Y5\n")
    assert run_replay("--tokens", str(lines), "--game", "snake", "--width", "12", "--max-ticks", "50", "--frame", "1") == 0
    assert all(len(row) == 12 for row in grid_of(capsys.readouterr().out))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tokens", "{tmp}/missing.txt"], "cannot read token file"),
        (["--tokens", "{tmp}/t.txt", "--line", "5"], "--line 5 is out of range"),
        (["--tokens", "{tmp}/t.txt", "--line", "2"], "is blank"),
        (["--tokens", "{tmp}/t.txt", "--line", "3"], "token 'JUMP' is not in the vocabulary of the 10x10 game"),
        (["--tokens", "{tmp}/t.txt", "--width", "5", "--height", "5"], "token 'X5' is not in the vocabulary of the 5x5 game"),
        (["--tokens", "{tmp}/t.txt", "--frame", "9"], "--frame 9 is out of range"),
        (["--tokens", "{tmp}/t.txt", "--game", "chess"], "unknown game 'chess'"),
        (["--corpus", "{tmp}/no-corpus"], "does not exist"),
        ([], "give --tokens FILE"),
    ],
)
def test_bad_input_is_a_one_line_error(tmp_path, capsys, argv: list[str], message: str) -> None:
    (tmp_path / "t.txt").write_text(" ".join(BASE) + "\n\nBOS JUMP\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    with pytest.raises(GameGrammarError, match=re.escape(message)):
        run_replay(*argv)
    assert main(["replay", *argv]) == 2  # and the CLI prints it as one line
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gamegrammar: error: ") and message in err


def test_corpus_episode_out_of_range(tiny_corpus) -> None:
    with pytest.raises(GameGrammarError, match="--episode 500 is out of range"):
        corpus_episode(tiny_corpus, 500)
    with pytest.raises(GameGrammarError, match="--width disagree"):
        run_replay("--corpus", str(tiny_corpus), "--width", "12")


def test_token_file_line_reads_only_that_line(tmp_path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("BOS JUMP\n" + " ".join(BASE) + "\n")
    assert token_file_line(path, 2, BOARD) == BASE


def test_ckpt_replays_a_game_the_model_writes(tiny_run, tmp_path, capsys) -> None:
    _, _, ckpt = tiny_run
    assert run_replay("--ckpt", str(ckpt), "--seed", "3", "--frame", "-1") == 0
    one = capsys.readouterr().out
    assert "+-----+" in one and "first violation" in one  # the 4-step model breaks the grammar on its 5x5 board
    assert run_replay("--ckpt", str(ckpt), "--seed", "3", "--frame", "-1") == 0
    assert capsys.readouterr().out == one  # the seed fixes the game
    html = tmp_path / "r.html"
    assert run_replay("--ckpt", str(ckpt), "--html", str(html)) == 0
    assert html_data(html.read_text())


def test_several_ckpts_print_side_by_side(tiny_run, capsys) -> None:
    _, _, ckpt = tiny_run
    assert run_replay("--ckpt", str(ckpt), "--ckpt", str(ckpt), "--seed", "1", "--frame", "0") == 0
    out = capsys.readouterr().out
    board = next(line for line in out.splitlines() if line.startswith("+"))
    assert board.split() == ["+-----+", "+-----+"]  # two boards on one line
    assert out.count(f"{ckpt}, seed 1: ") == 2  # a summary each
    with pytest.raises(GameGrammarError, match="side by side as ASCII"):
        run_replay("--ckpt", str(ckpt), "--ckpt", str(ckpt), "--gif", "x.gif")
    with pytest.raises(GameGrammarError, match="give one source"):
        run_replay("--ckpt", str(ckpt), "--tokens", "t.txt")


def test_beside_pads_each_column() -> None:
    assert replay_command.beside(["a\nbbb", "c"], gap=1) == "a   c\nbbb"
