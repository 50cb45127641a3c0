from __future__ import annotations

import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.precision import MIN_SPEEDUP, Precision, choose_precision, for_generation, format_of


def _model() -> GameGPT:
    torch.manual_seed(0)
    return GameGPT(preset("gg-cpu", vocab_size=40, tick_id=4)).eval()


def test_named_formats_are_taken_as_asked():
    model = _model()
    assert choose_precision("float32", model) == Precision(torch.float32, "asked for")
    assert choose_precision("bfloat16", model) == Precision(torch.bfloat16, "asked for")
    assert choose_precision("mixed", model) == Precision(torch.float32, "asked for", torch.bfloat16)


def test_auto_takes_the_fastest_format_only_where_it_is_clearly_faster(monkeypatch):
    import gamegrammar.model.precision as precision

    model = _model()
    for speedups, expected in (
        ({"bfloat16": 1.7, "mixed": 1.3}, "bfloat16"),  # an AMX host
        ({"bfloat16": 0.57, "mixed": 1.6}, "mixed"),  # an AVX-512 BF16 host without AMX
        ({"bfloat16": 0.1, "mixed": MIN_SPEEDUP}, "mixed"),
        ({"bfloat16": 0.1, "mixed": 1.1}, "float32"),  # an AVX2 host
    ):
        monkeypatch.setattr(precision, "format_speedups", lambda m, tokens, s=speedups: {"float32": 1.0, **s} if tokens == 4 else {})
        chosen = choose_precision("auto", model, tokens=4)
        assert chosen.name == expected and chosen.reason.startswith("auto: a pass of 4 tokens a row of this model runs")
        assert f"{speedups['bfloat16']:.2f}x in bfloat16, {speedups['mixed']:.2f}x in mixed against float32" in chosen.reason
        assert ("none reaches" in chosen.reason) == (expected == "float32")


def test_auto_times_the_models_own_pass_once_in_each_format(monkeypatch):
    """The probe runs the model's real pass in each format (a model whose pass breaks in one would break it) and is
    asked once per shape: a command that samples many batches measures once."""
    import gamegrammar.model.precision as precision

    made, timed = [], []
    real_init, real_seconds = precision._Pass.__init__, precision._Pass.seconds

    def init(self, m, rows, tokens, context):
        made.append((precision.format_of(m), rows, tokens, context))
        real_init(self, m, rows, tokens, context)

    def seconds(self):
        timed.append(precision.format_of(self.model))
        return real_seconds(self)

    monkeypatch.setattr(precision, "_speedups", {})
    monkeypatch.setattr(precision._Pass, "__init__", init)
    monkeypatch.setattr(precision._Pass, "seconds", seconds)
    model = _model()
    speedups = precision.format_speedups(model, 4, calls=2)
    assert set(speedups) == {"float32", "bfloat16", "mixed"} and speedups["float32"] == 1.0
    assert precision.format_speedups(model, 4) == speedups  # measured once
    shape = (precision.PROBE_ROWS, 4, precision.PROBE_CONTEXT)
    formats = [(torch.float32, None), (torch.bfloat16, None), (torch.float32, torch.bfloat16)]
    assert made == [(f, *shape) for f in formats]
    assert timed == formats * 3  # a warm-up, then the formats in turns
    assert precision.format_of(model) == (torch.float32, None)  # the probe cast copies


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
    assert str(Precision(torch.float32, "asked for", torch.bfloat16)) == "mixed (asked for)"


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


def test_mixed_computes_the_blocks_matmuls_in_bf16_beside_a_float32_cache():
    model = _model()
    mixed = for_generation(model, Precision(torch.float32, "asked for", torch.bfloat16))
    assert mixed is not model and format_of(mixed) == (torch.float32, torch.bfloat16) and format_of(model) == (torch.float32, None)
    assert mixed.blocks[0].mlp.fc.weight.dtype == torch.bfloat16 and mixed.wte.weight.dtype == torch.float32
    assert mixed.head.weight is mixed.wte.weight  # the tied head stays with the embedding, in float32
    assert mixed.new_cache(2, 8).k.dtype == torch.float32
    assert mixed.weights_sha256() != model.weights_sha256()  # a journal of one format is not resumed in another
    assert for_generation(mixed, Precision(torch.float32, "asked for", torch.bfloat16)) is mixed
    x = torch.randint(0, 40, (3, 12))
    with torch.no_grad():
        a, b = model(x)[0], mixed(x)[0]
    assert b.dtype == torch.float32 and (a - b).abs().max() < 0.05 * a.abs().max()  # the same logits, up to bf16 rounding
    back = for_generation(mixed, Precision(torch.float32, "asked for"))
    assert format_of(back) == (torch.float32, None) and back.blocks[0].mlp.fc.weight.dtype == torch.float32


def test_cast_for_generation_casts_the_model_itself():  # what play and dream do: no copy
    from gamegrammar.model.precision import cast_for_generation

    model = _model()
    assert cast_for_generation(model, Precision(torch.float32, "asked for", torch.bfloat16)) is model
    assert format_of(model) == (torch.float32, torch.bfloat16)
