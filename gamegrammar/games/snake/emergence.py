"""Tier 2: does the model know each rule, and where does that knowledge hold or fail?

A validity rate says whether samples obey the rules; it cannot say *which* rule the
model has learned or under what conditions. Here every rule event of held-out
corpus episodes (an eat, a wall death, a score increment, ...) is scored under
teacher forcing: the probability the model gives to the continuation the rules
mandate (the product over its tokens) and whether its argmax writes all of it.
The events are then split by context: the snake's length, the ticks since the
last keyframe (the state the model last saw in full), the tick number and the
token position, so a rule that only holds early in an episode, or only for short
snakes, shows up as such.

"Food spawns on empty cells" is not a single token: the cell is random. What the
rule demands is that the model's mass over cells sits on empty ones, so for each
FOOD_SPAWN the model's P(X) is combined with P(Y | X = x) for every x (a branch of
the KV cache per x) into the mass on empty cells versus cells under the snake. The
mass on each body cell is also read against the mean empty cell's, by its place in the
body (head, the two cells before the tail, the tail, the rest): a model that misjudges
where the body ends puts its mass near the tail; one blind to the body puts 1 everywhere.

Counterfactual probes then edit real prefixes so that a rule newly applies and
ask whether the prediction moves as the rule demands:
- food_ahead: the food of a keyframe (the opening one when the corpus has no
  others) is moved directly in front of the head, and the model is asked for the
  outcome after `TICK INPUT_<current direction>`: EAT is mandated;
- wall_ahead: at a real tick where the head is next to a wall, the input is
  replaced by the (non-reversing) direction into it: DIE_WALL is mandated;
- body_ahead: likewise with a direction into the snake's body (not the tail's
  cell, which is free by then): DIE_SELF is mandated.
Each probe has a control, the same prefix unedited, so the shift is visible. The
outcome the rules give is always checked with `rules.resolve`: no rule is
re-implemented here. States come from `trace` (the states the rules give the episode).

The tail-events design (grammar.py; a corpus with any FREE) writes `FREE Xx Yy`, the
cell the tail leaves, between the input and the outcome word on the ticks where the
tail leaves one. Then the rule `tail_freed` scores that FREE and its cell, and every
outcome is asked for where the sequence writes it: the self-death conditional
(self_death, body_ahead) is P(DIE_SELF | ... TICK INPUT_d FREE Xt Yt), the head about
to enter the body with the freed cell known, and a probe's prefix (edited or control)
runs up to its outcome word, FREE cell included where the rules write one. Without
any FREE the rule is left out of the results, which are then grammar v1's exactly.

The sense design (a corpus with any SENSE word) writes after each input the directions in
which the head's neighbour is deadly body. Rule `body_sensed` scores that word on every tick,
and `body_sensed_beside` on the ticks where body other than the neck (the cell behind the
head) is beside the head: the body lookup itself. `self_death` there is the joint
probability of the SENSE word and DIE_SELF, comparable with grammar v1's P(DIE_SELF) given
the same ticks; the probes' prefixes hold the true SENSE word, so their P(DIE_SELF) is the
step from a known sense to the outcome.

The spawn-column option (a corpus with any VAC or OCC word; it goes with any design above) writes
the spawn's column, one word per row, between its X and Y. Rule `column_sensed` scores a spawn's H
words jointly, and `column_sensed_body` each OCC word on its own (the cells the grown body is on:
the body lookup itself, one cell at a time, so its P does not shrink with the snake's length as a
joint would; VAC words are mostly a default). `spawn_on_empty` there is a joint too, comparable with
grammar v1's mass on empty cells: for each x, P(X = x) times P(the true words of column x | X = x)
times P(Y = y | X = x, those words), summed over the empty cells (x, y): the probability that the
model writes a correct column and then an empty row, a lower bound of its mass on empty cells
(branches of X and the H words, `hidden.branch_sequences`). Its occupied mass is the same sum over
the body's cells (a correct column, then a row it wrote OCC). Its empty share leaves the words'
factor out: of P(X = x) · P(Y = y | X = x, the true words) over the cells, the share on empty ones,
the row choice once a correct column is written, read against the empty fraction (the state's, as in
grammar v1: what a guess blind to the body gets). With the words' factor in, columns the model writes
right would weigh more, and those with little body are the easy ones, so even an untrained model
would seem to keep food off the body. `column_mass`, reported for this design only, is the
probability of a correct column after any X (the sum over x of the first two factors): the mass a
wrong column word loses. Its acc is greedy decoding: the argmax X, then the argmax writes that
column's true words, then an empty row. Without the option all three are grammar v1's exactly.
The probes edit inputs and the food, never a spawn, so they are the other designs' own.

The body-list option (a corpus in which an eat's LEN is followed by a cell; it goes with any design
but the spawn column) writes the grown body's cells behind the head, neck first, before each spawn.
Rule `body_listed` scores a spawn's whole list jointly, and `body_listed_cell` each listed cell (its
X and Y) on its own, split by how far from the tail it is (`from_tail`): the chain of copies, one
cell at a time. `spawn_on_empty` there is again a joint comparable with grammar v1's mass on empty
cells: P(the true list) times the mass on empty cells after it (the list teacher forced; the list
does not depend on the cell, so its factor is one number), and its empty share is the mass after
the true list, the exclusion once the list is right. `list_mass` is P(the true list); acc is greedy
decoding writing the whole list and then an empty cell.

This is Snake's tier 2, reached through `GAME.emergence()`; `gamegrammar.interpret.analysis`
runs it beside the game-agnostic tier 3 and probes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.emergence import rule_emergence
from gamegrammar.emergence.markdown import context_tables, heading, probe_table, rule_table
from gamegrammar.emergence.rule_emergence import (
    Probe,
    RuleTally,
    Scores,
    counted,
    fmt,
    mean,
    probe_section,
    teacher_forced,
    tier2_section,
    traced_ticks,
)
from gamegrammar.emergence.rule_emergence import plot as plot_emergence
from gamegrammar.games.snake.grammar import (
    COLUMN_WORDS,
    FREE,
    Keyframe,
    Tick,
    parse,
    sense_token,
    uses_body_list,
    uses_head_first,
    uses_sense,
    uses_spawn_column,
    uses_tail_events,
)
from gamegrammar.games.snake.rules import (
    Cell,
    Direction,
    SnakeConfig,
    SnakeState,
    body_neighbours,
    column_occupancy,
    freed_cell,
    legal_directions,
    resolve,
)
from gamegrammar.games.snake.trace import trace
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import branch_sequences, edited_logprobs, iter_outputs

RULES = [
    "eat_when_food",
    "move_follows_input",
    "tail_freed",
    "body_sensed",
    "body_sensed_beside",
    "grow_after_eat",
    "score_increments",
    "spawn_on_empty",
    "column_sensed",
    "column_sensed_body",
    "body_listed",
    "body_listed_cell",
    "wall_death",
    "self_death",
    "timeout_at_limit",
]
# The rules of one grammar design, left out of the results unless an episode is written in it.
DESIGN_RULES = {
    "tail_freed": uses_tail_events,
    "body_sensed": uses_sense,
    "body_sensed_beside": uses_sense,
    "column_sensed": uses_spawn_column,
    "column_sensed_body": uses_spawn_column,
    "body_listed": uses_body_list,
    "body_listed_cell": uses_body_list,
}
# Bucket edges (left-closed): a value v falls in [edges[i], edges[i+1]); the last bucket is open.
CONTEXTS: dict[str, list[int]] = {
    "length": [1, 2, 4, 8, 16, 32],
    "ticks_since_keyframe": [1, 5, 10, 25, 50, 100, 150, 200],
    "tick": [1, 5, 10, 25, 50, 100, 150, 200],
    "token_position": [0, 64, 128, 256, 512, 1024],
    # Body events only (the SENSE word, self death): how far from the tail the body beside the head is. 0: the tail
    # itself is beside the head, and is not deadly (it moves away); 1: the cell before it is, and is deadly.
    "from_tail": [0, 1, 2, 3, 5, 9],
}
PROBE_KINDS = {"food_ahead": "EAT", "wall_ahead": "DIE_WALL", "body_ahead": "DIE_SELF"}


@dataclass
class RuleEvent(rule_emergence.RuleEvent):
    """A rule event of Snake. For spawn_on_empty, `positions` holds the X of FOOD_SPAWN (then, in the body-list design,
    the listed cells' tokens) and `body` the snake's cells then, head first (the grown body, whose cells the
    spawn-column words of each column say, or the list before the spawn)."""

    body: tuple[Cell, ...] | None = None
    from_tail: int | None = None  # body events: see tail_distance_beside

    @property
    def occupied(self) -> frozenset[Cell]:
        return frozenset(self.body or ())

    def context(self) -> dict[str, int]:
        out = super().context()
        if self.from_tail is not None:
            out["from_tail"] = self.from_tail
        return out


def tail_distance_beside(state: SnakeState, cell: Cell | None = None) -> int | None:
    """How far from the tail (0: the tail) the body is where the head must tell body from free cell: the body cell
    `cell`, or else the nearest to the tail of the body cells beside the head other than the neck; None if none is."""
    body = state.body
    if cell is not None:
        return len(body) - 1 - body.index(cell) if cell in body else None
    hx, hy = state.head
    beside = [len(body) - 1 - i for i, (x, y) in enumerate(body) if i >= 2 and abs(x - hx) + abs(y - hy) == 1]
    return min(beside) if beside else None


def rule_events(tokens: Sequence[str], config: SnakeConfig) -> list[RuleEvent]:
    """Every rule event of a (valid, full-salience) episode, with positions from `grammar.parse`.

    The state before each tick comes from `trace` (the one rules implementation).
    """
    states = trace(tokens, config)
    events: list[RuleEvent] = []
    for item, since_keyframe in traced_ticks(parse(tokens), len(states)):
        before, after = states[item.number - 1], states[item.number]
        p = item.positions
        ctx = (item.number, before.length, since_keyframe)

        def add(rule: str, positions: list[int], body: tuple[Cell, ...] | None = None, from_tail: int | None = None) -> None:
            events.append(RuleEvent(rule, positions, *ctx, body=body, from_tail=from_tail))  # noqa: B023 (used at once)

        if item.outcome == "EAT":
            add("eat_when_food", [p["outcome"]])
        if "cell" in p:  # head-first: the cell right after the input (a DIE_SELF's included)
            add("move_follows_input", [p["cell"], p["cell"] + 1])
        elif "move" in p:
            add("move_follows_input", [p["move"] - 1, p["move"], p["move"] + 1])
        if "free" in p:
            add("tail_freed", [p["free"] - 1, p["free"], p["free"] + 1])
        if "sense" in p:
            beside = tail_distance_beside(before)
            add("body_sensed", [p["sense"]], from_tail=beside)
            if set(item.sense or ()) - {before.direction.opposite}:
                add("body_sensed_beside", [p["sense"]], from_tail=beside)
        if "grow" in p:
            add("grow_after_eat", [p["grow"], p["grow"] + 1])
            add("score_increments", [p["score"] - 1, p["score"]])
        if "spawn" in p:
            listed = list(range(p["listed"], p["spawn"] - 1)) if "listed" in p else []
            add("spawn_on_empty", [p["spawn"], *listed], after.body)
        if "listed" in p:
            add("body_listed", list(range(p["listed"], p["spawn"] - 1)))
            cells = len(item.listed or ())
            for k in range(cells):
                add("body_listed_cell", [p["listed"] + 2 * k, p["listed"] + 2 * k + 1], from_tail=cells - 1 - k)
        if "column" in p:
            add("column_sensed", list(range(p["column"], p["spawn_y"])))
            for row, on_body in enumerate(item.column or ()):
                if on_body:
                    add("column_sensed_body", [p["column"] + row])
        if item.outcome == "DIE_WALL":
            add("wall_death", [p["outcome"]])
        if item.outcome == "DIE_SELF":
            entered = resolve(before, config, item.input)[2]  # the body cell the head runs into
            add(
                "self_death",
                [p["sense"], p["outcome"]] if "sense" in p else [p["outcome"]],
                from_tail=tail_distance_beside(before, entered),
            )
        if item.end_event == "TIMEOUT":
            add("timeout_at_limit", [p["end"]])
    return events


@dataclass
class _Scores(Scores):
    occupied: list[float] = field(default_factory=list)  # spawn_on_empty: mass on cells under the snake
    share: list[float] = field(default_factory=list)  # spawn_on_empty: of the mass on cells, the share on empty ones
    blind: list[float] = field(default_factory=list)  # spawn_on_empty: fraction of cells that are empty
    column: list[float] = field(default_factory=list)  # spawn_on_empty, spawn-column design: P(a correct column)
    listed: list[float] = field(default_factory=list)  # spawn_on_empty, body-list design: P(the true list)
    places: dict[str, list[float]] = field(default_factory=dict)  # spawn_on_empty: per body cell, its mass / an empty cell's

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        if self.occupied:
            out["occupied_mass"] = mean(self.occupied)
            # Of the mass on cells, the share on empty ones, against the empty fraction that a model blind
            # to the snake's body would get: only a share above it says the model keeps food off the body.
            out["empty_share"] = mean(self.share)
            out["empty_fraction"] = mean(self.blind)
        if self.column:
            out["column_mass"] = mean(self.column)
        if self.listed:
            out["list_mass"] = mean(self.listed)
        if self.places:
            out["body_places"] = {p: {"cells": len(v), "relative_mass": mean(v)} for p in BODY_PLACES if (v := self.places.get(p))}
        return out


# Where on the body a spawn's mass lands: the head (the cell just eaten), the two cells before the tail, the tail (which
# stays put on a growth tick) and the body between. Mass near the tail says the model misjudges where the body ends (the
# count back LEN ticks); mass spread evenly says it does not see the body at all.
BODY_PLACES = ("head", "body", "before the tail", "tail")


def body_place(index: int, length: int) -> str:
    """The place of body cell `index` (0 = head) in a body of `length` cells."""
    if index == 0:
        return "head"
    if index == length - 1:
        return "tail"
    return "before the tail" if index >= length - 3 else "body"


@dataclass
class _Spawn:
    """One FOOD_SPAWN scored: the mass on empty and on occupied cells, greedy decoding's cell empty, the share of the
    mass on cells given the true column words that is on empty ones, the blind guess's empty fraction, and
    (spawn-column design) the probability of a correct column after any X, or (body-list design) of the true list."""

    empty: float
    occupied: float
    hit: float
    share: float
    blind: float
    column: float | None
    places: dict[str, list[float]]  # per body cell, its mass relative to an empty cell's mean (1 = blind to it)
    listed: float | None = None


def _spawn_scores(
    model: GameGPT,
    ids: Sequence[int],
    logp: torch.Tensor,
    spawns: list[RuleEvent],
    tokenizer: GameTokenizer,
    config: SnakeConfig,
    column: bool = False,
) -> list[_Spawn]:
    """Each FOOD_SPAWN's masses: P(X = x) · P(column x's true words | x) · P(Y = y | x, words) for every cell.

    Without the spawn-column design there are no words (their factor is 1): grammar v1's P(X) · P(Y | X). In the
    body-list design every cell's mass is also multiplied by P(the true list before FOOD_SPAWN), teacher forced.
    """
    x_ids = [tokenizer.ids[f"X{x}"] for x in range(config.width)]
    y_ids = [tokenizer.ids[f"Y{y}"] for y in range(config.height)]
    words = [tokenizer.ids[w] for w in COLUMN_WORDS] if column else []  # grammar v1's vocabulary has none

    def candidates(e: RuleEvent) -> list[list[int]]:
        """Per x: X, then (spawn-column design) column x's true words for the grown body."""
        body = e.body or ()
        return [[x_ids[x], *(words[o] for o in (column_occupancy(body, x, config) if column else ()))] for x in range(config.width)]

    seqs = [candidates(e) for e in spawns]
    points = [e.positions[0] for e in spawns]
    out = []
    for e, seq, branch in zip(spawns, seqs, branch_sequences(model, ids, points, seqs)):
        seq = torch.tensor(seq)
        p_x = logp[e.positions[0] - 1, x_ids].exp()  # [W]
        said = branch[:, :-1].gather(2, seq[:, 1:, None])[..., 0]  # [W, H]: log P(word j | X = x, words before it)
        p_words = said.sum(1).exp()  # [W]: P(column x's true words | X = x); 1 without them
        greedy = (branch[:, :-1].argmax(2) == seq[:, 1:]).all(1)  # [W]: the argmax writes column x's true words
        p_y = branch[:, -1, y_ids].exp()  # [W, H]: P(Y = y | X = x, the words)
        listed = e.positions[1:]  # the body-list design's cells before FOOD_SPAWN: one factor for every cell
        p_list, list_hit = 1.0, True
        if listed:
            pos = torch.tensor(listed)
            target = torch.tensor([ids[i] for i in listed])
            p_list = float(logp[pos - 1].gather(1, target[:, None]).sum().exp())
            list_hit = bool((logp[pos - 1].argmax(1) == target).all())
        cell = (p_x * p_words)[:, None] * p_y * p_list
        given = p_x[:, None] * p_y  # the words teacher forced: the row chosen once a correct column is written
        occupied = torch.zeros(config.width, config.height, dtype=torch.bool)
        for x, y in e.occupied or ():
            occupied[x, y] = True
        best_x = int(p_x.argmax())
        hit = list_hit and bool(greedy[best_x]) and (best_x, int(p_y[best_x].argmax())) not in (e.occupied or ())
        empty, full = float(given[~occupied].sum()), float(given[occupied].sum())
        share = empty / (empty + full) if empty + full > 0 else float("nan")
        empty_fraction = 1 - len(e.occupied or ()) / config.cells
        mass = float((p_x * p_words).sum()) if column else None
        places: dict[str, list[float]] = {}
        empty_cells = int((~occupied).sum())
        if empty_cells and empty > 0:  # each body cell's mass against the mean empty cell's (the words teacher forced)
            body = e.body or ()
            for i, (x, y) in enumerate(body):
                places.setdefault(body_place(i, len(body)), []).append(float(given[x, y]) * empty_cells / empty)
        out.append(
            _Spawn(
                float(cell[~occupied].sum()),
                float(cell[occupied].sum()),
                float(hit),
                share,
                empty_fraction,
                mass,
                places,
                p_list if listed else None,
            )
        )
    return out


def rule_emergence(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: SnakeConfig,
    *,
    spawn: bool = True,
    max_spawns_per_episode: int | None = None,
    batch_size: int = 16,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Teacher-forced probability and argmax accuracy of every rule's mandated continuation, split by context.

    Returns {"episodes", "rules": {rule: {count, mean_prob, accuracy, by: {context: {bucket: {...}}}}}}.
    A rule with no events has count 0 (and NaN means): the sample count says how far to trust each cell.
    """
    tally = RuleTally(RULES, CONTEXTS, _Scores)
    all_events = [rule_events(t, config) for t in tokens]
    for ids, toks, events, out in zip(counted(episodes, progress), tokens, all_events, iter_outputs(model, episodes, (), batch_size)):
        ids = [int(t) for t in ids]
        target = torch.tensor(ids)
        logp = out.logp
        spawns = [e for e in events if e.rule == "spawn_on_empty"]
        if max_spawns_per_episode is not None:
            spawns = spawns[:max_spawns_per_episode]
        column = uses_spawn_column(toks)
        spawn_results = (
            dict(zip(map(id, spawns), _spawn_scores(model, ids, logp, spawns, tokenizer, config, column))) if spawn and spawns else {}
        )
        for e in events:
            found: _Spawn | None = None
            if e.rule == "spawn_on_empty":
                if id(e) not in spawn_results:
                    continue
                found = spawn_results[id(e)]
                prob, hit = found.empty, found.hit
            else:
                prob, hit = teacher_forced(logp, target, e.positions)
            for s in tally.cells(e.rule, e.context()):
                s.add(prob, hit)
                if found is not None:
                    s.occupied.append(found.occupied)
                    s.share.append(found.share)
                    s.blind.append(found.blind)
                    if found.column is not None:
                        s.column.append(found.column)
                    if found.listed is not None:
                        s.listed.append(found.listed)
                    for place, values in found.places.items():
                        s.places.setdefault(place, []).extend(values)
    # A design's own rule is left out when no episode is written in it (grammar v1 writes no FREE, no SENSE).
    return tally.section(len(episodes), keep=lambda r: r not in DESIGN_RULES or any(DESIGN_RULES[r](t) for t in tokens))


# ---------------------------------------------------------------- counterfactual probes


def _outcome(state: SnakeState, config: SnakeConfig, action: Direction) -> str:
    return resolve(state, config, action)[1].value


def _before_outcome(state: SnakeState, config: SnakeConfig, action: Direction, design: str) -> list[str]:
    """What a design writes between this input and its outcome word: `FREE Xx Yy` (tail events, where the tail
    leaves a cell), `Xx Yy` (head first: the head's cell, none on a wall death), or nothing (grammar v1)."""
    _, outcome, head = resolve(state, config, action)
    if design == "sense":
        return [sense_token(body_neighbours(state))]
    cell = freed_cell(state, outcome) if design == "tails" else None
    if design == "head_first" and outcome.value != "DIE_WALL":
        return [f"X{head[0]}", f"Y{head[1]}"]
    return [] if cell is None else [FREE, f"X{cell[0]}", f"Y{cell[1]}"]


def _design(tokens: Sequence[str]) -> str:
    return "tails" if uses_tail_events(tokens) else "sense" if uses_sense(tokens) else "head_first" if uses_head_first(tokens) else "v1"


def food_ahead_probes(tokens: Sequence[str], config: SnakeConfig, episode: int, rng: np.random.Generator) -> list[Probe]:
    """One probe per episode: a keyframe (chosen at random) with its food moved to head + direction."""
    items = list(parse(tokens))
    keyframes: list[tuple[Keyframe, int]] = [(items[0], 0)]  # type: ignore[list-item]
    keyframes += [(t.keyframe, t.number) for t in items[1:] if isinstance(t, Tick) and t.keyframe is not None]
    order = rng.permutation(len(keyframes))
    for k in order:
        kf, tick = keyframes[int(k)]
        state = kf.state(tick)
        d = state.direction
        ahead = (state.head[0] + d.delta[0], state.head[1] + d.delta[1])
        if kf.food is None or ahead == kf.food or not config.in_bounds(ahead) or ahead in state.body:
            continue
        edited_state = SnakeState(state.body, d, ahead, state.score, state.tick)
        if _outcome(edited_state, config, d) != "EAT":
            continue
        at = kf.positions["food"] + 1
        prefix = list(tokens[: kf.end])
        edited = [*prefix[:at], f"X{ahead[0]}", f"Y{ahead[1]}", *prefix[at + 2 :]]
        step = ["TICK", f"INPUT_{d.name}"]
        design = _design(tokens)
        edited_step = step + _before_outcome(edited_state, config, d, design)
        control = prefix + step + _before_outcome(state, config, d, design)
        return [Probe("food_ahead", edited + edited_step, ["EAT"], control, _outcome(state, config, d), episode, tick + 1)]
    return []


def fatal_input_probes(
    tokens: Sequence[str], config: SnakeConfig, episode: int, rng: np.random.Generator, per_episode: int = 2
) -> list[Probe]:
    """wall_ahead and body_ahead probes: real ticks whose input is replaced by a fatal (non-reversing) direction."""
    states = trace(tokens, config)
    design = _design(tokens)
    found: dict[str, list[Probe]] = {"wall_ahead": [], "body_ahead": []}
    for item in parse(tokens):
        if not isinstance(item, Tick) or item.number >= len(states):
            continue
        before = states[item.number - 1]
        control = list(tokens[: item.positions["outcome"]])  # up to the outcome word: TICK INPUT_d [FREE Xx Yy | Xx Yy]
        control_outcome = _outcome(before, config, item.input)
        for d in legal_directions(before.direction):
            if d == item.input:
                continue
            outcome = _outcome(before, config, d)
            kind = {"DIE_WALL": "wall_ahead", "DIE_SELF": "body_ahead"}.get(outcome)
            if kind is not None:
                edited = [*tokens[: item.start], "TICK", f"INPUT_{d.name}", *_before_outcome(before, config, d, design)]
                found[kind].append(Probe(kind, edited, [outcome], control, control_outcome, episode, item.number))
    out = []
    for probes in found.values():
        if probes:
            pick = rng.choice(len(probes), size=min(per_episode, len(probes)), replace=False)
            out += [probes[int(i)] for i in sorted(pick)]
    return out


def make_probes(tokens: Sequence[Sequence[str]], config: SnakeConfig, *, seed: int = 0, per_episode: int = 2) -> list[Probe]:
    """food_ahead, wall_ahead and body_ahead probes from real episodes (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    probes: list[Probe] = []
    for e, toks in enumerate(tokens):
        probes += food_ahead_probes(toks, config, e, rng)
        probes += fatal_input_probes(toks, config, e, rng, per_episode)
    return probes


def _probe_logprobs(
    model: GameGPT, probes: Sequence[Probe], tokenizer: GameTokenizer, tokens: Sequence[Sequence[str]]
) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, V] next-token log-probs after each edited prefix and after its control (`edited_logprobs`: the few
    tokens after a real tick's TICK are branches of one forward of the episode)."""
    episodes = [tokenizer.encode(t) for t in tokens]
    both = [(p.episode, tokenizer.encode(p.tokens)) for p in probes] + [(p.episode, tokenizer.encode(p.control)) for p in probes]
    logp = edited_logprobs(model, episodes, both)  # one call: each episode's prefix is read once for both
    return logp[: len(probes)], logp[len(probes) :]


def score_probes(model: GameGPT, probes: Sequence[Probe], tokenizer: GameTokenizer, tokens: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Per kind: count, mean P(mandated) and argmax accuracy on the edited prefixes, and the same on the controls.

    `tokens` are the episodes the probes were made from (Probe.episode indexes them).
    """
    if not probes:
        return {kind: {"count": 0, "mandated": word} for kind, word in PROBE_KINDS.items()}
    edited, control = _probe_logprobs(model, probes, tokenizer, tokens)
    out: dict[str, Any] = {}
    for kind, word in PROBE_KINDS.items():
        rows = [i for i, p in enumerate(probes) if p.kind == kind]
        if not rows:
            out[kind] = {"count": 0, "mandated": word}
            continue
        w = tokenizer.ids[word]
        r = torch.tensor(rows)
        c_ids = torch.tensor([tokenizer.ids[probes[i].control_mandated] for i in rows])
        out[kind] = {
            "count": len(rows),
            "mandated": word,
            "mean_prob": float(edited[r, w].exp().mean()),
            "accuracy": float((edited[r].argmax(1) == w).float().mean()),
            "control_mean_prob": float(control[r, w].exp().mean()),  # P(mandated word) before the edit
            "control_accuracy": float((control[r].argmax(1) == c_ids).float().mean()),  # the rules' outcome there
        }
    return out


def counterfactuals(
    model: GameGPT,
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: SnakeConfig,
    *,
    baseline: GameGPT | None = None,
    seed: int = 0,
    per_episode: int = 2,
) -> dict[str, Any]:
    """Counterfactual probes scored on the model and on an untrained baseline, plus one example of each kind."""
    probes = make_probes(tokens, config, seed=seed, per_episode=per_episode)
    return probe_section(
        model,
        probes,
        len(tokens),
        lambda m, ps: score_probes(m, ps, tokenizer, tokens),
        lambda p: {"tick": p.tick, "edited_tail": " ".join(p.tokens[-16:]), "control_tail": " ".join(p.control[-16:])},
        baseline=baseline,
        seed=seed,
    )


def tier2(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: SnakeConfig,
    *,
    seed: int = 0,
    baseline: GameGPT | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The whole tier-2 section: rule emergence (model, and an untrained model's totals) and counterfactuals."""
    keys = ("mean_prob", "accuracy", "occupied_mass", "column_mass", "list_mass")
    return tier2_section(
        rule_emergence, counterfactuals, keys, model, episodes, tokens, tokenizer, config, seed=seed, baseline=baseline, progress=progress
    )


# ---------------------------------------------------------------- report pieces


def markdown(result: dict[str, Any]) -> list[str]:
    """Markdown lines for a tier2() result."""
    em = result["emergence"]
    lines = heading(em, "spawn_on_empty: P = mass on empty cells, acc = the most likely cell is empty.")
    if "column_sensed" in em["rules"]:  # the spawn-column design's rules, and its joint spawn mass
        lines += [
            "Spawn-column design: column_sensed: P = all the words of the spawn's column, jointly; column_sensed_body: "
            "P = one OCC word (a cell of the body in that column), an event per word: the body lookup. "
            "spawn_on_empty: P = P(X = x) · P(column x's true words) · P(an empty row | x, the words), summed over x: "
            "a correct column, then an empty row; occupied mass the same with a row under the body; the share of cell mass "
            "on empty cells is P(X) · P(Y | X, the true words): the row chosen once a correct column is written; acc = "
            "greedy decoding writes a correct column and an empty row; column mass = P(a correct column after any X).",
            "",
        ]
    if "body_listed" in em["rules"]:  # the body-list design's rules, and its joint spawn mass
        lines += [
            "Body-list design: body_listed: P = all the cells listed before the spawn (the grown body behind the head), "
            "jointly; body_listed_cell: P = one listed cell's X and Y, an event per cell, split by its distance from the "
            "tail: the body lookup. spawn_on_empty: P = P(the true list) · the mass on empty cells after it; occupied mass "
            "the same on the body; the share of cell mass on empty cells is read after the true list: the exclusion once "
            "the list is right; acc = greedy decoding writes the whole list and an empty cell; list mass = P(the true list).",
            "",
        ]
    lines += rule_table(em, _note)
    lines += context_tables(em, keep_empty=True)  # from_tail splits only the body's events: its table may be empty
    lines += probe_table(result["counterfactuals"], PROBE_KINDS)
    lines += ["", "Control: the same prefix unedited; its accuracy is against the outcome the rules give there."]
    return lines


def _note(e: dict[str, Any], u: dict[str, Any]) -> str:
    """spawn_on_empty's note: the occupied mass, the share on empty cells against a guess blind to the body, and the
    masses of the spawn-column and body-list designs (the untrained model's beside them)."""
    if "occupied_mass" not in e:
        return ""
    note = (
        f"occupied mass {fmt(e['occupied_mass'])}; share of cell mass on empty cells {fmt(e['empty_share'])} "
        f"vs empty fraction {fmt(e['empty_fraction'])} (blind to the body)"
    )
    if "column_mass" in e:
        note += f"; column mass {fmt(e['column_mass'])} (untrained {fmt(u.get('column_mass'))})"
    if "list_mass" in e:
        note += f"; list mass {fmt(e['list_mass'])} (untrained {fmt(u.get('list_mass'))})"
    if "body_places" in e:
        where = ", ".join(f"{p} {fmt(v['relative_mass'])} ({v['cells']} cells)" for p, v in e["body_places"].items())
        note += f"; mass per body cell against an empty cell's (blind: 1): {where}"
    return note


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """emergence.png (P by context per rule) and counterfactuals.png; returns the file names written."""
    return plot_emergence(result, out, PROBE_KINDS)
