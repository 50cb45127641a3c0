"""What Go's fidelity measures read of a token sequence: its summary, and the tokens the rules determine."""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import EpisodeSummary
from gamegrammar.games.go.grammar import GrammarError, Keyframe, Tick, parse
from gamegrammar.games.go.rules import EMPTY, RESIGN, GoConfig, GoState, attempt, episode_score, legal_plays, vertex

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


def move_choices(tokens: Sequence[str], config: GoConfig) -> list[tuple[int, frozenset[str]]]:
    """(position, legal moves) of every move of a game from the empty board: the points the rules allow the player to
    move (not on a stone, not suicide, not a repeat of an earlier position), PASS and RESIGN (always allowed).

    Followed by the rules up to the first move they refuse (listed, as the last) or the first later keyframe that
    disagrees with them; a game that does not start on the empty board has none."""
    size = config.size
    state, out = GoState.empty(size), []
    items = iter(parse(tokens, size))
    first = next(items, None)
    if not isinstance(first, Keyframe) or any(c != EMPTY for c in first.board(size)) or first.to_play != 0 or first.passed:
        return []
    for item in items:
        if isinstance(item, Keyframe):
            continue
        legal = frozenset([*(vertex(p, size) for p in legal_plays(state)), "PASS", "RESIGN"])
        out.append((item.positions["move"], legal))
        after = attempt(state, item.move)[1]
        if after is None:
            break
        state = after
        if item.keyframe is not None and item.keyframe.board(size) != state.board:
            break
    return out


def exact_groups(tokens: Sequence[str]) -> list[tuple[str, list[int]]]:
    """The tokens the rules fix together: "capture", a capturing play's TAKE, its stones and the token after them (the
    list ends there: TICK, the end or a keyframe); "end", the end's words (AREA, both counts, the result and why)."""
    out: list[tuple[str, list[int]]] = []
    n = len(tokens)
    for item in parse(tokens):
        if not isinstance(item, Tick):
            continue
        p = item.positions
        if item.taken:
            last = item.taken[-1][1]
            out.append(("capture", [p["after"], *(at for _, at in item.taken), *([last + 1] if last + 1 < n else [])]))
        if item.end_event is not None and item.move != RESIGN:
            out.append(("end", [p["end"], p["area"], p["area"] + 1, p["result"], item.end - 1]))
    return out
