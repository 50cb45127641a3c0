"""Snake's HTML replay: the shared player page (`gamegrammar.replay.page`) with Snake's board in it.

The page, its controls and its token line are the game-agnostic player's; this module gives it the
frames as JSON (body, food, score, direction, the rules' head where the sequence departs) and the
JS that draws one snake on a y-down board.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamegrammar.core.io import atomic_write_text
from gamegrammar.games.snake.replay.frames import Replay
from gamegrammar.games.snake.replay.style import COLORS
from gamegrammar.replay.page import PlayerView, clamp_tick, page_data, render_page, violation_data


def replay_data(rp: Replay, *, start_tick: int | None = None, title: str = "") -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able values."""
    frames = [
        {
            "t": f.tick,
            "body": [list(c) for c in f.state.body],
            "food": list(f.state.food) if f.state.food is not None else None,
            "score": f.state.score,
            "dir": f.state.direction.name,
            "s": f.start,
            "e": f.end,
            "end": f.end_event,
            "dead": f.dead,
            "rules": f.rules_say,
            "rh": list(f.rules_head) if f.rules_head is not None else None,
        }
        for f in rp.frames
    ]
    return page_data(rp, frames, violation_data(rp.first_violation), colors=COLORS, start_tick=start_tick, title=title)


def render_html(rp: Replay, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> str:
    """The player page as one string (no external resources)."""
    return render_page(VIEW, replay_data(rp, start_tick=clamp_tick(start_tick, len(rp.frames)), title=title), title)


def write_html(rp: Replay, path: str | Path, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> None:
    atomic_write_text(path, render_html(rp, start_tick=start_tick, title=title))


# The swatches under the slider.
_LEGEND = """\
      <span class="sw" style="background:#b6e35a;margin-left:0"></span>head
      <span class="sw" style="background:#3fa34d"></span>body
      <span class="sw" style="background:#e5484d"></span>food
      <span class="sw" style="border:1px solid #d8dee9"></span>rules' head
      <span class="sw" style="border:2px solid #ff3b3b"></span>first violation
"""


# Cells are drawn y down: row 0 of the canvas is y = 0.
_HELPERS = """\
  // ---- drawing
  const on = (c) => c && c[0] >= 0 && c[1] >= 0 && c[0] < D.width && c[1] < D.height;
  function rect(c, inset, color, fill) {
    const x = c[0] * cell + inset, y = c[1] * cell + inset, w = cell - 2 * inset;
    if (fill) { ctx.fillStyle = color; ctx.fillRect(x, y, w, w); }
    else { ctx.strokeStyle = color; ctx.strokeRect(x, y, w, w); }
  }
"""


# Food, body, the rules' head (dashed), the head with eyes that look where the snake goes.
_PIECES = """\
    if (on(f.food)) {
      ctx.fillStyle = C.food; ctx.beginPath();
      ctx.arc((f.food[0] + 0.5) * cell, (f.food[1] + 0.5) * cell, cell * 0.3, 0, 2 * Math.PI); ctx.fill();
    }
    for (let j = f.body.length - 1; j >= 1; j--) if (on(f.body[j])) rect(f.body[j], 2, C.body, true);
    if (on(f.rh)) { ctx.lineWidth = 2; ctx.setLineDash([4, 3]); rect(f.rh, 3, C.rules_head, false); ctx.setLineDash([]); }
    const head = f.body[0];
    if (on(head)) {
      rect(head, 1, f.dead ? C.dead : C.head, true);
      const d = { U: [0, -1], D: [0, 1], L: [-1, 0], R: [1, 0] }[f.dir];  // eyes look where the snake goes
      ctx.fillStyle = C.background;
      for (const side of [-1, 1]) {
        const ex = (head[0] + 0.5 + d[0] * 0.2 + (d[1] ? side * 0.2 : 0)) * cell;
        const ey = (head[1] + 0.5 + d[1] * 0.2 + (d[0] ? side * 0.2 : 0)) * cell;
        ctx.beginPath(); ctx.arc(ex, ey, Math.max(1.5, cell * 0.07), 0, 2 * Math.PI); ctx.fill();
      }
    }
"""


# The caption line, and the head's note when it left the board.
_CAPTION = """\
    const head = f.body[0];
    $("caption").textContent = "tick " + f.t + " / " + (F.length - 1) + "   score " + f.score + "   len " + f.body.length +
      "   dir " + f.dir + (f.end ? "   " + f.end : "");
    const notes = [];
    let bad = false;
    if (!on(head)) notes.push("head off the board at (" + head[0] + ", " + head[1] + ")");
"""


VIEW = PlayerView(legend=_LEGEND, helpers=_HELPERS, pieces=_PIECES, caption=_CAPTION)
