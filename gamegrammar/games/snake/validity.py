"""The strict replay evaluator: does a token sequence obey Snake's grammar, physics and rules?

A sequence is parsed with grammar v1 (`grammar.parse`, which also reads the
tail-events option's FREE cells) and replayed through the
one rules implementation (`rules.resolve` and `rules.advance`) from its first
keyframe, which is tick 0 (the replay starts from it, score included); each
TICK is the next tick. Every written event is checked against what the rules
allow. Rule names are stable (reports and tests use them) and grouped by tier
in `RULES` (Snake's `GameSpec.rules`; verdicts are `gamegrammar.core.verdict`'s,
summarised by the game-agnostic `gamegrammar.evaluation`):

structural
  grammar                 parses under the design's grammar (a sequence that simply stops is not a grammar error);
                          a declared design's grammar has only its own words (a FREE, SENSE, column word or
                          listed cell of another design is a grammar error at that word)
  complete                BOS keyframe ... end event EOS, and nothing after the EOS
  keyframe_schedule       a keyframe after exactly the ticks where the codec writes one: after every K-th tick
                          (K the declared codec's keyframe interval; 0 = only the opening keyframe), never after
                          an end event (that is end_is_final's). Reported at an extra keyframe's first token, or
                          where a missing one should begin. Undeclared, K is read off the sequence: the number
                          of the first tick followed by a keyframe
physical
  in_bounds               every cell written (MOVE, FREE, a listed cell, FOOD_SPAWN, keyframe head, body and food)
                          is on the board
  move_follows_input      MOVE cell == head + next_direction(direction, input): a reversal is ignored (in
                          the head-first design the cell a DIE_SELF runs into is held to it too)
  tail_freed              in the tail-events design (a sequence with any FREE), FREE names the cell the
                          tail leaves (`rules.freed_cell`), and is written iff the tail leaves one: before
                          MOVE and DIE_SELF, never on an eat or a wall death. Reported at the FREE word
                          when there should be none, at the outcome word when one is missing, and at
                          the first wrong coordinate of a wrong cell
  body_sensed             in the sense design (a sequence with any SENSE word), every tick writes after its
                          input the SENSE word of the directions in which the head's neighbour is deadly
                          body (`rules.body_neighbours`, from the state before the tick). Reported at the
                          SENSE word when it is wrong, at the word after the input when it is missing
  column_sensed           in the spawn-column design (a sequence with any VAC or OCC word), every FOOD_SPAWN
                          writes between its X and Y one word per row of its column, top first, OCC where
                          the grown body is (`rules.column_occupancy`) and VAC elsewhere. Reported at the
                          first wrong word, at the spawn's Y when words are missing, at the first extra one
  body_listed             in the body-list design (a sequence in which an eat's LEN is followed by a cell),
                          every FOOD_SPAWN is preceded, after GROW LENn, by the grown body's cells behind
                          the head, neck first (`grammar.body_list_tokens`). Reported at the first wrong
                          coordinate, at the FOOD_SPAWN word when cells are missing, at the first extra cell
  wall_death              DIE_WALL iff the rules put the next head off the board
  self_death              DIE_SELF iff the rules say the snake runs into itself
rules
  start_position          the opening keyframe is a start the rules write: the head alone at (W//2, H//2)
                          (`rules.start_cell`), LEN1, SCORE V0 (its direction is drawn, and its food, on an empty
                          cell, is keyframe_matches_state's). Reported at the first field that differs
  eat_iff_food            EAT iff the next head is the food
  grow_after_eat          GROW LENn with n = length before the tick + 1
  score_after_eat         SCORE Vs with s = score before the tick + 1
  spawn_on_empty          FOOD_SPAWN on a cell off the body after the move; present iff the board is
                          not full, and WIN iff it is (a spawn on the body is reported at its X, in the
                          spawn-column design at its Y: the row chosen after the column was written)
  keyframe_matches_state  every later keyframe equals the replayed state; every keyframe is itself a
                          possible state (LEN = chain length, distinct cells, food off the body and
                          missing only when the board is full)
  end_is_final            nothing but EOS after an end event (no keyframe, no tick)
  timeout_at_limit        TIMEOUT exactly when an alive episode reaches max_ticks

A tier passes when none of its rules is broken; `full` is all three tiers. A
verdict lists every broken rule with the token index where it is first broken
(a missing token is reported at the index where it should have been, which is
len(tokens) for a sequence that is cut off).

After a divergence. When a tick's outcome departs from the rules (a wrong
death, a wrong cell, an EAT the rules do not allow, a spawn on the body), the
world the sequence describes is no longer the rules' world, so the state
becomes unknown: rules that need it are not checked until the next keyframe,
which is a complete state, re-establishes it. Rules that need no state
(in_bounds, end_is_final, timeout_at_limit, the structural ones) are always
checked, and so is the part of tail_freed that needs none: a FREE cell goes
with a written MOVE or DIE_SELF, and with nothing else. Wrong GROW or SCORE
values do not change the replayed state (the rules decide length and score),
and nor do FREE cells (the rules decide where the tail is), but a keyframe
that disagrees with the replay and is itself a possible state is followed
from then on, so one wrong belief is reported where it is written, not again
at every later tick. Nothing after an end event is checked except the
grammar: the first token after it is reported as end_is_final. Ticks that
cannot be parsed (the one where a sequence is cut off or malformed) are not
replayed. Every violation is found in token order, so a later rule is never
reported as the first violation.

Lenient tiers. The original pure-Python checker published "physical 95%,
rule 100%, structural 45% (episodes cut off by the context)". Its tiers, kept
side by side so results compare with those figures, are evaluated on whatever
the sequence holds up to its first EOS (a cut-off sequence can pass the lenient
physical and rule tiers):
  structural  the sequence starts with BOS and reaches an EOS
  physical    every MOVE lands on a cell adjacent to the previous head (the last MOVE or keyframe head)
              and on the board; the input is ignored
  rules       every EAT is followed, within its tick, by GROW and SCORE, and GROW and SCORE (outside
              keyframes) appear only after an EAT; values are not checked
  full        all three

The strict evaluator needs full-salience sequences (codec min_salience 0). It
reads a sequence as the tail-events design when it holds any FREE
(`grammar.uses_tail_events`): then every tick on which the tail leaves a cell
must say so, and a sequence that mixes the designs breaks tail_freed at the
first tick that does not follow the design. A sequence with no FREE at all is
judged as grammar v1 (a tail-events model that never writes FREE is caught by
fidelity's teacher-forced "free" tokens, not here).

The head-first design (`grammar.uses_head_first`, or the codec's `head_first`)
writes each tick's cell before its outcome word; `parse` holds a sequence to one
order, so a tick in the other order is a grammar error. Its cells are checked by
the same rules as grammar v1's MOVE cells, and so is the cell written before a
DIE_SELF (on the board, one step from the head in the direction taken).

The sense design (`grammar.uses_sense`, or the codec's `sense`) is held to rule
body_sensed on every tick; a sequence with no SENSE word is judged as grammar v1.
The body-list design (`grammar.uses_body_list`, or the codec's `body_list`) is
held to rule body_listed at every spawn whose state is known.
The spawn-column design (`grammar.uses_spawn_column`, or the codec's `spawn_column`)
is held to rule column_sensed at every spawn whose state is known.

The per-tick work is `check_tick`: it reads only (state before, parsed tick)
and returns the state after, adding to its `Findings`, so that a vectorized
engine can later replace the loop tick by tick and be tested against it.

Where the time goes (default corpus, one core): parsing about 30%, the rules'
own resolve/advance about 60%, the checks themselves under 10%.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.episode_grammar import KeyframeSchedule, note_close, note_grammar_error
from gamegrammar.core.verdict import OPENING_TIERS, Findings, Verdict, make_verdict, rule_names, tiers_of
from gamegrammar.games.snake.grammar import (
    GrammarError,
    Keyframe,
    Tick,
    parse,
    read_cell,
    refused_options,
    uses_body_list,
    uses_sense,
    uses_spawn_column,
    uses_tail_events,
)
from gamegrammar.games.snake.rules import (
    Cell,
    Direction,
    Outcome,
    SnakeConfig,
    SnakeState,
    advance,
    body_neighbours,
    column_occupancy,
    empty_cells,
    end_reason,
    freed_cell,
    resolve,
    start_cell,
)

RULES: dict[str, tuple[str, ...]] = {
    "structural": ("grammar", "complete", "keyframe_schedule"),
    "physical": (
        "in_bounds",
        "move_follows_input",
        "tail_freed",
        "body_sensed",
        "column_sensed",
        "body_listed",
        "wall_death",
        "self_death",
    ),
    "rules": (
        "start_position",
        "eat_iff_food",
        "grow_after_eat",
        "score_after_eat",
        "spawn_on_empty",
        "keyframe_matches_state",
        "end_is_final",
        "timeout_at_limit",
    ),
}
TIERS: tuple[str, ...] = tiers_of(RULES)
RULE_NAMES: tuple[str, ...] = rule_names(RULES)
OPTION_RULES = {"tails": "tail_freed", "sense": "body_sensed", "spawn_column": "column_sensed", "body_list": "body_listed"}


def rules_for(design: dict[str, bool] | None) -> dict[str, tuple[str, ...]]:
    """`RULES` for a declared design (`grammar.design_of`): the rule of each option the design does not write left out.
    None (read off each sequence): every rule."""
    if design is None:
        return RULES
    dropped = {rule for option, rule in OPTION_RULES.items() if not design.get(option)}
    return {tier: tuple(r for r in names if r not in dropped) for tier, names in RULES.items()}


def opening_perturbations(tokens: Sequence[str], config: SnakeConfig) -> list[tuple[str, list[str]]]:
    """Variants of a valid episode whose opening keyframe alone says what no start can: the head beside the start cell
    (each neighbour on the board and off the food), a score of 1, a snake of length 2. Each still parses."""
    first = next(parse(tokens))
    assert isinstance(first, Keyframe)
    pos, (x, y) = first.positions, start_cell(config)
    out = []
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        cell = (x + dx, y + dy)
        if config.in_bounds(cell) and cell != first.food:
            variant = list(tokens)
            variant[pos["head"] : pos["head"] + 2] = [f"X{cell[0]}", f"Y{cell[1]}"]
            out.append((f"head at {cell}", variant))
    scored = list(tokens)
    scored[pos["score"]] = "V1"
    out.append(("score 1", scored))
    tail = next(((d, (x - d.delta[0], y - d.delta[1])) for d in Direction if config.in_bounds((x - d.delta[0], y - d.delta[1]))), None)
    if tail is not None and tail[1] != first.food:  # the head at the start with one more segment behind it
        longer = list(tokens)
        longer[pos["length"] : pos["body"] + 1] = ["LEN2", "BODY", f"B_{Direction(tail[0]).opposite.name}"]
        out.append(("length 2", longer))
    return out


_MOVE, _EAT, _DIE_WALL, _DIE_SELF = Outcome.MOVE, Outcome.EAT, Outcome.DIE_WALL, Outcome.DIE_SELF
_DEATHS = ("DIE_WALL", "DIE_SELF")
_LEAVES = ("MOVE", "DIE_SELF")  # the written outcomes on which the tail leaves its cell


# ---------------------------------------------------------------- keyframes


def _keyframe_in_bounds(kf: Keyframe, body: tuple[Cell, ...], config: SnakeConfig, found: Findings) -> bool:
    ok = True
    for k, cell in enumerate(body):
        if not config.in_bounds(cell):
            found.note("in_bounds", kf.positions["head"] if k == 0 else kf.positions["body"] + k)
            ok = False
            break
    if kf.food is not None and not config.in_bounds(kf.food):
        found.note("in_bounds", kf.positions["food"] + 1)
        ok = False
    return ok


def _keyframe_possible(kf: Keyframe, body: tuple[Cell, ...], config: SnakeConfig, found: Findings, opening: bool) -> bool:
    """Is the keyframe a state the game could be in? LEN = the chain, distinct cells, food on an empty cell, and, after
    a tick, what every tick keeps true: the score is LEN - 1 (each eat adds one to both), and a snake of two or more
    cells heads away from its neck (the direction is the one the head last moved in). The opening's length and score
    are `start_position`'s."""
    pos = kf.positions
    ok = True
    if kf.length != len(body):
        found.note("keyframe_matches_state", pos["length"])
        ok = False
    if not opening and len(body) >= 2 and kf.body_steps[0] != kf.direction.opposite:
        found.note("keyframe_matches_state", pos["direction"])
        ok = False
    if not opening and kf.score != kf.length - 1:
        found.note("keyframe_matches_state", pos["score"])
        ok = False
    seen: set[Cell] = set()
    for k, cell in enumerate(body):
        if cell in seen:
            found.note("keyframe_matches_state", pos["body"] + k)
            ok = False
            break
        seen.add(cell)
    if kf.food is None:
        if len(body) < config.cells or empty_cells(body, config):  # no food, yet the board is not full
            found.note("keyframe_matches_state", pos["food"] + 1)
            ok = False
    elif kf.food in seen:
        found.note("keyframe_matches_state", pos["food"] + 1)
        ok = False
    return ok


def _keyframe_state(kf: Keyframe, tick: int, config: SnakeConfig, found: Findings) -> SnakeState | None:
    """The state a keyframe shows, or None (after noting why) when it is off the board or impossible."""
    body = kf.body()
    in_bounds = _keyframe_in_bounds(kf, body, config, found)
    possible = _keyframe_possible(kf, body, config, found, opening=tick == 0)
    return SnakeState(body, kf.direction, kf.food, kf.score, tick) if in_bounds and possible else None


def _mismatch(kf: Keyframe, state: SnakeState) -> int | None:
    """Token index of the first keyframe field that differs from the replayed state; None if it matches."""
    pos = kf.positions
    if kf.head != state.head:
        return pos["head"]
    if kf.direction != state.direction:
        return pos["direction"]
    if kf.length != state.length:
        return pos["length"]
    body = kf.body()
    if body != state.body:
        k = next((k for k, (a, b) in enumerate(zip(body, state.body)) if a != b), min(len(body), state.length))
        return pos["body"] + k  # step k-1, which leads to cell k, sits at body + k
    if kf.food != state.food:
        return pos["food"] + 1
    if kf.score != state.score:
        return pos["score"]
    return None


def check_start(kf: Keyframe, config: SnakeConfig, found: Findings) -> None:
    """start_position: the opening keyframe shows the state every episode starts in, but for what is drawn."""
    pos = kf.positions
    x, y = start_cell(config)
    if kf.head[0] != x:
        found.note("start_position", pos["head"])
    elif kf.head[1] != y:
        found.note("start_position", pos["head"] + 1)
    elif kf.length != 1:
        found.note("start_position", pos["length"])
    elif kf.body_steps:
        found.note("start_position", pos["body"])
    elif kf.score != 0:
        found.note("start_position", pos["score"])


def check_keyframe(kf: Keyframe, state: SnakeState | None, tick: int, config: SnakeConfig, found: Findings) -> SnakeState | None:
    """Check a keyframe written after `tick` against the replayed state; return the state to go on from."""
    if state is not None:
        at = _mismatch(kf, state)
        if at is None:
            return state
        found.note("keyframe_matches_state", at)
    shown = _keyframe_state(kf, tick, config, found)
    return shown if shown is not None else state


# ---------------------------------------------------------------- ticks


def check_tick(
    state: SnakeState | None,
    tick: Tick,
    config: SnakeConfig,
    found: Findings,
    tails: bool = False,
    sense: bool = False,
    spawn_column: bool = False,
    body_list: bool = False,
) -> SnakeState | None:
    """Check one tick against the rules from the state before it (None = unknown); return the state after it.

    The state after is None when it cannot be known: the tick's outcome departed
    from the rules, until a keyframe re-establishes it. `tails`: the sequence is
    in the tail-events design (a tick that writes a FREE cell is checked as such
    anyway; without the flag a missing one goes unnoticed). `sense`: likewise for the sense design's SENSE words,
    `spawn_column` for the spawn-column design's column words, `body_list` for the body-list design's cells.
    """
    after = None
    free = tick.free
    tails = tails or free is not None
    if free is not None and not config.in_bounds(free):
        found.note("in_bounds", tick.positions["free"])
    if tick.listed is not None:
        off = next((k for k, cell in enumerate(tick.listed) if not config.in_bounds(cell)), None)
        if off is not None:
            found.note("in_bounds", tick.positions["listed"] + 2 * off)
    if tick.sense is None and sense:
        found.note("body_sensed", tick.positions["input"] + 1)  # where the SENSE word should have been
    elif tick.sense is not None and state is not None and tick.sense != body_neighbours(state):
        found.note("body_sensed", tick.positions["sense"])
    if state is not None:
        direction, outcome, head = resolve(state, config, tick.input)
        if tails:
            _check_freed(tick, freed_cell(state, outcome), found)
        if outcome is _MOVE and tick.outcome == "MOVE" and tick.move == head:  # the common case: nothing to report
            after = advance(state, direction, outcome, head, None)
        else:
            after = _check_outcome(state, tick, config, found, direction, outcome, head, spawn_column, body_list)
    else:
        if tick.move is not None and not config.in_bounds(tick.move):
            found.note("in_bounds", tick.positions["move"])
        if tick.cell is not None and tick.move is None and not config.in_bounds(tick.cell):  # a DIE_SELF's cell
            found.note("in_bounds", tick.positions["cell"])
        if tick.spawn is not None and not config.in_bounds(tick.spawn):
            found.note("in_bounds", tick.positions["spawn"])
        if tails:  # no state, but a FREE cell goes with a written MOVE or DIE_SELF, and with nothing else
            leaves = tick.outcome in _LEAVES
            if leaves and free is None:
                found.note("tail_freed", tick.positions["outcome"])
            elif free is not None and not leaves:
                found.note("tail_freed", tick.positions["free"] - 1)
    end = tick.end_event
    if end is None or end == "TIMEOUT":  # no death and no win written: the tick limit alone decides (rules.end_reason)
        # (a tick past the limit is not noted again: the tick at the limit, alive without TIMEOUT, was noted first)
        at_limit = end_reason(_MOVE, False, tick.number, config) == "TIMEOUT"
        if end == "TIMEOUT" and not at_limit:
            found.note("timeout_at_limit", tick.positions["end"])
        elif end is None and at_limit:  # alive at the limit, and no TIMEOUT
            where = tick.keyframe.start if tick.keyframe is not None else tick.end
            if where < found.length:  # else the sequence was cut off just before it
                found.note("timeout_at_limit", where)
    if tick.keyframe is not None:
        if end is not None:
            found.note("end_is_final", tick.keyframe.start)
            return None
        after = check_keyframe(tick.keyframe, after, tick.number, config, found)
    return after


def _check_freed(tick: Tick, freed: Cell | None, found: Findings) -> None:
    """tail_freed: the tick writes FREE with the cell `freed` (the one the tail leaves), or no FREE when it is None."""
    written = tick.free
    if written == freed:
        return
    pos = tick.positions
    if written is None:
        found.note("tail_freed", pos["outcome"])  # where the FREE should have been
    elif freed is None:
        found.note("tail_freed", pos["free"] - 1)  # the FREE word itself
    else:
        found.note("tail_freed", pos["free"] if written[0] != freed[0] else pos["free"] + 1)


def _check_outcome(
    state: SnakeState,
    tick: Tick,
    config: SnakeConfig,
    found: Findings,
    direction: Direction,
    outcome: Outcome,
    head: Cell,
    spawn_column: bool = False,
    body_list: bool = False,
) -> SnakeState | None:
    """Every outcome other than a plain legal move: deaths, eats, and any departure from the rules."""
    pos = tick.positions
    written = tick.outcome
    at = pos["outcome"]
    if (outcome is _DIE_WALL) != (written == "DIE_WALL"):
        found.note("wall_death", at)
    if (outcome is _DIE_SELF) != (written == "DIE_SELF"):
        found.note("self_death", at)
    if (outcome is _EAT) != (written == "EAT"):
        found.note("eat_iff_food", at)
    if written in _DEATHS:
        cell = tick.cell  # head-first: the cell a DIE_SELF runs into, held to the input like a MOVE's
        if cell is not None:
            if not config.in_bounds(cell):
                found.note("in_bounds", pos["cell"])
            if cell != head:
                found.note("move_follows_input", pos["cell"])
        return advance(state, direction, outcome, head, None) if written == outcome.value and (cell is None or cell == head) else None
    move = tick.move
    assert move is not None  # the grammar gives every MOVE and EAT outcome a cell
    if not config.in_bounds(move):
        found.note("in_bounds", pos["move"])
    followed = move == head
    if not followed:
        found.note("move_follows_input", pos["move"])
    if written == "MOVE":
        return advance(state, direction, outcome, head, None) if outcome is _MOVE and followed else None
    # A written EAT: the values it implies follow from the state before, whatever the rules said.
    if tick.length != state.length + 1:
        found.note("grow_after_eat", pos["length"])
    if tick.score != state.score + 1:
        found.note("score_after_eat", pos["score"])
    body = (move, *state.body)  # the body after the move, as the sequence has it
    full = len(body) >= config.cells and not empty_cells(body, config)
    spawn = tick.spawn
    if spawn is not None and not config.in_bounds(spawn):
        found.note("in_bounds", pos["spawn"])
    spawned_well = True
    if spawn is None:
        if not full:
            found.note("spawn_on_empty", pos["score"] - 1)  # where FOOD_SPAWN should have been
            spawned_well = False
    elif full:
        found.note("spawn_on_empty", pos["spawn"] - 1)
        spawned_well = False
    elif spawn in body:
        found.note("spawn_on_empty", pos.get("spawn_y", pos["spawn"]))
        spawned_well = False
    if spawn is not None and (spawn_column or tick.column is not None) and config.in_bounds(spawn):
        _check_column(tick, body, config, found)
    if spawn is not None and (body_list or tick.listed is not None):
        _check_listed(tick, body, found)
    won = tick.end_event == "WIN"
    if won != (end_reason(_EAT, full, tick.number, config) == "WIN"):
        where = pos["end"] if won else pos["score"] + 1
        if where < found.length:
            found.note("spawn_on_empty", where)
        spawned_well = False
    if outcome is not _EAT or not followed or not spawned_well:
        return None
    return advance(state, direction, outcome, head, spawn)


def _check_column(tick: Tick, body: tuple[Cell, ...], config: SnakeConfig, found: Findings) -> None:
    """column_sensed: the spawn's column words name, row by row, where the grown body is in its column."""
    pos = tick.positions
    written = tick.column
    if written is None:
        found.note("column_sensed", pos["spawn"] + 1)  # where the first word should have been
        return
    expected = column_occupancy(body, tick.spawn[0], config)  # type: ignore[index]
    wrong = next((k for k, (w, e) in enumerate(zip(written, expected)) if w != e), None)
    if wrong is None and len(written) != len(expected):
        wrong = min(len(written), len(expected))  # the spawn's Y where words are missing, else the first extra word
    if wrong is not None:
        found.note("column_sensed", pos["column"] + wrong)


def _check_listed(tick: Tick, body: tuple[Cell, ...], found: Findings) -> None:
    """body_listed: the cells listed before the spawn are the grown body's behind the head, neck first."""
    pos = tick.positions
    written, expected = tick.listed, body[1:]
    if written == expected:
        return
    if written is None:
        found.note("body_listed", pos["spawn"] - 1)  # the FOOD_SPAWN word, where the cells should have been before
        return
    wrong = next((k for k, (w, e) in enumerate(zip(written, expected)) if w != e), None)
    if wrong is not None:
        found.note("body_listed", pos["listed"] + 2 * wrong + (written[wrong][0] == expected[wrong][0]))
    elif len(written) < len(expected):
        found.note("body_listed", pos["spawn"] - 1)  # cells missing: the FOOD_SPAWN word came too soon
    else:
        found.note("body_listed", pos["listed"] + 2 * len(expected))  # the first extra cell


# ---------------------------------------------------------------- sequences


def _adjacent_on_board(a: Cell | None, b: Cell, config: SnakeConfig) -> bool:
    if not config.in_bounds(b):
        return False
    return a is None or abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def validate(
    tokens: Sequence[str] | str,
    config: SnakeConfig,
    *,
    tails: bool | None = None,
    head_first: bool | None = None,
    sense: bool | None = None,
    spawn_column: bool | None = None,
    body_list: bool | None = None,
    keyframe_interval: int | None = None,
) -> Verdict:
    """Parse and replay one sequence (tokens, or one space-separated string) and check every rule of `RULES`.

    `tails` and `head_first` declare the design the sequence must follow (the codec it was trained or written
    with: a tail-events sequence that leaves its FREE cells out breaks `tail_freed`, a head-first one that writes
    a cell after its MOVE breaks `grammar`, a sense one that leaves a SENSE word out breaks `body_sensed`, a
    spawn-column one that leaves a spawn's column out breaks `column_sensed`, a body-list one that leaves a spawn's
    cells out breaks `body_listed`; an option declared off makes its words grammar errors); None reads it off the
    sequence. `keyframe_interval` declares where keyframes go (`keyframe_schedule`); None reads it off the sequence.
    """
    if isinstance(tokens, str):
        tokens = tokens.split()
    n = len(tokens)
    found = Findings(n)
    refuse = refused_options(tails, sense, spawn_column, body_list)  # the words of options declared off
    tails = uses_tail_events(tokens) if tails is None else tails
    sense = uses_sense(tokens) if sense is None else sense
    spawn_column = uses_spawn_column(tokens) if spawn_column is None else spawn_column
    body_list = uses_body_list(tokens) if body_list is None else body_list
    stop = 0  # where the parse stopped: the EOS, or n
    ended = opened = False
    lenient_physical = True
    try:
        items = parse(tokens, to_eos=True, head_first=head_first, refuse=refuse)
        first = next(items)
        assert isinstance(first, Keyframe)
        stop, opened = first.end, True
        check_start(first, config, found)
        state = _keyframe_state(first, 0, config, found)
        schedule = KeyframeSchedule(keyframe_interval, "SNAP")
        width, height = config.width, config.height
        hx, hy = first.head  # the lenient tier's previous head
        for tick in items:  # every later item is a Tick
            stop = tick.end
            move = tick.move
            if move is not None:
                mx, my = move
                if lenient_physical and (abs(mx - hx) + abs(my - hy) != 1 or not (0 <= mx < width and 0 <= my < height)):
                    lenient_physical = False
                hx, hy = mx, my
            if tick.keyframe is not None:
                hx, hy = tick.keyframe.head
            if ended:
                found.note("end_is_final", tick.start)  # only the first such tick counts
                continue
            state = check_tick(state, tick, config, found, tails, sense, spawn_column, body_list)
            schedule.check(found.note, tokens, tick)
            ended = tick.end_event is not None
    except GrammarError as err:
        note_grammar_error(found.note, err, n, ended=ended, stop=stop)
        lenient = lenient_tiers(tokens, config)
    else:
        note_close(found.note, n, ended=ended, stop=stop)
        structural = n > 0 and stop < n  # starts with BOS (it parsed) and reaches EOS
        lenient = {"structural": structural, "physical": lenient_physical, "rules": True}
        lenient["full"] = structural and lenient_physical
    return make_verdict(found.first, lenient, RULES, () if opened else OPENING_TIERS)


def lenient_tiers(tokens: Sequence[str], config: SnakeConfig) -> dict[str, bool]:
    """The original checker's tiers, token by token, on whatever the sequence holds up to its first EOS.

    `validate` derives the same verdicts from the parsed ticks when the whole
    sequence parses; this token scan is for the sequences that do not.
    """
    n = len(tokens)
    try:
        end = list(tokens).index("EOS")
    except ValueError:
        end = n
    structural = n > 0 and tokens[0] == "BOS" and end < n
    physical = rules = True
    head: Cell | None = None
    in_snap = in_eat = grew = scored = False
    for i in range(end):
        token = tokens[i]
        if token == "TICK":
            if in_eat and not (grew and scored):
                rules = False
            in_snap = in_eat = grew = scored = False
        elif token == "SNAP":
            in_snap = True
            if i + 1 < end and tokens[i + 1] == "PLAYER":
                head = _cell_or_none(tokens, i + 2) or head
        elif in_snap:
            continue
        elif token == "MOVE" or (token.startswith("INPUT_") and i + 3 < end and tokens[i + 3] in ("MOVE", "EAT")):
            cell = _cell_or_none(tokens, i + 1)  # after MOVE, or (head-first) after the input, before MOVE or EAT
            if cell is not None:
                physical = physical and _adjacent_on_board(head, cell, config)
                head = cell
        elif token == "EAT":
            in_eat, grew, scored = True, False, False
        elif token == "GROW":
            rules = rules and in_eat
            grew = True
        elif token == "SCORE":
            rules = rules and in_eat
            scored = True
    if in_eat and not (grew and scored) and end < n:  # an eat left unfinished by the EOS (not by a cut-off)
        rules = False
    return {"structural": structural, "physical": physical, "rules": rules, "full": structural and physical and rules}


def _cell_or_none(tokens: Sequence[str], i: int) -> Cell | None:
    try:
        return read_cell(tokens, i)
    except GrammarError:
        return None
