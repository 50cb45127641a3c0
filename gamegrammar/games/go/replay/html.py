"""Go's HTML replay: the shared player page (`gamegrammar.replay.page`) with a Go board in it: stones as discs, the
last move with a dot, the points a capture emptied with a cross, row 1 at the bottom. The tick line is the terminal
replay's (`ascii.caption`), computed here and embedded with each frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamegrammar.core.io import atomic_write_text
from gamegrammar.games.go.replay.ascii import caption
from gamegrammar.games.go.replay.frames import Replay
from gamegrammar.games.go.replay.gif import COLORS as STONE_COLORS
from gamegrammar.replay.page import PlayerView, clamp_tick, page_data, render_page, violation_data
from gamegrammar.replay.palette import CHROME

COLORS: dict[str, str] = {**CHROME, **STONE_COLORS}


def replay_data(rp: Replay, *, start_tick: int | None = None, title: str = "") -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able values."""
    size = rp.config.size
    frames = [
        {
            "t": f.tick,
            "b": "".join(".XO"[c] for c in f.state.board),
            "m": f.move if f.move is not None and f.move >= 0 else -1,
            "x": [[p % size, p // size] for p in f.taken],
            "s": f.start,
            "e": f.end,
            "end": f.end_event,
            "rules": f.rules_say,
            "cap": caption(rp, f),
        }
        for f in rp.frames
    ]
    return page_data(rp, frames, violation_data(rp.first_violation), colors=COLORS, start_tick=start_tick, title=title)


def render_html(rp: Replay, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> str:
    """The player page as one string (no external resources)."""
    return render_page(VIEW, replay_data(rp, start_tick=clamp_tick(start_tick, len(rp.frames)), title=title), title)


def write_html(rp: Replay, path: str | Path, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> None:
    atomic_write_text(path, render_html(rp, start_tick=start_tick, title=title))


_LEGEND = """\
      <span class="sw" style="background:#0d0f12;border:1px solid #8a93a3;margin-left:0"></span>black
      <span class="sw" style="background:#eef0f3"></span>white
      <span class="sw" style="background:#e5484d"></span>last move
      <span class="sw" style="border:2px solid #e8613c"></span>taken this move
      <span class="sw" style="border:2px solid #ff3b3b"></span>first violation
"""

_HELPERS = """\
  // ---- drawing (row 1 at the bottom, as GTP counts: canvas row 0 is the top row)
  const on = (c) => c && c[0] >= 0 && c[1] >= 0 && c[0] < D.width && c[1] < D.height;
  function rect(c, inset, col, fill) {
    const x = c[0] * cell + inset, y = (D.height - 1 - c[1]) * cell + inset, w = cell - 2 * inset;
    if (fill) { ctx.fillStyle = col; ctx.fillRect(x, y, w, w); }
    else { ctx.strokeStyle = col; ctx.strokeRect(x, y, w, w); }
  }
  function disc(x, y, r, col, edge) {
    ctx.beginPath(); ctx.arc((x + 0.5) * cell, (D.height - 0.5 - y) * cell, r, 0, 2 * Math.PI);
    ctx.fillStyle = col; ctx.fill();
    if (edge) { ctx.strokeStyle = edge; ctx.lineWidth = 1; ctx.stroke(); }
  }
"""

_PIECES = """\
    for (let p = 0; p < f.b.length; p++) {
      const ch = f.b[p];
      if (ch === ".") continue;
      disc(p % D.width, Math.floor(p / D.width), cell * 0.42, ch === "X" ? C.black : C.white, C.edge);
    }
    ctx.strokeStyle = C.taken; ctx.lineWidth = 2;
    for (const c of f.x) {
      if (f.b[c[1] * D.width + c[0]] !== ".") continue;
      const x = c[0] * cell, y = (D.height - 1 - c[1]) * cell, i = cell * 0.28;
      ctx.beginPath(); ctx.moveTo(x + i, y + i); ctx.lineTo(x + cell - i, y + cell - i);
      ctx.moveTo(x + cell - i, y + i); ctx.lineTo(x + i, y + cell - i); ctx.stroke();
    }
    if (f.m >= 0) disc(f.m % D.width, Math.floor(f.m / D.width), cell * 0.14, C.last, null);
"""

_CAPTION = """\
    $("caption").textContent = f.cap;
    const notes = [];
    let bad = false;
"""

VIEW = PlayerView(legend=_LEGEND, helpers=_HELPERS, pieces=_PIECES, caption=_CAPTION, mark_row="(D.height - 1 - c[1])")
