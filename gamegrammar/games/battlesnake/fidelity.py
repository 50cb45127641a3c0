"""What Battlesnake's fidelity measures read of a token sequence: its summary, and the tokens the rules determine."""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import EpisodeSummary
from gamegrammar.games.battlesnake.grammar import GrammarError, Keyframe, Tick, parse
from gamegrammar.games.battlesnake.rules import CAUSES

CATEGORIES = ("move", "smell", "sense", "hit", "free", "eat", "grow", "health", "death", "end", "flow", "keyframe")
SURVIVED, UNFINISHED = "survived", "unfinished"
OUTCOMES = (*CAUSES, SURVIVED, UNFINISHED)  # each snake's fate: its elimination cause, or standing at the end (or not ended)


def summarize_episode(tokens: Sequence[str]) -> EpisodeSummary:
    """Ticks, score, end reason and every snake's fate in a token sequence, read as far as the grammar allows.

    The score is `rules.final_length`'s: the length of the longest snake left standing (the winner's,
    when there is one), or, when none is, of the longest eliminated on the last tick (lengths as
    written: keyframe LEN, EAT's LEN). `outcomes` holds, per snake of the first keyframe, its
    elimination cause, SURVIVED if it stands at the end, or UNFINISHED where the sequence stops first.
    """
    ticks, end = 0, "none"
    lengths: dict[int, int] = {}
    alive: list[int] = []
    last_dead: list[int] = []
    fates: dict[int, str] = {}
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                lengths = {s.snake: s.length for s in item.snakes}
                alive = item.alive
                fates = fates or {k: UNFINISHED for k in alive}
                continue
            ticks = item.number
            for m in item.moves:
                if m.eat and m.length is not None:
                    lengths[m.snake] = m.length
            last_dead = [d.snake for d in item.deaths]
            fates.update({d.snake: d.cause for d in item.deaths})
            alive = item.alive_after
            if item.keyframe is not None:
                lengths.update({s.snake: s.length for s in item.keyframe.snakes})
            if item.end_event is not None:
                end = item.end_event
    except GrammarError:
        pass
    standing = alive or last_dead
    if end != "none":
        fates.update({k: SURVIVED for k in alive})
    score = max((lengths.get(k, 0) for k in standing), default=0)
    return EpisodeSummary(ticks, score, end, tuple(fates[k] for k in sorted(fates)))


def rule_determined_positions(tokens: Sequence[str]) -> list[tuple[int, str, str]]:
    """(position, category, kind) of every token the rules fix given the history and the inputs.

    Not determined: the agents' inputs, the first keyframe (a random start), and whatever the food
    spawn's chance decides: SPAWN and its cell, and whether a spawn comes at all (so the token after
    a tick's last move or death, when it is not an end word, is not scored). Determined: each mover's
    Sk (the grammar's order), the SMELL and SENSE words (smell and sense designs), HIT and MEET (category `hit`: hits
    design), FREE and its cell (tails design), the head cell or OUT, EAT where a
    snake eats and its LEN and H (where none eats, the next element's own Sk is scored instead),
    every death (Sk and cause), the end word and the EOS after it, and every later keyframe but its
    SNAP. The end word is scored although a spawn could have come first: which end it is, is determined.
    `kind` is the snake's outcome this tick (DIE_<cause>, EAT or MOVE) at the first token after its
    input and its SMELL, SENSE and HIT words (its HIT, where one is written), "" elsewhere. A HIT or MEET left out is
    scored where it belongs: the head cell (or FREE) written there instead, the token after the head.
    """
    out: set[tuple[int, str, str]] = set()
    n = len(tokens)
    for item in parse(tokens):
        if isinstance(item, Keyframe):
            continue
        assert isinstance(item, Tick)
        died = {d.snake: tokens[d.at + 1] for d in item.deaths}
        for m in item.moves:
            p = m.positions
            out.add((p["snake"], "flow", ""))
            kind = died.get(m.snake) or ("EAT" if m.eat else "MOVE")
            if "smell" in p:
                out.add((p["smell"], "smell", ""))
            if "sense" in p:
                out.add((p["sense"], "sense", ""))
            if "hit" in p:
                out.add((p["hit"], "hit", kind))
                kind = ""
            if "meet" in p:
                out.add((p["meet"], "hit", ""))
            if "free" in p:
                out |= {(p["free"] - 1, "free", kind), (p["free"], "free", ""), (p["free"] + 1, "free", "")}
                out.add((p["head"], "move", ""))
            else:
                out.add((p["head"], "move", kind))
            if m.head is not None:
                out.add((p["head"] + 1, "move", ""))
            if m.eat:  # no EAT is scored where the next element's own token is (a mover's or a death's Sk)
                out |= {(p["after"], "eat", ""), (p["length"], "grow", ""), (p["health"], "health", "")}
        for d in item.deaths:
            out |= {(d.at, "death", ""), (d.at + 1, "death", "")}
        if item.end_event is not None:
            out.add((item.positions["end"], "end", ""))
            if item.end < n:
                out.add((item.end, "flow", ""))
        if item.keyframe is not None:
            out |= {(i, "keyframe", "") for i in range(item.keyframe.start + 1, item.keyframe.end)}
    return sorted(out)
