"""The HTML replay: one self-contained file (inline CSS and JS, no network) with a canvas board and controls.

The frames are computed in Python (through the rules, see `frames.py`) and
embedded as JSON; the page only draws them, so the browser never needs a copy
of the rules. The player starts paused at `start_tick` (or at the tick named by
a `#tick=N` URL hash), else plays from tick 0.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from gamegrammar.games.snake.replay.frames import Replay
from gamegrammar.games.snake.replay.style import COLORS
from gamegrammar.io import atomic_write_text


def replay_data(rp: Replay, *, start_tick: int | None = None, title: str = "") -> dict[str, Any]:
    """Everything the page shows, as plain JSON-able values."""
    first = rp.first_violation
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
    err = rp.grammar_error
    return {
        "title": title,
        "width": rp.config.width,
        "height": rp.config.height,
        "maxTicks": rp.config.max_ticks,
        "tokens": rp.tokens,
        "frames": frames,
        "valid": rp.verdict.valid,
        "first": None
        if first is None
        else {
            "rule": first.rule,
            "index": first.index,
            "frame": first.frame,
            "cell": list(first.cell) if first.cell is not None else None,
            "message": first.message,
        },
        "violations": [[rule, rp.verdict.positions[rule]] for rule in rp.verdict.violations],
        "grammarError": None if err is None else {"index": err.index, "message": str(err)},
        "summary": rp.summary(),
        "start": start_tick,
        "colors": COLORS,
    }


def _json_for_script(obj: Any) -> str:
    """JSON that cannot end the <script> element it sits in, whatever the tokens hold."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(rp: Replay, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> str:
    """The player page as one string (no external resources)."""
    if start_tick is not None and rp.frames:
        start_tick = max(0, min(start_tick, len(rp.frames) - 1))
    data = _json_for_script(replay_data(rp, start_tick=start_tick, title=title))
    return _TEMPLATE.replace("__TITLE__", html.escape(title)).replace("__DATA__", data)


def write_html(rp: Replay, path: str | Path, *, start_tick: int | None = None, title: str = "gamegrammar replay") -> None:
    atomic_write_text(path, render_html(rp, start_tick=start_tick, title=title))


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
    <div class="legend">
      <span class="sw" style="background:#b6e35a;margin-left:0"></span>head
      <span class="sw" style="background:#3fa34d"></span>body
      <span class="sw" style="background:#e5484d"></span>food
      <span class="sw" style="border:1px solid #d8dee9"></span>rules' head
      <span class="sw" style="border:2px solid #ff3b3b"></span>first violation
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

  // ---- drawing
  const on = (c) => c && c[0] >= 0 && c[1] >= 0 && c[0] < D.width && c[1] < D.height;
  function rect(c, inset, color, fill) {
    const x = c[0] * cell + inset, y = c[1] * cell + inset, w = cell - 2 * inset;
    if (fill) { ctx.fillStyle = color; ctx.fillRect(x, y, w, w); }
    else { ctx.strokeStyle = color; ctx.strokeRect(x, y, w, w); }
  }
  function drawBoard(f, k) {
    ctx.fillStyle = C.board; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.strokeStyle = C.grid; ctx.lineWidth = 1;
    for (let x = 0; x <= D.width; x++) { ctx.beginPath(); ctx.moveTo(x * cell + 0.5, 0); ctx.lineTo(x * cell + 0.5, canvas.height); ctx.stroke(); }
    for (let y = 0; y <= D.height; y++) { ctx.beginPath(); ctx.moveTo(0, y * cell + 0.5); ctx.lineTo(canvas.width, y * cell + 0.5); ctx.stroke(); }
    if (!f) return;
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
      if (c) { ctx.textBaseline = "top"; ctx.fillText("!", c[0] * cell + 4, c[1] * cell + 2); }
    }
  }

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
    slider.value = k;
    if (!f) {
      $("caption").textContent = "nothing to replay";
      $("note").textContent = D.grammarError ? D.grammarError.message : "empty sequence";
      $("note").className = "bad";
      return;
    }
    for (let i = f.s; i < f.e; i++) spans[i].classList.add("cur");
    const head = f.body[0];
    $("caption").textContent = "tick " + f.t + " / " + (F.length - 1) + "   score " + f.score + "   len " + f.body.length +
      "   dir " + f.dir + (f.end ? "   " + f.end : "");
    const notes = [];
    let bad = false;
    if (!on(head)) notes.push("head off the board at (" + head[0] + ", " + head[1] + ")");
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
