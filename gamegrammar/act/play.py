"""The model as an agent in the real game: the engine writes every event, the model writes only player 0's input.

`ModelAgent` plays through a game's batch engine (`GameSpec.play_controlled`) wherever a scripted agent plays:
each tick, for every running game, it reads what the engine wrote since its last move (from the engine's
`TokenLog`), appends the tokens that precede player 0's input (`GameSpec.input_prompt`: Snake's TICK,
Battlesnake's TICK S0), and picks the input among those the action mask allows, from the model's distribution
over the game's input tokens at a temperature. The draw is the engine's own keyed draw for that player and tick,
so a game is a function of (seed, episode) and the model, whatever the batch.

One forward pass a tick serves every running game: the KV cache has a row per game at the game's own position
(`KVCache.lengths`), the tokens to feed are padded on the right to the longest, and only the real ones are computed
(`GameGPT.forward(real=...)`; causal attention: a row's logits at its own last token never see its padding, and its
next tokens overwrite the padding's entries). Before, games were grouped by the tokens cached, one pass per group
with each group's rows copied out of a per-game store and back (benchmarks/bench_play.py keeps that controller as
its baseline: 3-4x slower, and on a busy machine ten times slower again with two threads, since its passes were
small; one pass a tick is large enough for every core). A game
whose history outgrows the model's context slides to its last half-context (as `gamegrammar.model.sampling` does), with
the tick clock carried over: `envs.ModelPolicy`'s window, the last block_size // 2 tokens (the prompt included)
however many of them are new, so that both make the same choices. A model with a short context (up to
RECOMPUTE_CONTEXT tokens: gg31k's 64) instead reads every game's last window afresh each tick, all games in one pass
without a cache: fewer, larger passes, and a full context at every move (`recompute`).

`play_games` runs any agent (a scripted agent's name or a `ModelAgent`) over episodes of a seed; `play_report`
summarizes several agents on the same episodes: score, length in ticks, fates (end reasons) and, with several
players, win rate and placement, each with a 95% interval.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gamegrammar.act.play_journal import PlayedBatch, PlayJournal, play_fingerprint
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, CodecConfig, GameSpec, PlayerResult
from gamegrammar.core.io import atomic_write_json, atomic_write_text, save_figure
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.model.gpt import GameGPT, KVCache
from gamegrammar.training.checkpoint import load_checkpoint

MODEL = "model"  # the model agent's name in reports and corpora
DEFAULT_BATCH = 128  # games a model plays at once: its per-game KV store is the memory cost
RECOMPUTE_CONTEXT = 256  # models with a context up to this read each tick's whole window afresh (see ModelAgent)


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run with `n` torch threads (None: as set), then restore."""
    if n is None:
        yield
        return
    if n < 1:
        raise GameGrammarError(f"threads must be at least 1, got {n}")
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def uniform(draws: np.ndarray) -> np.ndarray:
    """uint64 draws as floats in [0, 1) (the top 53 bits, like `rng.unit`)."""
    return (np.asarray(draws, np.uint64) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def choose_inputs(scores: np.ndarray, mask: np.ndarray, temperature: float, u: np.ndarray) -> np.ndarray:
    """Row-wise input choices from logits `scores` (m, inputs) restricted to `mask`: argmax at temperature 0, else the
    inverse CDF of the masked softmax at `u` (m,) in [0, 1). A masked input is never chosen."""
    mask = np.asarray(mask, bool)
    if not mask.any(axis=1).all():
        raise GameGrammarError("the action mask must allow at least one input in every game")
    scores = np.where(mask, np.asarray(scores, np.float64), -np.inf)
    if temperature == 0:
        return scores.argmax(axis=1)
    z = scores / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))  # exactly 0 where masked
    cdf = np.cumsum(p, axis=1)
    pick = (cdf <= (np.asarray(u, np.float64) * cdf[:, -1])[:, None]).sum(axis=1)  # the first input whose cdf passes u
    return np.minimum(pick, mask.shape[1] - 1)


class TokenTap(TokenLog):
    """A TokenLog that also keeps every game's tokens so far in one array (`ids[g, :cursor[g]]`), for a player that reads
    them as the engine writes them."""

    def __init__(self, n: int, width: int = 512) -> None:
        super().__init__(n)
        self.ids = np.zeros((n, width), np.int64)

    def _room(self, need: int) -> None:
        if need > self.ids.shape[1]:
            grown = np.zeros((len(self.ids), max(need, 2 * self.ids.shape[1])), np.int64)
            grown[:, : self.ids.shape[1]] = self.ids
            self.ids = grown

    def write(self, games: np.ndarray, ids: np.ndarray, mask: np.ndarray) -> None:
        before = self.cursor[games].copy()
        super().write(games, ids, mask)
        counts = mask.sum(axis=1)
        if len(games):
            self._room(int(self.cursor[games].max()))
        tokens = ids[mask]
        rows = np.repeat(games, counts)
        self.ids[rows, np.arange(len(tokens)) + np.repeat(before - (np.cumsum(counts) - counts), counts)] = tokens

    def write_dense(self, games: np.ndarray, ids: np.ndarray) -> None:
        before = self.cursor[games].copy()
        super().write_dense(games, ids)
        if len(games):
            self._room(int(self.cursor[games].max()))
        self.ids[games[:, None], before[:, None] + np.arange(ids.shape[1])] = ids


class ModelAgent:
    """A GameGPT playing player 0 of a game: it writes only the input, action-masked, at `temperature` (0 = argmax).

    It plays wherever a scripted agent plays on a batch engine: `play_games(..., agent)` takes either.
    """

    name = MODEL

    def __init__(
        self,
        model: GameGPT,
        tokenizer: GameTokenizer,
        game: GameSpec,
        config: Any,
        codec: CodecConfig | None = None,
        *,
        temperature: float = 1.0,
        batch_size: int = DEFAULT_BATCH,
        recompute: bool | None = None,
    ) -> None:
        if not 0 <= temperature < math.inf:
            raise GameGrammarError(f"temperature must be a finite number >= 0, got {temperature}")
        if batch_size < 1:
            raise GameGrammarError(f"the model's batch size must be at least 1, got {batch_size}")
        self.codec = codec or CodecConfig()
        if self.codec.min_salience > 0:
            raise GameGrammarError("the model plays from full-salience episodes only: its checkpoint's codec drops events")
        self.model = model.eval()
        self.tokenizer, self.game, self.config = tokenizer, game, config
        self.temperature, self.batch_size = float(temperature), batch_size
        self.input_ids = torch.tensor(tokenizer.encode(game.input_tokens(config)))
        self.prompt = np.array(tokenizer.encode(game.input_prompt(config)), np.int64)
        self.tick_id = tokenizer.ids[game.tick_token]
        # Short contexts: each tick, the whole window (the last context's worth of tokens) of every game in one pass,
        # no cache: fewer, larger passes, and the model always sees a full context. Long ones: the KV cache.
        self.recompute = model.config.block_size <= RECOMPUTE_CONTEXT if recompute is None else recompute
        self.forward_passes = 0  # one per group of games per tick: what batching saves

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, *, temperature: float = 1.0, batch_size: int = DEFAULT_BATCH, device: str | torch.device = "cpu"
    ) -> ModelAgent:
        """The model of a training checkpoint (.ckpt) or an exported model directory, on the game it was trained on."""
        loaded = load_checkpoint(path, map_location=device)
        return cls(
            loaded.model, loaded.tokenizer, loaded.game_spec, loaded.game, loaded.codec, temperature=temperature, batch_size=batch_size
        )

    def fingerprint(self, config: Any, codec: CodecConfig, seed: int, opponents: dict[str, float] | None) -> str:
        """What decides this model's games besides the episodes: its weights and every setting (a journal's key)."""
        settings = {"weights": self.model.weights_sha256(), "game": self.game.name, "config": config, "codec": codec, "seed": seed}
        settings |= {"opponents": opponents, "temperature": self.temperature, "batch_size": self.batch_size}
        settings |= {"recompute": self.recompute, "device": str(next(self.model.parameters()).device.type)}
        return play_fingerprint(settings)

    def controller(self, log: TokenTap) -> _Controller:
        """The controller of one batch of games, reading what the engine writes to `log`."""
        return _Controller(self, log)


def check_prompt_written(agent: ModelAgent, log: TokenTap, games: np.ndarray, fed: np.ndarray) -> None:
    """The prompt fed to each started game last tick is what the engine went on to write: else the model's history
    and the game's have parted."""
    p = len(agent.prompt)
    started = np.flatnonzero(fed > 0)
    if started.size:
        written = log.ids[games[started][:, None], fed[started][:, None] - p + np.arange(p)]
        if not (written == agent.prompt).all():
            raise GameGrammarError(f"{agent.game.name}'s engine did not write its input_prompt {agent.game.input_prompt(agent.config)}")


class _Controller:
    """The model's side of one batch: each game's fed tokens, its row in the KV store and its tick clock.

    The store is one KV cache with a row per running game and per-row lengths (`KVCache.lengths`), so every
    running game goes through the same forward pass each tick, however many tokens each has cached or to feed, and
    nothing is copied out and back: a pass writes each row's new entries in place, and computes only the fed tokens
    (`GameGPT.forward(real=...)`), not the padding.
    """

    def __init__(self, agent: ModelAgent, log: TokenTap) -> None:
        self.agent, self.log = agent, log
        n = len(log.cursor)
        self.fed = np.zeros(n, np.int64)  # history tokens accounted for: those fed, then the prompt fed last
        self.cached = np.zeros(n, np.int64)  # tokens in the game's cache row (its history, or a window of it)
        self.device = next(agent.model.parameters()).device
        self.ticks = torch.zeros(n, dtype=torch.long, device=self.device)  # the tick clock after the cached tokens
        self.row = np.full(n, -1, np.int64)  # each game's row in the store (-1: none)
        self.game_of_row = np.zeros(0, np.int64)  # the game in each row, in row order
        self.k: torch.Tensor | None = None  # [layers, rows, heads, capacity, head_dim]: KVCache's layout
        self.v: torch.Tensor | None = None
        self.clean = 0  # positions below this hold numbers in every row (zeros, or entries a row wrote)
        self.reserve = 0  # context kept free past each game's history (a planner's rollouts write there)

    def _rows_for(self, games: np.ndarray) -> None:
        """Rows for these games: a new game gets the next row; an ended game's row gets the store's last row, moved
        into it (one row's filled entries copied, whatever the batch), so that every row in a pass is a running game."""
        running = np.zeros(len(self.row), bool)
        running[games] = True
        used = self.game_of_row
        for r in np.flatnonzero(~running[used])[::-1]:  # from the last: a row moved down is never one still to drop
            last = len(used) - 1
            self.row[used[r]] = -1
            if r != last and self.k is not None and self.v is not None:
                moved, n = used[last], int(self.cached[used[last]])
                self.k[:, r, :, :n].copy_(self.k[:, last, :, :n])
                self.v[:, r, :, :n].copy_(self.v[:, last, :, :n])
                used[r], self.row[moved] = moved, r
            used = used[:last]
        new = games[self.row[games] < 0]
        if new.size:
            self.row[new] = len(used) + np.arange(len(new))
            self.cached[new] = 0  # a game seen before whose row was dropped starts its window afresh (see the slide)
            used = np.concatenate([used, new])
        self.game_of_row = used

    def _room(self, rows: int, length: int) -> None:
        """A store of at least `rows` rows and `length` positions, grown by doubling up to the model's context (and
        past it only as far as padding needs). Keys a row never wrote are masked, but a masked key's value must still
        be a number: every position a pass may read is zeroed once, a slab at a time, as passes reach it."""
        k, v = self.k, self.v
        have_rows, have_len = (0, 0) if k is None else (k.shape[1], k.shape[3])
        if rows > have_rows or length > have_len:
            block = self.agent.model.config.block_size
            c, p = self.agent.model.config, next(self.agent.model.parameters())
            shape = (c.n_layer, max(rows, have_rows), c.n_head, max(length, min(block, max(64, 2 * have_len))), c.n_embd // c.n_head)
            new_k = torch.empty(shape, dtype=p.dtype, device=p.device)  # not zeroed: gigabytes for a large batch
            new_v = torch.empty(shape, dtype=p.dtype, device=p.device)
            if k is not None and v is not None:
                new_k[:, :have_rows, :, : self.clean] = k[:, :, :, : self.clean]
                new_v[:, :have_rows, :, : self.clean] = v[:, :, :, : self.clean]
            new_k[:, have_rows:, :, : self.clean] = 0
            new_v[:, have_rows:, :, : self.clean] = 0
            self.k, self.v = new_k, new_v
        if length > self.clean:
            assert self.k is not None and self.v is not None
            self.k[:, :, :, self.clean : length] = 0
            self.v[:, :, :, self.clean : length] = 0
            self.clean = length

    def __call__(self, games: np.ndarray, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        return choose_inputs(self.scores(games), mask, self.agent.temperature, uniform(draws))

    @torch.no_grad()
    def scores(self, games: np.ndarray) -> np.ndarray:
        """Feed each game what the engine wrote since its last move and the input prompt; the model's scores of the
        input tokens there, (games, inputs). Afterwards each game's row of the store holds its history and prompt."""
        agent, log = self.agent, self.log
        model, prompt = agent.model, agent.prompt
        p = len(prompt)
        games = np.asarray(games, np.int64)
        cursor, fed = log.cursor[games], self.fed[games]
        check_prompt_written(agent, log, games, fed)
        block = model.config.block_size
        if agent.recompute:
            return self._windows(games)
        self._rows_for(games)
        start, cached = fed.copy(), self.cached[games].copy()
        need = cursor - start + p
        # the context is full, or the game lost its row: its last half-context (envs.ModelPolicy's window), the clock
        # carried over, even where more than that is new
        slide = np.flatnonzero((cached + need + self.reserve > block) | ((cached == 0) & (fed > 0)))
        clock = self.ticks[torch.from_numpy(games).to(self.device)]
        if slide.size:
            keep = min(block, max(p, block // 2))
            start[slide] = np.maximum(cursor[slide] + p - keep, 0)
            cached[slide] = 0
            width = int(start[slide].max())
            before = (log.ids[games[slide], :width] == agent.tick_id) & (np.arange(width) < start[slide][:, None])
            clock[torch.from_numpy(slide).to(self.device)] = torch.from_numpy(before.sum(axis=1)).to(self.device)
        length = cursor - start + p  # tokens each game feeds now
        rows = self.row[games]
        scores = np.zeros((len(games), len(agent.input_ids)))
        rest = np.setdiff1d(np.arange(len(games)), slide, assume_unique=True)
        if rest.size:  # every row of the store in one pass; sliding rows write padding from position 0
            used = len(self.game_of_row)
            fed_rows = rows[rest]
            part = self._tokens(games[rest], start[rest], length[rest])
            x = np.full((used, part.shape[1]), agent.tokenizer.pad_id, np.int64)
            x[fed_rows] = part
            lengths = np.zeros(used, np.int64)  # sliding games' rows: nothing of theirs there is read again
            lengths[fed_rows] = cached[rest]
            self._room(used, int(lengths.max()) + x.shape[1])
            assert self.k is not None and self.v is not None
            cache = KVCache(self.k[:, :used], self.v[:, :used], lengths=torch.from_numpy(lengths).to(self.device))
            at = torch.from_numpy(fed_rows).to(self.device)
            cache.ticks = torch.zeros(used, dtype=torch.long, device=self.device)
            cache.ticks[at] = clock[torch.from_numpy(rest).to(self.device)]
            scores[rest] = self._forward(x, cache, fed_rows, length[rest])
            self.ticks[torch.from_numpy(games[rest]).to(self.device)] = cache.ticks[at]  # the padding is no tick
        if slide.size:  # their own pass, from position 0 of a fresh cache, then into their store rows (after the pass above)
            x = self._tokens(games[slide], start[slide], length[slide])
            cache = KVCache(*self._zeros(len(slide), x.shape[1]), lengths=torch.zeros(len(slide), dtype=torch.long, device=self.device))
            cache.ticks = clock[torch.from_numpy(slide).to(self.device)].clone()
            scores[slide] = self._forward(x, cache, np.arange(len(slide)), length[slide])
            self._room(len(self.game_of_row), x.shape[1])
            assert self.k is not None and self.v is not None
            at = torch.from_numpy(rows[slide]).to(self.device)
            self.k[:, :, :, : x.shape[1]].index_copy_(1, at, cache.k)
            self.v[:, :, :, : x.shape[1]].index_copy_(1, at, cache.v)
            self.ticks[torch.from_numpy(games[slide]).to(self.device)] = cache.ticks
        self.cached[games] = cached + length
        self.fed[games] = cursor + p
        return scores

    def _tokens(self, games: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
        """[games, longest]: each game's history from `start` and then the input prompt, padded on the right."""
        agent, log = self.agent, self.log
        p, width = len(agent.prompt), int(length.max())
        body = np.arange(width)[None, :] < (length - p)[:, None]
        x = np.where(
            body, log.ids[games[:, None], np.minimum(start[:, None] + np.arange(width), log.ids.shape[1] - 1)], agent.tokenizer.pad_id
        )
        x[np.arange(len(games))[:, None], (length - p)[:, None] + np.arange(p)] = agent.prompt
        return x

    def _zeros(self, rows: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        c, p = self.agent.model.config, next(self.agent.model.parameters())
        shape = (c.n_layer, rows, c.n_head, length, c.n_embd // c.n_head)
        return torch.zeros(shape, dtype=p.dtype, device=p.device), torch.zeros(shape, dtype=p.dtype, device=p.device)

    def _forward(self, x: np.ndarray, cache: KVCache, rows: np.ndarray, length: np.ndarray) -> np.ndarray:
        """The model's scores of the game's input tokens at each fed row's last token.

        Only the fed tokens are computed (a packed pass): padding and the rows that feed nothing cost no matrix
        work, only their share of attention's reading.
        """
        agent = self.agent
        counts = np.zeros(len(x), np.int64)
        counts[rows] = length
        real = np.arange(x.shape[1])[None, :] < counts[:, None]
        logits, _ = agent.model(torch.from_numpy(x).to(self.device), cache=cache, real=torch.from_numpy(real).to(self.device))
        agent.forward_passes += 1
        last = torch.from_numpy(np.cumsum(counts)[rows] - 1).to(self.device)  # each fed row's last token, packed
        return logits[last][:, agent.input_ids.to(self.device)].float().cpu().numpy()

    def _windows(self, games: np.ndarray) -> np.ndarray:
        """Recompute mode: every game's last `block_size` tokens (prompt included) in one padded pass, no cache."""
        agent, log, model = self.agent, self.log, self.agent.model
        p, cursor = len(agent.prompt), self.log.cursor[games]
        n = np.minimum(cursor + p, model.config.block_size)  # the window's tokens
        start = cursor + p - n
        width = int(n.max())
        body = np.arange(width)[None, :] < (n - p)[:, None]
        x = np.where(
            body, log.ids[games[:, None], np.minimum(start[:, None] + np.arange(width), log.ids.shape[1] - 1)], agent.tokenizer.pad_id
        )
        x[np.arange(len(games))[:, None], (n - p)[:, None] + np.arange(p)] = agent.prompt
        before = int(start.max())
        ticks = ((log.ids[games, :before] == agent.tick_id) & (np.arange(before) < start[:, None])).sum(axis=1)
        cache = model.new_cache(len(games), width)
        cache.ticks = torch.from_numpy(ticks).to(self.device)  # the game clock before each window
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(x).to(self.device), cache=cache)
        agent.forward_passes += 1
        last = torch.from_numpy(n - 1).to(self.device)
        scores = logits[torch.arange(len(games), device=self.device), last][:, agent.input_ids.to(self.device)].float().cpu().numpy()
        self.fed[games] = cursor + p
        return scores


# ---------------------------------------------------------------- playing


Agent = str | ModelAgent  # a scripted agent's name, or a model


def _concat(parts: list[PlayerResult]) -> PlayerResult:
    first = parts[0]
    cat = np.concatenate
    episodes = BatchResult(*(cat([getattr(r.episodes, f) for r in parts]) for f in ("tokens", "lengths", "ticks", "scores", "ends")))
    place = None if first.place is None else cat([r.place for r in parts])  # type: ignore[misc]
    return PlayerResult(
        episodes, cat([r.score for r in parts]), cat([r.ticks for r in parts]), cat([r.fate for r in parts]), first.fates, place
    )


def play_games(
    game: GameSpec,
    config: Any,
    codec: CodecConfig,
    seed: int,
    episodes: Sequence[int] | np.ndarray,
    agent: Agent,
    opponents: dict[str, float] | None = None,
    progress: Callable[[int], None] | None = None,
    journal: PlayJournal | None = None,
) -> PlayerResult:
    """Episodes `episodes` of `seed` on the game's batch engine, player 0 played by `agent` (the others by `opponents`,
    None: the game's default mix). A model plays `agent.batch_size` games at a time; with a `journal`, each batch
    is kept as it finishes, and one an earlier run of the same settings finished is read back instead of played."""
    episodes = np.asarray(episodes, np.int64)
    if not len(episodes):
        raise GameGrammarError("no episodes to play")
    if isinstance(agent, str):
        result = game.play_controlled(config, codec, seed, episodes, agent, opponents)
        if progress:
            progress(len(episodes))
        return result
    parts = []
    for lo in range(0, len(episodes), agent.batch_size):
        chunk = episodes[lo : lo + agent.batch_size]
        done = journal.get(chunk) if journal is not None else None
        if done is not None:
            agent.forward_passes += done.forward_passes
            parts.append(done.result)
        else:
            start, passes = time.perf_counter(), agent.forward_passes
            log = TokenTap(len(chunk))
            parts.append(game.play_controlled(config, codec, seed, chunk, agent.controller(log), opponents, log=log))
            if journal is not None:
                journal.put(chunk, PlayedBatch(parts[-1], time.perf_counter() - start, agent.forward_passes - passes))
        if progress:
            progress(len(chunk))
    return _concat(parts)


# ---------------------------------------------------------------- the report


BOOTSTRAP_RESAMPLES = 2000


def mean_interval(values: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval for the mean of one per-game quantity (Efron and Tibshirani 1993, ch. 13).

    Why not mean ± 1.96 standard errors: the quantities are bounded (a score or a tick count is never negative, a
    place lies between 1 and the players) and skewed (most of a weak agent's games score 0), and there the normal
    interval runs past the bound (a mean score of 0.15 [-0.06, 0.36]) and is symmetric where the mean's spread is
    not. Every bootstrap mean is a mean of values that occurred, so the interval lies within the values' range, hence
    within the quantity's bounds, and follows its skew. Games are resampled as multinomial counts over the distinct
    values (the same draws as resampling the games, in less memory), with a fixed seed: a report is reproducible.
    """
    values = np.asarray(values, np.float64)
    if len(values) < 2:
        return (float(values.mean()), float(values.mean())) if len(values) else (math.nan, math.nan)
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) == 1:
        return float(distinct[0]), float(distinct[0])
    rng = np.random.default_rng(seed)
    chunk = max(1, 4_000_000 // len(distinct))  # resamples per draw, so the counts stay a few tens of MB
    means = np.concatenate(
        [
            rng.multinomial(len(values), counts / len(values), size=min(chunk, resamples - done)) @ distinct / len(values)
            for done in range(0, resamples, chunk)
        ]
    )
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def describe(values: np.ndarray) -> dict[str, Any]:
    """Mean with its 95% interval, standard deviation, min, quantiles and max of one per-game quantity."""
    values = np.asarray(values, np.float64)
    return {
        "mean": float(values.mean()),
        "ci95": list(mean_interval(values)),
        "std": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
        "min": float(values.min()),
        "quantiles": {f"p{round(100 * q)}": float(np.quantile(values, q)) for q in QUANTILES},
        "max": float(values.max()),
    }


def share(k: int, n: int) -> dict[str, Any]:
    return {"count": int(k), "share": k / n if n else math.nan, "ci95": list(wilson_interval(int(k), n))}


def summarize_player(result: PlayerResult, seconds: float | None = None) -> dict[str, Any]:
    """One agent's row of the report: score (its distribution too), ticks played, fates and, with several players,
    wins and places."""
    n = len(result.score)
    score = np.asarray(result.score, np.int64)
    out: dict[str, Any] = {
        "games": n,
        "score": describe(score),
        "score_histogram": {str(s): int(c) for s, c in enumerate(np.bincount(score)) if c},
        "ticks": describe(result.ticks),
        "fates": {fate: share(int((result.fate == i).sum()), n) for i, fate in enumerate(result.fates)},
    }
    if result.place is not None:
        won = result.fate == result.fates.index("WIN") if "WIN" in result.fates else result.place == 1
        out["win"] = share(int(won.sum()), n)  # the last one standing
        out["place"] = describe(result.place)
    if seconds is not None:
        out["seconds"] = round(seconds, 2)
    return out


def _pct(e: dict[str, Any]) -> str:
    lo, hi = e["ci95"]
    return f"{100 * e['share']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _mean(d: dict[str, Any], digits: int = 2) -> str:
    lo, hi = d["ci95"]
    return f"{d['mean']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def render_markdown(report: dict[str, Any]) -> str:
    """One table: a row per agent, on the same episodes."""
    meta, agents = report["meta"], report["agents"]
    several = any("place" in row for row in agents.values())
    fates = [f for f in meta["fates"] if any(row["fates"][f]["count"] for row in agents.values())]
    head = ["agent", "games", "score: mean [95% CI]", "score: p5 / p25 / p50 / p75 / p95 (max)", "ticks played: mean [95% CI]"]
    if several:
        head += ["win [95% CI]", "place: mean [95% CI]"]
    head += fates
    lines = [f"# Play: {meta['game']} ({meta['board']})", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k not in ("fates", "game", "board")]
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for name, row in agents.items():
        q = row["score"]["quantiles"]
        cells = [name, str(row["games"]), _mean(row["score"])]
        cells.append(" / ".join(f"{q[k]:g}" for k in ("p5", "p25", "p50", "p75", "p95")) + f" ({row['score']['max']:g})")
        cells.append(_mean(row["ticks"], 1))
        if several:
            cells += [_pct(row["win"]), _mean(row["place"])] if "place" in row else ["", ""]
        cells += [_pct(row["fates"][f]) for f in fates]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Means with percentile-bootstrap 95% intervals (within the values' range: a score's never below 0); shares with Wilson "
        "95% intervals. Every agent plays the same episodes.",
    ]
    if report.get("plots"):
        lines += [""] + [f"![{p}]({p})" for p in report["plots"]]
    return "\n".join(lines) + "\n"


def write_plots(report: dict[str, Any], out: Path) -> list[str]:
    """scores.png: each agent's score distribution (the share of games at each score)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    for name, row in report["agents"].items():
        hist = {int(s): c for s, c in row["score_histogram"].items()}
        xs = np.arange(max(hist) + 2)
        ax.step(xs, [hist.get(int(x), 0) / row["games"] for x in xs], where="mid", label=f"{name} (mean {row['score']['mean']:.1f})")
    ax.set_xlabel("score")
    ax.set_ylabel("share of games")
    ax.set_title(f"Scores over {report['meta']['games']} games")
    ax.legend(fontsize=8)
    save_figure(fig, out / "scores.png")
    plt.close(fig)
    return ["scores.png"]


def write_play_report(report: dict[str, Any], out: str | Path) -> Path:
    """report.json, report.md and scores.png in `out`, each written atomically; returns the markdown path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {**report, "plots": write_plots(report, out)}
    atomic_write_json(out / "report.json", report)
    path = out / "report.md"
    atomic_write_text(path, render_markdown(report))
    return path


@dataclass
class Played:
    """One agent's games and how long they took."""

    result: PlayerResult
    seconds: float


def play_agents(
    game: GameSpec,
    config: Any,
    codec: CodecConfig,
    seed: int,
    games: int,
    agents: dict[str, Agent],
    opponents: dict[str, float] | None = None,
    progress: Callable[[str, int], None] | None = None,
    journal: PlayJournal | dict[str, PlayJournal] | None = None,
) -> dict[str, Played]:
    """Every agent on episodes 0..games-1 of `seed` (the same episodes, so the same starts and opponents).

    `journal` keeps the model's batches (scripted agents take seconds); its seconds count those read back. With
    several model agents (the model and a planner), one journal each, by name.
    """
    out = {}
    for name, agent in agents.items():
        start = time.perf_counter()
        step = (lambda n, name=name: progress(name, n)) if progress else None
        kept = journal.get(name) if isinstance(journal, dict) else journal
        kept = kept if isinstance(agent, ModelAgent) else None
        result = play_games(game, config, codec, seed, np.arange(games), agent, opponents, step, kept)
        out[name] = Played(result, time.perf_counter() - start + (kept.resumed_seconds if kept else 0.0))
    return out


def play_report(game: GameSpec, config: Any, played: dict[str, Played], meta: dict[str, Any]) -> dict[str, Any]:
    """The report of `play_agents`: meta (game, board, seed, ...) and a row per agent."""
    first = next(iter(played.values())).result
    head = {"game": game.name, "board": ", ".join(f"{k} {v}" for k, v in game.describe_config(config).items()), "fates": list(first.fates)}
    return {"meta": {**head, **meta}, "agents": {name: summarize_player(p.result, p.seconds) for name, p in played.items()}}
