"""Fixtures of the game-agnostic evaluation tests: Snake is the game they run on, through the registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from gamegrammar.core.gamespec import SPECIAL_TOKENS, EpisodeSummary, GameSpec
from gamegrammar.core.verdict import Verdict, make_verdict
from gamegrammar.games.snake.grammar import EXAMPLE

EPISODE = EXAMPLE  # a valid 10x10 episode: eats on tick 2, a keyframe after tick 3, dies in the top wall on tick 8


@pytest.fixture
def episode() -> str:
    """One valid episode of the default Snake board, as a space-separated string."""
    return EPISODE


@pytest.fixture(scope="session")
def untrained_teacher_forced(tiny_corpus):
    """(tokens, result) of the teacher-forced check of an untrained tiny model on the corpus's first 6 episodes."""
    import torch

    from gamegrammar.data.corpus import Corpus
    from gamegrammar.evaluation.fidelity import teacher_forced
    from gamegrammar.games import game_of
    from gamegrammar.model import GameGPT, GPTConfig

    corpus = Corpus(tiny_corpus)
    ids = [corpus.episode_ids(r) for r in range(6)]
    tokens = [corpus.episode_tokens(r) for r in range(6)]
    torch.manual_seed(0)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    config = GPTConfig(vocab_size=len(corpus.tokenizer), block_size=64, n_layer=1, n_head=2, n_embd=16, tick_table=256, tick_id=tick_id)
    return tokens, teacher_forced(GameGPT(config), ids, tokens, game_of(corpus.game))


@pytest.fixture
def board():
    """The default Snake config (the game the episode belongs to)."""
    from gamegrammar.games import load_game

    return load_game("snake").make_config()


# ---------------------------------------------------------------- a toy game: the evaluation core knows no Snake


@dataclass(frozen=True)
class CoinConfig:
    """Coin flips: BOS (TICK H|T)* END EOS; the rule is that every flip lands heads."""

    game: ClassVar[str] = "coin"
    max_ticks: int = 4

    def to_dict(self) -> dict[str, int]:
        return {"max_ticks": self.max_ticks}


class CoinSpec(GameSpec):
    name = "coin"
    config_type = CoinConfig
    end_events = ("END", "TIMEOUT")
    rules: ClassVar[dict[str, tuple[str, ...]]] = {"structural": ("grammar",), "rules": ("heads_only",)}
    teacher_categories = ("flip", "flow")

    def vocabulary(self, config: CoinConfig) -> list[str]:
        return [*SPECIAL_TOKENS, "TICK", "H", "T", *self.end_events]

    def validate(self, tokens, config: CoinConfig, codec=None) -> Verdict:
        first: dict[str, int] = {}
        if list(tokens[:1]) != ["BOS"]:
            first["grammar"] = 0
        tails = [i for i, t in enumerate(tokens) if t == "T"]
        if tails:
            first["heads_only"] = tails[0]
        lenient = {"structural": "grammar" not in first, "rules": True, "full": "grammar" not in first}
        return make_verdict(first, lenient, self.rules)

    def summarize_episode(self, tokens) -> EpisodeSummary:
        end = next((t for t in tokens if t in self.end_events), "none")
        return EpisodeSummary(list(tokens).count("TICK"), list(tokens).count("H"), end)

    def rule_determined_positions(self, tokens) -> list[tuple[int, str, str]]:
        """Every flip (its kind: the side), and what follows the last flip."""
        out = [(i, "flip", t) for i, t in enumerate(tokens) if t in ("H", "T")]
        return out + [(i, "flow", "") for i, t in enumerate(tokens) if t in self.end_events]


@pytest.fixture
def coin(monkeypatch: pytest.MonkeyPatch) -> CoinConfig:
    """The toy game's config, with the game registered for this test only."""
    from gamegrammar import games

    monkeypatch.setitem(games._registry, "coin", "<object CoinSpec>")
    monkeypatch.setitem(games._loaded, "coin", CoinSpec())
    return CoinConfig()
