"""SGF in and out: episodes as SGF games and back (identical), SGF from elsewhere read or refused in one line, and
the corpus commands: `corpus import` of SGF files, `corpus export --format records`, `corpus convert` of token lines."""

from __future__ import annotations

import pytest

from gamegrammar.cli import main
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.data.corpus import Corpus
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go.sgf import RecordError, read_records, write_record

CONFIG = GoConfig(7, max_ticks=100)


def test_an_episode_round_trips_through_sgf():
    for episode in range(6):
        record = GAME.play_episode(CONFIG, CodecConfig(5), "random,capture", 2, episode)
        text = write_record(record.tokens, CONFIG)
        assert text.startswith("(;FF[4]") and "SZ[7]" in text and "KM[7.5]" in text and "RU[Chinese]" in text and "RE[" in text
        assert read_records(text, CONFIG, CodecConfig(5)) == [record.tokens]
        assert write_record(read_records(text, CONFIG, CodecConfig(5))[0], CONFIG) == text


def test_sgf_from_elsewhere_passes_as_tt_or_empty_collections_and_resignation():
    text = "(;GM[1]FF[4]SZ[5]KM[0.5]C[hello];B[cc];W[dc]C[a comment];B[];W[tt];)(;GM[1]SZ[5]KM[0.5]RE[W+R];B[cc];W[dd])"
    one, two = read_records(text, GoConfig(5, komi=0.5))
    assert one[-6:-1] == ["AREA", "V1", "V1", "W_WINS", "TWO_PASSES"]  # a stone each, the rest reaches both: komi wins
    assert one[5:9] == ["TICK", "C3", "TICK", "D3"] and one[-1] == "EOS"
    assert two[-4:] == ["RESIGN", "W_WINS", "RESIGNATION", "EOS"]  # Black, to move, resigned
    assert GAME.validate(one, GoConfig(5, komi=0.5)).valid and GAME.validate(two, GoConfig(5, komi=0.5)).valid
    assert "RE[W+R]" in write_record(two, GoConfig(5, komi=0.5))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("(;SZ[9]KM[0.5];B[cc];W[];B[])", "a 9x9 board"),
        ("(;SZ[5]KM[6.5];B[cc];W[];B[])", "komi 6.5"),
        ("(;SZ[5]KM[0.5]HA[2]AB[bb][dd];W[cc];B[];W[])", "handicap or setup stones"),
        ("(;SZ[5]KM[0.5];B[cc];B[dd])", "W's turn"),
        ("(;SZ[5]KM[0.5];B[cc];W[cc])", "occupied"),
        ("(;SZ[5]KM[0.5]RE[B+2.5];B[cc];W[dd])", "without two passes or a resignation"),
        ("(;SZ[5]KM[0.5];B[];W[];B[cc])", "after the game ended"),
        ("not sgf at all", "not an SGF file"),
    ],
)
def test_records_these_rules_cannot_have_are_refused_saying_why(text, why):
    (refused,) = read_records(text, GoConfig(5, komi=0.5))
    assert isinstance(refused, RecordError) and why in str(refused)


def test_corpus_import_and_export_round_trip(tmp_path, capsys):
    flags = ["--game", "go", "--size", "7", "--max-ticks", "100"]
    assert main(["generate", *flags, "--episodes", "12", "--out", str(tmp_path / "a"), "--quiet"]) == 0
    assert main(["corpus", "export", str(tmp_path / "a"), "--format", "records", "--out", str(tmp_path / "a.sgf")]) == 0
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[5]KM[0.5];B[cc];W[];B[])")
    assert main(["corpus", "import", str(tmp_path / "b"), str(tmp_path / "a.sgf"), str(bad), *flags]) == 0
    assert "skipped" in capsys.readouterr().err
    a, b = Corpus(tmp_path / "a"), Corpus(tmp_path / "b")
    assert [a.episode_tokens(r) for r in range(len(a))] == [b.episode_tokens(r) for r in range(len(b))]
    assert b.agent(0) == "SGF" and (b.index["ticks"] == a.index["ticks"]).all() and (b.index["score"] == a.index["score"]).all()
    assert main(["corpus", "export", str(tmp_path / "b"), "--format", "records", "--out", str(tmp_path / "b.sgf")]) == 0
    assert (tmp_path / "a.sgf").read_text() == (tmp_path / "b.sgf").read_text()  # SGF -> corpus -> SGF: identical
    assert main(["corpus", "export", str(tmp_path / "a"), "--limit", "2", "--out", str(tmp_path / "t.txt")]) == 0
    assert main(["corpus", "convert", str(tmp_path / "t.txt"), *flags, "--out", str(tmp_path / "c.sgf")]) == 0
    assert (tmp_path / "a.sgf").read_text().startswith((tmp_path / "c.sgf").read_text())


def test_a_game_without_records_and_nothing_to_import_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[5]KM[0.5];B[cc];W[];B[])")
    assert main(["corpus", "import", str(tmp_path / "x"), str(bad), "--game", "go"]) == 2
    assert "no game of 1 file(s)" in capsys.readouterr().err
    assert main(["corpus", "import", str(tmp_path / "x"), str(bad)]) == 2  # snake: no records
    assert "no game-record format" in capsys.readouterr().err
