"""The model agent's throughput (`gamegrammar play`): one pass per tick for every game, against the grouped
controller before it and against one game at a time, with the machine's bound.

Run from the repository root:  python -m benchmarks.bench_play  [--quick] [--threads N] [--json PATH]

The model reads every token of every running game and picks an input each tick, exactly as `ModelAgent`
does in `play`, but the games follow the greedy agent's moves: untrained weights would die within a few
ticks, and a good player's games (about 150 ticks, 900 tokens on 10x10 Snake) are what the agent must
afford. Rows: gg-cpu and the shipped model's shape (gg-gpu, context 1536: the per-row KV store) and gg31k
(context 64: each tick's windows recomputed in one pass, and, for comparison, the KV cache), each at the
default batch of 128 games; beside them, in the same run, the grouped controller the agent had before
(`GroupedController`, a faithful copy: games grouped by cached length, each group's cache rows copied out and
back) and batch 1 (one forward pass per game per tick). "of bound": achieved against the least time the
run's own passes can take on this machine (benchmarks/roofline.py). Timings depend on what else the machine
is doing: compare figures from one run.
"""

from __future__ import annotations

import json
import time

import numpy as np
import torch

from gamegrammar.act.play import ModelAgent, TokenTap, check_prompt_written, choose_inputs, uniform
from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, agent_actions
from gamegrammar.games.snake.control import LEGAL
from gamegrammar.games.snake.rollout import play_batch
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import GameGPT, preset

from .roofline import Machine, Recorder

GREEDY = AGENT_NAMES.index("greedy")


# ---------------------------------------------------------------- the controller before one pass served every game


def _runs(rows: np.ndarray) -> list[tuple[int, int, int]]:
    """(position in rows, first row, count) of each run of consecutive values in ascending `rows`."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    starts = np.concatenate([[0], breaks])
    counts = np.diff(np.concatenate([starts, [len(rows)]]))
    return [(int(a), int(rows[a]), int(c)) for a, c in zip(starts, counts)]


class GroupedController:
    """The model agent's controller as it was before one pass served every game (a faithful copy, the baseline):
    games grouped by cached length, one forward pass per group, each group's cache rows copied out of a per-game
    store and its new entries written back."""

    def __init__(self, agent: ModelAgent, log: TokenTap) -> None:
        self.agent, self.log = agent, log
        n = len(log.cursor)
        self.fed = np.zeros(n, np.int64)  # history tokens accounted for: those fed, then the prompt fed last
        self.cached = np.zeros(n, np.int64)  # tokens in the game's cache row (its history, or a window of it)
        self.device = next(agent.model.parameters()).device
        self.ticks = torch.zeros(n, dtype=torch.long, device=self.device)  # the tick clock after the cached tokens
        self.k: torch.Tensor | None = None  # [layers, n, heads, capacity, head_dim]: KVCache's layout
        self.v: torch.Tensor | None = None

    def _store(self, rows: torch.Tensor, k: torch.Tensor, v: torch.Tensor, start: int) -> None:
        """Write new cache entries (positions start.. of these rows) into the per-game store, growing it as needed."""
        end = start + k.shape[3]
        if self.k is None or self.k.shape[3] < end:
            block = self.agent.model.config.block_size
            capacity = min(block, max(end, 64, 0 if self.k is None else 2 * self.k.shape[3]))
            shape = (k.shape[0], len(self.fed), k.shape[2], capacity, k.shape[4])
            new_k, new_v = k.new_empty(shape), v.new_empty(shape)
            if self.k is not None and self.v is not None:
                new_k[:, :, :, : self.k.shape[3]] = self.k
                new_v[:, :, :, : self.v.shape[3]] = self.v
            self.k, self.v = new_k, new_v
        assert self.v is not None
        self.k[:, :, :, start:end].index_copy_(1, rows, k)
        self.v[:, :, :, start:end].index_copy_(1, rows, v)

    @torch.no_grad()
    def __call__(self, games: np.ndarray, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        agent, log = self.agent, self.log
        model, prompt = agent.model, agent.prompt
        p = len(prompt)
        games = np.asarray(games, np.int64)
        cursor, fed = log.cursor[games], self.fed[games]
        check_prompt_written(agent, log, games, fed)
        block = model.config.block_size
        start, cached = fed.copy(), self.cached[games].copy()
        need = cursor - start + p
        slide = np.flatnonzero(cached + need > block)
        clock = self.ticks[torch.from_numpy(games).to(self.device)]
        if slide.size:  # the context is full: its last half (envs.ModelPolicy's window), the clock carried over
            keep = min(block, max(p, block // 2))  # even where more than that is new
            start[slide] = cursor[slide] + p - keep
            cached[slide] = 0
            width = int(start[slide].max())
            before = (log.ids[games[slide], :width] == agent.tick_id) & (np.arange(width) < start[slide][:, None])
            clock[torch.from_numpy(slide).to(self.device)] = torch.from_numpy(before.sum(axis=1)).to(self.device)
        length = cursor - start + p
        scores = np.zeros((len(games), len(agent.input_ids)))
        input_ids = agent.input_ids.to(self.device)
        pad = agent.tokenizer.pad_id
        for old in np.unique(cached):  # one forward pass per cached length: shorter rows are padded on the right
            idx = np.flatnonzero(cached == old)
            g, n = games[idx], length[idx]
            width = int(n.max())
            body = np.arange(width)[None, :] < (n - p)[:, None]
            x = np.where(body, log.ids[g[:, None], np.minimum(start[idx][:, None] + np.arange(width), log.ids.shape[1] - 1)], pad)
            x[np.arange(len(idx))[:, None], (n - p)[:, None] + np.arange(p)] = prompt
            rows = torch.from_numpy(g).to(self.device)
            cache = model.new_cache(len(idx), int(old) + width)
            if old:
                assert self.k is not None and self.v is not None
                for at, first, count in _runs(g):  # runs of consecutive games: plain strided copies (index_select is far slower)
                    cache.k[:, at : at + count, :, :old].copy_(self.k[:, first : first + count, :, :old])
                    cache.v[:, at : at + count, :, :old].copy_(self.v[:, first : first + count, :, :old])
                cache.pos = int(old)
            cache.ticks = clock[torch.from_numpy(idx).to(self.device)].clone()
            logits, _ = model(torch.from_numpy(x).to(self.device), cache=cache)
            agent.forward_passes += 1
            # a padded row's entries past its end are stored too: never read, its next tokens overwrite them
            self._store(rows, cache.k[:, :, :, old:], cache.v[:, :, :, old:], int(old))
            self.ticks[rows] = cache.ticks  # the padding is no tick: the clock at each row's end
            last = torch.from_numpy(n - 1).to(self.device)
            scores[idx] = logits[torch.arange(len(idx), device=self.device), last][:, input_ids].float().cpu().numpy()
        self.cached[games] = cached + length
        self.fed[games] = cursor + p
        return choose_inputs(scores, mask, agent.temperature, uniform(draws))


# ---------------------------------------------------------------- the runs


def run(name: str, games: int, batch: int, recompute: bool | None, machine: Machine, grouped: bool = False) -> dict[str, float]:
    """The model's work on `games` greedy games, `batch` at a time: games/s, tokens/s, forward passes, and the bound."""
    config, codec = SnakeConfig(), CodecConfig()
    tokenizer = tokenizer_for(config)
    torch.manual_seed(0)
    model = GameGPT(preset(name, vocab_size=len(tokenizer), tick_id=tokenizer.ids["TICK"], dropout=0.0)).eval()
    agent = ModelAgent(model, tokenizer, load_game("snake"), config, codec, batch_size=batch, recompute=recompute)
    ticks = tokens = 0
    recorder = Recorder(model).__enter__()
    start = time.perf_counter()
    for lo in range(0, games, batch):
        episodes = np.arange(lo, min(games, lo + batch))
        log = TokenTap(len(episodes))
        controller = GroupedController(agent, log) if grouped else agent.controller(log)
        codes = np.full(len(episodes), GREEDY)

        def policy(b, running, draws, probe, controller=controller, codes=codes):
            controller(running, LEGAL[b.direction], draws)  # the model's whole work; its choice is dropped
            return agent_actions(b, codes[running], draws, probe)

        result = play_batch(config, codec, 0, episodes, policy, log=log)
        ticks += int(result.ticks.sum())
        tokens += int(result.lengths.sum())
    seconds = time.perf_counter() - start
    recorder.__exit__()
    return {
        "model": name,
        "mode": "recompute" if agent.recompute else "grouped KV cache (before)" if grouped else "KV cache",
        "batch": batch,
        "games": games,
        "seconds": round(seconds, 2),
        "games_per_s": games / seconds,
        "tokens_per_s": tokens / seconds,
        "mean_ticks": ticks / games,
        "forward_passes": agent.forward_passes,
        "of_bound": recorder.bound_seconds(machine) / seconds,
    }


def main() -> int:
    parser = OneLineParser(prog="python -m benchmarks.bench_play", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games only")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's, one per core)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    many, few = (16, 2) if args.quick else (128, 8)
    torch.manual_seed(0)
    machine = Machine.measure(GameGPT(preset("gg-gpu", vocab_size=64, tick_id=4)))
    print(machine.describe())
    rows = []
    for name, recompute in (("gg-cpu", None), ("gg-gpu", None), ("gg31k", None), ("gg31k", False)):
        batched = run(name, many, 128, recompute, machine)
        baselines = [run(name, few, 1, recompute, machine)]
        if not batched["mode"].startswith("recompute"):
            baselines.insert(0, run(name, many, 128, recompute, machine, grouped=True))
        for b in baselines:
            b["speedup"] = batched["games_per_s"] / b["games_per_s"]
        rows += [batched, *baselines]
        batched["speedup"] = 1.0
    print(f"torch threads: {torch.get_num_threads()}")
    print(
        "| model | mode | batch | games | games/s | tokens/s | mean ticks | forward passes | of bound | the first row of its model against this |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['model']} | {r['mode']} | {r['batch']} | {r['games']} | {r['games_per_s']:.2f} | {r['tokens_per_s']:,.0f} "
            f"| {r['mean_ticks']:.0f} | {r['forward_passes']} | {r['of_bound']:.0%} | {r['speedup']:.1f}x |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_play"))
