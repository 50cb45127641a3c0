"""The models shipped in models/: each loads from its directory, its card says what it is, and it writes real games."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamegrammar.evaluation.validity import validate_many
from gamegrammar.model.sampling import SamplingConfig, generate
from gamegrammar.training.checkpoint import EXPORT_FILES, load_checkpoint

MODELS = Path(__file__).parent.parent / "models"
SHIPPED = sorted(p for p in MODELS.iterdir() if p.is_dir()) if MODELS.is_dir() else []
# (samples, least valid, the strict tier they pass) by model: its card's rate makes fewer very unlikely. The
# 14M-parameter models/snake (97% on its card) samples slowest on a CPU: 3 of 4; the small ones 3 of 8. models/battlesnake
# writes 19.1% valid duels (its card), too few to ask of 8: the structural tier it holds (95.4%), 6 of 8; models/go
# writes 3.5% valid games (its card), too few too: its structural tier (whole games in its grammar, 81.7%), 4 of 8.
SAMPLES = {"snake": (4, 3, "full"), "battlesnake": (8, 6, "structural"), "go": (8, 4, "structural")}
OUTGROWN: set[str] = set()  # models whose corpus has games longer than their context (cut off, they fail more): none now


def test_the_snake_model_is_shipped() -> None:
    assert MODELS / "snake" in SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_model_loads_and_its_card_says_what_it_is(path: Path) -> None:
    assert all((path / name).is_file() for name in EXPORT_FILES)
    loaded = load_checkpoint(path)
    assert loaded.tokenizer.tokens == loaded.game_spec.codec_vocabulary(loaded.game, loaded.codec)
    card = (path / "README.md").read_text()
    for said in (f"gamegrammar evaluate --ckpt models/{path.name}", "strict full", "hardware", "grammar", "data"):
        assert said in card, f"models/{path.name}/README.md does not say {said!r}"


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_model_writes_valid_games(path: Path) -> None:
    loaded = load_checkpoint(path)
    tok = loaded.tokenizer
    # one context at most: every corpus game fits one (the sliding window past it recomputes the context each token), and
    # a game cut off there counts as invalid, so the bound makes the check stricter, not looser
    assert (loaded.longest_episode or 0) <= loaded.model.config.block_size or path.name in OUTGROWN
    samples, least, tier = SAMPLES.get(path.name, (8, 3, "full"))
    config = SamplingConfig(temperature=1.0, max_length=loaded.model.config.block_size, batch_size=samples, seed=0)
    ids = generate(loaded.model, [[tok.bos_id]] * samples, tok.eos_id, config)
    verdicts = validate_many([tok.decode(s) for s in ids], loaded.game, loaded.codec)
    assert sum(v.tiers[tier] for v in verdicts) >= least
