"""Interpretability: what a trained model knows, read from its hidden states and predictions.

Game-agnostic: every game fact comes through the game's `GameSpec` (its trace, probe
targets and intervention cases, episode statistics and tier-2 module). `gamegrammar.model.hidden` reads the model.

  probes         world-state probes: is the board readable from the hidden states (linear, MLP, by layer)?
  interventions  does the model use what the probes read? edit the hidden state along them, check the rules
  archetypes     tier 3: who is playing? the agent told from the first N ticks by the model, an untrained one, statistics
  analysis       tiers 2-3 and probes run, rendered and written as one analysis
"""
