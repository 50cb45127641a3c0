"""Battlesnake's replays: frames through the rules, shown as ASCII, an animated GIF or an HTML player, one colour per snake.

    from gamegrammar.games.battlesnake.replay import replay, write_gif, write_html, render_frame
    rp = replay(tokens, BattlesnakeConfig())     # frames + the strict evaluator's verdict
    write_html(rp, "replay.html", start_tick=20)

Any sequence renders, valid or not: see `frames.py` for how a sequence that breaks the rules is
shown. This package is the game's renderer (`GAME.renderer()`), the backend of `gamegrammar replay`.
"""

from gamegrammar.games.battlesnake.replay.ascii import play, render_frame
from gamegrammar.games.battlesnake.replay.frames import Frame, Replay, Violation, replay, step
from gamegrammar.games.battlesnake.replay.gif import draw_frame, gif_bytes, write_gif
from gamegrammar.games.battlesnake.replay.html import render_html, replay_data, write_html

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
