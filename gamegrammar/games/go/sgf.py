"""SGF, the game records of every Go program and server, in and out (with sgfmill).

`write_record` writes an episode (a corpus's, or a model's sample) as one SGF game: GM[1] FF[4] SZ KM RU[Chinese]
(area scoring), the result RE as this package scores it (`B+3.5`, `W+R`, `0`; none where the sequence writes no end),
then the moves as far as the rules follow them (`trace`), a pass as an empty value (`B[]`). `read_records` reads an
SGF file (one game or a collection) into episodes written in this grammar: each game must be on the config's board
with its komi, start on the empty board (no handicap or setup stones), alternate from Black, and be legal under these
rules; it ends as the rules end it (two passes, the move limit), or with the resignation its result names
(`B+R`/`W+R`, the loser to move). A record that cannot be one of these games is refused with a `RecordError` naming
the game and why. A record this module wrote reads back to the same episode, and writes back to the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

from sgfmill import sgf, sgf_grammar

from gamegrammar import __version__
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.grammar import EpisodeEncoder, GrammarError, Tick, parse
from gamegrammar.games.go.rules import PASS, RESIGN, GoConfig, GoGame, IllegalMove, result_of
from gamegrammar.games.go.trace import trace

APPLICATION = "gamegrammar"


class RecordError(GameGrammarError):
    """An SGF record that is not a game of this config under these rules."""


def write_record(tokens: Sequence[str], config: GoConfig) -> str:
    """One episode as an SGF game's text (the moves the rules follow; the result where the sequence ends)."""
    states = trace(tokens, config)
    game = sgf.Sgf_game(size=config.size)
    root = game.get_root()
    root.set("AP", (APPLICATION, __version__))
    root.set("KM", config.komi)
    root.set("RU", "Chinese")
    last = states[-1]
    ended = _written_end(tokens) is not None and len(states) - 1 == _ticks(tokens)
    if ended:
        root.set("RE", result_of(last, config))
    for k, move in enumerate(last.moves):
        if move == RESIGN:
            break  # the result says who resigned
        node = game.extend_main_sequence()
        colour = "B" if k % 2 == 0 else "W"
        if move == PASS:
            node.set_raw(colour, b"")
        else:
            node.set_move(colour.lower(), (move // config.size, move % config.size))
    return game.serialise().decode()


def _ticks(tokens: Sequence[str]) -> int:
    try:
        return max((item.number for item in parse(tokens) if isinstance(item, Tick)), default=0)
    except GrammarError:
        return -1


def _written_end(tokens: Sequence[str]) -> str | None:
    try:
        return next((item.end_event for item in parse(tokens) if isinstance(item, Tick) and item.end_event), None)
    except GrammarError:
        return None


def read_records(text: str | bytes, config: GoConfig, codec: CodecConfig | None = None) -> list[list[str] | RecordError]:
    """Every game of an SGF file (one game or a collection): its episode's tokens, or the RecordError that refuses it
    (its number in the file, and why). A file that is not SGF at all is one RecordError."""
    data = text.encode() if isinstance(text, str) else text
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as err:
        return [RecordError(f"not an SGF file: {err}")]
    out: list[list[str] | RecordError] = []
    for number, tree in enumerate(trees, start=1):
        try:
            out.append(record_tokens(sgf.Sgf_game.from_coarse_game_tree(tree), config, codec, f"game {number}"))
        except RecordError as err:
            out.append(err)
        except ValueError as err:
            out.append(RecordError(f"game {number}: {err}"))
    return out


def record_tokens(game: sgf.Sgf_game, config: GoConfig, codec: CodecConfig | None, where: str) -> list[str]:
    """One sgfmill game as an episode's tokens, or RecordError saying why it cannot be one."""
    root = game.get_root()
    if game.get_size() != config.size:
        raise RecordError(f"{where}: a {game.get_size()}x{game.get_size()} board, not the config's {config.size}x{config.size}")
    komi = game.get_komi()
    if komi != config.komi:
        raise RecordError(f"{where}: komi {komi:g}, not the config's {config.komi:g}")
    if root.has_setup_stones() or (root.has_property("HA") and root.get("HA") not in (0, 1)):
        raise RecordError(f"{where}: handicap or setup stones (these rules start on the empty board)")
    sim = GoGame(config)
    state = sim.reset(0, 0)
    encoder = EpisodeEncoder(codec or CodecConfig())
    encoder.start(state)
    for k, node in enumerate(game.get_main_sequence()[1:], start=1):
        if node.has_setup_stones():
            raise RecordError(f"{where}: setup stones at move {k} (these rules place stones by moves only)")
        colour, point = node.get_move()
        if colour is None:
            continue  # a node without a move (a comment, say)
        if sim.done:
            raise RecordError(f"{where}: move {k} after the game ended ({sim.end_reason})")
        want = "b" if state.to_play == 0 else "w"
        if colour != want:
            raise RecordError(f"{where}: move {k} is {colour.upper()}'s, but it is {want.upper()}'s turn (players alternate)")
        move = PASS if point is None else point[0] * config.size + point[1]
        try:
            state, events, done = sim.step(move)
        except IllegalMove as err:
            raise RecordError(f"{where}: move {k}: {err}") from None
        encoder.tick(events, state, done)
    if not sim.done:
        result = (root.get("RE") if root.has_property("RE") else "").upper()
        loser = {"B+R": "w", "B+RESIGN": "w", "W+R": "b", "W+RESIGN": "b"}.get(result)
        if loser is None:
            raise RecordError(f"{where}: it ends without two passes or a resignation (result {result or 'none'}): no end of these rules")
        if loser != ("b" if state.to_play == 0 else "w"):
            raise RecordError(f"{where}: {result} but the loser is not the player to move")
        state, events, done = sim.step(RESIGN)
        encoder.tick(events, state, done)
    return encoder.tokens
