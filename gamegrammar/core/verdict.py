"""A strict evaluator's result for one sequence, for any game: which rules broke, and where first.

Each game's evaluator (its `GameSpec.validate`) notes broken rules in `Findings`
and turns them into a `Verdict` with `make_verdict`; the core summarises verdicts
without knowing the rules, which come from the game (`GameSpec.rules`, by tier).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


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


def valid_verdict(rules: Mapping[str, tuple[str, ...]]) -> Verdict:
    """The verdict of a sequence that breaks nothing: every tier passes, strict and lenient."""
    passed = dict.fromkeys(tiers_of(rules), True)
    return Verdict(passed, dict(passed), [], None, {})


def cut_verdict(rules: Mapping[str, tuple[str, ...]], n: int) -> Verdict:
    """The verdict of a sequence of n tokens cut off (no EOS) after ticks that all obey the rules: `complete` broken
    at n, nothing else; its lenient tiers are the strict ones (no EOS fails lenient structure, nothing else fails)."""
    tiers = make_verdict({"complete": n}, {}, rules).tiers
    return Verdict(tiers, dict(tiers), ["complete"], n, {"complete": n})


# ---------------------------------------------------------------- fast evaluators (a game's batch replay)

SLOW, VALID, CUT = 0, 1, 2  # a fast evaluator's status of a sequence: ask the reference, valid, a valid prefix cut off
TokenSequence = Sequence[str] | Sequence[int] | np.ndarray  # token strings, or token ids


def is_ids(seq: TokenSequence) -> bool:
    return isinstance(seq, np.ndarray) or (len(seq) > 0 and not isinstance(seq[0], str))


def token_strings(seq: TokenSequence, names: Sequence[str]) -> Sequence[str]:
    """Token strings for a reference evaluator (ids outside the vocabulary `names` become tokens no grammar knows)."""
    if not is_ids(seq):
        return seq  # type: ignore[return-value]
    return [names[i] if 0 <= i < len(names) else f"<id {i}>" for i in np.asarray(seq).tolist()]


def fast_verdicts(
    seqs: Sequence[TokenSequence],
    status: Callable[[Sequence[TokenSequence]], np.ndarray],
    reference: Callable[[TokenSequence], Verdict],
    rules: Mapping[str, tuple[str, ...]],
    chunk: int,
) -> list[Verdict]:
    """The verdicts of a fast evaluator: `status(part)` answers VALID, CUT or SLOW for each sequence of a chunk, and
    the SLOW ones get `reference(seq)`, so every verdict is the reference's."""
    verdicts: list[Verdict] = []
    for a in range(0, len(seqs), chunk):
        part = seqs[a : a + chunk]
        for seq, code in zip(part, status(part).tolist()):
            if code == VALID:
                verdicts.append(valid_verdict(rules))
            elif code == CUT:
                verdicts.append(cut_verdict(rules, len(seq)))
            else:
                verdicts.append(reference(seq))
    return verdicts


OPENING_TIERS = ("physical", "rules")
"""The tiers whose rules all read the state the opening keyframe gives: unchecked in a sequence that breaks the
grammar (or stops) before its opening keyframe is read."""
