"""Go's replays: a board a move, through the rules, shown as ASCII, an animated GIF or an HTML player, the last move
and the stones each capture takes marked.

    from gamegrammar.games.go.replay import replay, write_gif, write_html, render_frame
    rp = replay(tokens, GoConfig())     # frames + the strict evaluator's verdict
    write_html(rp, "game.html")

Any sequence renders, valid or not (`frames.py`). This package is the game's renderer (`GAME.renderer()`), the
backend of `gamegrammar replay`.
"""

from gamegrammar.games.go.replay.ascii import play, render_frame
from gamegrammar.games.go.replay.frames import Frame, Replay, Violation, replay, step
from gamegrammar.games.go.replay.gif import draw_frame, gif_bytes, write_gif
from gamegrammar.games.go.replay.html import render_html, replay_data, write_html

__all__ = [
    "Frame",
    "Replay",
    "Violation",
    "draw_frame",
    "gif_bytes",
    "play",
    "render_frame",
    "render_html",
    "replay",
    "replay_data",
    "step",
    "write_gif",
    "write_html",
]
