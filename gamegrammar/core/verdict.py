"""A strict evaluator's result for one sequence, for any game: which rules broke, and where first.

Each game's evaluator (its `GameSpec.validate`) notes broken rules in `Findings`
and turns them into a `Verdict` with `make_verdict`; the core summarises verdicts
without knowing the rules, which come from the game (`GameSpec.rules`, by tier).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """One sequence's result: tier verdicts, strict and lenient, and where each broken rule first breaks."""

    tiers: dict[str, bool]
    lenient: dict[str, bool]
    violations: list[str]  # broken rules, ordered by their first token index
    first_violation: int | None  # token index of the earliest violation; None if valid
    positions: dict[str, int]  # first token index of each broken rule
    unchecked: tuple[str, ...] = ()  # tiers none of whose rules could run (the grammar broke before the opening state)

    @property
    def valid(self) -> bool:
        return self.tiers["full"]

    def to_json(self) -> dict[str, Any]:
        out = {
            "valid": self.valid,
            "tiers": dict(self.tiers),
            "violations": list(self.violations),
            "first_violation": self.first_violation,
            "lenient": dict(self.lenient),
        }
        if self.unchecked:
            out["unchecked"] = list(self.unchecked)
        return out


class Findings:
    """The first token index of each broken rule, plus the sequence length (to tell 'missing' from 'cut off')."""

    __slots__ = ("first", "length")

    def __init__(self, length: int) -> None:
        self.first: dict[str, int] = {}
        self.length = length

    def note(self, rule: str, index: int) -> None:
        old = self.first.get(rule)
        if old is None or index < old:
            self.first[rule] = index


def tiers_of(rules: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The tier names of a game's rules, then "full"."""
    return (*rules, "full")


def rule_names(rules: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(rule for names in rules.values() for rule in names)


def make_verdict(
    first: dict[str, int], lenient: dict[str, bool], rules: Mapping[str, tuple[str, ...]], unchecked: tuple[str, ...] = ()
) -> Verdict:
    """The verdict of a sequence whose broken rules first break at `first` (rule -> token index).

    Violations are ordered by token index, ties in the game's rule order. `unchecked` names the tiers whose rules never
    ran (a summary leaves the sequence out of their denominators, instead of counting it as passing them).
    """
    order = {rule: k for k, rule in enumerate(rule_names(rules))}
    violations = sorted(first, key=lambda rule: (first[rule], order[rule]))
    tiers = {tier: not any(rule in first for rule in names) for tier, names in rules.items()}
    tiers["full"] = not first
    return Verdict(tiers, lenient, violations, first[violations[0]] if violations else None, dict(first), tuple(unchecked))


OPENING_TIERS = ("physical", "rules")
"""The tiers whose rules all read the state the opening keyframe gives: unchecked in a sequence that breaks the
grammar (or stops) before its opening keyframe is read."""
