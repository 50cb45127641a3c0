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
    model = _model()
    assert choose_precision("float32", model) == Precision(torch.float32, "asked for")
    assert choose_precision("bfloat16", model) == Precision(torch.bfloat16, "asked for")


def test_auto_takes_bf16_only_where_a_decode_pass_is_clearly_faster(monkeypatch):
    import gamegrammar.model.precision as precision

    model = _model()
    for speedup, expected in ((7.0, torch.bfloat16), (BF16_MIN_SPEEDUP, torch.bfloat16), (1.1, torch.float32), (0.5, torch.float32)):
        monkeypatch.setattr(precision, "bf16_decode_speedup", lambda m, s=speedup: s)
        chosen = choose_precision("auto", model)
        assert chosen.dtype == expected and chosen.reason.startswith("auto: a decode pass of this model runs")
        assert f"{speedup:.2f}x as fast in bf16" in chosen.reason and ("below" in chosen.reason) == (expected == torch.float32)


def test_auto_times_the_models_own_decode_pass_once(monkeypatch):
    """The probe runs the model's real pass in each dtype (a model whose pass breaks in bf16 would break it) and is
    asked once per shape: a command that samples many batches measures once."""
    import gamegrammar.model.precision as precision

    calls = []
    real = precision._best_pass_seconds
    monkeypatch.setattr(precision, "_speedups", {})
    monkeypatch.setattr(
        precision,
        "_best_pass_seconds",
        lambda m, rows, context: calls.append((next(m.parameters()).dtype, rows, context)) or real(m, rows, context, calls=1),
    )
    model = _model()
    speedup = precision.bf16_decode_speedup(model)
    assert speedup > 0 and precision.bf16_decode_speedup(model) == speedup
    assert calls == [
        (torch.float32, precision.PROBE_ROWS, precision.PROBE_CONTEXT),
        (torch.bfloat16, precision.PROBE_ROWS, precision.PROBE_CONTEXT),
    ]
    assert next(model.parameters()).dtype == torch.float32  # the probe cast a copy


def test_auto_keeps_float32_off_the_cpu():
    model = _model().to("meta")  # any device but the CPU: nothing is timed there
    assert choose_precision("auto", model) == Precision(torch.float32, "auto: float32 on meta")


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
        choose_precision("int4", _model())


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
