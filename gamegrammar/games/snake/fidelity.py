"""What Snake's fidelity measures read of a token sequence: its summary, and the tokens the rules determine."""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import EpisodeSummary
from gamegrammar.games.snake.grammar import GrammarError, Keyframe, Tick, parse

CATEGORIES = ("outcome", "move", "free", "sense", "grow", "score", "spawn_presence", "column", "listed", "flow", "keyframe")


def summarize_episode(tokens: Sequence[str]) -> EpisodeSummary:
    """Ticks, last score and end reason of a token sequence, read as far as the grammar allows."""
    ticks, score, end = 0, 0, "none"
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                score = item.score
                continue
            ticks = item.number
            if item.score is not None:
                score = item.score
            if item.end_event is not None:
                end = item.end_event
    except GrammarError:
        pass
    return EpisodeSummary(ticks, score, end)


def rule_determined_positions(tokens: Sequence[str]) -> list[tuple[int, str, str]]:
    """(position, category, kind) of every token the rules fix given the history and the input.

    Not determined: the agent's INPUT_d, the random food cells after FOOD_SPAWN, and
    the first keyframe (a random start). Everything else is, including which token
    follows a tick (TICK, SNAP, TIMEOUT, EOS). `kind` is the tick's outcome word
    (MOVE, EAT, DIE_WALL, DIE_SELF) at that word, "" elsewhere: in grammar v1 the token
    right after INPUT_d. In the tail-events design `FREE Xx Yy` comes between them on
    the ticks where the tail leaves a cell, category "free" (the word says the head
    neither eats nor hits a wall, the cell is the tail's), and the outcome word after
    it (MOVE or DIE_SELF, decided with the freed cell known) keeps the kind. In the
    head-first design the head's cell comes right after INPUT_d (category "move", on a
    DIE_SELF too), and the outcome word after it keeps the kind. In the sense design the SENSE word after
    INPUT_d is category "sense", and in the spawn-column design a spawn's column words (the grown body, row by row)
    are category "column", in the body-list design the cells listed before a spawn (the grown body behind the head)
    category "listed", and the FOOD_SPAWN word after them (which the list, not the LEN, precedes) "spawn_presence".
    """
    out: set[tuple[int, str, str]] = set()
    for item in parse(tokens):
        if isinstance(item, Keyframe):
            continue
        assert isinstance(item, Tick)
        p = item.positions
        out.add((p["outcome"], "outcome", item.outcome))
        if "sense" in p:
            out.add((p["sense"], "sense", ""))
        if "free" in p:
            out |= {(p["free"] - 1, "free", ""), (p["free"], "free", ""), (p["free"] + 1, "free", "")}
        if "cell" in p:  # head-first: the cell before the outcome word
            out |= {(p["cell"], "move", ""), (p["cell"] + 1, "move", "")}
        elif "move" in p:
            if item.outcome == "EAT":
                out.add((p["move"] - 1, "outcome", ""))
            out |= {(p["move"], "move", ""), (p["move"] + 1, "move", "")}
        if "grow" in p:
            presence = p["spawn"] - 1 if "listed" in p else p["grow"] + 2  # FOOD_SPAWN or SCORE, after the LEN or the list
            out |= {(p["grow"], "grow", ""), (p["grow"] + 1, "grow", ""), (presence, "spawn_presence", "")}
            out |= {(p["score"] - 1, "score", ""), (p["score"], "score", "")} if "spawn" in p else {(p["score"], "score", "")}
        if "column" in p:
            out |= {(i, "column", "") for i in range(p["column"], p["spawn_y"])}
        if "listed" in p:
            out |= {(i, "listed", "") for i in range(p["listed"], p["spawn"] - 1)}
        if item.keyframe is not None:
            out |= {(i, "keyframe", "") for i in range(item.keyframe.start + 1, item.keyframe.end)}
        if item.end < len(tokens):
            out.add((item.end if item.keyframe is None else item.keyframe.start, "flow", ""))
        if "end" in p:
            out.add((p["end"], "flow", ""))
    return sorted(out)
