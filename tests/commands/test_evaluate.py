"""gamegrammar evaluate with a corpus: the report gives the novelty of the sequences against the training corpus."""

from __future__ import annotations

import json

from gamegrammar.cli import main
from gamegrammar.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games.snake.rules import SnakeConfig


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
