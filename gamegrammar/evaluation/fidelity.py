"""Fidelity to the corpus, for any game: validity alone can be bought by playing short, safe games.

Two measures:
- distributions of sampled episodes (length in ticks, score, end reason) against the
  corpus's, as total-variation distances on fixed bins and KS statistics;
- a teacher-forced check: on held-out corpus episodes, the model's argmax and probability
  of every *rule-determined* token (what the game's rules fix given the history and the
  agent's inputs), per category.

What a sequence says (its ticks, score and end) and which of its tokens the rules
determine is the game's to read (`GameSpec.summarize_episode`,
`GameSpec.rule_determined_positions`); the measures here only compare and count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from gamegrammar.core.gamespec import EpisodeSummary, GameSpec
from gamegrammar.games import game_of
from gamegrammar.model.gpt import GameGPT

TICK_BIN = 20  # episode length bins (ticks) for the TV distance
NO_END = "none"  # the end label of a sequence that never wrote a valid end


def end_labels(game: GameSpec) -> list[str]:
    """The end reasons a summary can have: the game's end events (the corpus index's codes), then "none"."""
    return [*game.end_events, NO_END]


def summarize_episodes(sequences: Sequence[Sequence[str] | str], config: Any) -> list[EpisodeSummary]:
    """Each sequence's (tokens, or a space-separated string) ticks, score and end reason, as its game reads them."""
    game = game_of(config)
    return [game.summarize_episode(s.split() if isinstance(s, str) else s) for s in sequences]


def _hist(values: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    counts = np.histogram(values, bins=np.asarray(edges))[0].astype(float)
    return counts / max(1, counts.sum())


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    return float(0.5 * np.abs(p - q).sum())


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    if not len(a) or not len(b):
        return float("nan")
    grid = np.union1d(a, b)
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return float(np.abs(cdf_a - cdf_b).max())


def _compare_binned(samples: np.ndarray, corpus: np.ndarray, edges: Sequence[int]) -> dict:
    """TV on fixed bins and KS between a sampled and the corpus's distribution of one quantity."""
    return {
        "tv": total_variation(_hist(samples, edges), _hist(corpus, edges)),
        "ks": ks_statistic(samples, corpus),
        "sample_mean": float(samples.mean()) if len(samples) else float("nan"),
        "corpus_mean": float(corpus.mean()),
        "bins": list(edges),
        "sample_hist": _hist(samples, edges).tolist(),
        "corpus_hist": _hist(corpus, edges).tolist(),
    }


def compare_distributions(
    samples: Sequence[EpisodeSummary],
    corpus_ticks: np.ndarray,
    corpus_scores: np.ndarray,
    corpus_ends: np.ndarray,
    config: Any,
    corpus_summaries: Sequence[EpisodeSummary] = (),
) -> dict:
    """TV (binned) and KS distances of sampled length/score/end-reason distributions from the corpus's.

    `config` is the corpus's game config: its game names the end reasons (`corpus_ends`
    are positions in its `end_events`), its `max_ticks` closes the length bins. For a game with
    several players (`outcome_labels`), `corpus_summaries` (corpus episodes read by the game) give
    the players' fates, compared as one more distribution ("outcomes": e.g. elimination causes).
    """
    game = game_of(config)
    labels = end_labels(game)
    max_ticks = config.max_ticks
    s_ticks = np.array([s.ticks for s in samples])
    s_scores = np.array([s.score for s in samples])
    s_ends = np.array([labels.index(s.end) for s in samples], np.int64)
    tick_edges = [*range(0, max_ticks + 1, TICK_BIN), max_ticks + 1]
    if tick_edges[-2] != max_ticks:
        tick_edges.insert(-1, max_ticks)  # a bin of its own for episodes that time out
    end_p = np.bincount(s_ends, minlength=len(labels)) / max(1, len(s_ends))
    end_q = np.bincount(corpus_ends, minlength=len(labels)) / max(1, len(corpus_ends))
    out = {
        "samples": len(samples),
        "corpus_episodes": len(corpus_ticks),
        "length_ticks": _compare_binned(s_ticks, corpus_ticks, tick_edges),
        "score": _compare_binned(s_scores, corpus_scores, game.score_bins),
        "end_reason": {
            "tv": total_variation(end_p, end_q),
            "labels": labels,
            "sample": end_p.tolist(),
            "corpus": end_q.tolist(),
        },
    }
    if game.outcome_labels and corpus_summaries:
        out["outcomes"] = _compare_outcomes(samples, corpus_summaries, game.outcome_labels)
    return out


def _compare_outcomes(samples: Sequence[EpisodeSummary], corpus: Sequence[EpisodeSummary], labels: Sequence[str]) -> dict:
    """TV distance between the players' fates in samples and in corpus episodes (every player of every episode counts once)."""

    def shares(summaries: Sequence[EpisodeSummary]) -> np.ndarray:
        counts = np.zeros(len(labels))
        for s in summaries:
            for fate in s.outcomes:
                counts[labels.index(fate)] += 1
        return counts / max(1, counts.sum())

    p, q = shares(samples), shares(corpus)
    return {"tv": total_variation(p, q), "labels": list(labels), "sample": p.tolist(), "corpus": q.tolist(), "corpus_episodes": len(corpus)}


# ---------------------------------------------------------------- teacher-forced rule tokens


@torch.no_grad()
def predicted_rows(
    model: GameGPT, episodes: Sequence[Sequence[int]], positions: Sequence[Sequence[int]], batch_size: int = 16
) -> list[dict[int, torch.Tensor]]:
    """For each episode, {p: the model's log-probabilities of the token at p given the tokens before it} at the
    positions asked (p >= 1), on the CPU.

    Episodes longer than the model's context are read in windows that overlap by half a context; each position is
    scored once, with as much history as the window allows; each window carries the game clock of the ticks before it.
    """
    model.eval()
    device = next(model.parameters()).device
    context = model.config.block_size
    tick_id = model.config.tick_id
    jobs: list[tuple[list[int], int, list[int], int, int]] = []  # (window ids, start, positions, ticks before, episode)
    for e, (ids, wanted) in enumerate(zip(episodes, positions)):
        ids, wanted = list(ids), sorted(p for p in set(wanted) if 1 <= p < len(ids))
        step = max(1, context // 2)
        start, scored_to = 0, 1
        while True:
            end = min(len(ids), start + context)
            mine = [p for p in wanted if scored_to <= p < end]
            if mine:
                jobs.append((ids[start:end], start, mine, sum(t == tick_id for t in ids[:start]), e))
            scored_to = end
            if end == len(ids):
                break
            start += step
    out: list[dict[int, torch.Tensor]] = [{} for _ in episodes]
    for first in range(0, len(jobs), batch_size):
        chunk = jobs[first : first + batch_size]
        width = max(len(w) for w, *_ in chunk)
        batch = torch.zeros(len(chunk), width, dtype=torch.long, device=device)
        for i, (w, *_) in enumerate(chunk):
            batch[i, : len(w)] = torch.tensor(w, device=device)
        cache = model.new_cache(len(chunk), width)  # carries each window's game clock (ticks before it)
        cache.ticks = torch.tensor([job[3] for job in chunk], device=device)
        logp = torch.log_softmax(model(batch, cache=cache)[0].float(), -1).cpu()
        for i, (_, start, mine, _, e) in enumerate(chunk):
            for p in mine:
                out[e][p] = logp[i, p - start - 1]  # the logits at p-1 predict token p
    return out


@torch.no_grad()
def teacher_forced(
    model: GameGPT, episodes: Sequence[Sequence[int]], tokens: Sequence[Sequence[str]], game: GameSpec, batch_size: int = 16
) -> dict:
    """Argmax accuracy and mean probability of the true token at every rule-determined position of `game`.

    `outcomes` breaks the tick's outcome (the token the game's `rule_determined_positions`
    gives a kind) down by what the rules say it is: a model can be 97% right on outcomes
    while missing most of the rare ones, because the common outcome is most ticks.

    Episodes longer than the model's context are read in windows that overlap by half a
    context; each position is scored once, with as much history as the window allows.
    """
    categories = game.teacher_categories
    hits: dict[str, list[float]] = {c: [] for c in categories}
    probs: dict[str, list[float]] = {c: [] for c in categories}
    kinds: dict[str, list[tuple[float, float]]] = {}  # true tick outcome -> (hit, probability) per tick
    targets = [game.rule_determined_positions(toks) for toks in tokens]
    rows = predicted_rows(model, episodes, [[p for p, _, _ in t] for t in targets], batch_size)
    for ids, mine, logp in zip(episodes, targets, rows):
        for p, c, kind in mine:
            row, true = logp[p], int(ids[p])
            hit, prob = float(row.argmax() == true), float(row[true].exp())
            hits[c].append(hit)
            probs[c].append(prob)
            if kind:
                kinds.setdefault(kind, []).append((hit, prob))
    per = {  # the categories the episodes' design writes: another design's (tail events' "free", say) are not listed
        c: {"count": len(hits[c]), "accuracy": float(np.mean(hits[c])), "mean_prob": float(np.mean(probs[c]))}
        for c in categories
        if hits[c]
    }
    all_hits = [h for c in categories for h in hits[c]]
    all_probs = [p for c in categories for p in probs[c]]
    return {
        "episodes": len(episodes),
        "positions": len(all_hits),
        "accuracy": float(np.mean(all_hits)) if all_hits else float("nan"),
        "mean_prob": float(np.mean(all_probs)) if all_probs else float("nan"),
        "categories": per,
        "outcomes": {
            kind: {"count": len(v), "accuracy": float(np.mean([h for h, _ in v])), "mean_prob": float(np.mean([q for _, q in v]))}
            for kind, v in kinds.items()
        },
    }
