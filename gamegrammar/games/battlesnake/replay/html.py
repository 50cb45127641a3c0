"""Battlesnake's HTML replay: the shared player page (`gamegrammar.replay.page`) with Battlesnake's board in it.

The page, its controls and its token line are the game-agnostic player's; this module gives it the
frames as JSON (each snake's body, health and fate, the food, the rules' heads where the sequence
departs) and the JS that draws the board y up as in the API, each snake in its own colour
(`style.SNAKE_COLORS`), with a status list of each snake's length and health (or its cause of
elimination).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamegrammar.core.io import atomic_write_text
from gamegrammar.games.battlesnake.replay.frames import Replay
from gamegrammar.games.battlesnake.replay.style import COLORS, SNAKE_COLORS
from gamegrammar.replay.page import PlayerView, clamp_tick, page_data, render_page, violation_data


def replay_data(rp: Replay, *, start_tick: int | None = None, title: str = "") -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able values."""
    frames = [
        {
            "t": f.tick,
            "snakes": [
                {"b": [list(c) for c in s.body], "h": s.health, "a": s.alive, "c": s.cause, "d": k in f.died}
                for k, s in enumerate(f.state.snakes)
            ],
            "food": [list(c) for c in f.state.food],
            "s": f.start,
            "e": f.end,
            "end": f.end_event,
            "rules": f.rules_say,
            "rh": [[k, list(c)] for k, c in f.rules_heads],
        }
        for f in rp.frames
    ]
    first = rp.first_violation
    return page_data(
        rp,
        frames,
        violation_data(first, snake=first.snake) if first is not None else None,
        colors=COLORS,
        start_tick=start_tick,
        title=title,
        snakeColors=[list(pair) for pair in SNAKE_COLORS],
    )


def render_html(rp: Replay, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> str:
    """The player page as one string (no external resources)."""
    return render_page(VIEW, replay_data(rp, start_tick=clamp_tick(start_tick, len(rp.frames)), title=title), title)


def write_html(rp: Replay, path: str | Path, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> None:
    atomic_write_text(path, render_html(rp, start_tick=start_tick, title=title))


# The status list: one line per snake, an eliminated one struck through.
_CSS = """\
  #status { margin: 8px 0; font: 13px/1.7 ui-monospace, "DejaVu Sans Mono", monospace; }
  #status .gone { color: #8a93a3; text-decoration: line-through; }
"""


# Where the status list goes, under the slider.
_PANEL = """\
    <div id="status"></div>
"""


# The swatches under the slider (each snake's own colours are in the status list).
_LEGEND = """\
      <span class="sw" style="background:#e5484d;margin-left:0"></span>food
      <span class="sw" style="background:#e8613c"></span>head eliminated this tick
      <span class="sw" style="border:1px solid #d8dee9"></span>rules' head
      <span class="sw" style="border:2px solid #ff3b3b"></span>first violation
"""


# Cells are drawn y up, as in the API; `color(k, part)` is snake k's body or head colour.
_HELPERS = """\
  // ---- drawing (y up, as in the API: row 0 of the canvas is y = height - 1)
  const SC = D.snakeColors;
  const color = (k, part) => SC[k % SC.length][part === "head" ? 1 : 0];
  const on = (c) => c && c[0] >= 0 && c[1] >= 0 && c[0] < D.width && c[1] < D.height;
  function rect(c, inset, col, fill) {
    const x = c[0] * cell + inset, y = (D.height - 1 - c[1]) * cell + inset, w = cell - 2 * inset;
    if (fill) { ctx.fillStyle = col; ctx.fillRect(x, y, w, w); }
    else { ctx.strokeStyle = col; ctx.strokeRect(x, y, w, w); }
  }
"""


# Food, the bodies, the rules' heads (dashed), the heads (a snake's colour at the centre).
_PIECES = """\
    ctx.fillStyle = C.food;
    for (const c of f.food) {
      if (!on(c)) continue;
      ctx.beginPath(); ctx.arc((c[0] + 0.5) * cell, (D.height - 0.5 - c[1]) * cell, cell * 0.3, 0, 2 * Math.PI); ctx.fill();
    }
    f.snakes.forEach((s, j) => {
      if (!s.a && !s.d) return;
      for (let i = s.b.length - 1; i >= 1; i--) if (on(s.b[i])) rect(s.b[i], 2, color(j, "body"), true);
    });
    ctx.lineWidth = 2; ctx.setLineDash([4, 3]);
    for (const [, c] of f.rh) if (on(c)) rect(c, 3, C.rules_head, false);
    ctx.setLineDash([]);
    f.snakes.forEach((s, j) => {
      if ((!s.a && !s.d) || !s.b.length || !on(s.b[0])) return;
      rect(s.b[0], 1, s.d ? C.dead : color(j, "head"), true);
      rect(s.b[0], Math.max(3, Math.floor(cell / 3)), color(j, "body"), true);
    });
"""


# The status list: each snake's length and health, or why it left the game.
_WIDGETS = """\
  function drawStatus(f) {
    const box = $("status");
    box.textContent = "";
    if (!f) return;
    f.snakes.forEach((s, j) => {
      const row = document.createElement("div");
      const sw = document.createElement("span");
      sw.className = "sw"; sw.style.marginLeft = "0";
      sw.style.background = s.a ? color(j, "body") : "transparent"; sw.style.border = "2px solid " + color(j, "body");
      const text = document.createElement("span");
      text.textContent = "S" + j + (s.a ? "  len " + s.b.length + "  health " + s.h : "  " + (s.c || "eliminated")) + (s.d ? "  (this tick)" : "");
      if (!s.a) text.className = "gone";
      row.appendChild(sw); row.appendChild(text); box.appendChild(row);
    });
  }
"""


# Redraw the status list with the board.
_REFRESH = """\
    drawStatus(f);
"""


# The caption line (how many snakes are alive), and a note per head that left the board.
_CAPTION = """\
    const alive = f.snakes.filter((s) => s.a).length;
    $("caption").textContent = "tick " + f.t + " / " + (F.length - 1) + "   alive " + alive + (f.end ? "   " + f.end : "");
    const notes = [];
    let bad = false;
    f.snakes.forEach((s, j) => { if ((s.a || s.d) && s.b.length && !on(s.b[0])) notes.push("S" + j + "'s head off the board at (" + s.b[0][0] + ", " + s.b[0][1] + ")"); });
"""


VIEW = PlayerView(
    legend=_LEGEND,
    helpers=_HELPERS,
    pieces=_PIECES,
    caption=_CAPTION,
    mark_row="(D.height - 1 - c[1])",
    css=_CSS,
    panel=_PANEL,
    widgets=_WIDGETS,
    refresh=_REFRESH,
)
