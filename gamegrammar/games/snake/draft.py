"""What Snake's rules fix next in a sequence being written: the draft a speculative sampler verifies.

Of a game's tokens only a few are free: the start's direction and food, each tick's input, and where each spawned
food lands. Everything else (the start's cell, length and score, the SENSE word, the outcome and its cell, GROW, the
score, keyframes, the next TICK, TIMEOUT, EOS) follows from what came before. `SnakeDraft` follows one sequence token
by token with the rules (`rules.resolve`, `rules.advance`) and the encoder (`grammar.EpisodeEncoder`), so that it
writes exactly what the generator and the evaluator hold to be right, and says which tokens come next before the
next free one (`certain`). Past a tick's end it also guesses (`proposal`) the next input and the tokens the rules write
for it, for one tick; a refused guess costs only the rest of that pass. The guess (`InputGuess`) is the input of
whichever scripted agent's candidates have held this sequence's inputs most often so far (a sequence is written as one
agent plays), the one among them that keeps the direction where it can: 82.9% of the inputs of 2,000 held-out
episodes of corpus60k-careless-sense, against 65.3% for the input that keeps the direction. Where the sequence leaves the rules (a token the rules would
not write, a spawn on the body), it stops proposing until the next TICK, and goes on from the state the rules reached.
"""

from __future__ import annotations

from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.snake.agents import GreedyAgent, RandomAgent, SnakeAgent, WallFollowerAgent
from gamegrammar.games.snake.grammar import EpisodeEncoder, chance_tokens
from gamegrammar.games.snake.rules import (
    Direction,
    Outcome,
    SnakeConfig,
    SnakeState,
    advance,
    resolve,
    start_cell,
    tick_events,
)

_FREE = None  # a slot the rules leave to chance or to the player
GUESSED_TICKS = 2  # ticks guessed past the rules' own tokens: with the agents' guess, 512 samples of models/snake in 82.4 s against 86.0 s with 1 (3: 81.6 s, the proposal limit binds)
PROPOSAL_LIMIT = 16
_DIRECTIONS = {f"DIR_{d.name}": d for d in Direction}
_INPUTS = {f"INPUT_{d.name}": d for d in Direction}


def _value(token: str, prefix: str) -> int | None:
    digits = token[len(prefix) :]
    return int(digits) if token.startswith(prefix) and digits.isascii() and digits.isdigit() else None


class InputGuess:
    """The next input of one sequence: each scripted agent's choice where it keeps the direction if it can, from the
    agent whose candidates (`SnakeAgent.candidates`) held this sequence's inputs most often so far; the wall follower's
    (safe, and straight where it can) until one has done better. The careless agent picks as greedy when it does not
    slip, and random's pick is the direction kept."""

    def __init__(self, config: SnakeConfig) -> None:
        # the wall follower first: ties go to the first
        self.agents: list[SnakeAgent] = [WallFollowerAgent(config), GreedyAgent(config), RandomAgent(config)]
        self.held = [0] * len(self.agents)  # inputs of this sequence each agent's candidates held

    def __call__(self, state: SnakeState) -> Direction:
        best = max(range(len(self.agents)), key=lambda i: (self.held[i], -i))
        return self._choice(self.agents[best], state)

    def written(self, state: SnakeState, action: Direction) -> None:
        """The sequence wrote `action` on `state`."""
        for i, agent in enumerate(self.agents):
            self.held[i] += action in agent.candidates(state)

    @staticmethod
    def _choice(agent: SnakeAgent, state: SnakeState) -> Direction:
        candidates = agent.candidates(state)
        return state.direction if state.direction in candidates else candidates[0]


class SnakeDraft:
    """One sequence's replay, ahead of it by the tokens the rules fix (`GameSpec.rule_draft`)."""

    def __init__(self, config: SnakeConfig, codec: CodecConfig) -> None:
        self.config, self.codec = config, codec
        self.spawn_offsets = chance_tokens(config, codec)[0][1]  # the spawn's X and Y, counted from FOOD_SPAWN
        x, y = start_cell(config)
        # The opening keyframe the rules write: its direction and its food are drawn.
        self.ahead: list[str | None] = [
            "BOS",
            "SNAP",
            "PLAYER",
            f"X{x}",
            f"Y{y}",
            _FREE,
            "LEN1",
            "BODY",
            "FOOD",
            _FREE,
            _FREE,
            "SCORE",
            "V0",
        ]
        self.at = 0  # tokens of `ahead` written so far
        self.segment = "opening"  # opening, tick (TICK and the input), outcome (the rest of a tick), ended, off
        self.state: SnakeState | None = None  # the state before the tick being written
        self.after: SnakeState | None = None  # ... and after it, once its input is known
        self.done = False  # the tick being written ends the episode
        self.start_direction: Direction | None = None
        self.spawn: list[int] = []  # the spawn's X (and Y) written so far in this tick; the opening's food too
        self.spawn_at: tuple[int, int] = (-1, -1)  # indices of the spawn's X and Y in `ahead` (-1: no spawn)
        self.action = Direction.U  # the input of the tick being written
        self.guess = InputGuess(config)
        self.left = False

    @property
    def off(self) -> bool:
        """The sequence has left the rules somewhere (the draft may have found its way back since)."""
        return self.left

    def certain(self) -> list[str]:
        """The tokens the rules fix next, up to the next free one (empty where the next is free or the rules are left)."""
        out: list[str] = []
        if self.segment in ("off", "ended", "lost"):
            return out
        for token in self.ahead[self.at :]:
            if token is None:
                return out
            out.append(token)
        if self.segment in ("opening", "outcome") and not self.done:
            out.append("TICK")  # the next tick's first word; its input is free
        return out

    def proposal(self) -> list[str]:
        """`certain()`, then, where it ends at a tick's input, guessed ticks (`_guessed_ticks`): PROPOSAL_LIMIT at most."""
        out = self.certain()
        if self.segment in ("off", "ended", "lost"):
            return out
        if self.at + len(out) == len(self.ahead) + 1 and out and self.after is not None:  # ends with the next TICK
            self._guessed_ticks(self.after, out, PROPOSAL_LIMIT)
        elif self.segment == "tick" and self.state is not None and self.ahead[self.at] is None:  # at the input itself
            out.append("TICK")  # a stand-in for the TICK written already, dropped below
            self._guessed_ticks(self.state, out, PROPOSAL_LIMIT + 1)
            return out[1 : PROPOSAL_LIMIT + 1]
        return out[:PROPOSAL_LIMIT]

    def feed(self, token: str) -> None:
        """The next token of the sequence, whatever it is."""
        if self.segment == "lost":
            if token == "TICK" and self.after is not None and not self.done:
                self._next_tick()  # found again: the next tick from the state the rules reached
                self.at = 1
            return
        if self.segment in ("off", "ended"):
            self.segment, self.left = "off", True  # a token after the end: nothing to follow any more
            return
        if self.at == len(self.ahead):
            self._next_tick()
        slot = self.ahead[self.at]
        if slot is _FREE:
            self._free(token)
        elif slot != token:
            self._leave()
        if self.segment not in ("off", "lost"):
            self.at += 1
            if self.done and self.at == len(self.ahead):
                self.segment = "ended"

    def _leave(self) -> None:
        """The sequence left the rules. Within a tick the draft waits for the next TICK and carries on from the state the
        rules reached (a guess: proposals only cost a refusal if it is wrong, and a sequence that wrote a word twice
        and went on as the rules say is followed again); a wrong opening is not followed at all."""
        self.left = True
        self.segment = "lost" if self.segment in ("tick", "outcome") else "off"

    # -- the free slots

    def _free(self, token: str) -> None:
        if self.segment == "opening":
            self._opening_slot(token)
        elif self.segment == "tick":
            self._input(token)
        else:
            self._spawn_slot(token)

    def _opening_slot(self, token: str) -> None:
        if self.at == 5:
            self.start_direction = _DIRECTIONS.get(token)
            if self.start_direction is None:
                self._leave()
            return
        value = _value(token, "X" if self.at == 9 else "Y")
        head = start_cell(self.config)
        if value is None or not self._on_board(value, self.at == 9):
            self._leave()
            return
        self.spawn.append(value)
        if len(self.spawn) == 2:
            food = (self.spawn[0], self.spawn[1])
            if food == head or self.start_direction is None:
                self._leave()
                return
            self.after = SnakeState((head,), self.start_direction, food)
            self.spawn = []

    def _next_tick(self) -> None:
        self.state = self.after
        self.ahead, self.at, self.segment = ["TICK", _FREE], 0, "tick"

    def _input(self, token: str) -> None:
        action = _INPUTS.get(token)
        if action is None or self.state is None:
            self._leave()
            return
        self.guess.written(self.state, action)
        self.action, self.spawn = action, []
        self._write_tick(food=None)
        self.segment = "outcome"

    def _spawn_slot(self, token: str) -> None:
        """The spawn's X, then its Y: the tick is written again with a food cell the written ones allow."""
        assert self.state is not None
        is_x = self.at == self.spawn_at[0]
        value = _value(token, "X" if is_x else "Y")
        if value is None or not self._on_board(value, is_x):
            self._leave()
            return
        self.spawn.append(value)
        body = set(self._grown_body())
        cells = [(self.spawn[0], y) for y in range(self.config.height)] if is_x else [(self.spawn[0], self.spawn[1])]
        free = [cell for cell in cells if cell not in body]
        if not free:
            self._leave()  # a spawn on the body: the rules would never write it
            return
        self._write_tick(food=free[0])

    def _on_board(self, value: int, is_x: bool) -> bool:
        return 0 <= value < (self.config.width if is_x else self.config.height)

    def _grown_body(self) -> tuple[tuple[int, int], ...]:
        assert self.state is not None
        _, _, head = resolve(self.state, self.config, self.action)
        return (head, *self.state.body)

    def _write_tick(self, food: tuple[int, int] | None) -> None:
        """`ahead`: this tick's tokens as the encoder writes them, with the spawn's X and Y left free until written."""
        assert self.state is not None
        after, ahead, done, self.spawn_at = tick_tokens(self.state, self.action, food, self.config, self.codec, self.spawn_offsets)
        for i, value in zip(self.spawn_at, self.spawn):  # what is written stays; the rest of the cell is free
            ahead[i] = f"{'X' if i == self.spawn_at[0] else 'Y'}{value}"
        self.ahead, self.after, self.done = ahead, after, done

    def _guessed_ticks(self, state: SnakeState, out: list[str], limit: int) -> None:
        """After a proposed TICK: the guessed input (`InputGuess`) and what the rules write for it, for up to
        GUESSED_TICKS ticks, each ended by its TICK, stopping at a spawn's cell (chance) or the episode's end. A guess is
        not a rule: a refused one costs that pass's later tokens."""
        for _ in range(GUESSED_TICKS):
            if len(out) >= limit:
                return
            after, ahead, done, _ = tick_tokens(state, self.guess(state), None, self.config, self.codec, self.spawn_offsets)
            for token in ahead[1:]:  # ahead[0] is the TICK already proposed
                if token is None:
                    return
                out.append(token)
            if done:
                return
            out.append("TICK")
            state = after


def tick_tokens(
    before: SnakeState,
    action: Direction,
    food: tuple[int, int] | None,
    config: SnakeConfig,
    codec: CodecConfig,
    spawn_offsets: tuple[int, ...],
) -> tuple[SnakeState, list[str | None], bool, tuple[int, int]]:
    """One tick's tokens from TICK on, as the encoder writes them for this input, the state after it, whether it ends
    the episode, and where the spawn's X and Y stand among the tokens ((-1, -1): no spawn), left free (None). An eat
    without a `food` cell spawns on the first empty one, only so that the tokens after the spawn can be written."""
    direction, outcome, head = resolve(before, config, action)
    if outcome is Outcome.EAT and food is None:
        grown = {head, *before.body}
        food = next(((x, y) for y in range(config.height) for x in range(config.width) if (x, y) not in grown), None)
    after = advance(before, direction, outcome, head, food)
    events, end = tick_events(before, after, action, outcome, config)
    encoder = EpisodeEncoder(codec, config)
    encoder.start(before)
    written = len(encoder.tokens)
    encoder.tick(events, after, end is not None)
    ahead: list[str | None] = list(encoder.tokens[written:])
    spawn_at = (-1, -1)
    if "FOOD_SPAWN" in ahead:
        at = ahead.index("FOOD_SPAWN")
        spawn_at = (at + spawn_offsets[0], at + spawn_offsets[1])
        for i in spawn_at:
            ahead[i] = _FREE
    return after, ahead, end is not None, spawn_at


def rule_draft(config: SnakeConfig, codec: CodecConfig) -> SnakeDraft | None:
    """A draft for sequences of this design, or None where the codec drops events (a summary grammar fixes less)."""
    return SnakeDraft(config, codec) if codec.min_salience <= Salience.TICK else None
