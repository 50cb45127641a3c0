"""Training on several corpora at once (`--data.path [a, b]`, `--data.weights`) and from a checkpoint's weights
(`--model.init_from`): what the self-improvement loop fine-tunes with."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gamegrammar.act.play import play_games
from gamegrammar.cli import main
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus, write_played
from gamegrammar.training.checkpoint import export, load_checkpoint
from gamegrammar.training.lightning import CorpusDataModule, GameGPTModule


@pytest.fixture(scope="module")
def two_corpora(tiny_run, tmp_path_factory):
    corpus, _, _ = tiny_run
    real = Corpus(corpus)
    out = tmp_path_factory.mktemp("mix") / "played"
    eps = np.arange(500, 520)
    result = play_games(real.game_spec, real.game, real.codec, 0, eps, "greedy")
    write_played(out, real.game, real.codec, real.tokenizer, 0, eps, result.episodes, {"agent": "greedy-selfplay"})
    return str(corpus), str(out)


def test_a_list_of_corpora_trains_on_every_one(two_corpora):
    real, played = two_corpora
    dm = CorpusDataModule(path=[real, played], batch_size=4, block_size=32)
    rows = dm.train_rows()
    assert len(rows) == len(Corpus(real).split("train")) + 20
    assert set(dm.corpus.part_rows(1)) <= set(rows.tolist())
    assert dm.checkpoint_info()["corpus_path"] == f"{real}, {played}"
    assert dm.vocab_size == len(Corpus(real).tokenizer)


def test_weights_set_each_corpuss_share(two_corpora):
    real, played = two_corpora
    dm = CorpusDataModule(path=[real, played], batch_size=4, block_size=32, weights=[0.5, 0.5])
    rows = dm.train_rows()
    mine = np.isin(rows, dm.corpus.part_rows(1))
    assert abs(mine.mean() - 0.5) < 0.01 and len(rows) == len(dm.corpus.split("train"))
    assert set(rows[mine].tolist()) == set(dm.corpus.part_rows(1).tolist())  # every kept game is read, over and over
    for weights, message in (([1.0], "one weight per corpus"), ([1.0, -1.0], ">= 0"), ([0.0, 0.0], "not all 0")):
        with pytest.raises(GameGrammarError, match=message):
            CorpusDataModule(path=[real, played], weights=weights)


def test_init_from_starts_a_fresh_fit_from_a_checkpoints_weights(tiny_run, two_corpora, tmp_path):
    _, config, ckpt = tiny_run
    real, played = two_corpora
    loaded = load_checkpoint(ckpt)
    module = GameGPTModule(preset=loaded.gpt_config, init_from=str(ckpt))
    module.setup("fit")
    for name, value in loaded.model.state_dict().items():
        assert torch.equal(module.model.state_dict()[name], value)
    other = GameGPTModule(preset=loaded.gpt_config, n_embd=8, init_from=str(ckpt))
    with pytest.raises(GameGrammarError, match="differs from the configured one"):
        other.setup("fit")
    # through the CLI: a fresh fit on both corpora, from the checkpoint, with its own step count
    run = tmp_path / "finetune"
    argv = ["train", "fit", "--config", str(config), "--run_dir", str(run), "--model.init_from", str(ckpt)]
    argv += ["--data.path", f'["{real}", "{played}"]', "--data.weights", "[0.5, 0.5]", "--trainer.max_steps", "2"]
    assert main(argv) == 0
    tuned = torch.load(run / "checkpoints" / "last.ckpt", weights_only=True)
    assert tuned["global_step"] == 2 and tuned["gamegrammar"]["corpus_path"] == f"{real}, {played}"


def test_init_from_takes_an_exported_model_as_well(tiny_run, tmp_path):
    """So a loop or a fine-tune can start from a shipped model (models/snake), which has no .ckpt."""
    _, _, ckpt = tiny_run
    exported = export(ckpt, tmp_path / "exported")
    module = GameGPTModule(preset=load_checkpoint(ckpt).gpt_config, init_from=str(exported))
    module.setup("fit")
    for name, value in load_checkpoint(ckpt).model.state_dict().items():
        assert torch.equal(module.model.state_dict()[name], value)


def test_init_from_grows_into_a_vocabulary_that_adds_words_after_its_own(tiny_run):
    """A grammar option's words come after the others' (Battlesnake's SENSE, HIT, MEET): a model of the design without
    them starts a fine-tune on a corpus with them, its words keeping their rows and the new ones their fresh init."""
    _, _, ckpt = tiny_run
    loaded = load_checkpoint(ckpt)
    words = loaded.tokenizer.tokens
    config = loaded.gpt_config
    module = GameGPTModule(preset=config, vocab_size=config.vocab_size + 2, init_from=str(ckpt))
    module._words = [*words, "NEW_A", "NEW_B"]
    fresh = module.model.wte.weight.detach().clone()
    module.setup("fit")
    emb = module.model.wte.weight
    assert torch.equal(emb[: len(words)], loaded.model.wte.weight) and torch.equal(emb[len(words) :], fresh[len(words) :])
    assert module.model.head.weight is emb  # still tied
    for name, value in loaded.model.state_dict().items():
        if "wte" not in name and "head" not in name:
            assert torch.equal(module.model.state_dict()[name], value)
    other = GameGPTModule(preset=config, vocab_size=config.vocab_size + 2, init_from=str(ckpt))
    other._words = ["NEW_A", *words[1:], "NEW_B", "NEW_C"]  # not an extension: one of its words is missing
    with pytest.raises(GameGrammarError, match="differs from the configured one"):
        other.setup("fit")


def test_init_from_keeps_each_words_row_where_new_words_come_between_its_own(tiny_run):
    """Battlesnake's four-snake vocabulary puts S2 and S3 among a duel model's words: rows follow the words."""
    _, _, ckpt = tiny_run
    loaded = load_checkpoint(ckpt)
    words, config = loaded.tokenizer.tokens, loaded.gpt_config
    cut = max(config.bos_id, config.tick_id) + 1  # the ids the model's config names stay where they are
    module = GameGPTModule(preset=config, vocab_size=config.vocab_size + 2, init_from=str(ckpt))
    module._words = [*words[:cut], "NEW_A", *words[cut:-1], "NEW_B", words[-1]]
    fresh = module.model.wte.weight.detach().clone()
    module.setup("fit")
    emb, old = module.model.wte.weight, loaded.model.wte.weight
    for i, word in enumerate(module._words):
        assert torch.equal(emb[i], old[words.index(word)] if word in words else fresh[i]), word
    assert module.model.head.weight is emb


def test_init_from_takes_a_longer_context_with_rotary_positions(tiny_run):
    """Rotary positions are computed, not learned: a duel model starts a four-snake fine-tune in a longer context."""
    _, _, ckpt = tiny_run
    loaded = load_checkpoint(ckpt)
    config = loaded.gpt_config
    assert config.rope
    module = GameGPTModule(preset=config, block_size=config.block_size * 2, init_from=str(ckpt))
    module.setup("fit")
    assert module.model.config.block_size == config.block_size * 2
    for name, value in loaded.model.state_dict().items():
        assert torch.equal(module.model.state_dict()[name], value)
