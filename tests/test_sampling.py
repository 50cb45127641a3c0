from __future__ import annotations

import pytest
import torch

from gamegrammar.errors import GameGrammarError
from gamegrammar.games import tokenizer_for
from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.sampling import SamplingConfig, SamplingStats, filter_logits, generate

EOS = 3


def tiny_model(block_size: int = 64) -> GameGPT:
    torch.manual_seed(0)
    return GameGPT(GPTConfig(vocab_size=20, block_size=block_size, n_layer=2, n_head=2, n_embd=16)).eval()


def full_recompute_argmax(model: GameGPT, prompt: list[int], max_length: int) -> list[int]:
    seq = list(prompt)
    while len(seq) < max_length:
        logits, _ = model(torch.tensor([seq]))
        seq.append(int(logits[0, -1].argmax()))
        if seq[-1] == EOS:
            break
    return seq


def test_kv_cache_generation_matches_full_recompute():
    model = tiny_model()
    prompts = [[2], [2, 5, 6], [2, 7], [2, 9, 9, 9, 1]]
    got = generate(model, prompts, EOS, SamplingConfig(temperature=0, max_length=40, batch_size=3))
    assert got == [full_recompute_argmax(model, p, 40) for p in prompts]


def test_prompts_are_kept_and_lengths_capped():
    model = tiny_model()
    prompts = [[2, 4, 5, 6, 7, 8], [2]]
    stats = SamplingStats()
    got = generate(model, prompts, EOS, SamplingConfig(max_length=30, seed=1), stats)
    for p, seq in zip(prompts, got):
        assert seq[: len(p)] == p and len(seq) <= 30
        assert EOS not in seq[len(p) : -1]
        assert len(seq) == 30 or seq[-1] == EOS
    assert stats.generated_tokens == sum(len(s) for s in got) - 7


def test_same_seed_same_samples_and_other_seed_differs():
    model = tiny_model()
    a = generate(model, [[2]] * 8, EOS, SamplingConfig(max_length=30, seed=4))
    b = generate(model, [[2]] * 8, EOS, SamplingConfig(max_length=30, seed=4))
    c = generate(model, [[2]] * 8, EOS, SamplingConfig(max_length=30, seed=5))
    assert a == b != c


def test_sequences_longer_than_the_context_slide():
    model = tiny_model(block_size=16)
    stats = SamplingStats()
    # EOS can never be drawn with top_k=1 unless it is the argmax: force long rows with a huge cap
    got = generate(model, [[2]] * 3, EOS, SamplingConfig(max_length=50, temperature=0), stats)
    assert all(len(s) <= 50 for s in got)
    if any(len(s) > 16 for s in got):
        assert stats.slides > 0


def test_filters():
    logits = torch.tensor([[1.0, 3.0, 2.0, 0.0]])
    assert torch.isinf(filter_logits(logits, 2, None)).tolist() == [[True, False, False, True]]
    # softmax ~ [0.09, 0.67, 0.24, 0.03]: p=0.5 keeps only the top token, p=0.8 the top two
    assert torch.isfinite(filter_logits(logits, None, 0.5)).tolist() == [[False, True, False, False]]
    assert torch.isfinite(filter_logits(logits, None, 0.8)).tolist() == [[False, True, True, False]]


def test_bad_settings_are_clear_errors():
    with pytest.raises(GameGrammarError, match="temperature"):
        SamplingConfig(temperature=-1)
    with pytest.raises(GameGrammarError, match="top_p"):
        SamplingConfig(top_p=0)
    with pytest.raises(GameGrammarError, match="at least one token"):
        generate(tiny_model(), [[]], EOS)


def test_grammar_constrained_sampling_always_parses():
    from gamegrammar.games.snake import GAME
    from gamegrammar.games.snake.grammar import parse, vocabulary
    from gamegrammar.games.snake.rules import SnakeConfig

    game = SnakeConfig(5, 5, 30)
    tok = tokenizer_for(game)
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=len(vocabulary(game)), block_size=512, n_layer=1, n_head=2, n_embd=16)).eval()
    config = SamplingConfig(max_length=512, seed=3, constrained=True)
    for seq in generate(model, [[tok.bos_id]] * 12, tok.eos_id, config, grammar=(tok, GAME.automaton(game))):
        tokens = tok.decode(seq)
        items = list(parse(tokens))  # raises GrammarError on any grammar violation
        assert items and (tokens[-1] == "EOS" or len(tokens) == 512)
    free = generate(model, [[tok.bos_id]] * 4, tok.eos_id, SamplingConfig(max_length=64, seed=3))
    assert any(tok.decode(s)[1] != "SNAP" for s in free)  # an untrained model breaks the grammar when free


def test_the_default_cap_makes_room_for_the_longest_training_episode():
    from gamegrammar.commands.sample import default_max_length

    assert default_max_length(64, None) == 2048  # the original's small context: whole episodes all the same
    assert default_max_length(1536, 1255) == 2304  # a Snake corpus: 1.5 contexts already hold every episode
    assert default_max_length(1024, 4400) == 5500  # Battlesnake: episodes far longer than the context
