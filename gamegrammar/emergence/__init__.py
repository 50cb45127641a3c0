"""What every game's tier 2 (rule emergence) builds on: a game's `emergence` module imports it.

  rule_emergence  the section's assembly, the tally by rule and context, teacher-forced scores, formatting, plots
  markdown        the markdown tables of the tier-2 report: rules, context splits, counterfactual probes

It sits below the game packages (they import it) and so apart from `gamegrammar.interpret`, which reaches
a game through the registry and runs its tier 2.
"""
