"""`gamegrammar gtp --game go`: GTP v2 on stdin/stdout, a rules engine that refuses illegal plays and scores by area,
and a whole game played against GNU Go through GTP."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from gamegrammar.games.go.gtp import GtpClient, GtpError, gnugo_argv
from gamegrammar.games.go.gtp_engine import GoGtpEngine
from gamegrammar.games.go.rules import GoConfig, area, parse_vertex, result_string
from tests.games.go.conftest import needs_gnugo


def talk(engine: GoGtpEngine, *lines: str) -> list[str]:
    return [r for r in (engine.respond(line) for line in lines) if r is not None]


def test_the_protocol():
    engine = GoGtpEngine(GoConfig(5))
    assert talk(engine, "protocol_version", "7 name", "# a comment", "", "known_command genmove", "known_command fly") == [
        "= 2\n\n",
        "=7 gamegrammar\n\n",
        "= true\n\n",
        "= false\n\n",
    ]
    listed = talk(engine, "list_commands")[0][2:].split()
    assert {"boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard", "list_stones", "final_score", "quit"} <= set(listed)
    assert talk(engine, "fly", "boardsize 4", "boardsize x", "play purple C3") == [
        "? unknown command\n\n",
        "? unacceptable size\n\n",
        "? syntax error (usage: boardsize N)\n\n",
        "? syntax error (usage: play black|white ...)\n\n",
    ]


def test_play_refuses_what_the_rules_refuse_and_undo_takes_back():
    engine = GoGtpEngine(GoConfig(5, komi=0.5))
    assert talk(engine, "play black A2", "play white E5", "play black B1") == ["=\n\n"] * 3
    assert talk(engine, "play white A1") == ["? illegal move (suicide)\n\n"]
    assert talk(engine, "play white B1") == ["? illegal move (occupied)\n\n"]
    assert talk(engine, "play black C3") == ["? illegal move (it is white's turn)\n\n"]
    assert talk(engine, "play white E4", "list_stones white") == ["=\n\n", "= E4 E5\n\n"]  # point order
    assert talk(engine, "undo", "list_stones white", "list_stones black") == [
        "=\n\n",
        "= E5\n\n",
        "= B1 A2\n\n",
    ]  # B1 is point 1, A2 point 5
    assert talk(engine, "clear_board", "undo") == ["=\n\n", "? cannot undo\n\n"]


def test_ko_and_the_score():
    engine = GoGtpEngine(GoConfig(5, komi=0.5))
    moves = [
        ("black", "B3"),
        ("white", "C3"),
        ("black", "A2"),
        ("white", "B2"),
        ("black", "B1"),
        ("white", "C1"),
        ("black", "E5"),
        ("white", "D2"),
    ]
    for colour, move in moves:
        assert talk(engine, f"play {colour} {move}") == ["=\n\n"]
    assert talk(engine, "play black C2") == ["=\n\n"]  # takes B2
    assert talk(engine, "play white B2") == ["? illegal move (superko)\n\n"]
    black, white = area(engine.state.board, 5)
    assert talk(engine, "final_score") == [f"= {result_string(black, white, 0.5)}\n\n"]
    assert talk(engine, "play white pass", "play black pass", "play white A5") == [
        "=\n\n",
        "=\n\n",
        "? illegal move (the game is over)\n\n",
    ]


def test_serve_answers_until_quit():
    out = io.StringIO()
    GoGtpEngine(GoConfig(5)).serve(io.StringIO("name\nquit\nname\n"), out)
    assert out.getvalue() == "= gamegrammar\n\n=\n\n"


def test_the_command_line_runs_the_engine():
    done = subprocess.run(
        [sys.executable, "-m", "gamegrammar.cli", "gtp", "--game", "go", "--size", "7"],
        input="boardsize 7\ngenmove black\nlist_stones black\nquit\n",
        capture_output=True,
        text=True,
        check=True,
    )
    answers = [block for block in done.stdout.split("\n\n") if block]
    assert answers[0] == "=" and answers[1][2:] == answers[2][2:] and parse_vertex(answers[1][2:], 7) >= 0


@needs_gnugo
def test_a_whole_game_against_gnugo_through_gtp():
    """Our engine (a GTP subprocess, genmove from the capture agent) plays Black, GNU Go White, each told the other's
    moves with `play`: every GNU Go move is legal here, every one of ours legal there, and the boards agree at the end."""
    ours = GtpClient([sys.executable, "-m", "gamegrammar.cli", "gtp", "--game", "go", "--agent", "capture"])
    theirs = GtpClient(gnugo_argv(9, 7.5, 0))
    with ours, theirs:
        for engine in (ours, theirs):
            engine.send("boardsize 9")
            engine.send("clear_board")
            engine.send("komi 7.5")
        passes, moves = 0, 0
        while passes < 2 and moves < 324:
            mover, other = (ours, theirs) if moves % 2 == 0 else (theirs, ours)
            colour = "black" if moves % 2 == 0 else "white"
            move = mover.send(f"genmove {colour}")
            if move.lower() == "resign":
                break
            other.send(f"play {colour} {move}")  # a GtpError here is a disagreement on legality
            passes = passes + 1 if move.lower() == "pass" else 0
            moves += 1
        assert moves > 20
        for colour in ("black", "white"):
            assert sorted(ours.send(f"list_stones {colour}").split()) == sorted(theirs.send(f"list_stones {colour}").split())
        score = ours.send("final_score")
        assert score[0] in "BW0"
        if passes >= 2:  # the game is over: no more moves
            with pytest.raises(GtpError, match="the game is over"):
                ours.send(f"play {'black' if moves % 2 == 0 else 'white'} A1")


def test_a_policy_reads_the_game_in_the_grammar_and_chooses_among_the_legal_moves():
    """genmove with a policy: it sees both players' moves and the captures as the corpus writes them, up to the TICK of
    the move asked for, and only the legal points and PASS; an occupied point is never offered."""
    seen: list[tuple[list[str], list[str]]] = []

    def policy(tokens, legal):
        seen.append((list(tokens), list(legal)))
        return "B1" if "B1" in legal else "PASS"

    engine = GoGtpEngine(GoConfig(5), policy=policy)
    lines = ("play black A2", "genmove white", "play black C1", "genmove white", "play black B2", "genmove white", "play black A1")
    answers = talk(engine, *lines, "genmove white")
    assert answers == ["=\n\n", "= B1\n\n", "=\n\n", "= pass\n\n", "=\n\n", "= pass\n\n", "=\n\n", "= pass\n\n"]
    tokens, legal = seen[0]
    assert tokens == ["BOS", "SNAP", "BLACK", "WHITE", "TO_BLACK", "TICK", "A2", "TICK"]
    assert "A2" not in legal and "PASS" in legal and "RESIGN" not in legal and len(legal) == 25  # 24 points and PASS
    assert "B1" not in seen[1][1] and seen[1][0][-4:] == ["B1", "TICK", "C1", "TICK"]
    # Black's A1 fills the last liberty of White's B1: the policy reads the capture as the corpus writes it, and B1
    # (suicide now) is not offered
    tokens, legal = seen[3]
    assert tokens[-5:] == ["TICK", "A1", "TAKE", "b1", "TICK"] and "B1" not in legal and "A1" not in legal
    assert engine.tokens() == [*tokens, "PASS"]
