"""The base every layer builds on, games included: it imports nothing of gamegrammar outside itself.

  errors          GameGrammarError, the one exception for mistakes a user can fix
  events          events, their salience, and the `Game` protocol
  rng             counter-based randomness: every draw a function of (seed, episode, tick, purpose)
  io              atomic writes, outputs checked before the work
  agents          the `Agent` contract and a corpus's agent mix
  gamespec        `GameSpec`, the one plug-in point: what the rest needs from a game
  simulator       the frame of every game's scalar simulator
  episode_grammar the frame of every game's token grammar (`BOS keyframe tick* EOS`) and its `GrammarError`
  tick_reading    one written tick read from a known state (a dream's `GameSpec.read_tick`)
  verdict         a strict evaluator's result (`Findings`, `Verdict`)
  zobrist         Zobrist keys of game states
  tokenizer       the vocabulary as a Hugging Face `tokenizers` WordLevel model
  tokenlog        token ids written tick by tick for many episodes (every batch engine's output)

Importing it imports neither torch nor Lightning (the environments in `gamegrammar.envs` rely on that).
"""
