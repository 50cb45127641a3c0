"""The conformance kit: does a game keep the `GameSpec` contract the core relies on?

The core trusts a game's parts to agree with one another: the batch engine with the
scalar one, the parser with the encoder, the fast evaluator with the reference, the
trace with the engine's states. The kit plays real episodes with every agent of a
game, on each of its `test_configs()` and a few codec settings, and checks each such
promise by name (`CHECKS`). tests/games/test_conformance.py runs it for every registered
game, so a game is tested by being registered.

A broken promise raises `ConformanceError`, naming the check, the config, the codec
and the episode. A part the contract calls optional (`play_batch` None; `symmetries`,
`chance_targets` or `automaton` raising `GameGrammarError`) raises `Skipped` instead; a required part
that is missing (NotImplementedError) is a failure like any other.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig, EpisodeRecord, EpisodeSummary, GameSpec
from gamegrammar.core.tokenizer import GameTokenizer

# Full salience (the strict evaluator and the round trip need every event), with and without keyframes after tick 0.
CODECS = (CodecConfig(0, Salience.TICK), CodecConfig(3, Salience.TICK))
EPISODES = 6  # per agent, for each config and codec
OUTSIDE_EPISODES = 2  # per agent that runs an outside program (`GameSpec.outside_agents`): a second a game or more
MIN_CALL = 64  # sequences per validate_many call: enough that a game's batch path answers, not its small-call fallback
MUTATIONS = ("replace", "nudge", "delete", "duplicate", "truncate")


class ConformanceError(AssertionError):
    """A game breaks the contract; the message names the check, the config, the codec and the episode."""


class Skipped(Exception):
    """The check does not apply: the game leaves out an optional part for this config."""


@dataclass
class Played:
    """Episodes of one game, config and codec through the scalar engine: what every check reads."""

    spec: GameSpec
    config: Any
    codec: CodecConfig
    seed: int
    tokenizer: GameTokenizer
    agents: list[str]  # agent of each record
    episodes: np.ndarray  # episode number of each record
    records: list[EpisodeRecord]

    def where(self, i: int) -> str:
        return f"agent {self.agents[i]} episode {int(self.episodes[i])} (seed {self.seed})"


def play(spec: GameSpec, config: Any, codec: CodecConfig, *, seed: int = 0, episodes: int = EPISODES) -> Played:
    """`episodes` episodes per agent (an outside program's agent: at most OUTSIDE_EPISODES); episode e is played by agent
    e mod (number of agents), as a mixed corpus would. An agent that cannot play on this machine (`agent_unavailable`:
    an outside program is missing) is left out."""
    tokenizer = GameTokenizer(spec.vocabulary(config))
    names = [name for name in spec.agent_names if spec.agent_unavailable(name) is None]
    quota = {name: min(episodes, OUTSIDE_EPISODES) if name in spec.outside_agents else episodes for name in names}
    numbers = np.array([e for e in range(episodes * len(names)) if e // len(names) < quota[names[e % len(names)]]], dtype=np.int64)
    agents = [names[e % len(names)] for e in numbers.tolist()]
    records = []
    for agent, episode in zip(agents, numbers.tolist()):
        with _about(f"play_episode: agent {agent} episode {episode} (seed {seed})"):
            records.append(spec.play_episode(config, codec, agent, seed, episode))
    return Played(spec, config, codec, seed, tokenizer, agents, numbers, records)


@contextmanager
def _about(what: str) -> Iterator[None]:
    """Any exception inside (NotImplementedError included) becomes a ConformanceError that says where it happened."""
    try:
        yield
    except (ConformanceError, Skipped):
        raise
    except Exception as err:
        raise ConformanceError(f"{what}: {type(err).__name__}: {err}") from err


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConformanceError(message)


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at position {n} of {len(a)} vs {len(b)}: {a[n] if n < len(a) else '<end>'!r} vs {b[n] if n < len(b) else '<end>'!r}"


# ---------------------------------------------------------------- checks


def check_vocabulary(p: Played) -> None:
    """The vocabulary starts with the special tokens, has no duplicates, and holds every token the spec names."""
    spec, vocab = p.spec, p.spec.vocabulary(p.config)
    _require(tuple(vocab[: len(SPECIAL_TOKENS)]) == SPECIAL_TOKENS, f"the vocabulary starts with {vocab[:4]}, not {SPECIAL_TOKENS}")
    twice = sorted(t for t, n in Counter(vocab).items() if n > 1)
    _require(not twice, f"the vocabulary has duplicates: {twice[:5]}")
    named = {"tick_token": [spec.tick_token], "input_tokens": spec.input_tokens(p.config), "end_events": list(spec.end_events)}
    if spec.keyframe_token is not None:
        named["keyframe_token"] = [spec.keyframe_token]
    known = set(vocab)
    for what, tokens in named.items():
        missing = [t for t in tokens if t not in known]
        _require(not missing, f"{what} not in the vocabulary: {missing}")
    _require(len(named["input_tokens"]) > 0, "input_tokens is empty")


def check_game_type(p: Played) -> None:
    """The declared metadata holds on real episodes: the config's players are within `game_type`'s, every tick writes one
    input for each player `to_move` names in the state before it (one in a sequential game), and those are players."""
    kind, players = p.spec.game_type, p.spec.num_players(p.config)
    _require(
        kind.min_players <= players <= kind.max_players,
        f"{players} players, outside the game type's {kind.min_players}..{kind.max_players}",
    )
    inputs = set(p.spec.input_tokens(p.config))
    for i, record in enumerate(p.records):
        ticks = [k for k, t in enumerate(record.tokens) if t == p.spec.tick_token] + [len(record.tokens)]
        for number, (a, b) in enumerate(itertools.pairwise(ticks), start=1):
            movers = p.spec.to_move(record.states[number - 1])
            _require(
                bool(movers) and set(movers) <= set(range(players)) and (kind.dynamics == "simultaneous" or len(movers) == 1),
                f"{p.where(i)}: to_move before tick {number} is {movers} ({kind.dynamics}, {players} players)",
            )
            written = sum(t in inputs for t in record.tokens[a:b])
            _require(written == len(movers), f"{p.where(i)}: tick {number} writes {written} inputs for the {len(movers)} players to move")


def _present(part: Any, name: str) -> Any:
    """An optional attribute (None where a game has none), as a capability check asks for it."""
    if part is None:
        raise GameGrammarError(f"no {name}")
    return part


def _capability_works(spec: GameSpec, name: str, p: Played) -> bool:
    """Does the game have the capability `name` (of `CAPABILITIES`)? Asked of the parts that make it, as the commands ask."""
    config, tokens = p.config, p.records[0].tokens
    calls: dict[str, Callable[[], Any]] = {
        "batch_engine": lambda: _present(spec.play_batch, "play_batch"),
        "automaton": lambda: spec.automaton(config),
        "symmetries": lambda: spec.symmetries(p.tokenizer, config),
        "chance": lambda: spec.chance_targets(tokens, config),
        "play": lambda: spec.input_prompt(config),
        "dream": lambda: spec.input_policy(spec.agent_names[0], config),
        "plan": lambda: spec.planner_outcome(tokens),
        "turn_plan": lambda: spec.planner_value(tokens, [], config),
        "novelty": lambda: spec.feature_space(config),
        "probes": lambda: (spec.board_shape(config), spec.probe_targets(p.records[0].states[0], config)),
        "replay": lambda: spec.renderer(),
        "emergence": lambda: spec.emergence(),
        "statistics": lambda: spec.episode_statistics(tokens, config),
        "gtp": lambda: spec.gtp_engine(config, spec.agent_names[0]),
        "records": lambda: spec.read_records(spec.write_record(tokens, config), config, p.codec),
        "moves": lambda: (spec.move_choices(tokens, config), spec.exact_groups(tokens)),
    }
    try:
        calls[name]()
    except GameGrammarError:
        return False
    return True


def check_capabilities(p: Played) -> None:
    """A game has exactly the optional capabilities it declares: each declared one works, each other one refuses with a
    one-line GameGrammarError (what the commands pass on)."""
    from gamegrammar.core.gamespec import CAPABILITIES

    unknown = sorted(set(p.spec.capabilities) - set(CAPABILITIES))
    _require(not unknown, f"capabilities {unknown} are not among {sorted(CAPABILITIES)}")
    for name in CAPABILITIES:
        declared = name in p.spec.capabilities
        with _about(f"capability {name}"):
            works = _capability_works(p.spec, name, p)
        if name == "symmetries" and declared and not works:  # a config the symmetries do not fit (a non-square board)
            continue
        _require(
            works == declared,
            f"capability {name} is {'declared' if declared else 'not declared'} but {'does not work' if declared else 'works'}",
        )


def check_batch_engine(p: Played) -> None:
    """`play_batch` writes byte for byte the tokens of `play_episode`, with the same ticks, scores and ends."""
    if p.spec.play_batch is None:
        raise Skipped(f"{p.spec.name} has no batch engine")
    codes = np.array([p.spec.agent_names.index(a) for a in p.agents])
    with _about("play_batch"):
        result = p.spec.play_batch(p.config, p.codec, p.seed, p.episodes, codes)
    _require(len(result.lengths) == len(p.records), f"play_batch returned {len(result.lengths)} episodes for {len(p.records)}")
    _require(
        result.tokens.dtype == p.tokenizer.dtype, f"play_batch writes {result.tokens.dtype}, the tokenizer's ids are {p.tokenizer.dtype}"
    )
    ends = np.cumsum(result.lengths)
    for i, record in enumerate(p.records):
        got = result.tokens[ends[i] - result.lengths[i] : ends[i]]
        want = np.asarray(p.tokenizer.encode(record.tokens), p.tokenizer.dtype)
        if not np.array_equal(got, want):
            raise ConformanceError(f"{p.where(i)}: batch tokens differ, {_first_difference(p.tokenizer.decode(got), record.tokens)}")
        batch = (int(result.ticks[i]), int(result.scores[i]), p.spec.end_events[int(result.ends[i])])
        _require(
            batch == (record.ticks, record.score, record.end),
            f"{p.where(i)}: batch (ticks, score, end) {batch}, scalar {(record.ticks, record.score, record.end)}",
        )


def check_round_trip(p: Played) -> None:
    """`decode_events` reads back exactly the events the engine emitted (full salience)."""
    for i, record in enumerate(p.records):
        with _about(f"{p.where(i)}: decode_events"):
            events = p.spec.decode_events(record.tokens)
        if events != record.events:
            raise ConformanceError(f"{p.where(i)}: decoded events differ, {_first_difference(events, record.events)}")


def check_endings(p: Played) -> None:
    """Every episode ends with an end event then EOS, and `summarize_episode` reads the record's ticks, score and end."""
    for i, record in enumerate(p.records):
        t = record.tokens
        _require(t[:1] == ["BOS"], f"{p.where(i)}: does not start with BOS: {t[:3]}")
        _require(len(t) >= 2 and t[-1] == "EOS" and t[-2] in p.spec.end_events, f"{p.where(i)}: ends with {t[-3:]}, not <end event> EOS")
        _require(t.count("EOS") == 1 and t.count("BOS") == 1, f"{p.where(i)}: BOS or EOS inside the episode")
        _require(record.end == t[-2], f"{p.where(i)}: record.end is {record.end!r}, the tokens end with {t[-2]!r}")
        _require(
            bool(record.events) and record.events[-1].type == record.end, f"{p.where(i)}: the last event is not the end event {record.end}"
        )
        _require(
            record.states[-1] is not None and len(record.states) == record.ticks + 1,
            f"{p.where(i)}: {len(record.states)} states for {record.ticks} ticks",
        )
        with _about(f"{p.where(i)}: summarize_episode"):
            summary = p.spec.summarize_episode(t)
        want = EpisodeSummary(record.ticks, record.score, record.end, summary.outcomes)  # the players' fates are not recorded
        _require(summary == want, f"{p.where(i)}: summarize_episode gives {summary}, the record {want}")
        labels = p.spec.outcome_labels
        _require(
            all(fate in labels for fate in summary.outcomes) and bool(labels) == bool(summary.outcomes),
            f"{p.where(i)}: summarize_episode's outcomes {summary.outcomes} are not among the spec's outcome_labels {labels}",
        )


def check_strict_evaluator(p: Played) -> None:
    """Every episode the engine plays passes the strict evaluator, its design read off the sequence and declared."""
    for (i, record), codec in itertools.product(enumerate(p.records), (None, p.codec)):
        with _about(f"{p.where(i)}: validate"):
            verdict = p.spec.validate(record.tokens, p.config, codec)
        _require(
            verdict.valid,
            f"{p.where(i)}: the strict evaluator ({'declared' if codec else 'undeclared'}) rejects a real episode: "
            f"{verdict.violations} at {verdict.positions}",
        )


def _opening_end(p: Played, tokens: Sequence[str]) -> int:
    """Where the opening keyframe ends: the first tick token."""
    return list(tokens).index(p.spec.tick_token) if p.spec.tick_token in tokens else len(tokens)


def check_openings(p: Played) -> None:
    """An episode whose opening no start of the rules can be (`opening_perturbations`) is invalid, first broken inside
    the opening keyframe, declared or not: the start is a rule like any other."""
    try:
        p.spec.opening_perturbations(p.records[0].tokens, p.config)
    except GameGrammarError as err:
        raise Skipped(str(err)) from None
    count = 0
    for i, record in enumerate(p.records):
        with _about(f"{p.where(i)}: opening_perturbations"):
            variants = p.spec.opening_perturbations(record.tokens, p.config)
        for (what, tokens), codec in itertools.product(variants, (None, p.codec)):
            count += 1
            end = _opening_end(p, tokens)
            _require(tokens[end:] == record.tokens[_opening_end(p, record.tokens) :], f"{p.where(i)}: {what} changes more than the opening")
            verdict = p.spec.validate(tokens, p.config, codec)
            _require(
                not verdict.valid and verdict.first_violation is not None and verdict.first_violation < end,
                f"{p.where(i)}: an opening with {what} is not refused inside the opening: {verdict.violations} at {verdict.positions}",
            )
    _require(count > 0, "opening_perturbations gives no variant of any episode")


def check_design_words(p: Played) -> None:
    """An episode written in another of the game's designs (one grammar option turned over), declared as this codec's
    design, is invalid wherever its tokens differ: a declared design's grammar has its own words and order only."""
    from dataclasses import replace

    options = [flag.name for flag in p.spec.codec_flags() if flag.type is bool]
    if not options:
        raise Skipped(f"{p.spec.name} has one design")
    compared = 0
    for option in options:
        try:
            other = replace(p.codec, **{option: not getattr(p.codec, option, False)}) if hasattr(p.codec, option) else None
            if other is None:
                other = p.spec.codec_type(p.codec.keyframe_interval, p.codec.min_salience, **{option: True})
        except GameGrammarError:
            continue  # options that do not combine with this codec's
        for i in range(len(p.records)):
            with _about(f"{p.where(i)}: play_episode with {option} turned over"):
                tokens = p.spec.play_episode(p.config, other, p.agents[i], p.seed, int(p.episodes[i])).tokens
            if tokens == p.records[i].tokens:
                continue
            compared += 1
            verdict = p.spec.validate(tokens, p.config, p.codec)
            _require(not verdict.valid, f"{p.where(i)}: written with {option} turned over, it passes declared as the codec's design")
    _require(compared > 0, "no option changes any episode's tokens")


def mutate(tokens: Sequence[str], vocab: Sequence[str], gen: np.random.Generator, kind: str) -> list[str]:
    """One deterministic corruption of an episode: replace a token (by any vocabulary token, or by its neighbour in the
    vocabulary: often a value of the same kind, X3 for X4), delete or duplicate a token, or truncate the episode."""
    out = list(tokens)
    if len(out) < 2:
        return out
    at = int(gen.integers(1, len(out)))  # never the BOS
    if kind == "replace":
        out[at] = vocab[int(gen.integers(len(vocab)))]
    elif kind == "nudge":
        k = vocab.index(out[at]) + (1 if gen.integers(2) else -1)
        out[at] = vocab[k % len(vocab)]
    elif kind == "delete":
        del out[at]
    elif kind == "duplicate":
        out.insert(at, out[at])
    else:
        out = out[:at]
    return out


def check_fast_evaluator(p: Played) -> None:
    """`validate_many` answers exactly as `validate`, on real and mutated episodes, as token lists and as id arrays,
    declared and not; and no verdict breaks a rule that `rules_for` its codec leaves out of a report."""
    gen = np.random.default_rng([p.seed, len(p.records), p.codec.keyframe_interval])
    vocab = p.tokenizer.tokens
    real = [r.tokens for r in p.records]
    real = [real[k % len(real)] for k in range(max(MIN_CALL, len(real)))]
    mutated = []
    for k in range(MIN_CALL):
        seq = real[k % len(real)]
        for _ in range(1 + k % 2):  # one or two corruptions
            seq = mutate(seq, vocab, gen, MUTATIONS[int(gen.integers(len(MUTATIONS)))])
        mutated.append(seq)
    for (name, seqs), codec in itertools.product((("real", real), ("mutated", mutated)), (None, p.codec)):
        how = f"{name}, {'declared' if codec else 'undeclared'}"
        with _about(f"validate ({how})"):  # once per distinct sequence: `real` repeats the episodes up to MIN_CALL
            once = {id(s): s for s in seqs}
            verdict = {key: p.spec.validate(s, p.config, codec) for key, s in once.items()}
            want = [verdict[id(s)] for s in seqs]
        as_ids = [np.asarray(p.tokenizer.encode(s), p.tokenizer.dtype) for s in seqs]
        for form, batch in (("token lists", seqs), ("id arrays", as_ids)):
            with _about(f"validate_many ({how}, {form})"):
                got = p.spec.validate_many(batch, p.config, codec)
            _require(len(got) == len(want), f"validate_many ({how}, {form}) returned {len(got)} verdicts for {len(want)}")
            for k, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    source = p.where(k % len(p.records))
                    raise ConformanceError(
                        f"validate_many ({how}, {form}) differs from validate on sequence {k} (from {source}): {g} vs {w}"
                    )
        if name == "mutated":
            _require(not all(v.valid for v in want), "the strict evaluator accepts every mutated episode")
        listed = {rule for names in p.spec.rules_for(codec).values() for rule in names}  # what a report lists
        unlisted = sorted({rule for v in want for rule in v.violations} - listed)
        _require(not unlisted, f"validate ({how}) breaks {unlisted}, which rules_for the codec leaves out of reports")


def check_symmetries(p: Played) -> None:
    """The board's symmetries (token ids, as augmentation sees them) map every episode to one the strict evaluator
    accepts exactly when augmentation may use the symmetry (`names`: it keeps the rules' start); under the others
    (a start the rules fix moves) every image is refused, first inside its opening. No augmentation may teach a game
    the rules cannot write."""
    try:
        symmetries = p.spec.symmetries(p.tokenizer, p.config)
    except GameGrammarError as err:
        raise Skipped(f"no symmetries: {err}") from None
    used = set(symmetries.names)
    _require(used <= set(symmetries.all_names) and "identity" in used, f"names {sorted(used)} are not among {symmetries.all_names}")
    for (i, record), name in itertools.product(enumerate(p.records), symmetries.all_names):
        ids = np.asarray(p.tokenizer.encode(record.tokens), p.tokenizer.dtype)
        with _about(f"{p.where(i)}: symmetry {name}"):
            image = p.tokenizer.decode(symmetries.apply(ids, name))
            verdict = p.spec.validate(image, p.config, p.codec)
        if name in used:
            _require(verdict.valid, f"{p.where(i)}: symmetry {name} breaks {verdict.violations} at {verdict.positions}")
        else:
            first = verdict.first_violation
            _require(
                first is not None and first < _opening_end(p, image),
                f"{p.where(i)}: symmetry {name}, which augmentation leaves out, gives an image refused at {first} "
                f"({verdict.violations}), not in its opening",
            )


def check_chance_targets(p: Played) -> None:
    """Each chance token gets one distribution, the one the token written could be drawn from: at exactly the positions
    `chance_tokens` names, summing to 1, with positive probability on the token written."""
    try:
        p.spec.chance_targets([], p.config)
    except GameGrammarError as err:
        raise Skipped(f"no chance targets: {err}") from None
    marks = p.spec.chance_tokens(p.config, p.codec)
    for i, record in enumerate(p.records):
        tokens = record.tokens
        with _about(f"{p.where(i)}: chance_targets"):
            found = p.spec.chance_targets(tokens, p.config)
        want = sorted(at + k for at, t in enumerate(tokens) for word, offsets in marks if t == word for k in offsets)
        got = [at for at, _ in found]
        _require(got == want, f"{p.where(i)}: chance targets at {got}, but its chance tokens are at {want}")
        for at, dist in found:
            _require(abs(sum(dist.values()) - 1) < 1e-6, f"{p.where(i)}: the distribution at {at} sums to {sum(dist.values())}")
            _require(dist.get(tokens[at], 0) > 0, f"{p.where(i)}: {tokens[at]} at {at} has no probability in {dist}")


def check_trace(p: Played) -> None:
    """`trace` reads from the tokens exactly the states the engine went through."""
    for i, record in enumerate(p.records):
        with _about(f"{p.where(i)}: trace"):
            states = p.spec.trace(record.tokens, p.config)
        if states != record.states:
            raise ConformanceError(f"{p.where(i)}: trace differs from the engine's states, {_first_difference(states, record.states)}")


def check_automaton(p: Played) -> None:
    """The grammar automaton allows every token of every real episode, in order: the automaton of the codec's design,
    and the one of every design."""
    try:
        automata = [p.spec.automaton(p.config, p.codec), p.spec.automaton(p.config)]
    except GameGrammarError as err:
        raise Skipped(f"no automaton: {err}") from None
    for (i, record), (which, automaton) in itertools.product(enumerate(p.records), zip(("the codec's", "any design's"), automata)):
        with _about(f"{p.where(i)}: automaton"):
            state = automaton.start()
            for k, token in enumerate(record.tokens):
                nxt = automaton.step(state, token) if token in automaton.allowed(state) else None
                if nxt is None:
                    raise ConformanceError(
                        f"{p.where(i)}: {which} automaton refuses token {k} {token!r} (context {record.tokens[max(0, k - 4) : k]})"
                    )
                state = nxt


def check_rule_determined(p: Played) -> None:
    """`rule_determined_positions` points inside the episode, never at an agent's input, with a known category."""
    inputs = set(p.spec.input_tokens(p.config))
    categories = set(p.spec.teacher_categories)
    for i, record in enumerate(p.records):
        with _about(f"{p.where(i)}: rule_determined_positions"):
            found = p.spec.rule_determined_positions(record.tokens)
        _require(bool(found), f"{p.where(i)}: no rule-determined positions")
        for pos, category, kind in found:
            _require(0 <= pos < len(record.tokens), f"{p.where(i)}: position {pos} outside the episode (length {len(record.tokens)})")
            _require(record.tokens[pos] not in inputs, f"{p.where(i)}: position {pos} is the input {record.tokens[pos]!r}")
            _require(category in categories, f"{p.where(i)}: category {category!r} is not in teacher_categories")
            _require(isinstance(kind, str), f"{p.where(i)}: kind {kind!r} at {pos} is not a string")
        positions = [pos for pos, _, _ in found]
        _require(len(set(positions)) == len(positions), f"{p.where(i)}: a position is listed twice")


def check_intervention_cases(p: Played) -> None:
    """`intervention_cases` edits a state's probe planes where they are not already so, at a token of the episode, and
    expects another token than the one written there (a case whose word the edit does not change tests nothing), or
    for a case of chance, rules' probabilities that the edit moves; its words are in the vocabulary and its probes read."""
    if "probes" not in p.spec.capabilities:
        raise Skipped(f"{p.spec.name} has no probes")
    for i, record in enumerate(p.records):
        with _about(f"{p.where(i)}: intervention_cases"):
            cases = p.spec.intervention_cases(record.tokens, record.states, p.config)
        starts = [k for k, t in enumerate(record.tokens) if t == p.spec.tick_token]
        for case in cases:
            _require(0 <= case.tick < min(len(starts), len(record.states)), f"{p.where(i)}: a case at tick {case.tick}")
            at = starts[case.tick] + case.offset
            _require(at + 1 < len(record.tokens) and record.tokens[at + 1] == case.actual, f"{p.where(i)}: {case} names a word not written")
            if case.chance is None:
                _require(case.expected != case.actual, f"{p.where(i)}: {case} expects the real word")
            else:
                real, edited = case.chance
                _require(
                    min(real, edited) >= 0 and max(real, edited) <= 1 and real != edited, f"{p.where(i)}: {case} has no chance to move"
                )
            for word in (*case.path, case.expected):
                _require(word in p.tokenizer.ids, f"{p.where(i)}: {case} expects a word outside the vocabulary")
            if case.probe is not None:
                _require(case.probe in dict(p.spec.probe_positions).values(), f"{p.where(i)}: {case} edits with probes never read")
            _require(case.tick + case.board < len(record.states), f"{p.where(i)}: {case} edits a state past the trace")
            planes = p.spec.probe_targets(record.states[case.tick + case.board], p.config).planes
            for plane, cell, value in case.edits:
                _require(plane in planes and 0 <= cell < len(planes[plane]), f"{p.where(i)}: {case} edits an unknown cell")
                _require(value in (0, 1) and planes[plane][cell] != value, f"{p.where(i)}: {case} edits a cell to what it is")


CHECKS: dict[str, Callable[[Played], None]] = {
    "vocabulary": check_vocabulary,
    "game_type": check_game_type,
    "capabilities": check_capabilities,
    "batch_engine": check_batch_engine,
    "round_trip": check_round_trip,
    "endings": check_endings,
    "strict_evaluator": check_strict_evaluator,
    "openings": check_openings,
    "design_words": check_design_words,
    "fast_evaluator": check_fast_evaluator,
    "symmetries": check_symmetries,
    "chance_targets": check_chance_targets,
    "trace": check_trace,
    "automaton": check_automaton,
    "rule_determined": check_rule_determined,
    "intervention_cases": check_intervention_cases,
}


def describe(spec: GameSpec, config: Any, codec: CodecConfig) -> str:
    facts = " ".join(f"{k}={v}" for k, v in spec.describe_config(config).items())
    return f"{spec.name} [{facts}; keyframe_interval={codec.keyframe_interval}]"


def run_check(name: str, played: Played) -> None:
    """One named check; a failure's message starts with the check, the game, its config and the codec."""
    try:
        CHECKS[name](played)
    except ConformanceError as err:
        raise ConformanceError(
            f"conformance check {name!r} failed for {describe(played.spec, played.config, played.codec)}: {err}"
        ) from err
    except Skipped:
        raise
    except Exception as err:
        raise ConformanceError(
            f"conformance check {name!r} crashed for {describe(played.spec, played.config, played.codec)}: {type(err).__name__}: {err}"
        ) from err


@functools.lru_cache(maxsize=32)
def played(game: str, config_index: int, codec_index: int, *, seed: int = 0, episodes: int = EPISODES) -> Played:
    """The episodes of a registered game's `test_configs()[config_index]` and `CODECS[codec_index]`, played once per process."""
    from gamegrammar.games import load_game

    spec = load_game(game)
    return play(spec, spec.test_configs()[config_index], CODECS[codec_index], seed=seed, episodes=episodes)


def check_game(spec: GameSpec, *, episodes: int = EPISODES, seed: int = 0) -> dict[str, list[str]]:
    """Every check on every test config and codec; raises at the first failure, returns the reasons of skipped checks."""
    skipped: dict[str, list[str]] = {}
    for config in spec.test_configs():
        for codec in CODECS:
            p = play(spec, config, codec, seed=seed, episodes=episodes)
            for name in CHECKS:
                try:
                    run_check(name, p)
                except Skipped as why:
                    skipped.setdefault(name, []).append(f"{describe(spec, config, codec)}: {why}")
    return skipped
