"""Tier 1, for any game: strict validity, fidelity to the corpus, and reports."""

from gamegrammar.core.verdict import Verdict
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.evaluation.validity import summarize, validate, validate_many

__all__ = ["Verdict", "summarize", "validate", "validate_many", "wilson_interval"]
