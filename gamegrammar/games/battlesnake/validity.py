"""The strict replay evaluator: does a token sequence obey Battlesnake's grammar, physics and rules?

A sequence is parsed with the grammar (`grammar.parse`) and replayed through the one rules
implementation (`rules.advance`, `rules.spawn_cells`, `rules.spawn_range`) from its first keyframe,
which is tick 0; each TICK is the next tick. Every written element is checked against what the
rules allow. Rule names are stable (reports and tests use them), grouped by tier in `RULES`:

structural
  grammar                 parses under the design's grammar (a sequence that simply stops is not a grammar error);
                          a declared design's grammar has only its own words: a FREE in a sequence declared plain
                          (tails=False) is a grammar error at that word, and nothing after it is replayed
  complete                BOS keyframe ... end event EOS, and nothing after the EOS
  keyframe_schedule       a keyframe after exactly the ticks where the codec writes one (`CodecConfig.keyframe_after`):
                          after every K-th tick (K = 0: only the opening keyframe), never after an end event (one
                          there is end_is_final's). An extra keyframe is reported at its SNAP, a missing one where it
                          should begin (the token after the tick; not when the sequence is cut off right there)
physical
  in_bounds               every cell written (heads, FREE cells, spawns, keyframe bodies and food) is on the board
  move_follows_input      each head is the snake's head moved by its input (OUT iff that cell is off the board)
  tail_freed              in the tails design (declared, or read off a sequence with any FREE), FREE names the cell
                          the tail left, and is there exactly when the tail moves
  body_sensed             in the sense design (declared, or read off a sequence with any SENSE word), every input
                          (and its SMELL word) is followed by the SENSE word of the bodies beside that snake's head
                          before the move (`grammar.body_beside`: segments that stay through the move)
  collision_marked        in the hits design (declared, or read off a sequence with any HIT or MEET), HIT exactly where
                          the input takes the head onto a segment that stays through the move (the SENSE mask's bit of
                          the input), MEET exactly where the new head is on an earlier mover's new head this tick
  wall_collision          DIE_WALL exactly for the snakes the rules eliminate for leaving the board
  self_collision          DIE_SELF exactly for those whose head hits their own body
  body_collision          DIE_BODY exactly for those whose head hits another snake's body
  head_collision          DIE_HEAD exactly for those that meet a head at least as long
  starvation              DIE_HEALTH exactly for those whose health runs out
rules
  start_position          the first keyframe is a start: every snake, three stacked segments, health 100, start
                          cells of the placement rules, the start food they place
  eat_iff_food            EAT exactly when the written head is on food
  food_smelled            in the smell design (declared, or read off a sequence with any SMELL word), every input is
                          followed by the SMELL word of the food beside that snake's head before the move
  grow_after_eat          EAT's LEN is the length before the tick + 1
  health_reset            EAT's health is 100
  spawn_allowed           each SPAWN is on a cell open to food (not a live snake, not food, not next to a live head)
  minimum_food            as many spawns as the standard map makes: the shortfall below minimum_food (as far as
                          open cells allow), else at most one (none where the spawn chance `config.spawn_percent`
                          is 0, one where it is 100)
  keyframe_matches_state  every later keyframe equals the replayed state; every keyframe is itself a possible state
                          (LEN = chain length, health 1..100, no cell twice but a stacked tail, no two snakes on one
                          cell, food distinct and off the snakes, snake numbers of this config)
  end_when_decided        WIN/DRAW (two or more snakes) or DEATH (one) exactly when the written eliminations leave
                          at most one snake (none)
  timeout_at_limit        TIMEOUT exactly when an undecided episode reaches max_ticks
  end_is_final            nothing but EOS after an end event (no keyframe, no tick)

The design and the keyframe interval K are declared by the codec (`BattlesnakeSpec.validate(tokens, config,
codec)`: `tails=codec.tails`, `smell=codec.smell`, `sense=codec.sense`, `hits=codec.hits`,
`keyframe_interval=codec.keyframe_interval`;
a plain `CodecConfig` declares the plain design). Undeclared (None: a bare token file), they are read off the
sequence: the tails design when it has any FREE, the smell option when it has any SMELL word, the sense option when
it has any SENSE word, the hits option when it has any HIT or MEET; K is the number of the
first tick followed by a keyframe (none at all: K = 0, which nothing can contradict), and every later tick is
held to that K (the ticks before it had none, as K demands).

A tier passes when none of its rules is broken; `full` is all three. A verdict lists every broken
rule with the token index where it is first broken; a missing element is reported where it should
have been (not at all when the sequence is cut off right there).

After a divergence (a head, an eat, a death or a spawn the rules do not produce) the world the
sequence describes is no longer the rules' world, so the state becomes unknown until the next
keyframe, a complete state, re-establishes it; rules that need no state (in_bounds, an OUT without a
wall or health death, the end rules) are always checked. Wrong LEN or H values after EAT, wrong
FREE cells and wrong SMELL, SENSE, HIT or MEET words do not change the replayed state (the rules decide them), so one wrong
belief is reported where it is written. A keyframe that disagrees with the replay but is itself possible is followed
from then on. Nothing after an end event is checked but the grammar.

Lenient tiers (kept beside the strict ones, in the spirit of Snake's original checker): structural
= starts with BOS and has an EOS; physical = every written head is on the board and next to that
snake's previous head (inputs and collisions ignored); rules = every EAT is on a cell the sequence
shows food on. They are read on whatever parses.

The strict evaluator needs full-salience sequences (codec min_salience 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.episode_grammar import KeyframeSchedule, note_close, note_grammar_error
from gamegrammar.core.verdict import OPENING_TIERS, Findings, Verdict, make_verdict, rule_names, tiers_of
from gamegrammar.games.battlesnake.grammar import (
    HIT_WORDS,
    SENSE_OF,
    SMELL_OF,
    GrammarError,
    Keyframe,
    Tick,
    body_beside,
    cell_tokens,
    food_beside,
    parse,
)
from gamegrammar.games.battlesnake.rules import (
    BODY_COLLISION,
    HEAD_COLLISION,
    MAX_HEALTH,
    OUT_OF_HEALTH,
    SELF_COLLISION,
    WALL_COLLISION,
    BattlesnakeConfig,
    BattlesnakeState,
    Cell,
    Move,
    advance,
    bad_start_head,
    decided,
    sorted_food,
    spawn_cells,
    spawn_range,
    start_food_possible,
    with_food,
)

RULES: dict[str, tuple[str, ...]] = {
    "structural": ("grammar", "complete", "keyframe_schedule"),
    "physical": (
        "in_bounds",
        "move_follows_input",
        "tail_freed",
        "body_sensed",
        "collision_marked",
        "wall_collision",
        "self_collision",
        "body_collision",
        "head_collision",
        "starvation",
    ),
    "rules": (
        "start_position",
        "eat_iff_food",
        "food_smelled",
        "grow_after_eat",
        "health_reset",
        "spawn_allowed",
        "minimum_food",
        "keyframe_matches_state",
        "end_when_decided",
        "timeout_at_limit",
        "end_is_final",
    ),
}
TIERS: tuple[str, ...] = tiers_of(RULES)
RULE_NAMES: tuple[str, ...] = rule_names(RULES)
CAUSE_RULE = {
    OUT_OF_HEALTH: "starvation",
    WALL_COLLISION: "wall_collision",
    SELF_COLLISION: "self_collision",
    BODY_COLLISION: "body_collision",
    HEAD_COLLISION: "head_collision",
}


# ---------------------------------------------------------------- keyframes


def keyframe_state(kf: Keyframe, tick: int, config: BattlesnakeConfig, found: Findings) -> BattlesnakeState | None:
    """The state a keyframe shows, or None (after noting why) when it is off the board or not a possible state."""
    ok = True
    occupied: dict[Cell, int] = {}
    for s in kf.snakes:
        if s.snake >= config.num_snakes:
            found.note("keyframe_matches_state", s.at)
            ok = False
        body = s.body()
        for j, cell in enumerate(body):
            if not config.in_bounds(cell):
                found.note("in_bounds", s.at + 1 if j == 0 else s.at + 4 + j)
                ok = False
                break
        if s.length != len(body):
            found.note("keyframe_matches_state", s.at + 3)
            ok = False
        if not 1 <= s.health <= MAX_HEALTH:
            found.note("keyframe_matches_state", s.at + 4)
            ok = False
        distinct = len(body)
        while distinct > 1 and body[distinct - 1] == body[distinct - 2]:
            distinct -= 1
        seen: set[Cell] = set()
        for j, cell in enumerate(body[:distinct]):
            if cell in seen or occupied.get(cell, s.snake) != s.snake:
                found.note("keyframe_matches_state", s.at + 1 if j == 0 else s.at + 4 + j)
                ok = False
                break
            seen.add(cell)
        for cell in seen:
            occupied.setdefault(cell, s.snake)
    food_seen: set[Cell] = set()
    for j, cell in enumerate(kf.food):
        at = kf.food_at + 1 + 2 * j
        if not config.in_bounds(cell):
            found.note("in_bounds", at)
            ok = False
        elif cell in food_seen or cell in occupied:
            found.note("keyframe_matches_state", at)
            ok = False
        food_seen.add(cell)
    return kf.state(tick, config.num_snakes) if ok else None


def _mismatch(kf: Keyframe, state: BattlesnakeState) -> int | None:
    """Token index of the first keyframe field that differs from the replayed state; None if it matches."""
    alive = list(state.alive)
    listed = kf.alive
    if listed != alive:
        for s in kf.snakes:  # a listed snake that is not alive, or listed where a live one should come first
            missing = [k for k in alive if k < s.snake and k not in listed]
            if s.snake not in alive or missing:
                return s.at
        return kf.food_at  # a live snake missing at the end
    for s in kf.snakes:
        live = state.snakes[s.snake]
        if s.head != live.head:
            return s.at + 1
        if s.length != live.length:
            return s.at + 3
        if s.health != live.health:
            return s.at + 4
        body = s.body()
        if body != live.body:
            j = next((j for j, (a, b) in enumerate(zip(body, live.body)) if a != b), min(len(body), live.length))
            return s.at + 4 + max(j, 1)
    food = list(state.food)
    if kf.food != food:
        j = next((j for j, (a, b) in enumerate(zip(kf.food, food)) if a != b), min(len(kf.food), len(food)))
        return kf.food_at + 1 + 2 * j if j < len(kf.food) else kf.end
    return None


def check_keyframe(
    kf: Keyframe, state: BattlesnakeState | None, tick: int, config: BattlesnakeConfig, found: Findings
) -> BattlesnakeState | None:
    """Check a keyframe written after `tick` against the replayed state; return the state to go on from."""
    if state is not None:
        at = _mismatch(kf, state)
        if at is None:
            return state
        found.note("keyframe_matches_state", at)
    shown = keyframe_state(kf, tick, config, found)
    return shown if shown is not None else state


def check_start(kf: Keyframe, config: BattlesnakeConfig, found: Findings) -> BattlesnakeState | None:
    """The first keyframe: a possible state, and a start of this config; the state to replay from."""
    state = keyframe_state(kf, 0, config, found)
    if kf.alive != list(range(config.num_snakes)):
        wrong = next((s.at for k, s in enumerate(kf.snakes) if s.snake != k), kf.food_at)
        found.note("start_position", wrong)
        return state
    for s in kf.snakes:
        if s.length != 3 or s.steps != [None, None]:
            found.note("start_position", s.at + 3)
        if s.health != MAX_HEALTH:
            found.note("start_position", s.at + 4)
    bad = bad_start_head([s.head for s in kf.snakes], config)
    if bad is not None:
        found.note("start_position", kf.snakes[bad].at + 1)
    elif not start_food_possible([s.head for s in kf.snakes], kf.food, config):
        found.note("start_position", kf.food_at)
    return state


# ---------------------------------------------------------------- ticks


def _death_slot(tick: Tick, k: int) -> int:
    """Where snake k's death belongs: before the first written death of a later snake, else at the section's end."""
    return next((d.at for d in tick.deaths if d.snake > k), tick.positions["spawns"])


def _note_missing(found: Findings, rule: str, at: int) -> None:
    """A missing element: reported where it belongs, unless the sequence is cut off right there."""
    if at < found.length:
        found.note(rule, at)


def _check_written_world(tick: Tick, config: BattlesnakeConfig, found: Findings) -> None:
    """What needs no replayed state: every written cell on the board; a head OUT dies of the wall or of hunger,
    and a wall death is a head OUT."""
    written = {d.snake: d for d in tick.deaths}
    for m in tick.moves:
        p = m.positions
        if m.free is not None and not config.in_bounds(m.free):
            found.note("in_bounds", p["free"])
        if m.head is not None and not config.in_bounds(m.head):
            found.note("in_bounds", p["head"])
        death = written.get(m.snake)
        if m.head is None and (death is None or death.cause not in (WALL_COLLISION, OUT_OF_HEALTH)):
            if death is None:
                _note_missing(found, "wall_collision", _death_slot(tick, m.snake))
            else:
                found.note("wall_collision", death.at + 1)
        elif m.head is not None and death is not None and death.cause == WALL_COLLISION:
            found.note("wall_collision", death.at + 1)
    for cell, at in zip(tick.spawns, tick.spawn_at):
        if not config.in_bounds(cell):
            found.note("in_bounds", at)


def _check_turn(
    state: BattlesnakeState,
    tick: Tick,
    config: BattlesnakeConfig,
    found: Findings,
    tails: bool,
    smell: bool = False,
    sense: bool = False,
    hits: bool = False,
) -> BattlesnakeState | None:
    """Replay the tick's inputs from `state`; check heads, SMELL, SENSE, HIT and MEET words, FREE cells, eats, deaths
    and spawns. The state after, or None when the tick departs from the rules."""
    inputs: list[Move | None] = [None] * len(state.snakes)
    for m in tick.moves:
        inputs[m.snake] = m.input
    after, turn = advance(state, inputs, config)
    ok = True
    for j, m in enumerate(tick.moves):
        p = m.positions
        before = state.snakes[m.snake]
        slot = p["input"] + 1  # where the next option's word goes
        for option, rule, rightful, declared in (
            ("smell", "food_smelled", food_beside, smell),
            ("sense", "body_sensed", body_beside, sense),
        ):
            written = getattr(m, option)
            if (declared or written is not None) and written != rightful(state, m.snake):  # a word written: either design
                if written is not None:
                    found.note(rule, p[option])
                else:
                    _note_missing(found, rule, slot)
            if written is not None:
                slot = p[option] + 1
        if hits or m.hit or m.meet:
            _check_marks(state, tick, turn.heads, j, found, slot, config)
        if (tails or m.free is not None) and m.free != turn.freed[j]:  # a FREE written is checked in either design
            found.note("tail_freed", p["free"] if m.free is not None else p["head"])
        head = turn.heads[j]
        if m.head is None:
            if config.in_bounds(head):
                found.note("move_follows_input", p["head"])
                ok = False
        elif m.head != head:
            found.note("move_follows_input", p["head"])
            ok = False
        on_food = m.head is not None and m.head in state.food
        if m.eat != on_food:
            found.note("eat_iff_food", p["after"])
            ok = False
        if m.eat:
            if m.length != before.length + 1:
                found.note("grow_after_eat", p["length"])
            if m.health != MAX_HEALTH:
                found.note("health_reset", p["health"])
    if not ok:
        return None
    written = {d.snake: d for d in tick.deaths}
    for k in sorted(set(written) | set(turn.eliminated)):
        want = turn.eliminated.get(k)
        got = written[k].cause if k in written else None
        if want == got:
            continue
        ok = False
        if got is not None:
            found.note(CAUSE_RULE[got], written[k].at + 1)
        if want is not None:
            _note_missing(found, CAUSE_RULE[want], written[k].at + 1 if k in written else _death_slot(tick, k))
    if not ok:
        return None
    if not tick.spawns and len(after.food) >= config.minimum_food and config.spawn_percent < 100:
        return after  # no spawn written, none owed: nothing to check (the common case, without the open cells)
    open_cells = spawn_cells(after, config)
    fewest, most = spawn_range(after, config, len(open_cells))
    allowed = set(open_cells)
    spawned: set[Cell] = set()
    for cell, at in zip(tick.spawns, tick.spawn_at):
        if cell not in allowed or cell in spawned:
            if config.in_bounds(cell):
                found.note("spawn_allowed", at)
            ok = False
        spawned.add(cell)
    count = len(tick.spawns)
    if count < fewest:
        _note_missing(found, "minimum_food", tick.positions["end"])
        ok = False
    elif count > most:
        found.note("minimum_food", tick.spawn_at[most] - 1)
        ok = False
    return with_food(after, tick.spawns) if ok else None


def _check_marks(
    state: BattlesnakeState, tick: Tick, heads: Sequence[Cell], j: int, found: Findings, slot: int, config: BattlesnakeConfig
) -> None:
    """`collision_marked` for the tick's j-th move: its HIT (due at `slot`, after the input's option words) and its
    MEET (after the head), against the rules' heads of the movers up to it."""
    m = tick.moves[j]
    p = m.positions
    if m.hit != bool(body_beside(state, m.snake) >> m.input & 1):
        if m.hit:
            found.note("collision_marked", p["hit"])
        else:
            _note_missing(found, "collision_marked", slot)
    head = heads[j]
    met = config.in_bounds(head) and any(heads[i] == head for i in range(j) if config.in_bounds(heads[i]))
    if m.meet != met:
        if m.meet:
            found.note("collision_marked", p["meet"])
        elif m.head is not None:  # a head written OUT where the rules put it on the board is move_follows_input's
            _note_missing(found, "collision_marked", p["after"])


def _check_end(tick: Tick, config: BattlesnakeConfig, found: Findings) -> None:
    """The end rules, on the sequence's own eliminations (no replayed state needed)."""
    want = decided(len(tick.movers) - len(tick.deaths), config)
    written = tick.end_event
    at = tick.positions["end"]
    if want is not None:
        if written != want:
            if written is None:
                _note_missing(found, "end_when_decided", at)
            else:
                found.note("end_when_decided", at)
    elif written in ("WIN", "DRAW", "DEATH"):
        found.note("end_when_decided", at)
    elif written == "TIMEOUT":
        if tick.number != config.max_ticks:
            found.note("timeout_at_limit", at)
    elif tick.number == config.max_ticks:
        _note_missing(found, "timeout_at_limit", at)


def check_tick(
    state: BattlesnakeState | None,
    tick: Tick,
    config: BattlesnakeConfig,
    found: Findings,
    tails: bool = False,
    smell: bool = False,
    sense: bool = False,
    hits: bool = False,
) -> BattlesnakeState | None:
    """Check one tick from the state before it (None = unknown); return the state after it (None = unknown)."""
    if state is not None and list(state.alive) != tick.movers:
        state = None  # cannot happen after a replayed tick or keyframe; kept for safety
    _check_written_world(tick, config, found)
    after = _check_turn(state, tick, config, found, tails, smell, sense, hits) if state is not None else None
    _check_end(tick, config, found)
    if tick.keyframe is not None:
        if tick.end_event is not None:
            found.note("end_is_final", tick.keyframe.start)
            return None
        after = check_keyframe(tick.keyframe, after, tick.number, config, found)
    return after


# ---------------------------------------------------------------- sequences


def validate(
    tokens: Sequence[str] | str,
    config: BattlesnakeConfig,
    *,
    tails: bool | None = None,
    keyframe_interval: int | None = None,
    smell: bool | None = None,
    sense: bool | None = None,
    hits: bool | None = None,
) -> Verdict:
    """Parse and replay one sequence (tokens, or one space-separated string) and check every rule of `RULES`.

    `tails` declares the design the sequence must follow (its codec's: a tails sequence that leaves its
    FREE cells out breaks `tail_freed`, a plain one that writes a FREE breaks `grammar` there);
    `smell` declares the smell option (its words missing break `food_smelled`, written where it is off `grammar`),
    `sense` the sense option (`body_sensed`), `hits` the hits option (`collision_marked`);
    `keyframe_interval` declares where keyframes go (`keyframe_schedule`). None reads each off the sequence.
    """
    if isinstance(tokens, str):
        tokens = tokens.split()
    n = len(tokens)
    found = Findings(n)
    declared, declared_smell, declared_sense, declared_hits = tails, smell, sense, hits
    tails = "FREE" in tokens if tails is None else tails
    smell = any(t in SMELL_OF for t in tokens) if smell is None else smell
    sense = any(t in SENSE_OF for t in tokens) if sense is None else sense
    hits = any(t in HIT_WORDS for t in tokens) if hits is None else hits
    schedule = KeyframeSchedule(keyframe_interval, "SNAP")
    items: list[Keyframe | Tick] = []
    stop = 0  # where the parse stopped: the EOS, or n
    ended = False
    try:
        parsed = parse(tokens, to_eos=True, tails=declared, smell=declared_smell, sense=declared_sense, hits=declared_hits)
        first = next(parsed)
        assert isinstance(first, Keyframe)
        items.append(first)
        stop = first.end
        state = check_start(first, config, found)
        for tick in parsed:
            assert isinstance(tick, Tick)
            items.append(tick)
            stop = tick.end
            if ended:
                found.note("end_is_final", tick.start)  # only the first such tick counts
                continue
            state = check_tick(state, tick, config, found, tails, smell, sense, hits)
            schedule.check(found.note, tokens, tick)
            ended = tick.end_event is not None
    except GrammarError as err:
        note_grammar_error(found.note, err, n, ended=ended, stop=stop)
    else:
        note_close(found.note, n, ended=ended, stop=stop)
    return make_verdict(found.first, lenient_tiers(tokens, items, config), RULES, () if items else OPENING_TIERS)


# ---------------------------------------------------------------- impossible openings (the conformance kit)


def opening_perturbations(tokens: Sequence[str], config: BattlesnakeConfig) -> list[tuple[str, list[str]]]:
    """Named variants of one valid episode in which only the opening keyframe changes, into one no start can be.

    Each still parses (the same snakes are listed, so every tick reads as before) and breaks `start_position`
    inside the opening: snake 0's head on a cell that is no start cell, its health 99, four stacked segments,
    and one start food moved where the placement rules could not have put it. A variant the board leaves no
    room for (no free cell of that kind, no food) is left out.
    """
    tokens = list(tokens)
    opening = next(parse(tokens))
    assert isinstance(opening, Keyframe)
    s = opening.snakes[0]
    variants: list[tuple[str, list[str]]] = []
    cell = _off_start_head(opening, config)
    if cell is not None:
        variants.append(("head off the start cells", [*tokens[: s.at + 1], *cell_tokens(cell), *tokens[s.at + 3 :]]))
    variants.append(("health not 100", [*tokens[: s.at + 4], "H99", *tokens[s.at + 5 :]]))
    variants.append(("four stacked segments", [*tokens[: s.at + 3], "LEN4", tokens[s.at + 4], "B_S", *tokens[s.at + 5 :]]))
    food = _off_start_food(opening, config)
    if food is not None:
        written = [t for cell in food for t in cell_tokens(cell)]
        variants.append(("start food misplaced", [*tokens[: opening.food_at + 1], *written, *tokens[opening.end :]]))
    return variants


def _free_cells(kf: Keyframe, config: BattlesnakeConfig) -> list[Cell]:
    """The board's cells (row-major) that no snake and no food of the keyframe is on."""
    taken = {cell for s in kf.snakes for cell in s.body()} | set(kf.food)
    return [(x, y) for y in range(config.height) for x in range(config.width) if (x, y) not in taken]


def _off_start_head(kf: Keyframe, config: BattlesnakeConfig) -> Cell | None:
    """A free cell the placement rules never start snake 0 on (the first, row-major); None if there is none."""
    heads = [s.head for s in kf.snakes]
    return next((c for c in _free_cells(kf, config) if bad_start_head([c, *heads[1:]], config) == 0), None)


def _off_start_food(kf: Keyframe, config: BattlesnakeConfig) -> list[Cell] | None:
    """The start food with its first cell moved to a free cell that makes it a food no start places (row-major
    order, as keyframes write food); None if there is no food or no such cell."""
    heads = [s.head for s in kf.snakes]
    for cell in _free_cells(kf, config) if kf.food else []:
        food = list(sorted_food([cell, *kf.food[1:]]))
        if not start_food_possible(heads, food, config):
            return food
    return None


def lenient_tiers(tokens: Sequence[str], items: Sequence[Keyframe | Tick], config: BattlesnakeConfig) -> dict[str, bool]:
    """The lenient tiers, on the parsed part of a sequence."""
    structural = bool(tokens) and tokens[0] == "BOS" and "EOS" in tokens
    physical = rules = True
    heads: dict[int, Cell] = {}
    food: set[Cell] = set()
    for item in items:
        if isinstance(item, Keyframe):
            heads = {s.snake: s.head for s in item.snakes}
            food = set(item.food)
            continue
        for m in item.moves:
            if m.head is None:
                continue
            prev = heads.get(m.snake)
            if not config.in_bounds(m.head) or (prev is not None and abs(prev[0] - m.head[0]) + abs(prev[1] - m.head[1]) != 1):
                physical = False
            heads[m.snake] = m.head
            if m.eat and m.head not in food:
                rules = False
        food -= {m.head for m in item.moves if m.eat}
        food |= set(item.spawns)
        if item.keyframe is not None:
            heads = {s.snake: s.head for s in item.keyframe.snakes}
            food = set(item.keyframe.food)
    return {"structural": structural, "physical": physical, "rules": rules, "full": structural and physical and rules}
