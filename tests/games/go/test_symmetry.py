from __future__ import annotations

import numpy as np

from gamegrammar.core.board_symmetry import SYMMETRIES
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import game_of, tokenizer_for
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.rules import GoConfig
from gamegrammar.games.go.symmetry import GoSymmetries
from gamegrammar.games.go.validity import validate


def _games(config: GoConfig, codec: CodecConfig, count: int) -> list[list[str]]:
    return [play_episode(config, codec, agent, 5, e).tokens for e in range(count) for agent in ("capture", "random,capture")]


def test_every_image_of_every_game_is_a_valid_game_with_the_moves_mapped():
    config = GoConfig(5, komi=0.5, max_ticks=60)
    tokenizer = tokenizer_for(config)
    symmetries = GoSymmetries(tokenizer, config)
    assert symmetries.names == tuple(SYMMETRIES)  # the empty start is kept by all eight
    codec = CodecConfig(keyframe_interval=7)  # later keyframes too: their stone lists are sorted again
    games = _games(config, codec, 12)
    several = sum(tokens[i - 1] == "TAKE" and tokens[i + 1].islower() for tokens in games for i in range(1, len(tokens) - 1))
    assert several, "no capture of two stones or more: the re-sorting is not exercised"
    for tokens, name in ((t, n) for t in games for n in SYMMETRIES):
        image = symmetries.apply_tokens(tokens, name)
        verdict = validate(image, config, keyframe_interval=7)
        assert verdict.valid, (name, verdict.violations, verdict.positions)
        moves = [t for t in tokens if t[:1].isupper() and t[1:].isdigit() and not t.startswith("V")]
        f = SYMMETRIES[name]
        expected = []
        for m in moves:
            x, y = "ABCDE".index(m[0]), int(m[1:]) - 1
            x2, y2 = f(x, y, 4)
            expected.append(f"{'ABCDE'[x2]}{y2 + 1}")
        assert [t for t in image if t[:1].isupper() and t[1:].isdigit() and not t.startswith("V")] == expected


def test_images_compose_as_the_group_does_and_identity_keeps_the_ids():
    config = GoConfig(5, komi=0.5, max_ticks=60)
    tokenizer = tokenizer_for(config)
    symmetries = GoSymmetries(tokenizer, config)
    ids = np.array(tokenizer.encode(_games(config, CodecConfig(), 3)[1]))
    assert (symmetries.apply(ids, "identity") == ids).all()
    twice = symmetries.apply(symmetries.apply(ids, "rot90"), "rot90")
    assert (twice == symmetries.apply(ids, "rot180")).all()
    for name in ("flip_x", "flip_y", "transpose", "anti_transpose", "rot180"):
        assert (symmetries.apply(symmetries.apply(ids, name), name) == ids).all()
    assert (symmetries.apply(ids[:0], "rot90") == ids[:0]).all()


def test_the_game_declares_them():
    config = GoConfig(9)
    spec = game_of(config)
    assert "symmetries" in spec.capabilities
    assert spec.symmetries(tokenizer_for(config), config).names == tuple(SYMMETRIES)
