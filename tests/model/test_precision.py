from __future__ import annotations

import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.precision import BF16_MIN_SPEEDUP, Precision, choose_precision, for_generation


def _model() -> GameGPT:
    torch.manual_seed(0)
    return GameGPT(preset("gg-cpu", vocab_size=40, tick_id=4)).eval()


def test_named_dtypes_are_taken_as_asked():
    cpu = torch.device("cpu")
    assert choose_precision("float32", cpu, 128) == Precision(torch.float32, "asked for")
    assert choose_precision("bfloat16", cpu, 128) == Precision(torch.bfloat16, "asked for")


def test_auto_takes_bf16_only_where_its_matmuls_are_clearly_faster(monkeypatch):
    import gamegrammar.model.precision as precision

    cpu = torch.device("cpu")
    for speedup, expected in ((7.0, torch.bfloat16), (BF16_MIN_SPEEDUP, torch.bfloat16), (1.2, torch.float32), (0.05, torch.float32)):
        monkeypatch.setattr(precision, "bf16_matmul_speedup", lambda width, s=speedup: s)
        chosen = choose_precision("auto", cpu, 128)
        assert chosen.dtype == expected and chosen.reason.startswith("auto:") and "x its fp32" in chosen.reason


def test_auto_keeps_float32_off_the_cpu():
    assert choose_precision("auto", torch.device("cuda"), 128).dtype == torch.float32


def test_the_commands_offer_exactly_the_dtypes_there_are():
    import argparse

    from gamegrammar.commands.sample import add_dtype_argument
    from gamegrammar.model.precision import DTYPE_CHOICES

    p = argparse.ArgumentParser()
    add_dtype_argument(p)
    assert tuple(p._option_string_actions["--dtype"].choices) == DTYPE_CHOICES


def test_a_precision_prints_its_dtype_and_why():
    assert str(Precision(torch.bfloat16, "asked for")) == "bfloat16 (asked for)"


def test_an_unknown_dtype_is_one_line():
    with pytest.raises(GameGrammarError, match="--dtype must be one of auto, float32, bfloat16"):
        choose_precision("int4", torch.device("cpu"), 128)


def test_generation_casts_a_copy_and_leaves_the_model_as_it_was():
    model = _model()
    same = for_generation(model, Precision(torch.float32, "asked for"))
    assert same is model
    cast = for_generation(model, Precision(torch.bfloat16, "asked for"))
    assert cast is not model and next(cast.parameters()).dtype == torch.bfloat16
    assert next(model.parameters()).dtype == torch.float32
    for a, b in zip(model.parameters(), cast.parameters()):  # the same weights, rounded
        torch.testing.assert_close(a.to(torch.bfloat16), b, rtol=0, atol=0)


def test_a_bf16_model_writes_what_its_fp32_self_mostly_writes():
    from gamegrammar.model.sampling import SamplingConfig, generate

    model = _model()
    cast = for_generation(model, Precision(torch.bfloat16, "asked for"))
    config = SamplingConfig(temperature=0.0, max_length=24, batch_size=4)
    a = generate(model, [[1]] * 4, eos_id=2, config=config)
    b = generate(cast, [[1]] * 4, eos_id=2, config=config)
    assert len(b) == 4 and all(len(s) == 24 for s in b)
    assert all(s[:2] == t[:2] for s, t in zip(a, b))  # argmax agrees at first: rounding moves only near ties
