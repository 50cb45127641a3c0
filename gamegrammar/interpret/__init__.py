"""Interpretability: what a trained model knows, read from its hidden states and predictions.

Game-agnostic: every game fact comes through the game's `GameSpec` (its trace, probe
targets, episode statistics and tier-2 module). `gamegrammar.model.hidden` reads the model.

  probes       world-state probes: is the state linearly readable from the hidden states?
  archetypes   tier 3: do the model's episode embeddings separate the agents that played?
  analysis     tiers 2-3 and probes run, rendered and written as one analysis
"""
