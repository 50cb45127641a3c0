"""The HTML replay player: one self-contained page (inline CSS and JS, no network), the same for every game.

The frames are computed in Python, through the game's rules, and embedded as JSON; the page only
draws them, so the browser never needs a copy of the rules. The page owns everything that is not
the board: the token line (each tick's tokens highlighted, the violations underlined), the summary,
the controls, the caption's notes and the first violation's mark. A game fills the slots of a
`PlayerView` with its legend and the JS that draws its pieces. The player starts paused at
`start_tick` (or at the tick named by a `#tick=N` URL hash), else plays from tick 0.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from gamegrammar.replay.frames import BaseReplay, Violation


@dataclass(frozen=True)
class PlayerView:
    """What a game puts in the player page: HTML and JS text, each slot one or more whole lines.

    The page's JS gives a game's code `D` (the data), `C` (its colours), `F` (the frames), `$`
    (getElementById), `canvas`, `ctx`, `cell` (pixels), and calls `drawBoard(f, k)` and `show(k)`.
    """

    legend: str  # the swatches under the slider
    helpers: str  # JS before drawBoard: at least `on(c)` (on the board) and `rect(c, inset, colour, fill)`
    pieces: str  # JS in drawBoard(f, k), after the grid and before the first violation's mark
    caption: str  # JS in show(k): sets #caption and declares `notes` (with `let bad`) holding the frame's own notes
    mark_row: str = "c[1]"  # a JS expression: the canvas row of cell `c` (the "!" of the first violation)
    css: str = ""  # style rules after the page's own
    panel: str = ""  # HTML under the slider (e.g. a status list)
    widgets: str = ""  # JS after drawBoard: functions the refresh calls
    refresh: str = ""  # JS in show(k), after drawBoard: redraw the widgets for frame `f`

    def slots(self) -> dict[str, str]:
        """Each slot's text by its name in the template (the field's name in capitals)."""
        return {f.name.upper(): getattr(self, f.name) for f in fields(self)}


def violation_data(first: Violation | None, **extra: Any) -> dict[str, Any] | None:
    """The first violation as the page reads it; `extra` (e.g. the snake it names) goes before the message."""
    if first is None:
        return None
    cell = list(first.cell) if first.cell is not None else None
    return {"rule": first.rule, "index": first.index, "frame": first.frame, "cell": cell, **extra, "message": first.message}


def page_data(
    rp: BaseReplay[Any, Any, Any],
    frames: list[dict[str, Any]],
    first: dict[str, Any] | None,
    *,
    colors: Mapping[str, str],
    start_tick: int | None,
    title: str,
    **extra: Any,
) -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able values: the game's `frames` and `first` (see
    `violation_data`) with what every replay has (`rp`: tokens, config, verdict, grammar error,
    summary), then the game's `extra` keys."""
    verdict = rp.verdict
    err = rp.grammar_error
    return {
        "title": title,
        "width": rp.config.width,
        "height": rp.config.height,
        "maxTicks": rp.config.max_ticks,
        "tokens": rp.tokens,
        "frames": frames,
        "valid": verdict.valid,
        "first": first,
        "violations": [[rule, verdict.positions[rule]] for rule in verdict.violations],
        "grammarError": None if err is None else {"index": err.index, "message": str(err)},
        "summary": rp.summary(),
        "start": start_tick,
        "colors": dict(colors),
        **extra,
    }


def clamp_tick(start_tick: int | None, frame_count: int) -> int | None:
    """A start tick moved onto the frames there are (None stays None: the page then plays from 0)."""
    if start_tick is not None and frame_count:
        return max(0, min(start_tick, frame_count - 1))
    return start_tick


def json_for_script(obj: Any) -> str:
    """JSON that cannot end the <script> element it sits in, whatever the tokens hold."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_SLOT = re.compile(r"__([A-Z_]+)__(\n?)")


def render_page(view: PlayerView, data: Mapping[str, Any], title: str) -> str:
    """The player page as one string (no external resources).

    One pass over the template: what the slots, the title and the data hold is never read for slots.
    A slot on its own line is replaced by whole lines (nothing, for an empty slot).
    """
    fills = {**view.slots(), "TITLE": html.escape(title), "DATA": json_for_script(data)}

    def fill(m: re.Match[str]) -> str:
        text = fills[m.group(1)]
        if m.group(2) and text and not text.endswith("\n"):
            text += "\n"  # a line slot fills whole lines
        return text

    return _SLOT.sub(fill, _TEMPLATE)


_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>
  :root { color-scheme: dark; }
  body { margin: 0; padding: 16px 20px; background: #15181e; color: #e6e9ef;
         font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
  h1 { font-size: 17px; margin: 0 0 4px; font-weight: 600; }
  #summary { color: #8a93a3; margin-bottom: 10px; }
  #summary.bad { color: #ff8f8f; cursor: pointer; }
  #summary.good { color: #8fdc8f; }
  #main { display: flex; gap: 20px; align-items: flex-start; flex-wrap: wrap; }
  #board-wrap { position: relative; }
  canvas { display: block; border: 3px solid #2b313c; border-radius: 4px; }
  canvas.violation { border-color: #ff3b3b; }
  #board-msg { display: none; margin-top: -3px; padding: 4px 8px; background: #a3262a; color: #fff; font-weight: 600;
               border-radius: 0 0 4px 4px; }
  #board-msg.on { display: block; }
  #side { flex: 1 1 280px; max-width: 460px; }
  #caption { font: 600 15px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; margin-bottom: 6px; }
  #note { min-height: 40px; font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; color: #8a93a3;
          white-space: pre-wrap; }
  #note.bad { color: #ff8f8f; }
  .controls { display: flex; gap: 6px; align-items: center; margin: 10px 0; flex-wrap: wrap; }
  button, select { background: #262c36; color: #e6e9ef; border: 1px solid #3a4250; border-radius: 4px;
                   padding: 4px 9px; font: inherit; cursor: pointer; }
  button:hover { background: #313846; }
  button:disabled { opacity: 0.4; cursor: default; }
  input[type=range] { width: 100%; }
  #tokens { position: relative; margin-top: 14px; max-height: 160px; overflow-y: auto; padding: 8px; background: #1b1f26;
            border: 1px solid #2b313c; border-radius: 4px; font: 12.5px/1.9 ui-monospace, "DejaVu Sans Mono", monospace; }
  .tok { padding: 1px 3px; border-radius: 3px; cursor: pointer; color: #aab2c0; }
  .tok.tick { color: #6d7686; }
  .tok.tail { color: #5d6574; font-style: italic; }
  .tok.cur { background: #34507a; color: #ffffff; }
  .tok.warn { text-decoration: underline wavy #d9a13b; }
  .tok.bad { background: #a3262a; color: #ffffff; outline: 2px solid #ff3b3b; }
  .legend { color: #8a93a3; font-size: 12px; margin-top: 8px; }
__CSS__
  .sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; vertical-align: -1px; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div id="summary"></div>
<div id="main">
  <div id="board-wrap"><canvas id="board" width="10" height="10"></canvas><div id="board-msg"></div></div>
  <div id="side">
    <div id="caption"></div>
    <div id="note"></div>
    <div class="controls">
      <button id="first" title="first tick (Home)">|&#x25C0;</button>
      <button id="back" title="step back (Left)">&#x25C0;</button>
      <button id="play" title="play / pause (Space)">play</button>
      <button id="fwd" title="step forward (Right)">&#x25B6;</button>
      <button id="last" title="last tick (End)">&#x25B6;|</button>
      <label>speed <select id="speed">
        <option value="1">1 tick/s</option><option value="2">2 ticks/s</option>
        <option value="5" selected>5 ticks/s</option><option value="10">10 ticks/s</option>
        <option value="25">25 ticks/s</option><option value="60">60 ticks/s</option>
      </select></label>
      <button id="goto-bad" title="jump to the first violation">first violation</button>
    </div>
    <input id="slider" type="range" min="0" max="0" value="0" aria-label="tick">
__PANEL__
    <div class="legend">
__LEGEND__
    </div>
  </div>
</div>
<div id="tokens"></div>
<script type="application/json" id="replay-data">__DATA__</script>
<script>
(() => {
  "use strict";
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const C = D.colors, F = D.frames, T = D.tokens;
  const $ = (id) => document.getElementById(id);
  const canvas = $("board"), ctx = canvas.getContext("2d");
  const cell = Math.max(12, Math.min(44, Math.floor(400 / Math.max(D.width, D.height))));
  canvas.width = D.width * cell; canvas.height = D.height * cell;
  $("title").textContent = D.title;
  document.title = D.title;

  // ---- the token line: one span per token; tokens past the last parsed tick are the tail
  const lastEnd = F.length ? F[F.length - 1].e : 0;
  const spans = [];
  const frameOfToken = new Array(T.length).fill(Math.max(0, F.length - 1));
  F.forEach((f, k) => { for (let i = f.s; i < f.e; i++) frameOfToken[i] = k; });
  const box = $("tokens");
  T.forEach((tok, i) => {
    const s = document.createElement("span");
    s.className = "tok" + (tok === "TICK" ? " tick" : "") + (i >= lastEnd ? " tail" : "");
    s.textContent = tok;
    s.dataset.i = i;
    box.appendChild(s);
    box.appendChild(document.createTextNode(" "));
    spans.push(s);
  });
  if (D.first && D.first.index >= T.length) {  // cut off: mark where the missing token should be
    const s = document.createElement("span");
    s.className = "tok tail";
    s.textContent = "\u27C2 end";
    box.appendChild(s);
    spans.push(s);
  }
  for (const [rule, index] of D.violations) {
    const s = spans[Math.min(index, spans.length - 1)];
    if (!s) continue;
    s.classList.add("warn");
    s.title = (s.title ? s.title + "\n" : "") + rule + " (token " + index + ")";
  }
  if (D.first) {
    const s = spans[Math.min(D.first.index, spans.length - 1)];
    if (s) { s.classList.add("bad"); s.id = "first-violation"; s.title = D.first.message; }
  }
  box.addEventListener("click", (e) => {
    const i = e.target.dataset && e.target.dataset.i;
    if (i !== undefined) { pause(); show(frameOfToken[+i]); }
  });

  // ---- summary
  const summary = $("summary");
  summary.textContent = D.summary;
  summary.className = D.first ? "bad" : "good";
  if (D.first) summary.addEventListener("click", () => { pause(); show(D.first.frame); });
  $("goto-bad").disabled = !D.first;
  $("goto-bad").addEventListener("click", () => { if (D.first) { pause(); show(D.first.frame); } });

__HELPERS__
  function drawBoard(f, k) {
    ctx.fillStyle = C.board; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.strokeStyle = C.grid; ctx.lineWidth = 1;
    for (let x = 0; x <= D.width; x++) { ctx.beginPath(); ctx.moveTo(x * cell + 0.5, 0); ctx.lineTo(x * cell + 0.5, canvas.height); ctx.stroke(); }
    for (let y = 0; y <= D.height; y++) { ctx.beginPath(); ctx.moveTo(0, y * cell + 0.5); ctx.lineTo(canvas.width, y * cell + 0.5); ctx.stroke(); }
    if (!f) return;
__PIECES__
    const here = D.first && D.first.frame === k;
    canvas.classList.toggle("violation", !!here);
    const msg = $("board-msg");
    msg.classList.toggle("on", !!here);
    msg.style.width = canvas.width - 10 + "px";
    msg.textContent = here ? "\u26A0 tick " + f.t + ": " + D.first.rule + " (token " + D.first.index + ")" : "";
    if (here) {
      const c = on(D.first.cell) ? D.first.cell : null;
      if (c) { ctx.lineWidth = 3; rect(c, 1.5, C.mark, false); }
      ctx.fillStyle = C.mark; ctx.font = "bold " + Math.floor(cell * 0.5) + "px system-ui, sans-serif";
      if (c) { ctx.textBaseline = "top"; ctx.fillText("!", c[0] * cell + 4, __MARK_ROW__ * cell + 2); }
    }
  }
__WIDGETS__

  // ---- state and controls
  let cur = -1, timer = null;
  const slider = $("slider");
  slider.max = Math.max(0, F.length - 1);
  function show(k) {
    k = Math.max(0, Math.min(F.length - 1, k));
    if (cur >= 0 && F[cur]) for (let i = F[cur].s; i < F[cur].e; i++) spans[i].classList.remove("cur");
    cur = k;
    const f = F[k];
    drawBoard(f, k);
__REFRESH__
    slider.value = k;
    if (!f) {
      $("caption").textContent = "nothing to replay";
      $("note").textContent = D.grammarError ? D.grammarError.message : "empty sequence";
      $("note").className = "bad";
      return;
    }
    for (let i = f.s; i < f.e; i++) spans[i].classList.add("cur");
__CAPTION__
    if (D.first && D.first.frame === k) { notes.push("\u26A0 " + D.first.message); bad = true; }
    else if (f.rules) notes.push("the rules give " + f.rules);
    if (k === F.length - 1 && D.grammarError && !(D.first && D.first.rule === "grammar" && D.first.frame === k)) {
      notes.push("grammar error, frames end here: " + D.grammarError.message); bad = true;
    }
    $("note").textContent = notes.join("\n");
    $("note").className = bad ? "bad" : "";
    const s = spans[f.s];
    if (s) {  // keep the current tick's tokens in view without scrolling the page
      const top = s.offsetTop, line = s.offsetHeight + 6;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 2 * line) box.scrollTop = Math.max(0, top - line - 8);
    }
  }
  function pause() { if (timer) clearInterval(timer); timer = null; $("play").textContent = "play"; }
  function play() {
    if (cur >= F.length - 1) show(0);
    pause();
    $("play").textContent = "pause";
    timer = setInterval(() => { if (cur >= F.length - 1) pause(); else show(cur + 1); }, 1000 / +$("speed").value);
  }
  $("play").addEventListener("click", () => (timer ? pause() : play()));
  $("back").addEventListener("click", () => { pause(); show(cur - 1); });
  $("fwd").addEventListener("click", () => { pause(); show(cur + 1); });
  $("first").addEventListener("click", () => { pause(); show(0); });
  $("last").addEventListener("click", () => { pause(); show(F.length - 1); });
  $("speed").addEventListener("change", () => { if (timer) play(); });
  slider.addEventListener("input", () => { pause(); show(+slider.value); });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === " ") { e.preventDefault(); timer ? pause() : play(); }
    else if (e.key === "ArrowLeft") { pause(); show(cur - 1); }
    else if (e.key === "ArrowRight") { pause(); show(cur + 1); }
    else if (e.key === "Home") { pause(); show(0); }
    else if (e.key === "End") { pause(); show(F.length - 1); }
  });
  function hashTick() {
    const m = /tick=(\d+)/.exec(location.hash) || /^#(\d+)$/.exec(location.hash);
    return m ? +m[1] : null;
  }
  window.addEventListener("hashchange", () => { const t = hashTick(); if (t !== null) { pause(); show(t); } });

  const fromHash = hashTick();
  const start = fromHash !== null ? fromHash : D.start;
  if (start !== null && start !== undefined) show(start);
  else { show(0); if (F.length > 1) play(); }
})();
</script>
</body>
</html>
"""
