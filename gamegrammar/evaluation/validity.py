"""The strict evaluator, for any game: verdicts come from the game's own rules, summaries from here.

`validate` and `validate_many` find the game from its config and ask it (each game
replays sequences through its one rules implementation: `GameSpec.validate`);
`summarize` turns verdicts into rates per tier and rule with Wilson 95% intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.games import game_of
from gamegrammar.gamespec import CodecConfig
from gamegrammar.verdict import Verdict, rule_names, tiers_of


def validate(tokens: Sequence[str] | str, config: Any, codec: CodecConfig | None = None) -> Verdict:
    """Parse and replay one sequence (tokens, or one space-separated string) through its game's rules.

    `codec` declares the grammar options the sequence must follow (the corpus's, or the checkpoint's:
    a model trained on a design is held to it); None lets the game read them off the sequence.
    """
    if isinstance(tokens, str):
        tokens = tokens.split()
    game = game_of(config)
    return game.validate(tokens, config) if _declares_nothing(codec) else game.validate(tokens, config, codec)


def validate_many(sequences: Iterable[Sequence[str] | str | Sequence[int]], config: Any, codec: CodecConfig | None = None) -> list[Verdict]:
    """`validate` each sequence (tokens, a space-separated string, or token ids), exactly, many at once."""
    seqs = [s.split() if isinstance(s, str) else s for s in sequences]
    game = game_of(config)
    return game.validate_many(seqs, config) if _declares_nothing(codec) else game.validate_many(seqs, config, codec)


def _declares_nothing(codec: CodecConfig | None) -> bool:
    """No codec, or one without a game's own grammar options: a game whose `validate` takes no codec is asked without."""
    return codec is None or type(codec) is CodecConfig


def summarize(verdicts: Sequence[Verdict], rules: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Counts and rates per tier (strict and lenient) and per rule, each with a Wilson 95% interval.

    Tiers report pass rates; rules report violation rates and their tier (so a report
    reads without the game); `first_violations` counts which rule broke first (what a
    model gets wrong before anything else).
    """
    n = len(verdicts)
    names = rule_names(rules)

    def passed(k: int) -> dict[str, Any]:
        return {"passed": k, "n": n, "rate": k / n if n else None, "ci95": list(wilson_interval(k, n))}

    by_rule = {}
    for tier, members in rules.items():
        for rule in members:
            k = sum(rule in v.positions for v in verdicts)
            by_rule[rule] = {"tier": tier, "violated": k, "n": n, "rate": k / n if n else None, "ci95": list(wilson_interval(k, n))}
    firsts = dict.fromkeys(names, 0)
    for v in verdicts:
        if v.violations:
            firsts[v.violations[0]] += 1
    tiers = tiers_of(rules)
    return {
        "sequences": n,
        "tiers": {tier: passed(sum(v.tiers[tier] for v in verdicts)) for tier in tiers},
        "lenient": {tier: passed(sum(v.lenient[tier] for v in verdicts)) for tier in tiers},
        "rules": by_rule,
        "first_violations": firsts,
    }
