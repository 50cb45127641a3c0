"""Corpora: generating, storing and reading them, and the states they reach.

  corpus   generation (sharded, resumable, any number of workers), the memory-mapped reader, mixes, played games
  novelty  the Zobrist keys of a corpus's states, and the share of a sequence's states it never reaches

A corpus is written through the game its spec names (`gamegrammar.games.load_game`), never a game package directly.
"""
