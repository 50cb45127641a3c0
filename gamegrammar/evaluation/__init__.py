"""Evaluation of generated sequences: the strict replay checker (validity), with statistics for reports."""

from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.evaluation.validity import RULE_NAMES, RULES, TIERS, Verdict, lenient_tiers, summarize, validate, validate_many

__all__ = ["RULES", "RULE_NAMES", "TIERS", "Verdict", "lenient_tiers", "summarize", "validate", "validate_many", "wilson_interval"]
