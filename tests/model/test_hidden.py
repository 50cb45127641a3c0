"""Hidden states and log-probs: hooks read what the model computes, windows and KV-cache branches agree with plain forwards."""

from __future__ import annotations

import pytest
import torch

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import tokenizer_for
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import (
    branch_logprobs,
    branch_sequences,
    capture,
    edited_logprobs,
    layer_names,
    next_logprobs,
    random_like,
    run_episodes,
)

BOARD = SnakeConfig()
TOKENIZER = tokenizer_for(BOARD)


def episode_ids(min_length: int = 240) -> list[int]:
    """A real episode's token ids, long enough to need several context windows."""
    for e in range(100):
        record = GAME.play_episode(BOARD, CodecConfig(), "greedy", 3, e)
        if len(record.tokens) >= min_length:
            return TOKENIZER.encode(record.tokens)
    raise AssertionError("no long episode")


def tiny_model(seed: int = 0, **overrides: int) -> GameGPT:
    torch.manual_seed(seed)
    return GameGPT(preset("gg31k", vocab_size=len(TOKENIZER), tick_table=256, tick_id=TOKENIZER.ids[GAME.tick_token], **overrides)).eval()


def test_hooks_read_the_states_the_model_computes() -> None:
    model = tiny_model()
    ids = episode_ids()[:60]
    idx = torch.tensor([ids])
    with capture(model, layer_names(model)) as store:
        logits = model(idx)[0]
    assert set(store) == set(layer_names(model))
    assert torch.allclose(model.head(store["final"]), logits, atol=1e-5)
    assert torch.allclose(model.ln_f(store[f"block{len(model.blocks)}"]), store["final"], atol=1e-5)
    clock = model.tick_clock(idx)
    embed = model.wte(idx) + model.wtick(clock)
    if model.wpe is not None:  # rotary presets have no position table: positions act inside attention
        embed = embed + model.wpe(torch.arange(len(ids)))
    assert torch.allclose(store["embed"], embed, atol=1e-6)
    with pytest.raises(ValueError, match="unknown layer"), capture(model, ["block99"]):
        pass


def test_branch_and_window_logprobs_agree_with_plain_forwards() -> None:
    model = tiny_model(block_size=24)
    ids = episode_ids()
    cands = [TOKENIZER.ids[f"X{x}"] for x in range(4)]
    points = [3, 20, 23, 24, 57, 200]
    for p, got in zip(points, branch_logprobs(model, ids, points, cands)):
        want = next_logprobs(model, [[*ids[:p], c] for c in cands])
        assert torch.allclose(got, want, atol=1e-5)
    out = run_episodes(model, [ids[:100]], ["final"])[0]
    # Within the first window the windowed log-probs are the plain forward's; the final state is what the head reads.
    plain = torch.log_softmax(model(torch.tensor([ids[:24]]))[0][0], -1)
    assert torch.allclose(out.logp[:24], plain, atol=1e-5)
    assert torch.allclose(torch.log_softmax(model.head(out.hidden["final"]), -1), out.logp, atol=1e-4)
    # Beyond it, position 60 is read from the window starting at 48 (windows step by half the context of 24),
    # with the game clock of the 48 tokens before it carried.
    cache = model.new_cache(1, 13)
    cache.ticks = torch.tensor([sum(t == model.config.tick_id for t in ids[:48])])
    window = torch.log_softmax(model(torch.tensor([ids[48:61]]), cache=cache)[0][0, -1], -1)
    assert torch.allclose(out.logp[60], window, atol=1e-5)
    assert not torch.allclose(out.logp[60], torch.log_softmax(model(torch.tensor([ids[48:61]]))[0][0, -1], -1), atol=1e-3)


def test_branches_of_several_tokens_agree_with_plain_forwards() -> None:
    """Each point its own candidate sequences, on both sides of the context's edge, a point asked twice (with other
    candidates, and with the same), and one token per candidate as `branch_logprobs` asks."""
    model = tiny_model(block_size=24)
    ids = episode_ids()
    tick_id = model.config.tick_id
    xs, ys = [TOKENIZER.ids[f"X{x}"] for x in range(5)], [TOKENIZER.ids[f"Y{y}"] for y in range(5)]
    points = [3, 21, 22, 57, 200, 57, 3]
    seqs = [[[xs[(i + k) % 5], ys[(i * k) % 5], xs[k]] for k in range(4)] for i in range(len(points))]
    seqs[-1] = seqs[0]  # point 3 again, with the same candidates
    got = branch_sequences(model, ids, points, seqs)
    for p, cands, branch in zip(points, seqs, got):
        assert branch.shape == (4, 3, len(TOKENIZER))
        # The whole prefix while it and the branch fit the context (24 tokens), else its last 24 - 3, the clock carried.
        start = max(0, p - 21)
        cache = model.new_cache(4, p - start + 3)
        cache.ticks = torch.full((4,), sum(t == tick_id for t in ids[:start]))
        want = torch.log_softmax(model(torch.tensor([[*ids[start:p], *c] for c in cands]), cache=cache)[0][:, -3:], -1)
        assert torch.allclose(branch, want, atol=1e-5), p
        # After the last token the window is a whole context: what next_logprobs reads.
        assert torch.allclose(branch[:, -1], next_logprobs(model, [[*ids[:p], *c] for c in cands]), atol=1e-5)
    plain = torch.log_softmax(model(torch.tensor([[*ids[:3], *c] for c in seqs[0]]))[0][:, -3:], -1)  # no cache at all
    assert torch.allclose(got[0], plain, atol=1e-5)
    one = branch_sequences(model, ids, points, [[[c] for c in xs]] * len(points))
    assert all(torch.equal(a[:, 0], b) for a, b in zip(one, branch_logprobs(model, ids, points, xs)))
    assert branch_sequences(model, ids, [], []) == []
    with pytest.raises(ValueError, match="candidates must be"):
        branch_sequences(model, ids, [30], [[[c] * 24 for c in xs]])  # a branch as long as the context


def test_edited_prefixes_score_what_their_whole_forwards_do(monkeypatch) -> None:
    model = tiny_model(block_size=64)  # episodes of several windows: branches of the first window and of later ones
    episodes = [episode_ids(), episode_ids(300)]
    gen = torch.Generator().manual_seed(3)

    def noise(n: int) -> list[int]:
        return torch.randint(3, len(TOKENIZER), (n,), generator=gen).tolist()

    asked = [(0, episodes[0][:p] + noise(t)) for p, t in ((10, 1), (40, 2), (40, 2), (150, 3), (230, 8))]
    asked += [(1, episodes[1][:100]), (1, episodes[1][:250] + noise(2))]  # the episode's own prefix; a later window
    asked += [(1, episodes[1][:20] + noise(17)), (0, noise(30))]  # a tail over a quarter context, a foreign prefix: whole
    whole: list[int] = []
    monkeypatch.setattr("gamegrammar.model.hidden.next_logprobs", lambda m, ps: whole.append(len(ps)) or next_logprobs(m, ps))
    got = edited_logprobs(model, episodes, asked)
    torch.testing.assert_close(got, next_logprobs(model, [ids for _, ids in asked]), atol=2e-5, rtol=1e-4)
    assert whole == [2]  # the other seven were branches


def test_random_like_is_an_untrained_twin() -> None:
    model = tiny_model(seed=3)
    with torch.no_grad():
        model.wte.weight.add_(1.0)  # as if trained
    state = torch.random.get_rng_state()
    twin = random_like(model, seed=0)
    assert torch.equal(torch.random.get_rng_state(), state)  # the caller's random stream is untouched
    assert twin.config == model.config and not twin.training
    assert not torch.equal(twin.wte.weight, model.wte.weight)
    again = random_like(model, seed=0)
    assert all(torch.equal(a, b) for a, b in zip(twin.state_dict().values(), again.state_dict().values()))
