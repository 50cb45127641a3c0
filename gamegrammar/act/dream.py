"""The model as the simulator: in a dream an agent chooses the inputs and the model writes every outcome.

A dream starts from a real start: BOS, the first keyframe and the first tick token of the episode the game's
engine plays for (seed, episode), so that it compares with that real game. Then, tick by tick, the agent sees
the dreamed state, chooses its inputs (every player's: `GameSpec.input_policy`), and they are forced into the
sequence at the input slots, the places where the grammar's automaton allows input tokens only; the model
writes every other token, under the grammar mask unless told otherwise. Whenever a tick is whole (the next
tick token, or EOS, is written) the game reads it from the state before it (`GameSpec.read_tick`): the state
after it is what the agent sees next, and the rules it breaks are the tick's agreement with the real rules.

A dream stops (`Dream.stop`) at
- "end": the model wrote EOS;
- "broken": the rules cannot follow the dreamed state any further (a tick they could not produce from the
  state before it), so the agent has no state to act on;
- "grammar": a token the grammar does not allow (only without the grammar mask);
- "length": the token cap; "ticks": the tick cap.

The measures (`measure`) are game-agnostic:
- per-tick agreement: a dreamed tick agrees when the real rules, from the dreamed state before it and with
  the same inputs, could have written it: every rule-determined token as the rules write it, and every random
  choice (a food spawn) one the rules allow: the strict evaluator's rules, one tick at a time;
- the horizon: ticks until the first broken rule, as a Kaplan-Meier survival curve (a dream that ends or is
  cut off without one is censored there);
- fidelity: the agent's length, score and end distributions in its dreams against the same agent's in the
  real game from the same starts;
- the strict evaluator's verdict on whole dreams.
Novelty (the share of dreamed states that never occur in the training corpus) is `novelty_report`.

`dream` takes any `InputPolicy` per dream, so an agent that is itself a model can choose the inputs as well.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, EpisodeRecord, GameSpec, InputPolicy
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.evaluation.fidelity import TICK_BIN, compare_distributions, end_labels
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.evaluation.survival import kaplan_meier
from gamegrammar.evaluation.validity import summarize, validate_many
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.sampling import SamplingConfig, next_tokens

STOPS = ("end", "broken", "grammar", "length", "ticks")


@dataclass(frozen=True)
class Start:
    """Where a dream starts: the (seed, episode) of a real game and its first tokens (BOS, keyframe, tick token)."""

    seed: int
    episode: int
    tokens: list[str]


@dataclass
class Dream:
    """One dream: its tokens, where its inputs were forced, and each whole tick's agreement with the rules."""

    seed: int
    episode: int
    tokens: list[str]
    prompt: int  # tokens of the real start
    inputs: list[int] = field(default_factory=list)  # positions of the forced inputs
    ticks: list[tuple[str, ...]] = field(default_factory=list)  # each whole tick's broken rules; () = the rules agree
    states: list[Any] = field(default_factory=list)  # the dreamed states the agent acted on, tick 0 first
    stop: str = ""  # why it stopped: one of STOPS

    @property
    def horizon(self) -> tuple[int, bool]:
        """(tick, True) of the first tick that breaks a rule, or (whole ticks, False) when none does (censored)."""
        broken = next((t for t, rules in enumerate(self.ticks, 1) if rules), None)
        return (broken, True) if broken is not None else (len(self.ticks), False)


@dataclass
class DreamStats:
    dreams: int = 0
    generated_tokens: int = 0  # written by the model (forced inputs and prompts not counted)
    forced_inputs: int = 0
    seconds: float = 0.0  # the whole loop: the model, the agents and the game's reading of every tick
    slides: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds else 0.0


# ---------------------------------------------------------------- real games and starts


def real_games(game: GameSpec, config: Any, codec: CodecConfig, agent: str, seed: int, episodes: Sequence[int]) -> list[EpisodeRecord]:
    """The agent's real games: episode e of `seed` through the game's reference engine, one per dream."""
    return [game.play_episode(config, codec, agent, seed, int(e)) for e in episodes]


def start_of(game: GameSpec, record: EpisodeRecord, seed: int, episode: int) -> Start:
    """A real game's start as a dream's prompt: its first keyframe and the first tick token."""
    prefix = game.episode_prefix(record.tokens, 0)
    if len(record.tokens) <= len(prefix) or record.tokens[len(prefix)] != game.tick_token:
        raise GameGrammarError(f"episode {episode} of seed {seed} has no tick to dream from")
    return Start(seed, episode, [*prefix, game.tick_token])


# ---------------------------------------------------------------- the dream loop


class _Row:
    """One dream being written: its token ids, grammar state, current tick and the agent's pending inputs."""

    def __init__(self, start: Start, policy: InputPolicy, prompt: list[int], state: Any, auto: tuple) -> None:
        self.prompt = prompt
        self.ids: list[int] = []
        self.auto = auto
        self.policy = policy
        self.state = state  # the dreamed state before the current tick
        self.tick_at: int | None = None  # position of the current tick's tick token
        self.queue: list[str] | None = None  # the current tick's inputs still to force (None: not chosen yet)
        self.alive = True
        self.dream = Dream(start.seed, start.episode, [], len(prompt))


class _Dreamer:
    """Shared per-call facts: the game, the tokens that matter, and the grammar's masks and input slots."""

    def __init__(self, model: GameGPT, tok: GameTokenizer, game: GameSpec, config: Any, codec: CodecConfig, constrained: bool) -> None:
        self.model, self.tok, self.game, self.config, self.codec = model, tok, game, config, codec
        self.automaton = game.automaton(config, codec)
        self.device = next(model.parameters()).device
        self.constrained = constrained
        self.tick_id = tok.ids[game.tick_token]
        self.inputs = frozenset(game.input_tokens(config))
        self._masks: dict[frozenset[str], Tensor] = {}
        self.anything = torch.ones(len(tok), dtype=torch.bool, device=self.device)  # a forced token's row: no mask
        self._slots: dict[frozenset[str], bool] = {}

    def mask(self, allowed: frozenset[str]) -> Tensor:
        m = self._masks.get(allowed)
        if m is None:
            m = torch.zeros(len(self.tok), dtype=torch.bool, device=self.device)
            m[[self.tok.ids[t] for t in allowed if t in self.tok.ids]] = True  # words of a grammar option it lacks: never
            self._masks[allowed] = m
        return m

    def input_slot(self, auto: tuple) -> bool:
        """Does the grammar want an input next (it allows input tokens and nothing else)?"""
        allowed = self.automaton.allowed(auto)
        slot = self._slots.get(allowed)
        if slot is None:
            slot = self._slots[allowed] = bool(allowed) and allowed <= self.inputs
        return slot

    def finish(self, row: _Row, stop: str, end: int | None = None) -> None:
        """Stop a row; its dream keeps its tokens up to `end` (all of them by default)."""
        row.alive = False
        row.dream.stop = stop
        row.dream.tokens = self.tok.decode(row.ids[:end])

    def read(self, row: _Row, end: int | None = None) -> Any:
        """Read the current tick (from its tick token up to `end`) from the state before it; the state after or None."""
        assert row.tick_at is not None
        reading = self.game.read_tick(row.state, self.tok.decode(row.ids[row.tick_at : end]), self.config, self.codec)
        row.dream.ticks.append(tuple(reading.broken))
        return reading.state

    def forced(self, row: _Row) -> int | None:
        """The token forced at the row's next position (a prompt token or an agent's input), or None; may stop the row."""
        n = len(row.ids)
        if n < len(row.prompt):
            return row.prompt[n]
        if not self.input_slot(row.auto):
            return None
        if row.queue is None:  # the tick's first input: the agent chooses every input of the tick on the dreamed state
            row.dream.states.append(row.state)
            row.queue = list(row.policy.inputs(row.state))
        if not row.queue:  # the grammar wants an input the dreamed state has no player for
            self.finish(row, "broken", row.tick_at)
            return None
        row.dream.inputs.append(n)
        return self.tok.ids[row.queue.pop(0)]

    def push(self, row: _Row, token: int, cap: int, max_ticks: int | None) -> None:
        """Append one token to a row: follow the grammar, read every tick that becomes whole, stop where due."""
        word = self.tok.tokens[token]
        nxt = self.automaton.step(row.auto, word)
        row.ids.append(token)
        n = len(row.ids)
        if nxt is None:
            if row.tick_at is not None:
                self.read(row)
            self.finish(row, "grammar")
            return
        row.auto = nxt
        if token == self.tick_id:
            if row.tick_at is not None:  # the tick before is whole
                row.state = self.read(row, n - 1)
                if row.state is None:
                    self.finish(row, "broken", n - 1)
                    return
            if max_ticks is not None and len(row.dream.ticks) >= max_ticks:
                self.finish(row, "ticks", n - 1)
                return
            row.tick_at, row.queue = n - 1, None
        elif token == self.tok.eos_id:
            if row.tick_at is not None:
                self.read(row)
            self.finish(row, "end")
            return
        if n >= cap:
            self.finish(row, "length")


@torch.no_grad()
def dream(
    model: GameGPT,
    tokenizer: GameTokenizer,
    game: GameSpec,
    config: Any,
    codec: CodecConfig,
    starts: Sequence[Start],
    policies: Sequence[InputPolicy],
    sampling: SamplingConfig | None = None,
    max_ticks: int | None = None,
    stats: DreamStats | None = None,
) -> list[Dream]:
    """Dream from each start with its policy (reset here with the start's seed and episode); one Dream per start.

    `sampling` gives the temperature (top-k, top-p), the token cap `max_length`, the batch size, the seed, and
    `constrained`: the grammar mask (dreams default to it, unlike `SamplingConfig`). `max_ticks` cuts every
    dream after that many whole ticks.
    """
    sampling = sampling or SamplingConfig(constrained=True)
    if len(starts) != len(policies):
        raise GameGrammarError(f"{len(starts)} starts but {len(policies)} input policies")
    if max_ticks is not None and max_ticks < 1:
        raise GameGrammarError(f"max_ticks must be at least 1, got {max_ticks}")
    if codec.min_salience > 0:
        raise GameGrammarError(
            f"dreams are read by the strict rules, which need every event: this grammar drops events below salience {codec.min_salience}"
        )
    stats = stats if stats is not None else DreamStats()
    model.eval()
    dreamer = _Dreamer(model, tokenizer, game, config, codec, sampling.constrained)
    generator = torch.Generator(device=dreamer.device).manual_seed(sampling.seed)
    began = time.perf_counter()
    out: list[Dream] = []
    for first in range(0, len(starts), sampling.batch_size):
        rows = [
            _new_row(dreamer, s, p)
            for s, p in zip(starts[first : first + sampling.batch_size], policies[first : first + sampling.batch_size])
        ]
        _dream_batch(dreamer, rows, sampling, max_ticks, generator, stats)
        out += [row.dream for row in rows]
    if dreamer.device.type == "cuda":
        torch.cuda.synchronize()
    stats.seconds += time.perf_counter() - began
    stats.dreams += len(out)
    return out


def _new_row(dreamer: _Dreamer, start: Start, policy: InputPolicy) -> _Row:
    game, config = dreamer.game, dreamer.config
    unknown = [t for t in start.tokens if t not in dreamer.tok.ids]
    if unknown:
        raise GameGrammarError(f"the start of episode {start.episode} has tokens outside the model's vocabulary: {' '.join(unknown[:3])}")
    states = game.trace(start.tokens, config)
    if not states:
        raise GameGrammarError(f"the start of episode {start.episode} is not a state of {game.name}: {' '.join(start.tokens[:12])} ...")
    auto = dreamer.automaton.start()
    policy.reset(start.seed, start.episode)
    return _Row(start, policy, dreamer.tok.encode(start.tokens), states[0], auto)


def _dream_batch(
    dreamer: _Dreamer, rows: list[_Row], sampling: SamplingConfig, max_ticks: int | None, generator: torch.Generator, stats: DreamStats
) -> None:
    model, device = dreamer.model, dreamer.device
    cap, context = sampling.max_length, model.config.block_size
    if max(len(r.prompt) for r in rows) >= cap:
        raise GameGrammarError(f"a start is {max(len(r.prompt) for r in rows)} tokens, no shorter than the token cap ({cap})")
    length = min(len(r.prompt) for r in rows)  # every row in the cache holds `length` tokens
    for row in rows:
        for token in row.prompt[:length]:
            dreamer.push(row, token, cap, max_ticks)
    active = list(range(len(rows)))  # rows in the cache, in cache order

    def prefill(window: int) -> tuple[Tensor, Any]:
        cache = model.new_cache(len(active), min(context, cap))
        ids = [(rows[r].ids + [0] * length)[:length] for r in active]  # rows that stopped ride along, padded
        if model.config.tick_id is not None:  # the game clock of a window that starts mid-episode
            cache.ticks = torch.tensor([row[: length - window].count(dreamer.tick_id) for row in ids], device=device)
        x = torch.tensor([row[length - window :] for row in ids], dtype=torch.long, device=device)
        logits, _ = model(x, cache=cache)
        return logits[:, -1], cache

    last, cache = prefill(min(length, context))
    while True:
        forced = [dreamer.forced(rows[r]) if rows[r].alive else None for r in active]
        if not any(rows[r].alive for r in active):
            break
        if dreamer.constrained:
            allowed = torch.stack(
                [
                    dreamer.mask(dreamer.automaton.allowed(rows[r].auto)) if rows[r].alive and f is None else dreamer.anything
                    for r, f in zip(active, forced)
                ]
            )
            last = last.masked_fill(~allowed, float("-inf"))
        sampled = next_tokens(last, sampling, generator).tolist()
        chosen = [s if f is None else f for s, f in zip(sampled, forced)]
        for r, f, token in zip(active, forced, chosen):
            row = rows[r]
            if row.alive:
                stats.generated_tokens += f is None
                stats.forced_inputs += f is not None and len(row.ids) >= len(row.prompt)
                dreamer.push(row, token, cap, max_ticks)
        length += 1
        alive = [rows[r].alive for r in active]
        if not any(alive):
            break
        step = torch.tensor(chosen, dtype=torch.long, device=device)
        if (len(alive) - sum(alive)) * 4 >= len(alive):  # rows that stopped leave the cache in bulk (a copy of it)
            keep = [j for j, a in enumerate(alive) if a]
            active = [active[j] for j in keep]
            index = torch.tensor(keep, device=device)
            cache.select(index)
            step = step[index]
        if cache.pos == cache.max_len:  # the context is full: slide the window
            stats.slides += 1
            last, cache = prefill(max(1, context // 2))
        else:
            logits, _ = model(step[:, None], cache=cache)
            last = logits[:, -1]


# ---------------------------------------------------------------- measures


def agreement(dreams: Sequence[Dream]) -> dict[str, Any]:
    """Per-tick agreement with the rules: the share of whole dreamed ticks that break no rule, overall, by the
    rule broken and by the tick's place in the dream (TICK_BIN-tick buckets)."""
    n = sum(len(d.ticks) for d in dreams)
    k = sum(not rules for d in dreams for rules in d.ticks)
    by_rule: dict[str, int] = {}
    for d in dreams:
        for rules in d.ticks:
            for rule in rules:
                by_rule[rule] = by_rule.get(rule, 0) + 1
    buckets: dict[int, list[int]] = {}
    for d in dreams:
        for t, rules in enumerate(d.ticks, 1):
            b = buckets.setdefault((t - 1) // TICK_BIN * TICK_BIN + 1, [0, 0])
            b[0] += not rules
            b[1] += 1
    return {
        "ticks": n,
        "agreeing": k,
        "rate": k / n if n else None,
        "ci95": list(wilson_interval(k, n)),
        "broken_rules": dict(sorted(by_rule.items(), key=lambda kv: -kv[1])),
        "by_tick": [{"ticks": f"{lo}-{lo + TICK_BIN - 1}", "n": m, "agreeing": a, "rate": a / m} for lo, (a, m) in sorted(buckets.items())],
    }


def horizon(dreams: Sequence[Dream]) -> dict[str, Any]:
    """Ticks until the first broken rule: a Kaplan-Meier curve over the dreams (censored where one ends unbroken)."""
    marks = [d.horizon for d in dreams]
    km = kaplan_meier([t for t, _ in marks], [b for _, b in marks])
    unbroken = sum(not b for _, b in marks)
    km["unbroken_dreams"] = {
        "n": unbroken,
        "rate": unbroken / len(marks) if marks else None,
        "ci95": list(wilson_interval(unbroken, len(marks))),
    }
    return km


def summaries(game: GameSpec, sequences: Sequence[Sequence[str]], max_ticks: int | None = None) -> list[Any]:
    """Each sequence's summary (ticks, score, end), read up to `max_ticks` ticks where a cap applies."""
    if max_ticks is not None:
        sequences = [game.episode_prefix(s, max_ticks) if _ticks_of(game, s) > max_ticks else s for s in sequences]
    return [game.summarize_episode(s) for s in sequences]


def _ticks_of(game: GameSpec, tokens: Sequence[str]) -> int:
    return sum(t == game.tick_token for t in tokens)


def fidelity(game: GameSpec, config: Any, dreams: Sequence[Dream], records: Sequence[EpisodeRecord], max_ticks: int | None = None) -> dict:
    """The agent's length, score and end distributions in its dreams against its real games (TV on bins and KS)."""
    dreamed = summaries(game, [d.tokens for d in dreams])
    real = summaries(game, [r.tokens for r in records], max_ticks)
    labels = end_labels(game)
    ticks = np.array([s.ticks for s in real])
    scores = np.array([s.score for s in real])
    ends = np.array([labels.index(s.end) for s in real], np.int64)
    out = compare_distributions(dreamed, ticks, scores, ends, config, real)
    out["reference"] = "the same agent's real games from the same starts"
    return out


def measure(
    game: GameSpec,
    config: Any,
    dreams: Sequence[Dream],
    records: Sequence[EpisodeRecord],
    max_ticks: int | None = None,
    codec: CodecConfig | None = None,
) -> dict:
    """Every game-agnostic measure of a set of dreams and the same agent's real games from the same starts.

    `codec` is the model's: the dreams' strict validity holds them to its grammar options."""
    stops = {stop: sum(d.stop == stop for d in dreams) for stop in STOPS}
    ticks = np.array([len(d.ticks) for d in dreams]) if dreams else np.zeros(1)
    return {
        "dreams": {
            "n": len(dreams),
            "stops": stops,
            "mean_ticks": float(ticks.mean()),
            "max_ticks": int(ticks.max()),
            "tokens": sum(len(d.tokens) for d in dreams),
        },
        "agreement": agreement(dreams),
        "horizon": horizon(dreams),
        "fidelity": fidelity(game, config, dreams, records, max_ticks),
        "validity": summarize(validate_many([d.tokens for d in dreams], config, codec), game.rules_for(codec)),
        "real_games": {"n": len(records), "still_running": _still_running(records, max_ticks)},
    }


def _still_running(records: Sequence[EpisodeRecord], max_ticks: int | None) -> list[float]:
    """Share of the real games still going after each tick 1..longest (for the survival plot's context)."""
    ticks = np.array([min(r.ticks, max_ticks) if max_ticks else r.ticks for r in records])
    if not len(ticks):
        return []
    return [float((ticks > t).mean()) for t in range(1, int(ticks.max()) + 1)]


def novelty_report(
    dreams: Sequence[Dream], records: Sequence[EpisodeRecord], corpus: Any, config: Any, max_episodes: int | None = None
) -> dict:
    """The share of dreamed states that never occur in the training corpus, beside the real games' share."""
    from gamegrammar.data.novelty import corpus_states, novelty

    known = corpus_states(corpus, split="train", max_episodes=max_episodes)
    return {
        "corpus_episodes": known.episodes,
        "corpus_distinct_states": len(known.keys),
        "dreams": novelty([d.tokens for d in dreams], known.keys, config),
        "real_games": novelty([r.tokens for r in records], known.keys, config),
    }
