"""Tier 2's counterfactual probes (`gamegrammar analyze --tiers 2`): branched from one forward of each episode,
against every edited prefix and its control run whole.

Run from the repository root:  python -m benchmarks.bench_probes  [--quick] [--threads N] [--json PATH]

A probe replaces something in a real tick (Snake: the input; Battlesnake: a move, or the food) and its control
keeps it; both are the real episode up to a point, then a few tokens. The baseline runs every prefix whole (what
tier 2 did for every design but Snake's grammar v1 before cd1ff3a); tier 2 now runs each episode's prefix once
and branches the short tails off its KV cache (`hidden.edited_logprobs`). Both go through the game's own
`score_probes`, and must give the same figures: the run stops if they do not. Untrained models of the shipped
model's shape (gg-gpu, context 1536) on generated episodes: Snake in grammar v1 and with sense words (the shipped
design), and Battlesnake. Timings depend on what else the machine is doing: compare figures from one run.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import load_game
from gamegrammar.games.battlesnake import emergence as battlesnake_emergence
from gamegrammar.games.snake import emergence as snake_emergence
from gamegrammar.model import GameGPT, preset
from gamegrammar.model.hidden import next_logprobs

WORKLOADS = {  # name -> (game, codec options, its emergence module)
    "Snake, grammar v1": ("snake", {}, snake_emergence),
    "Snake, sense words": ("snake", {"sense": True}, snake_emergence),
    "Battlesnake": ("battlesnake", {}, battlesnake_emergence),
}


def _whole(model: GameGPT, episodes: Any, asked: Any) -> torch.Tensor:
    return next_logprobs(model, [ids for _, ids in asked])


def _numbers(scores: dict[str, Any]) -> list[float]:
    return [v for entry in scores.values() for v in entry.values() if isinstance(v, float)]


def run(name: str, episodes: int, model_name: str, root: Path) -> dict[str, float | int | str]:
    """Seconds to score every probe of `episodes` episodes both ways, and the largest difference between them."""
    game_name, options, module = WORKLOADS[name]
    game = load_game(game_name)
    path = root / name.replace(" ", "-").replace(",", "")
    generate(CorpusSpec(game=game.make_config(), episodes=episodes, codec=game.codec_type(**options), val_fraction=0.0), path)
    corpus = Corpus(path)
    tokens = [corpus.episode_tokens(r) for r in range(len(corpus))]
    probes = module.make_probes(tokens, corpus.game)
    torch.manual_seed(0)
    tok = corpus.tokenizer
    model = GameGPT(preset(model_name, vocab_size=len(tok), tick_id=tok.ids[game.tick_token])).eval()
    branched_fn = module.edited_logprobs
    try:
        module.edited_logprobs = _whole
        start = time.perf_counter()
        whole = module.score_probes(model, probes, tok, tokens)
        whole_s = time.perf_counter() - start
    finally:
        module.edited_logprobs = branched_fn
    start = time.perf_counter()
    branched = module.score_probes(model, probes, tok, tokens)
    branched_s = time.perf_counter() - start
    gap = max(abs(a - b) for a, b in zip(_numbers(whole), _numbers(branched)))
    if gap > 1e-4:
        raise SystemExit(f"{name}: branched probes' figures differ from the whole prefixes' by {gap}")
    return {
        "workload": name,
        "episodes": len(tokens),
        "probes": len(probes),
        "mean_prefix_tokens": round(sum(len(p.tokens) for p in probes) / max(1, len(probes))),
        "whole_s": round(whole_s, 2),
        "branched_s": round(branched_s, 2),
        "speedup": round(whole_s / branched_s, 2),
        "max_figure_gap": gap,
    }


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_probes", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke test: 4 episodes on a small model")
    parser.add_argument("--episodes", type=int, default=None, help="generated episodes per workload (default 24; quick 4)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    episodes = args.episodes or (4 if args.quick else 24)
    model_name = "gg31k" if args.quick else "gg-gpu"
    print(f"tier-2 probes, {model_name} (untrained), {episodes} generated episodes per workload, {torch.get_num_threads()} threads")
    print("| workload | probes | mean prefix (tokens) | whole prefixes | branched | speedup | largest figure gap |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in WORKLOADS:
            r = run(name, episodes, model_name, Path(tmp))
            rows.append(r)
            print(
                f"| {r['workload']} | {r['probes']} | {r['mean_prefix_tokens']} | {r['whole_s']} s | {r['branched_s']} s "
                f"| {r['speedup']}x | {r['max_figure_gap']:.1e} |",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_probes"))
