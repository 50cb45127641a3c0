"""The trained model acting: as a player in the real game, as the game itself, and learning from its own games.

  play          the model as player 0 in the real game's batch engine (`ModelAgent`), its games and report
  play_journal  a `play` run's finished batches, so that an interrupted run carries on
  dream         the model as the simulator: an agent chooses the inputs, the model writes every outcome
  ouroboros     the self-improvement loop: play, keep the best games, fine-tune on them with the real corpus
  gtp_player    the model choosing the moves of a protocol engine (Go's GTP genmove) among the legal ones

Each reaches a game only through its `GameSpec`.
"""
