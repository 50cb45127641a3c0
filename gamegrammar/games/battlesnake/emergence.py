"""Tier 2: does the model know each of Battlesnake's rules, and where does that knowledge hold or fail?

Every rule event of held-out episodes (a head moved by its input, an eat when a head reaches
food, starvation at 0 health, a shorter snake's head meeting a longer one, in the smell design each
SMELL word and apart those that name food beside the head, in the sense design each SENSE word, in the hits design
each HIT and MEET, ...)
is scored under teacher forcing: the probability the model gives to the continuation the rules mandate (the
product over its tokens) and whether its argmax writes all of it. Events are split by context:
the snake's length, how many snakes are alive, the ticks since the last keyframe (the state the
model last saw in full), the tick number, the token position, and, for head-to-head meetings,
the length gap (0: equal lengths, both die).

"Food spawns on open cells" is not a single token: the cell is random. What the rule demands is
that the model's mass over cells sits on open ones (not a snake, not food, not next to a head), so
for each SPAWN the model's P(X) is combined with P(Y | X = x) for every x (a branch of the KV
cache per x) into the mass on open cells.

Counterfactual probes edit real prefixes so that a rule newly applies, and ask whether the
prediction moves as the rule demands:
- food_ahead: a keyframe gets a food on the cell the first snake's next (real) input takes its
  head to: after `TICK Sk d [FREE ..] Xx Yy`, EAT is mandated;
- wall_ahead: at a real tick where a head is on the edge, its input is replaced by the move off
  the board: OUT is mandated;
- head_to_head: at a real tick where two heads are two cells apart, their inputs are replaced by
  moves onto one cell between them (the others' moves as written): the shorter snake's death
  `Sk DIE_HEAD` is mandated (both, equal lengths: the lower index first).
Each probe has a control, the real prefix at the same place, unedited. The outcome is always the
rules' (`rules.advance`); no rule is re-implemented here. States come from `trace`.

This is Battlesnake's tier 2, reached through `GAME.emergence()`; `gamegrammar.interpret.analysis`
runs it beside the game-agnostic tier 3 and probes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from gamegrammar.core.errors import GameGrammarError
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
from gamegrammar.games.battlesnake.grammar import (
    DIE_TOKEN,
    INPUT_TOKEN,
    SENSE_OF,
    SMELL_OF,
    SMELL_TOKENS,
    BattlesnakeCodec,
    EpisodeEncoder,
    Keyframe,
    Tick,
    cell_of_word,
    food_beside,
    keyframe_tokens,
    parse,
)
from gamegrammar.games.battlesnake.rules import (
    HEAD_COLLISION,
    OUT_OF_HEALTH,
    WALL_COLLISION,
    BattlesnakeConfig,
    BattlesnakeState,
    Cell,
    Move,
    advance,
    neighbours,
    snake_id,
    sorted_food,
    spawn_cells,
    step,
    tick_events,
)
from gamegrammar.games.battlesnake.trace import trace
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import branch_logprobs, edited_logprobs, iter_outputs

RULES = [
    "move_follows_input",
    "tail_freed",
    "food_smelled",
    "food_smelled_beside",
    "body_sensed",
    "collision_marked",
    "eat_when_head_on_food",
    "grow_after_eat",
    "health_reset",
    "starvation",
    "wall_collision",
    "self_collision",
    "body_collision",
    "head_to_head_death",
    "spawn_on_open",
    "end_when_decided",
    "timeout_at_limit",
]
CAUSE_RULE = {
    OUT_OF_HEALTH: "starvation",
    WALL_COLLISION: "wall_collision",
    "snake-self-collision": "self_collision",
    "snake-collision": "body_collision",
}
# Bucket edges (left-closed): a value v falls in [edges[i], edges[i+1]); the last bucket is open.
CONTEXTS: dict[str, list[int]] = {
    "length": [3, 4, 6, 8, 12, 16, 24],
    "snakes_alive": [1, 2, 3, 4, 5, 7],
    "length_gap": [0, 1, 2, 4, 8],  # head_to_head_death only: the other snake's length minus this one's
    "ticks_since_keyframe": [1, 5, 10, 25, 50, 100, 200],
    "tick": [1, 5, 10, 25, 50, 100, 200],
    "token_position": [0, 128, 256, 512, 1024, 2048],
}
PROBE_KINDS = {"food_ahead": "EAT", "wall_ahead": "OUT", "head_to_head": "DIE_HEAD"}


@dataclass
class RuleEvent(rule_emergence.RuleEvent):
    """A rule event of Battlesnake (`length` is the moving snake's, or the longest live snake's for game events). For
    spawn_on_open, `positions` holds the X of the SPAWN cell and `open_cells` the cells open to it then. `gap` is set
    for head_to_head_death only."""

    alive: int = 0  # snakes alive before the tick
    gap: int | None = None
    open_cells: frozenset[Cell] | None = None

    def context(self) -> dict[str, int]:
        out = {**super().context(), "snakes_alive": self.alive}
        if self.gap is not None:
            out["length_gap"] = self.gap
        return out


def _inputs(state: BattlesnakeState, tick: Tick) -> list[Move | None]:
    inputs: list[Move | None] = [None] * len(state.snakes)
    for m in tick.moves:
        inputs[m.snake] = m.input
    return inputs


def rule_events(tokens: Sequence[str], config: BattlesnakeConfig) -> list[RuleEvent]:
    """Every rule event of a (valid, full-salience) episode, with positions from `grammar.parse`.

    The state before each tick comes from `trace`; what the turn does, from `rules.advance`.
    """
    states = trace(tokens, config)
    events: list[RuleEvent] = []
    for item, since_keyframe in traced_ticks(parse(tokens), len(states)):
        before = states[item.number - 1]
        moved, turn = advance(before, _inputs(before, item), config)
        longest = max(before.snakes[k].length for k in before.alive)
        base = {"tick": item.number, "alive": len(before.alive), "ticks_since_keyframe": since_keyframe}

        def add(rule: str, positions: list[int], length: int = longest, **extra: Any) -> None:
            events.append(RuleEvent(rule, positions, length=length, **base, **extra))  # noqa: B023 (used at once)

        for m in item.moves:
            p, length = m.positions, before.snakes[m.snake].length
            add("move_follows_input", [p["head"]] if m.head is None else [p["head"], p["head"] + 1], length)
            if "free" in p:
                add("tail_freed", [p["free"] - 1, p["free"], p["free"] + 1], length)
            if "smell" in p:  # the smell design: every word, and apart the ones that name food beside the head
                add("food_smelled", [p["smell"]], length)
                if m.smell:
                    add("food_smelled_beside", [p["smell"]], length)
            if "sense" in p:  # the sense design: the bodies beside the head
                add("body_sensed", [p["sense"]], length)
            marks = [p[word] for word in ("hit", "meet") if word in p]
            if marks:  # the hits design: each HIT and MEET written (those the rules leave out are no event)
                add("collision_marked", marks, length)
            if m.eat:
                add("eat_when_head_on_food", [p["after"]], length)
                add("grow_after_eat", [p["length"]], length)
                add("health_reset", [p["health"]], length)
        met = _head_meetings(moved, turn.movers, turn.eliminated)
        for d in item.deaths:
            length = before.snakes[d.snake].length
            if d.snake in met:
                add("head_to_head_death", [d.at, d.at + 1], length, gap=met[d.snake])
            elif d.cause in CAUSE_RULE:
                add(CAUSE_RULE[d.cause], [d.at, d.at + 1], length)
        open_cells = set(spawn_cells(moved, config))
        for cell, at in zip(item.spawns, item.spawn_at):
            add("spawn_on_open", [at], open_cells=frozenset(open_cells))
            open_cells.discard(cell)
        if item.end_event == "TIMEOUT":
            add("timeout_at_limit", [item.positions["end"]])
        elif item.end_event is not None:
            add("end_when_decided", [item.positions["end"]])
    return events


def _head_meetings(moved: BattlesnakeState, movers: Sequence[int], eliminated: dict[int, str]) -> dict[int, int]:
    """Snakes whose head met the head of one at least as long (both past the first elimination phase), with the
    length gap: the event "a shorter snake's head meets a longer one" (gap 0: equal lengths)."""
    standing = [k for k in movers if eliminated.get(k) not in (OUT_OF_HEALTH, WALL_COLLISION)]
    out: dict[int, int] = {}
    for k in standing:
        s = moved.snakes[k]
        gaps = [moved.snakes[j].length - s.length for j in standing if j != k and moved.snakes[j].head == s.head]
        gaps = [g for g in gaps if g >= 0]
        if gaps:
            out[k] = min(gaps)
    return out


@dataclass
class _Scores(Scores):
    blind: list[float] = field(default_factory=list)  # spawn_on_open: fraction of the board's cells that are open
    share: list[float] = field(default_factory=list)  # spawn_on_open: of the mass on cells, the share on open ones

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        if self.blind:
            # The share of the cell mass on open cells, against the open fraction that a model blind to the board
            # would get: only a share above it says the model keeps food off the snakes and away from heads.
            out["open_share"] = mean(self.share)
            out["open_fraction"] = mean(self.blind)
        return out


def _spawn_scores(
    model: GameGPT, ids: Sequence[int], logp: torch.Tensor, spawns: list[RuleEvent], tokenizer: GameTokenizer, config: BattlesnakeConfig
) -> list[tuple[float, float, float]]:
    """(mass on open cells, share of the cell mass on open cells, argmax cell open, open fraction) of each SPAWN."""
    x_ids = [tokenizer.ids[f"X{x}"] for x in range(config.width)]
    y_ids = [tokenizer.ids[f"Y{y}"] for y in range(config.height)]
    branches = branch_logprobs(model, ids, [e.positions[0] for e in spawns], x_ids)
    out = []
    for e, branch in zip(spawns, branches):
        p_x = logp[e.positions[0] - 1, x_ids].exp()  # [W]
        p_y = branch[:, y_ids].exp()  # [W, H]: P(Y = y | X = x)
        cell = p_x[:, None] * p_y
        allowed = torch.zeros(config.width, config.height, dtype=torch.bool)
        for x, y in e.open_cells or ():
            allowed[x, y] = True
        best_x = int(p_x.argmax())
        best = (best_x, int(p_y[best_x].argmax()))
        total = float(cell.sum())
        share = float(cell[allowed].sum()) / total if total > 0 else float("nan")
        out.append((float(cell[allowed].sum()), share, float(best in (e.open_cells or ())), len(e.open_cells or ()) / config.cells))
    return out


def rule_emergence(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: BattlesnakeConfig,
    *,
    spawn: bool = True,
    max_spawns_per_episode: int | None = 8,
    batch_size: int = 16,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Teacher-forced probability and argmax accuracy of every rule's mandated continuation, split by context.

    Returns {"episodes", "rules": {rule: {count, mean_prob, accuracy, by: {context: {bucket: {...}}}}}, "contexts"}.
    A rule with no events has count 0 (and NaN means): the sample count says how far to trust each cell.
    """
    tally = RuleTally(RULES, CONTEXTS, _Scores)
    all_events = [rule_events(t, config) for t in tokens]
    for ids, events, out in zip(counted(episodes, progress), all_events, iter_outputs(model, episodes, (), batch_size)):
        ids = [int(t) for t in ids]
        target = torch.tensor(ids)
        logp = out.logp
        spawns = [e for e in events if e.rule == "spawn_on_open"][:max_spawns_per_episode]
        spawn_results = dict(zip(map(id, spawns), _spawn_scores(model, ids, logp, spawns, tokenizer, config))) if spawn and spawns else {}
        for e in events:
            blind = share = None
            if e.rule == "spawn_on_open":
                if id(e) not in spawn_results:
                    continue
                prob, share, hit, blind = spawn_results[id(e)]
            else:
                prob, hit = teacher_forced(logp, target, e.positions)
            for s in tally.cells(e.rule, e.context()):
                s.add(prob, hit)
                if blind is not None:
                    s.blind.append(blind)
                    s.share.append(share)
    return tally.section(len(episodes))


# ---------------------------------------------------------------- counterfactual probes


def _tails(tokens: Sequence[str]) -> bool:
    return "FREE" in tokens


def _smell(tokens: Sequence[str]) -> bool:
    return any(t in SMELL_OF for t in tokens)


def _sense(tokens: Sequence[str]) -> bool:
    return any(t in SENSE_OF for t in tokens)


def _hits(tokens: Sequence[str]) -> bool:
    return "HIT" in tokens or "MEET" in tokens


def food_ahead_probes(tokens: Sequence[str], config: BattlesnakeConfig, episode: int, rng: np.random.Generator) -> list[Probe]:
    """One probe per episode: a keyframe (a later one when there is one) with a food added where the first snake's
    next input takes its head."""
    items = list(parse(tokens))
    states = trace(tokens, config)
    frames: list[tuple[Keyframe, int]] = [(items[0], 0)]  # type: ignore[list-item]
    frames += [(t.keyframe, t.number) for t in items[1:] if isinstance(t, Tick) and t.keyframe is not None]
    following = {t.number: t for t in items[1:] if isinstance(t, Tick)}
    order = [int(k) for k in rng.permutation(len(frames))]
    order.sort(key=lambda k: frames[k][1] == 0)  # later keyframes first: a start with extra food is no start
    for k in order:
        kf, number = frames[k]
        tick = following.get(number + 1)
        if tick is None or number + 1 >= len(states):
            continue
        state, first = states[number], tick.moves[0]
        cell = step(state.snakes[first.snake].head, first.input)
        blocked = {c for s in state.snakes if s.alive for c in s.body}
        if first.head != cell or first.eat or cell in state.food or cell in blocked or not config.in_bounds(cell):
            continue
        edited_state = replace(state, food=sorted_food((*state.food, cell)))
        _, turn = advance(edited_state, _inputs(state, tick), config)
        if not turn.ate[0]:
            continue
        shown = keyframe_tokens(edited_state)
        head_end = first.positions["head"] + 2
        edited = [*tokens[: kf.start], *shown, *tokens[kf.end : head_end]]
        if "smell" in first.positions:  # the smell design: the edited board's word, the food now beside the head
            at = first.positions["smell"] - kf.end + kf.start + len(shown)
            edited[at] = SMELL_TOKENS[food_beside(edited_state, first.snake)]
        control = list(tokens[:head_end])
        return [Probe("food_ahead", edited, ["EAT"], control, tokens[head_end], episode, number + 1)]
    return []


def wall_ahead_probes(
    tokens: Sequence[str], config: BattlesnakeConfig, episode: int, rng: np.random.Generator, per_episode: int = 2
) -> list[Probe]:
    """Real moves of heads on the edge, the input replaced by the move off the board."""
    found = []
    states = trace(tokens, config)
    for item in parse(tokens):
        if not isinstance(item, Tick) or item.number >= len(states):
            continue
        before = states[item.number - 1]
        for m in item.moves:
            head = before.snakes[m.snake].head
            for move in Move:
                if move == m.input or config.in_bounds(step(head, move)):
                    continue
                p = m.positions
                kept = [t for t in tokens[p["input"] + 1 : p["head"]] if t != "HIT"]  # SMELL, SENSE, FREE: off the board no HIT
                edited = [*tokens[: p["input"]], INPUT_TOKEN[move], *kept]
                control = list(tokens[: p["head"]])
                found.append(Probe("wall_ahead", edited, ["OUT"], control, tokens[p["head"]], episode, item.number))
    if not found:
        return []
    pick = rng.choice(len(found), size=min(per_episode, len(found)), replace=False)
    return [found[int(i)] for i in sorted(pick)]


def head_to_head_probes(
    tokens: Sequence[str],
    config: BattlesnakeConfig,
    episode: int,
    rng: np.random.Generator,
    per_episode: int = 2,
    hits: bool | None = None,
) -> list[Probe]:
    """Real ticks where two heads are two cells apart, their inputs replaced by moves onto one cell between them.

    `hits`: whether the corpus is in the hits design (None: read off this episode, which shows it only where one of
    its moves made a collision; `make_probes` reads it off all the episodes)."""
    found = []
    states = trace(tokens, config)
    hits = _hits(tokens) if hits is None else hits
    codec = BattlesnakeCodec(tails=_tails(tokens), smell=_smell(tokens), sense=_sense(tokens), hits=hits)
    for item in parse(tokens):
        if not isinstance(item, Tick) or item.number >= len(states) or item.end_event is not None:
            continue
        before = states[item.number - 1]
        inputs = _inputs(before, item)
        for k, j in itertools.combinations(before.alive, 2):
            a, b = before.snakes[k], before.snakes[j]
            for cell in sorted(set(neighbours(a.head)) & set(neighbours(b.head))):
                edited_inputs = list(inputs)
                edited_inputs[k] = next(m for m in Move if step(a.head, m) == cell)
                edited_inputs[j] = next(m for m in Move if step(b.head, m) == cell)
                moved, turn = advance(before, edited_inputs, config)
                deaths = list(turn.eliminated.items())
                if not deaths or deaths[0][1] != HEAD_COLLISION or deaths[0][0] not in (k, j):
                    continue
                encoder = EpisodeEncoder(codec)  # no keyframes: the tick's tokens only
                encoder.state = before
                events = tick_events(edited_inputs, moved, turn, (), None, config)
                encoder.tick([e for e in events if e.type in ("TICK", "INPUT", "MOVE", "OUT", "EAT")], moved, False)
                moves = encoder.tokens
                loser = deaths[0][0]
                edited = [*tokens[: item.start], *moves]
                at = item.positions["deaths"]
                found.append(
                    Probe(
                        "head_to_head",
                        edited,
                        [snake_id(loser), DIE_TOKEN[HEAD_COLLISION]],
                        list(tokens[:at]),
                        tokens[at],
                        episode,
                        item.number,
                    )
                )
    if not found:
        return []
    pick = rng.choice(len(found), size=min(per_episode, len(found)), replace=False)
    return [found[int(i)] for i in sorted(pick)]


def make_probes(tokens: Sequence[Sequence[str]], config: BattlesnakeConfig, *, seed: int = 0, per_episode: int = 2) -> list[Probe]:
    """food_ahead, wall_ahead and head_to_head probes from real episodes (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    probes: list[Probe] = []
    hits = any(_hits(toks) for toks in tokens)  # one design a corpus: an episode without a collision shows no HIT or MEET
    for e, toks in enumerate(tokens):
        probes += food_ahead_probes(toks, config, e, rng)
        probes += wall_ahead_probes(toks, config, e, rng, per_episode)
        probes += head_to_head_probes(toks, config, e, rng, per_episode, hits)
    return probes


def score_probes(model: GameGPT, probes: Sequence[Probe], tokenizer: GameTokenizer, tokens: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Per kind: count, mean P(mandated continuation) and argmax accuracy on the edited prefixes; on the controls,
    P(the mandated first token) (what the edit should raise) and the argmax accuracy against the real next token.

    `tokens` are the episodes the probes were made from (Probe.episode indexes them): a prefix that is its episode
    up to a point and then a few edited tokens is a branch of one forward of the episode (`edited_logprobs`)."""
    episodes = [tokenizer.encode(t) for t in tokens]
    prefixes = [tokenizer.encode(p.tokens) for p in probes]
    twos = [i for i, p in enumerate(probes) if len(p.mandated) > 1]  # the second token, given the first
    asked = [(p.episode, ids) for p, ids in zip(probes, prefixes)] + [(p.episode, tokenizer.encode(p.control)) for p in probes]
    asked += [(probes[i].episode, [*prefixes[i], tokenizer.ids[probes[i].mandated[0]]]) for i in twos]
    found = edited_logprobs(model, episodes, asked)  # one call: each episode is read once for every probe
    n = len(probes)
    seconds = dict(zip(twos, found[2 * n :]))
    out: dict[str, Any] = {}
    for kind, word in PROBE_KINDS.items():
        at = [i for i, p in enumerate(probes) if p.kind == kind]
        rows = [probes[i] for i in at]
        if not rows:
            out[kind] = {"count": 0, "mandated": word}
            continue
        logp, control = found[at], found[[n + i for i in at]]
        first = torch.tensor([tokenizer.ids[p.mandated[0]] for p in rows])
        prob = logp.gather(1, first[:, None])[:, 0]
        hit = logp.argmax(1) == first
        if all(i in seconds for i in at):
            second = torch.stack([seconds[i] for i in at])
            want = torch.tensor([tokenizer.ids[p.mandated[1]] for p in rows])
            prob = prob + second.gather(1, want[:, None])[:, 0]
            hit = hit & (second.argmax(1) == want)
        real = torch.tensor([tokenizer.ids[p.control_mandated] for p in rows])
        out[kind] = {
            "count": len(rows),
            "mandated": word,
            "mean_prob": float(prob.exp().mean()),
            "accuracy": float(hit.float().mean()),
            "control_mean_prob": float(control.gather(1, first[:, None]).exp().mean()),  # P(mandated first token) unedited
            "control_accuracy": float((control.argmax(1) == real).float().mean()),  # against what the episode wrote
        }
    return out


def counterfactuals(
    model: GameGPT,
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: BattlesnakeConfig,
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
        lambda p: {"tick": p.tick, "edited_tail": " ".join(p.tokens[-16:]), "mandated": " ".join(p.mandated)},
        baseline=baseline,
        seed=seed,
    )


def tier2(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: BattlesnakeConfig,
    *,
    seed: int = 0,
    baseline: GameGPT | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The whole tier-2 section: rule emergence (model, and an untrained model's totals) and counterfactuals."""
    if any(cell_of_word(t) for seq in tokens[:1] for t in seq):
        raise GameGrammarError(
            "Battlesnake's tier 2 reads and edits the pair spelling (Xx Yy); a corpus of the cells design (--cells) is "
            "not scored by it (analyze it with --tiers none --probes)"
        )
    keys = ("mean_prob", "accuracy")
    return tier2_section(
        rule_emergence, counterfactuals, keys, model, episodes, tokens, tokenizer, config, seed=seed, baseline=baseline, progress=progress
    )


# ---------------------------------------------------------------- report pieces


def markdown(result: dict[str, Any]) -> list[str]:
    """Markdown lines for a tier2() result."""
    em = result["emergence"]
    lines = heading(
        em,
        "head_to_head_death: a snake's head met the head of one at least as long (by length gap below: 0 = equal, both die). "
        "spawn_on_open: P = mass on cells open to food, acc = the most likely cell is open.",
    )
    lines += rule_table(em, _note)
    lines += context_tables(em)
    lines += probe_table(result["counterfactuals"], PROBE_KINDS)
    lines += [
        "",
        "head_to_head mandates the shorter snake's `Sk DIE_HEAD`. Control: the real prefix at the same place; its P is of "
        "the mandated first token there, its accuracy against the token the episode wrote.",
    ]
    return lines


def _note(e: dict[str, Any], u: dict[str, Any]) -> str:
    """spawn_on_open's note: how much of the cell mass is on open cells, against a guess blind to the board."""
    if "open_fraction" not in e:
        return ""
    return f"share of cell mass on open cells {fmt(e['open_share'])} vs open fraction {fmt(e['open_fraction'])} (blind to the board)"


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """emergence.png (P by context per rule) and counterfactuals.png; returns the file names written."""
    return plot_emergence(result, out, PROBE_KINDS)
