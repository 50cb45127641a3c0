"""The strict replay evaluator: does a token sequence obey Go's grammar and rules (GO.md)?

A sequence is parsed with the grammar (`grammar.parse`) and replayed through the one rules implementation
(`rules.legality`, `rules.advance`, `rules.area`) from its first keyframe; each TICK is the next move, Black's first.
Rule names are stable (reports and tests use them), grouped by tier in `RULES`:

structural
  grammar                 parses under the grammar (a vertex off the board is a grammar error; a sequence that simply
                          stops is not)
  complete                BOS keyframe ... end event EOS, and nothing after the EOS
  keyframe_schedule       a keyframe after exactly the ticks where the codec writes one (`CodecConfig.keyframe_after`)
physical
  play_on_empty           every play is on an empty point
  suicide                 no play leaves its own group without a liberty (it captures nothing and has none)
  captures                a play is followed by TAKE and exactly the stones the rules remove, in point order, when it
                          captures, and by no TAKE when it does not (reported at the first wrong stone, at the token
                          after the move where a TAKE is missing, at the TAKE that should not be there)
  keyframe_matches_state  every later keyframe shows the replayed board (stones in point order, each once) and says
                          PASSED exactly after a pass; every keyframe is itself a possible board (no group without a
                          liberty)
rules
  start_position          the first keyframe is the empty board, no pass played (GO.md: the game starts empty)
  turn_order              Black moves first and the players alternate, passes counted: where the sequence names the
                          player to move (a keyframe's TO_BLACK / TO_WHITE) it is that player
  superko                 no play repeats a position of the game so far (the stones on the board), the start included
  two_passes_end          the game ends (TWO_PASSES) exactly when two passes in a row are played: no tick after them
  move_limit              MOVE_LIMIT exactly when a game not ended otherwise reaches max_ticks turns
  area_score              AREA's counts are each colour's area on the board as replayed (stones plus the empty regions
                          that reach only that colour)
  result                  the result word is the one the written areas and komi give (a draw only at an equal score),
                          and after a RESIGN the opponent of the player who resigned wins
  end_is_final            nothing but EOS after an end event (no keyframe, no tick)

The keyframe interval K is declared by the codec (`GoSpec.validate(tokens, config, codec)`); undeclared (None: a bare
token file) it is read off the sequence: the number of the first tick followed by a keyframe, every later tick held to
it. A tier passes when none of its rules is broken; `full` is all three. A verdict lists every broken rule with the
token index where it is first broken; a missing element is reported where it should have been (not at all when the
sequence is cut off right there).

After an illegal play (on a stone, suicide, superko) the board the sequence describes is no longer the rules' board:
the state is unknown until the next keyframe, a complete board, which is followed from then on (with a history that
starts there: superko cannot see positions before it). Wrong TAKE lists and wrong AREA counts do not change the
replayed state (the rules decide them), so one wrong belief is reported where it is written. Rules that need no state
(turn_order, two_passes_end, move_limit, result, end_is_final) are always checked. A keyframe that disagrees with the
replay but is itself possible is followed from then on. Nothing after an end event is checked but the grammar.

Lenient tiers, read on whatever parses: structural = starts with BOS and has an EOS; physical = every play is on a point
empty on the board as written (stones placed, TAKE stones lifted, no rules); rules = every TAKE lifts only opponent
stones of that board.

The strict evaluator needs full-salience sequences (codec min_salience 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.episode_grammar import KeyframeSchedule, note_close, note_grammar_error
from gamegrammar.core.verdict import OPENING_TIERS, Findings, Verdict, make_verdict, rule_names, tiers_of
from gamegrammar.games.go.grammar import TURN_WORDS, GrammarError, Keyframe, Tick, parse, stone
from gamegrammar.games.go.rules import (
    BLACK,
    EMPTY,
    PASS,
    RESIGN,
    RESULT_WORDS,
    GoConfig,
    GoState,
    Position,
    area,
    attempt,
    colour_of,
    opponent,
    winner,
)
from gamegrammar.games.go.zobrist import position_key

RULES: dict[str, tuple[str, ...]] = {
    "structural": ("grammar", "complete", "keyframe_schedule"),
    "physical": ("play_on_empty", "suicide", "captures", "keyframe_matches_state"),
    "rules": ("start_position", "turn_order", "superko", "two_passes_end", "move_limit", "area_score", "result", "end_is_final"),
}
TIERS: tuple[str, ...] = tiers_of(RULES)
RULE_NAMES: tuple[str, ...] = rule_names(RULES)
REFUSAL_RULE = {"occupied": "play_on_empty", "suicide": "suicide", "superko": "superko"}


def _note_missing(found: Findings, rule: str, at: int) -> None:
    """A missing element: reported where it belongs, unless the sequence is cut off right there."""
    if at < found.length:
        found.note(rule, at)


# ---------------------------------------------------------------- keyframes


def keyframe_board(kf: Keyframe, config: GoConfig, found: Findings) -> bytes | None:
    """The board a keyframe shows, or None (after noting why) when it is not one the grammar writes or no game has:
    stones out of point order or twice, or a group without a liberty."""
    ok = True
    seen: set[int] = set()
    for stones in (kf.black, kf.white):
        last = -1
        for p, at in stones:
            if p <= last or p in seen:
                found.note("keyframe_matches_state", at)
                ok = False
                break
            seen.add(p)
            last = p
    if not ok:
        return None
    board = kf.board(config.size)
    position = Position(board, config.size)
    dead = [g for g in position.groups if not g.liberties]
    if dead:
        first = min(g.stones[0] for g in dead)
        found.note("keyframe_matches_state", next(at for p, at in (*kf.black, *kf.white) if p == first))
        return None
    return board


def _mismatch(kf: Keyframe, board: bytes, size: int) -> int | None:
    """Token index of the first stone where a keyframe differs from `board`; None if it shows exactly that board."""
    for colour, stones, after in ((BLACK, kf.black, kf.white_at), (BLACK + 1, kf.white, kf.turn_at)):
        want = [p for p, c in enumerate(board) if c == colour]
        for j, (p, at) in enumerate(stones):
            if j >= len(want) or p != want[j]:
                return at
        if len(want) > len(stones):
            return after
    return None


def state_of(board: bytes, tick: int, passed: bool, size: int) -> GoState:
    """The state a keyframe gives: its board, the tick's turn, a pass just played; a history starting there."""
    key = position_key(board, size)
    return GoState(size, board, tick, int(passed), key, frozenset({key}), (board,))


def check_keyframe(kf: Keyframe, state: GoState | None, tick: Tick, config: GoConfig, found: Findings) -> GoState | None:
    """A keyframe written after `tick`: its turn word, PASSED, and board against the replay; the state to go on from."""
    if kf.to_play != tick.number % 2:
        found.note("turn_order", kf.turn_at)
    if kf.passed != (tick.move == PASS):
        found.note("keyframe_matches_state", kf.turn_at + 1)
    if state is not None:
        at = _mismatch(kf, state.board, config.size)
        if at is None:
            return state
        found.note("keyframe_matches_state", at)
    board = keyframe_board(kf, config, found)
    return None if board is None else state_of(board, tick.number, tick.move == PASS, config.size)


def check_start(kf: Keyframe, config: GoConfig, found: Findings) -> GoState | None:
    """The first keyframe: the empty board, Black to move, no pass; the state to replay from."""
    stones = sorted(at for _, at in (*kf.black, *kf.white))
    if stones:
        found.note("start_position", stones[0])
    if kf.to_play != 0:
        found.note("turn_order", kf.turn_at)
    if kf.passed:
        found.note("start_position", kf.turn_at + 1)
    if stones:
        board = keyframe_board(kf, config, found)
        return None if board is None else state_of(board, 0, kf.passed, config.size)
    return GoState.empty(config.size)


# ---------------------------------------------------------------- ticks


def _check_play(state: GoState, tick: Tick, found: Findings) -> GoState | None:
    """A written move from `state`: legal, and its TAKE exactly the rules' captures. The state after, or None when
    the rules refuse the play."""
    refusal, after, done = attempt(state, tick.move)
    if refusal is not None:
        found.note(REFUSAL_RULE[refusal], tick.positions["move"])
        return None
    assert done is not None
    captured = done.captured
    written = [p for p, _ in tick.taken]
    if written != list(captured):
        if not written or not captured:  # a TAKE missing, or one where nothing is captured
            _note_missing(found, "captures", tick.positions["after"])
        else:
            wrong = next((at for j, (p, at) in enumerate(tick.taken) if j >= len(captured) or p != captured[j]), None)
            _note_missing(found, "captures", tick.positions["end"] if wrong is None else wrong)  # None: stones left out
    return after


def _check_end(tick: Tick, passes: int, after: GoState | None, config: GoConfig, found: Findings) -> None:
    """The end rules: on the written moves (two passes, the limit), the written areas and komi (the result), and the
    replayed board (the areas)."""
    want = (
        "RESIGNATION" if tick.move == RESIGN else "TWO_PASSES" if passes >= 2 else "MOVE_LIMIT" if tick.number >= config.max_ticks else None
    )
    written, at = tick.end_event, tick.positions["end"]
    if written != want:
        rule = "two_passes_end" if "TWO_PASSES" in (want, written) else "move_limit"
        if written is None:
            _note_missing(found, rule, at)
        else:
            found.note(rule, at)
    if tick.area is not None and after is not None:
        black, white = area(after.board, config.size)
        if tick.area[0] != black:
            found.note("area_score", tick.positions["area"])
        elif tick.area[1] != white:
            found.note("area_score", tick.positions["area"] + 1)
    if tick.result is not None:
        if tick.move == RESIGN:
            won: int | None = opponent(colour_of(tick.player))
        else:
            assert tick.area is not None
            won = winner(tick.area[0], tick.area[1], config.komi)
        if tick.result != RESULT_WORDS[won]:
            found.note("result", tick.positions["result"])


def check_tick(state: GoState | None, tick: Tick, passes: int, config: GoConfig, found: Findings) -> GoState | None:
    """Check one tick from the state before it (None = unknown), `passes` the passes in a row it ends; the state after."""
    after = _check_play(state, tick, found) if state is not None else None
    _check_end(tick, passes, after, config, found)
    if tick.keyframe is not None:
        if tick.end_event is not None:
            found.note("end_is_final", tick.keyframe.start)
            return None
        after = check_keyframe(tick.keyframe, after, tick, config, found)
    return after


# ---------------------------------------------------------------- sequences


def validate(tokens: Sequence[str] | str, config: GoConfig, *, keyframe_interval: int | None = None) -> Verdict:
    """Parse and replay one sequence (tokens, or one space-separated string) and check every rule of `RULES`;
    `keyframe_interval` declares where keyframes go (None reads it off the sequence)."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    n = len(tokens)
    found = Findings(n)
    schedule = KeyframeSchedule(keyframe_interval, "SNAP")
    items: list[Keyframe | Tick] = []
    stop = 0
    ended = False
    passes = 0
    try:
        parsed = parse(tokens, config.size, to_eos=True)
        first = next(parsed)
        assert isinstance(first, Keyframe)
        items.append(first)
        stop = first.end
        state = check_start(first, config, found)
        passes = int(first.passed)
        for tick in parsed:
            assert isinstance(tick, Tick)
            items.append(tick)
            stop = tick.end
            if ended:
                found.note("end_is_final", tick.start)
                continue
            passes = passes + 1 if tick.move == PASS else 0
            state = check_tick(state, tick, passes, config, found)
            schedule.check(found.note, tokens, tick)
            ended = tick.end_event is not None
    except GrammarError as err:
        note_grammar_error(found.note, err, n, ended=ended, stop=stop)
    else:
        note_close(found.note, n, ended=ended, stop=stop)
    return make_verdict(found.first, lenient_tiers(tokens, items, config), RULES, () if items else OPENING_TIERS)


# ---------------------------------------------------------------- impossible openings (the conformance kit)


def opening_perturbations(tokens: Sequence[str], config: GoConfig) -> list[tuple[str, list[str]]]:
    """Named variants of one valid episode whose opening keyframe alone changes into one no start can be: a stone on
    the board (the centre, Black's), White to move first, a pass already played."""
    tokens = list(tokens)
    opening = next(parse(tokens, config.size))
    assert isinstance(opening, Keyframe)
    centre = tokens[opening.start : opening.end]
    middle = stone((config.size // 2) * config.size + config.size // 2, config.size)
    rest = tokens[opening.end :]
    return [
        ("a stone on the start", [*tokens[: opening.start], "SNAP", "BLACK", middle, "WHITE", "TO_BLACK", *rest]),
        ("White to move first", [*tokens[: opening.start], *centre[:-1], TURN_WORDS[1], *rest]),
        ("a pass before the start", [*tokens[: opening.start], *centre, "PASSED", *rest]),
    ]


def lenient_tiers(tokens: Sequence[str], items: Sequence[Keyframe | Tick], config: GoConfig) -> dict[str, bool]:
    """The lenient tiers, on the parsed part of a sequence: the board as written, without the rules."""
    structural = bool(tokens) and tokens[0] == "BOS" and "EOS" in tokens
    physical = rules = True
    board = bytearray(config.size * config.size)
    for item in items:
        if isinstance(item, Keyframe):
            board = bytearray(item.board(config.size))
            continue
        if item.move >= 0:
            colour = colour_of(item.player)
            if board[item.move] != EMPTY:
                physical = False
            board[item.move] = colour
            for p, _ in item.taken:
                if board[p] != opponent(colour):
                    rules = False
                board[p] = EMPTY
        if item.keyframe is not None:
            board = bytearray(item.keyframe.board(config.size))
    return {"structural": structural, "physical": physical, "rules": rules, "full": structural and physical and rules}
