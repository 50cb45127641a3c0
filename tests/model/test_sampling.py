from __future__ import annotations

import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import tokenizer_for
from gamegrammar.model import GameGPT, GPTConfig, KVCache
from gamegrammar.model.sampling import GrammarMask, SamplingConfig, SamplingStats, filter_logits, generate

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


def windowed_greedy(model: GameGPT, prompt: list[int], eos: int, cap: int, first: int) -> list[int]:
    """What the sampler must write for one row at temperature 0, from full forward passes: at every step the
    model sees the window the cache holds (the sequence until it fills the context, then the last
    half-context, grown until full again) with the game clock of the ticks before it. `first` is the shortest
    prompt of the row's batch: every row of a batch slides at the same lengths."""
    context = model.config.block_size
    max_len = min(context, cap)
    seq, start, length = list(prompt), first - min(first, context), first
    while True:
        cache = model.new_cache(1, length - start)
        cache.ticks = torch.tensor([seq[:start].count(model.config.tick_id)])
        logits, _ = model(torch.tensor([seq[start:length]]), cache=cache)
        free = length >= len(prompt)
        if free:
            seq.append(int(logits[0, -1].argmax()))
        length += 1
        if (free and seq[-1] == eos) or length >= cap:
            return seq
        if length - 1 - start == max_len:  # the cache is full: the sampler slides
            start = length - context // 2


def test_batches_with_forced_prompts_finished_rows_and_slides_write_what_one_row_at_a_time_would(monkeypatch):
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=20, block_size=16, n_layer=2, n_head=2, n_embd=16, rope=True, tick_table=8, tick_id=4)).eval()
    g = torch.Generator().manual_seed(1)
    prompts = [[2, *torch.randint(4, 20, (int(n),), generator=g).tolist()] for n in torch.randint(0, 22, (16,), generator=g)]
    cap, batch = 60, 6  # three batches (6, 6, 4 rows); prompts up to 22 tokens, longer than the context
    firsts = [min(map(len, prompts[i - i % batch : i - i % batch + batch])) for i in range(len(prompts))]
    # An EOS that ends many rows, at different steps, so that finished rows leave the cache.
    free = [windowed_greedy(model, p, -1, cap, f) for p, f in zip(prompts, firsts)]
    ends = {t: [next((j for j in range(len(p), cap) if s[j] == t), cap) for p, s in zip(prompts, free)] for t in range(3, 20)}
    eos = max(ends, key=lambda t: (sum(e < cap for e in ends[t]), -t))
    selected = []
    select = KVCache.select
    monkeypatch.setattr(KVCache, "select", lambda cache, rows: selected.append(rows.tolist()) or select(cache, rows))
    stats, finished = SamplingStats(), []
    got = generate(model, prompts, eos, SamplingConfig(temperature=0, max_length=cap, batch_size=batch), stats, progress=finished.append)
    assert got == [windowed_greedy(model, p, eos, cap, f) for p, f in zip(prompts, firsts)]
    assert stats.slides > 0 and selected and any(rows != list(range(len(rows))) for rows in selected)
    # progress: every sequence counted once, as it finishes (the rows that end at EOS before the batch does)
    ended = sorted({(i // batch, len(s)) for i, s in enumerate(got)})
    assert sum(finished) == len(prompts) and min(finished) >= 1 and len(finished) == len(ended)
    assert stats.generated_tokens == sum(len(s) - len(p) for s, p in zip(got, prompts))


def test_a_prompt_as_long_as_the_cap_comes_back_as_it_is():
    model = tiny_model()
    stats, finished = SamplingStats(), []
    assert generate(model, [[2] * 30, [2, 5] * 15], EOS, SamplingConfig(max_length=30), stats, progress=finished.append) == [
        [2] * 30,
        [2, 5] * 15,
    ]
    assert stats.generated_tokens == 0 and finished == [2]
    assert len(generate(model, [[2] * 30, [2]], EOS, SamplingConfig(max_length=30))[0]) == 30


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


def test_the_grammar_mask_tables_agree_with_the_automaton():
    from gamegrammar.games.snake import GAME
    from gamegrammar.games.snake.rules import SnakeConfig

    game = SnakeConfig(5, 5, 30)
    tok, automaton = tokenizer_for(game), GAME.automaton(game)
    mask = GrammarMask(tok, automaton, torch.device("cpu"))
    episode = "BOS SNAP PLAYER X2 Y2 DIR_R LEN2 BODY B_L FOOD X4 Y2 SCORE V0 TICK INPUT_R EAT MOVE X3 Y2 GROW LEN3 SCORE V1 TICK INPUT_U DIE_WALL EOS"
    ids = [tok.ids[t] for t in episode.split()]
    for _ in range(2):  # the first pass fills the tables from the automaton, the second reads them
        states, state = mask.start(2), automaton.start()  # two rows: a pair met twice in one step
        for i in ids:
            want = torch.zeros(len(tok), dtype=torch.bool)
            want[[tok.ids[t] for t in automaton.allowed(state)]] = True
            assert torch.equal(mask.mask(states), torch.stack([want, want]))
            states, state = mask.step(states, torch.tensor([i, i])), automaton.step(state, tok.tokens[i])
            assert [mask.states[s] for s in states.tolist()] == [state, state]
    with pytest.raises(GameGrammarError, match="does not allow 'MOVE' here"):
        mask.step(mask.start(1), torch.tensor([tok.ids["MOVE"]]))
    model = GameGPT(GPTConfig(vocab_size=len(tok), block_size=32, n_layer=1, n_head=2, n_embd=16)).eval()
    with pytest.raises(GameGrammarError, match="does not allow 'TICK' here"):
        generate(model, [[tok.bos_id, tok.ids["TICK"]]], tok.eos_id, SamplingConfig(constrained=True), grammar=(tok, automaton))


def test_the_default_cap_makes_room_for_the_longest_training_episode():
    from gamegrammar.commands.sample import default_max_length

    assert default_max_length(64, None) == 2048  # the original's small context: whole episodes all the same
    assert default_max_length(1536, 1255) == 2304  # a Snake corpus: 1.5 contexts already hold every episode
    assert default_max_length(1024, 4400) == 5500  # Battlesnake: episodes far longer than the context


def test_a_run_resumed_between_batches_samples_what_an_uninterrupted_one_does():
    from gamegrammar.model.sampling import SamplingProgress

    model, prompts = tiny_model(block_size=24), [[2]] * 5 + [[2, 5, 6]] * 2
    config = SamplingConfig(max_length=40, batch_size=3, seed=9)  # slides, and a last batch of one
    whole = generate(model, prompts, EOS, config)
    points: list[SamplingProgress] = []

    def stop_after_first(progress: SamplingProgress) -> None:
        points.append(SamplingProgress([list(s) for s in progress.sequences]))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate(model, prompts, EOS, config, after_batch=stop_after_first)
    assert len(points[0].sequences) == 3
    stats, seen = SamplingStats(), []
    assert generate(model, prompts, EOS, config, stats, resume=points[0], after_batch=lambda p: seen.append(len(p.sequences))) == whole
    assert stats.sequences == 4 and seen == [6, 7]
    # Draws are keyed by sequence and position: any finished prefix carries on exactly, not only whole batches.
    assert generate(model, prompts, EOS, config, resume=SamplingProgress(whole[:2])) == whole
    with pytest.raises(GameGrammarError, match="cannot resume after 8 of 7"):
        generate(model, prompts, EOS, config, resume=SamplingProgress([*whole, [2]]))


def test_a_resumed_run_that_had_finished_sampling_needs_no_cache(monkeypatch):
    # A journal holding every sequence (killed while validating) must not be refused for a cache it will not use:
    # 1000 sequences on a GPU's batch did not fit in the CPU's memory that read the journal back.
    from gamegrammar.model.sampling import SamplingProgress

    model, prompts = tiny_model(block_size=24), [[2]] * 4
    config = SamplingConfig(max_length=30, batch_size=4, seed=3)
    whole = generate(model, prompts, EOS, config)

    def no_room(*_args):
        raise GameGrammarError("no room for a cache")

    monkeypatch.setattr(model, "new_cache", no_room)
    stats = SamplingStats()
    assert generate(model, prompts, EOS, config, stats, resume=SamplingProgress(whole)) == whole
    assert stats.sequences == 0
