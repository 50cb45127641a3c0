"""The move measures count what the game's legal moves and groups say, for any model (an oracle, a mute, an untrained one)."""

from __future__ import annotations

import pytest
import torch

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.evaluation import moves
from gamegrammar.games import game_of, tokenizer_for
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.rules import GoConfig
from gamegrammar.model import GameGPT, GPTConfig

CONFIG = GoConfig(5, komi=0.5, max_ticks=60)


@pytest.fixture(scope="module")
def games():
    tokenizer = tokenizer_for(CONFIG)
    tokens = [play_episode(CONFIG, CodecConfig(), "capture", 4, e).tokens for e in range(8)]
    return tokenizer, [tokenizer.encode(t) for t in tokens], tokens


def _rows_putting_all_mass_on(pick):
    """A stand-in for `predicted_rows` whose top-1 at position p is the token `pick(ids, p)`."""

    def rows(model, episodes, positions, batch_size=16):
        out = []
        for ids, wanted in zip(episodes, positions):
            d = {}
            for p in wanted:
                row = torch.full((model,), -30.0)
                row[pick(ids, p)] = 0.0
                d[p] = torch.log_softmax(row, -1)
            out.append(d)
        return out

    return rows


def test_an_oracle_is_always_right_and_a_model_that_ends_everything_never_is(games, monkeypatch):
    tokenizer, ids, tokens = games
    game, vocab = game_of(CONFIG), tokenizer.tokens
    monkeypatch.setattr(moves, "predicted_rows", _rows_putting_all_mass_on(lambda ids, p: ids[p]))
    oracle = moves.move_measures(len(vocab), ids, tokens, game, CONFIG, vocab, positions=50)
    assert oracle["legal_move"]["count"] == 50 and oracle["legal_move"]["rate"] == 1.0 == oracle["top1_is_move"]["rate"]
    assert oracle["exact"]["capture"]["count"] == sum(t.count("TAKE") for t in tokens) > 0
    assert oracle["exact"]["capture"]["rate"] == oracle["exact"]["end"]["rate"] == oracle["result"]["rate"] == 1.0
    assert oracle["result"]["count"] == oracle["exact"]["end"]["count"] == len(tokens)
    assert oracle["illegal_mass"] < 1e-9
    eos = tokenizer.eos_id
    monkeypatch.setattr(moves, "predicted_rows", _rows_putting_all_mass_on(lambda ids, p: eos))
    mute = moves.move_measures(len(vocab), ids, tokens, game, CONFIG, vocab)
    assert mute["legal_move"]["count"] == sum(t.count("TICK") for t in tokens) < 1000  # every move of every game
    assert mute["legal_move"]["rate"] == mute["top1_is_move"]["rate"] == mute["exact"]["capture"]["rate"] == 0.0
    assert mute["legal_move"]["ci95"][1] < 0.02


def test_an_untrained_model_is_scored_at_every_move_asked(games):
    tokenizer, ids, tokens = games
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=len(tokenizer), block_size=32, n_layer=1, n_head=2, n_embd=16, tick_id=tokenizer.ids["TICK"]))
    result = moves.move_measures(model, ids, tokens, game_of(CONFIG), CONFIG, tokenizer.tokens, positions=70)
    assert result["legal_move"]["count"] == 70 and 0 <= result["legal_move"]["rate"] <= 1  # windows of 32 < the games
    lo, hi = result["legal_move"]["ci95"]
    assert lo <= result["legal_move"]["rate"] <= hi and 0 <= result["illegal_mass"] <= 1
