"""What Go's fidelity measures read of a token sequence: its summary, and the tokens the rules determine."""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import EpisodeSummary
from gamegrammar.games.go.grammar import GrammarError, Keyframe, Tick, parse
from gamegrammar.games.go.rules import RESIGN, episode_score

CATEGORIES = ("capture", "taken", "area", "result", "end", "flow", "keyframe")
WIN, LOSS, DRAW, RESIGNED, UNFINISHED = "win", "loss", "draw", "resigned", "unfinished"
OUTCOMES = (WIN, LOSS, DRAW, RESIGNED, UNFINISHED)  # each player's fate (Black's, then White's)
_FATES = {"B_WINS": (WIN, LOSS), "W_WINS": (LOSS, WIN), "DRAW": (DRAW, DRAW)}


def summarize_episode(tokens: Sequence[str]) -> EpisodeSummary:
    """Ticks, score, end reason and both players' fates, read as far as the grammar allows.

    The score is `rules.episode_score` of the written AREA (Black's area less White's; 0 without one: a resignation
    or no end); the fates come from the result word (a resignation: the player who resigned `resigned`, the other
    `win`), `unfinished` where the sequence writes no end.
    """
    ticks, end, score = 0, "none", 0
    outcomes = (UNFINISHED, UNFINISHED)
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                continue
            ticks = item.number
            if item.end_event is None:
                continue
            end = item.end_event
            if item.area is not None:
                score = episode_score(*item.area)
            outcomes = _FATES[item.result or "DRAW"]
            if item.move == RESIGN:
                outcomes = (RESIGNED, WIN) if item.player == 0 else (WIN, RESIGNED)
    except GrammarError:
        pass
    return EpisodeSummary(ticks, score, end, outcomes)


def rule_determined_positions(tokens: Sequence[str]) -> list[tuple[int, str, str]]:
    """(position, category, kind) of every token the rules fix given the history and the moves.

    Not determined: the moves (the agents' inputs) and the first keyframe (the start, fixed but not scored).
    Determined: the token after a play ("capture": TAKE where it captures, else the next element, kind TAKE or
    PLAY; where the end begins there it is the end's), each captured stone ("taken"), the end's AREA and counts
    ("area"), its result word ("result") and end word ("end"), the token after a pass (the end, or the next
    element, kind PASS), the EOS after the end ("flow"), and every later keyframe but its SNAP ("keyframe").
    """
    out: dict[int, tuple[str, str]] = {}
    n = len(tokens)
    for item in parse(tokens):
        if not isinstance(item, Tick):
            continue
        p = item.positions
        after, end_at = p["after"], p["end"]
        if item.move >= 0 and after < n:
            kind = "TAKE" if item.taken else "END" if item.end_event is not None and after == end_at else "PLAY"
            out[after] = ("end" if kind == "END" else "capture", kind)
            for at in (at for _, at in item.taken):
                out[at] = ("taken", "")
        elif item.move < 0 and after < n:
            out[after] = ("end" if item.end_event is not None else "flow", "RESIGN" if item.move == RESIGN else "PASS")
        if item.area is not None:
            out.setdefault(end_at, ("area", ""))
            out[p["area"]] = out[p["area"] + 1] = ("area", "")
        if item.result is not None:
            out.setdefault(p["result"], ("result", ""))
        if item.end_event is not None:
            out.setdefault(item.end - 1, ("end", ""))
            if item.end < n:
                out[item.end] = ("flow", "")
        if item.keyframe is not None:
            out.update({i: ("keyframe", "") for i in range(item.keyframe.start + 1, item.keyframe.end)})
    return sorted((pos, category, kind) for pos, (category, kind) in out.items())
