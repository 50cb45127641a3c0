"""gamegrammar: a small transformer learns the rules of a game from event sequences."""

__version__ = "0.1.0"
