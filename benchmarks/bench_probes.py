"""Tier 2's counterfactual probes (`gamegrammar analyze --tiers 2`): branched from one forward of each episode,
against every edited prefix and its control run whole.

Run from the repository root:  python -m benchmarks.bench_probes  [--quick] [--threads N] [--json PATH]

A fatal-input probe replaces a real tick's input and its control keeps it; both are the real episode up to that
tick's TICK, then a few tokens. The baseline runs each of the two prefixes whole (what tier 2 did for every
design but grammar v1 until 2f60b55); tier 2 now runs each episode's prefix once and branches the short tails
off its KV cache (`hidden.branch_sequences`). Both must give the same log-probs: the run stops if they do not.
An untrained model of the shipped model's shape (gg-gpu, context 1536) on generated Snake episodes, in grammar
v1 and with sense words (the shipped design). Timings depend on what else the machine is doing: compare figures
from one run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch

from gamegrammar.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import load_game
from gamegrammar.games.snake import emergence as em
from gamegrammar.hidden import next_logprobs
from gamegrammar.model import GameGPT, preset

DESIGNS = {"grammar v1": {}, "sense words": {"sense": True}}


def run(design: str, episodes: int, model_name: str, root: Path) -> dict[str, float | int | str]:
    """Seconds to score every probe of `episodes` episodes both ways, and the largest difference between them."""
    game = load_game("snake")
    spec = CorpusSpec(game=game.make_config(), episodes=episodes, codec=game.codec_type(**DESIGNS[design]), val_fraction=0.0)
    path = root / design.replace(" ", "-")
    generate(spec, path)
    corpus = Corpus(path)
    tokens = [corpus.episode_tokens(r) for r in range(len(corpus))]
    probes = em.make_probes(tokens, corpus.game)
    torch.manual_seed(0)
    tok = corpus.tokenizer
    model = GameGPT(preset(model_name, vocab_size=len(tok), tick_id=tok.ids[game.tick_token])).eval()
    start = time.perf_counter()
    whole = (next_logprobs(model, [tok.encode(p.tokens) for p in probes]), next_logprobs(model, [tok.encode(p.control) for p in probes]))
    whole_s = time.perf_counter() - start
    start = time.perf_counter()
    branched = em._probe_logprobs(model, probes, tok, tokens)
    branched_s = time.perf_counter() - start
    gap = max(float((a - b).abs().max()) for a, b in zip(whole, branched))
    if gap > 1e-3:
        raise SystemExit(f"{design}: branched log-probs differ from the whole prefixes' by {gap}")
    return {
        "design": design,
        "episodes": len(tokens),
        "probes": len(probes),
        "mean_prefix_tokens": round(sum(len(p.tokens) for p in probes) / max(1, len(probes))),
        "whole_s": round(whole_s, 2),
        "branched_s": round(branched_s, 2),
        "speedup": round(whole_s / branched_s, 2),
        "max_abs_logprob_gap": gap,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke test: 4 episodes on a small model")
    parser.add_argument("--episodes", type=int, default=None, help="generated episodes per design (default 24; quick 4)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    episodes = args.episodes or (4 if args.quick else 24)
    model_name = "gg31k" if args.quick else "gg-gpu"
    print(f"tier-2 probes, {model_name} (untrained), {episodes} generated episodes per design, {torch.get_num_threads()} threads")
    print("| design | probes | mean prefix (tokens) | whole prefixes | branched | speedup | max log-prob gap |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for design in DESIGNS:
            r = run(design, episodes, model_name, Path(tmp))
            rows.append(r)
            print(
                f"| {r['design']} | {r['probes']} | {r['mean_prefix_tokens']} | {r['whole_s']} s | {r['branched_s']} s "
                f"| {r['speedup']}x | {r['max_abs_logprob_gap']:.1e} |",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
