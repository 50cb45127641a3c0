"""Scale-out: corpus parts written on several machines merge into the bytes of a single run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gamegrammar.cli import main
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus, CorpusSpec, Part, generate, merge
from gamegrammar.games.snake.rules import SnakeConfig

SPEC = CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=70, seed=21, shard_episodes=9)  # 8 shards, the last short


def tree(path: Path) -> dict[str, bytes]:
    """Every file under path (relative name -> bytes): what byte-identical means for a corpus."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("single") / "corpus"
    generate(SPEC, out, engine="scalar")  # the reference engine, so the merge test also compares engines
    return out


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("parts")
    paths = [root / f"part{i}" for i in range(3)]
    for i, path in enumerate(paths):
        manifest = generate(SPEC, path, part=Part(i, 3))
        assert manifest["part"] == {"shard_index": i, "num_shards": 3}
        assert [int(s["name"]) % 3 for s in manifest["shards"]] == [i] * len(manifest["shards"])
    return paths


def test_merged_parts_are_byte_identical_to_a_single_run(single, parts, tmp_path):
    merge(tmp_path / "merged", parts[::-1])  # order of the parts does not matter
    assert tree(tmp_path / "merged") == tree(single)
    assert len(Corpus(tmp_path / "merged")) == SPEC.episodes


def test_merge_by_move_uses_up_the_parts(single, tmp_path):
    paths = [tmp_path / f"p{i}" for i in range(2)]
    for i, path in enumerate(paths):
        generate(SPEC, path, part=Part(i, 2), workers=2)
    merge(tmp_path / "merged", paths, move=True)
    assert tree(tmp_path / "merged") == tree(single)
    for path in paths:
        assert not (path / "manifest.json").exists()
        assert not list((path / "shards").glob("*.tokens"))


def test_a_part_is_not_a_corpus(parts):
    with pytest.raises(GameGrammarError, match=r"part 1 of 3 .*corpus merge"):
        Corpus(parts[1])
    part = Corpus(parts[1], allow_partial=True)
    assert set(part.index["episode"] // SPEC.shard_episodes % 3) == {1}


def test_merge_refuses_missing_overlapping_and_foreign_parts(parts, tmp_path):
    with pytest.raises(GameGrammarError, match="miss shards 00002, 00005 of 8"):
        merge(tmp_path / "a", parts[:2])
    with pytest.raises(GameGrammarError, match="shard 00000 is in both"):
        merge(tmp_path / "b", [parts[0], parts[0], parts[1], parts[2]])
    other = tmp_path / "other"
    generate(CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=70, seed=22, shard_episodes=9), other, part=Part(2, 3))
    with pytest.raises(GameGrammarError, match="different specs"):
        merge(tmp_path / "c", [parts[0], parts[1], other])
    with pytest.raises(GameGrammarError, match=r"no manifest\.json"):
        merge(tmp_path / "d", [parts[0], tmp_path / "nowhere"])
    assert not any((tmp_path / name).exists() for name in "abcd")  # nothing written before the checks pass
    for out in (parts[0], parts[0] / "merged", parts[0].parent):  # a part, inside one, or holding one
        with pytest.raises(GameGrammarError, match=f"OUT {out} overlaps the input"):
            merge(out, parts)


def test_merge_refuses_a_truncated_shard_and_an_occupied_output(parts, tmp_path):
    broken = tmp_path / "broken"
    generate(SPEC, broken, part=Part(0, 3))
    tokens = broken / "shards" / "00003.tokens"
    tokens.write_bytes(tokens.read_bytes()[:-2])
    with pytest.raises(GameGrammarError, match=r"00003 .* missing or truncated"):
        merge(tmp_path / "m", [broken, parts[1], parts[2]])
    merge(tmp_path / "m", parts)
    with pytest.raises(GameGrammarError, match="--overwrite"):
        merge(tmp_path / "m", parts)
    merge(tmp_path / "m", parts, overwrite=True)


def test_part_validation_and_resume(tmp_path):
    with pytest.raises(GameGrammarError, match="--shard-index must be in"):
        Part(3, 3)
    with pytest.raises(GameGrammarError, match="--num-shards must be at least 1"):
        Part(0, 0)
    out = tmp_path / "p"
    generate(SPEC, out, part=Part(1, 3))
    (out / "manifest.json").unlink()  # as if killed before the end
    (out / "shards" / "00004.tokens").unlink()
    with pytest.raises(GameGrammarError, match="not empty"):  # another part must not land in the same folder
        generate(SPEC, out, part=Part(2, 3))
    manifest = generate(SPEC, out, part=Part(1, 3))  # the same part resumes
    assert [s["name"] for s in manifest["shards"]] == ["00001", "00004", "00007"]
    assert "part" not in generate(SPEC, tmp_path / "whole", part=Part(0, 1))  # one part of one is the corpus


def test_cli_generate_parts_and_merge(single, tmp_path, capsys):
    common = ["generate", "--width", "6", "--height", "6", "--max-ticks", "60", "--episodes", "70", "--seed", "21"]
    common += ["--shard-episodes", "9", "--quiet"]
    for i in range(2):
        assert main([*common, "--shard-index", str(i), "--num-shards", "2", "--out", str(tmp_path / f"p{i}")]) == 0
    assert "part 1 of 2: 4 shards" in capsys.readouterr().out
    assert json.loads((tmp_path / "p1" / "manifest.json").read_text())["part"] == {"shard_index": 1, "num_shards": 2}
    assert main(["corpus", "merge", str(tmp_path / "all"), str(tmp_path / "p0"), str(tmp_path / "p1")]) == 0
    assert "merged 2 parts: 70 episodes" in capsys.readouterr().out
    assert tree(tmp_path / "all") == tree(single)
    assert main([*common, "--shard-index", "1", "--out", str(tmp_path / "x")]) == 2
    assert "go together" in capsys.readouterr().err
    assert main(["corpus", "merge", str(tmp_path / "y"), str(tmp_path / "p0")]) == 2
    assert "miss shards 00001, 00003, 00005, 00007" in capsys.readouterr().err


def test_engines_write_the_same_corpus(single, tmp_path):
    generate(SPEC, tmp_path / "batch", engine="batch", workers=2)
    assert tree(tmp_path / "batch") == tree(single)
