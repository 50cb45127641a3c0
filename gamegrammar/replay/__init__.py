"""What every game's replay renderer shares: the HTML player page, the GIF chrome, the terminal
text around the board, and the bookkeeping that places a verdict on frames.

Only the board itself is a game's own (`gamegrammar.games.<game>.replay`): how its state looks on a
cell grid. Everything here reads a replay through the few attributes all games' replays have
(tokens, config, frames, verdict, grammar error), so a new game gets the player and its chrome by
drawing its pieces.
"""
