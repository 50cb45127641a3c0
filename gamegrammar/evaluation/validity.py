"""The strict evaluator, for any game: verdicts come from the game's own rules, summaries from here.

`validate` and `validate_many` find the game from its config and ask it (each game
replays sequences through its one rules implementation: `GameSpec.validate`);
`summarize` turns verdicts into rates per tier and rule with Wilson 95% intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.core.verdict import Verdict, rule_names, tiers_of
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.games import game_of


def validate(tokens: Sequence[str] | str, config: Any, codec: CodecConfig | None = None) -> Verdict:
    """Parse and replay one sequence (tokens, or one space-separated string) through its game's rules.

    `codec` declares the design the sequence must follow, its grammar options and its keyframe interval (the
    corpus's, or the checkpoint's: a model trained on a design is held to it); None lets the game read them off the
    sequence.
    """
    if isinstance(tokens, str):
        tokens = tokens.split()
    return game_of(config).validate(tokens, config, codec)


def validate_many(sequences: Iterable[Sequence[str] | str | Sequence[int]], config: Any, codec: CodecConfig | None = None) -> list[Verdict]:
    """`validate` each sequence (tokens, a space-separated string, or token ids), exactly, many at once."""
    seqs = [s.split() if isinstance(s, str) else s for s in sequences]
    return game_of(config).validate_many(seqs, config, codec)


def summarize(verdicts: Sequence[Verdict], rules: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Counts and rates per tier (strict and lenient) and per rule, each with a Wilson 95% interval.

    Tiers report pass rates; rules report violation rates and their tier (so a report
    reads without the game); `first_violations` counts which rule broke first (what a
    model gets wrong before anything else). A tier's (and its rules') denominator is the
    sequences its rules ran on (`Verdict.unchecked`); `not_checked` counts the others.
    `rules` are the rules of the design judged (`GameSpec.rules_for`): a grammar option's
    rules are listed only where the design writes the option.
    """
    n = len(verdicts)
    names = rule_names(rules)

    def passed(k: int, m: int = n) -> dict[str, Any]:
        return {"passed": k, "n": m, "rate": k / m if m else None, "ci95": list(wilson_interval(k, m))}

    def tier(name: str) -> dict[str, Any]:
        """A tier's pass rate over the sequences its rules ran on: one that broke the grammar before its opening state
        was read never met them, and is counted as not checked rather than as passing."""
        checked = [v for v in verdicts if name not in v.unchecked]
        return passed(sum(v.tiers[name] for v in checked), len(checked)) | {"not_checked": n - len(checked)}

    by_rule = {}
    for group, members in rules.items():
        m = sum(group not in v.unchecked for v in verdicts)  # the sequences this tier's rules ran on
        for rule in members:
            k = sum(rule in v.positions for v in verdicts)
            by_rule[rule] = {"tier": group, "violated": k, "n": m, "rate": k / m if m else None, "ci95": list(wilson_interval(k, m))}
    firsts = dict.fromkeys(names, 0)
    for v in verdicts:
        if v.violations:
            firsts[v.violations[0]] = firsts.get(v.violations[0], 0) + 1
    tiers = tiers_of(rules)
    return {
        "sequences": n,
        "tiers": {name: tier(name) for name in tiers},
        "lenient": {tier: passed(sum(v.lenient[tier] for v in verdicts)) for tier in tiers},
        "rules": by_rule,
        "first_violations": firsts,
    }
