"""A GTP v2 engine on stdin and stdout: these rules as a Go program that any GTP controller can drive.

`gamegrammar gtp --game go [--agent NAME]` runs it: GNU Go's twogtp, GoGui or Sabaki can then play it, or against it.
It is a rules engine (`play` refuses what the rules refuse, `? illegal move`; `final_score` is the area score with
komi) whose `genmove` asks a scripted agent (`agents.py`; random by default), or a policy: a model given the game so
far in its grammar, both players' moves, up to the TICK of the move asked for, and the moves the rules allow there
(every legal point and PASS; a policy never resigns), `gamegrammar gtp --ckpt PATH`. Commands: protocol_version, name, version,
known_command, list_commands, boardsize, clear_board, komi, play, genmove, undo, showboard, list_stones, final_score,
quit. Players alternate, Black first, passes counted (GO.md): a move by the player not to move is refused as illegal,
and so is a move after the game has ended (two passes, the move limit, a resignation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.agents import GoAgent, make_agent
from gamegrammar.games.go.grammar import EpisodeEncoder
from gamegrammar.games.go.rules import (
    BLACK,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    RESIGN,
    WHITE,
    GoConfig,
    GoState,
    advance,
    area,
    attempt,
    end_reason,
    legal_plays,
    parse_vertex,
    result_string,
    tick_events,
    vertex,
)

PROTOCOL_VERSION = "2"
NAME = "gamegrammar"
COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}


class GtpFailure(Exception):
    """A command that fails: its message follows `?` in the response."""


class GoGtpEngine:
    """The engine's state (a game of `config`, its states so far) and its commands."""

    def __init__(
        self,
        config: GoConfig,
        agent: str = "random",
        seed: int = 0,
        policy: Callable[[Sequence[str], Sequence[str]], str] | None = None,
        codec: CodecConfig | None = None,
    ) -> None:
        self.config, self.agent, self.seed, self.policy, self.codec = config, agent, seed, policy, codec or CodecConfig()
        make_agent(agent, config, 0)  # an unknown agent, or GNU Go missing, fails here, once
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: PROTOCOL_VERSION,
            "name": lambda args: NAME,
            "version": lambda args: _version(),
            "known_command": lambda args: "true" if args and args[0] in self.commands else "false",
            "list_commands": lambda args: "\n".join(self.commands),
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "komi": self.komi,
            "play": self.play,
            "genmove": self.genmove,
            "undo": self.undo,
            "showboard": lambda args: "\n" + render(self.state),
            "list_stones": self.list_stones,
            "final_score": self.final_score,
            "quit": lambda args: "",
        }
        self.games = 0
        self.clear_board([])

    # -- commands

    def boardsize(self, args: list[str]) -> str:
        size = _number(args, "boardsize")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpFailure("unacceptable size")
        self.config = GoConfig(size, self.config.komi, 0)  # the move limit follows the board: 4 N^2
        return self.clear_board([])

    def clear_board(self, args: list[str]) -> str:
        self.states = [GoState.empty(self.config.size)]
        self.players: list[GoAgent] = [make_agent(self.agent, self.config, k) for k in range(2)]
        for player in self.players:
            player.reset(self.seed, self.games)
        self.games += 1
        return ""

    def komi(self, args: list[str]) -> str:
        try:
            komi = float(args[0])
            self.config = GoConfig(self.config.size, komi, self.config.max_ticks)
        except (IndexError, ValueError, GameGrammarError):
            raise GtpFailure("syntax error") from None
        return ""

    @property
    def state(self) -> GoState:
        return self.states[-1]

    def _turn(self, args: list[str], command: str) -> int:
        colour = COLOURS.get(args[0].lower()) if args else None
        if colour is None:
            raise GtpFailure(f"syntax error (usage: {command} black|white ...)")
        if end_reason(self.state, self.config) is not None:
            raise GtpFailure("illegal move (the game is over)")
        if colour != self.state.colour:
            raise GtpFailure(f"illegal move (it is {'black' if self.state.colour == BLACK else 'white'}'s turn)")
        return colour

    def play(self, args: list[str]) -> str:
        self._turn(args, "play")
        if len(args) < 2:
            raise GtpFailure("syntax error (usage: play black|white vertex)")
        try:
            move = RESIGN if args[1].lower() == "resign" else parse_vertex(args[1], self.config.size)
        except ValueError:
            raise GtpFailure("syntax error (not a vertex of this board)") from None
        refusal, after, _ = attempt(self.state, move)
        if refusal is not None or after is None:
            raise GtpFailure(f"illegal move ({refusal})")
        self.states.append(after)
        return ""

    def genmove(self, args: list[str]) -> str:
        self._turn(args, "genmove")
        if self.policy is None:
            move = self.players[self.state.to_play].act(self.state)
        else:
            legal = [*(vertex(p, self.config.size) for p in legal_plays(self.state)), "PASS"]
            choice = self.policy([*self.tokens(), "TICK"], legal)
            move = PASS if choice == "PASS" else parse_vertex(choice, self.config.size)
        self.states.append(advance(self.state, move)[0])
        return "resign" if move == RESIGN else vertex(move, self.config.size).lower() if move < 0 else vertex(move, self.config.size)

    def tokens(self) -> list[str]:
        """The game so far in the grammar (BOS, the empty board's keyframe, a tick a move, captures written): what a
        model reads. The game is not over (genmove refuses then), so no end is written."""
        encoder = EpisodeEncoder(self.codec)
        encoder.start(self.states[0])
        for before, after in zip(self.states, self.states[1:]):
            done = advance(before, after.moves[-1])[1]
            encoder.tick(tick_events(done, after, None, self.config), after, False)
        return encoder.tokens

    def undo(self, args: list[str]) -> str:
        if len(self.states) < 2:
            raise GtpFailure("cannot undo")
        self.states.pop()
        return ""

    def list_stones(self, args: list[str]) -> str:
        colour = COLOURS.get(args[0].lower()) if args else None
        if colour is None:
            raise GtpFailure("syntax error (usage: list_stones black|white)")
        return " ".join(vertex(p, self.config.size) for p, c in enumerate(self.state.board) if c == colour)

    def final_score(self, args: list[str]) -> str:
        state = self.state
        if state.moves and state.moves[-1] == RESIGN:
            return f"{'W' if state.tick % 2 else 'B'}+R"  # the player who resigned moved last
        black, white = area(state.board, self.config.size)
        return result_string(black, white, self.config.komi)

    # -- the protocol

    def respond(self, line: str) -> str | None:
        """The response to one command line (None for a line with no command: empty, or a comment)."""
        words = line.split("#", 1)[0].replace("\t", " ").split()
        if not words:
            return None
        ident = words.pop(0) if words[0].isdigit() else ""
        if not words:
            return f"?{ident} syntax error\n\n"
        name, args = words[0].lower(), words[1:]
        command = self.commands.get(name)
        if command is None:
            return f"?{ident} unknown command\n\n"
        try:
            answer = command(args)
        except GtpFailure as err:
            return f"?{ident} {err}\n\n"
        except GameGrammarError as err:  # an agent that cannot play (GNU Go missing, say): the controller is told
            return f"?{ident} {err}\n\n"
        return f"={ident} {answer}".rstrip(" ") + "\n\n"

    def serve(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answer commands until `quit` or the end of the input."""
        for line in stdin:
            response = self.respond(line)
            if response is None:
                continue
            stdout.write(response)
            stdout.flush()
            words = line.split("#", 1)[0].split()
            if words[1:2] == ["quit"] if words[0].isdigit() else words[:1] == ["quit"]:
                return


def render(state: GoState) -> str:
    """The board as GNU Go's showboard draws it: columns A.. (no I), row N at the top, X black, O white."""
    size = state.size
    letters = " ".join(vertex(x, size)[0] for x in range(size))
    lines = [f"   {letters}"]
    for y in reversed(range(size)):
        row = " ".join(".XO"[state.board[y * size + x]] for x in range(size))
        lines.append(f"{y + 1:>2} {row} {y + 1}")
    lines.append(f"   {letters}")
    return "\n".join(lines)


def _number(args: list[str], command: str) -> int:
    try:
        return int(args[0])
    except (IndexError, ValueError):
        raise GtpFailure(f"syntax error (usage: {command} N)") from None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gamegrammar")
    except PackageNotFoundError:
        return "unknown"
