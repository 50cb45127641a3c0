from __future__ import annotations

import pytest
import torch

from gamegrammar.act.gtp_player import ModelPolicy
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import tokenizer_for
from gamegrammar.games.go.rules import GoConfig
from gamegrammar.model import GameGPT, GPTConfig

CONFIG = GoConfig(5, komi=0.5)
PREFIX = ["BOS", "SNAP", "BLACK", "WHITE", "TO_BLACK", "TICK", "C3", "TICK"]


@pytest.fixture(scope="module")
def model_and_tokenizer():
    tokenizer = tokenizer_for(CONFIG)
    torch.manual_seed(0)
    config = GPTConfig(
        vocab_size=len(tokenizer), block_size=16, n_layer=1, n_head=2, n_embd=16, tick_table=64, tick_id=tokenizer.ids["TICK"]
    )
    return GameGPT(config), tokenizer


def test_it_samples_only_the_legal_moves_and_at_zero_takes_the_likeliest(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    legal = ["A1", "B2", "PASS"]
    policy = ModelPolicy(model, tokenizer, temperature=1.0, seed=3)
    choices = {policy(PREFIX, legal) for _ in range(60)}
    assert choices <= set(legal) and len(choices) > 1
    logits = policy.logits(PREFIX)
    best = max(legal, key=lambda t: float(logits[tokenizer.ids[t]]))
    assert ModelPolicy(model, tokenizer, temperature=0.0).__call__(PREFIX, legal) == best
    again = [ModelPolicy(model, tokenizer, seed=5)(PREFIX, legal) for _ in range(2)]
    assert again[0] == again[1]  # seeded


def test_a_game_longer_than_the_context_is_read_in_its_last_context(model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    long = [*PREFIX, "D4", "TICK", "B2", "TICK", "PASS", "TICK", "E5", "TICK", "A1", "TICK"]  # 18 tokens > 16
    logits = ModelPolicy(model, tokenizer).logits(long)
    assert logits.shape == (len(tokenizer),) and torch.isfinite(logits).all()
    with pytest.raises(GameGrammarError, match="temperature"):
        ModelPolicy(model, tokenizer, temperature=-1.0)
    with pytest.raises(GameGrammarError, match="no legal move"):
        ModelPolicy(model, tokenizer)(PREFIX, [])
