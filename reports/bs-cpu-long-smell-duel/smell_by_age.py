"""Teacher-forced SMELL words of a smell-design Battlesnake model, by what they name and by how long ago the food
beside the head was written (its keyframe or SPAWN), on held-out duels. The question: does the model miss food it
saw long ago (a carrying problem) or food it has just seen too (a lookup problem)?

    python reports/bs-cpu-long-smell-duel/smell_by_age.py CKPT CORPUS [EPISODES]
"""

from __future__ import annotations

import sys
from collections import defaultdict

import torch

from gamegrammar.data.corpus import open_corpus
from gamegrammar.games.battlesnake.grammar import SMELL_OF, Keyframe, parse
from gamegrammar.games.battlesnake.rules import Move, step
from gamegrammar.training.checkpoint import load_checkpoint


def main() -> None:
    ckpt, corpus_path = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    loaded = load_checkpoint(ckpt)
    model, tok = loaded.model.eval(), loaded.tokenizer
    corpus = open_corpus(corpus_path)
    rows = corpus.split("val")[:count]
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_age: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    buckets = ((0, "0-4"), (5, "5-19"), (20, "20-59"), (60, "60+"))
    for row in rows:
        tokens = corpus.episode_tokens(int(row))
        ids = torch.tensor(corpus.episode_ids(int(row)), dtype=torch.long)[None]
        with torch.no_grad():
            logits, _ = model(ids[:, :-1])
        guess = logits[0].argmax(-1).tolist()
        food_since: dict[tuple[int, int], int] = {}
        tick = 0
        heads: dict[int, tuple[int, int]] = {}
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                food_since = {cell: 0 for cell in item.food}
                heads = {s.snake: s.head for s in item.snakes}
                continue
            tick = item.number
            eaten = []
            for m in item.moves:
                at = m.positions["smell"]
                right = guess[at - 1] == tok.ids[tokens[at]]
                kind = "none" if m.smell == 0 else "food beside"
                by_kind[kind][0] += right
                by_kind[kind][1] += 1
                if m.smell:
                    head = heads[m.snake]
                    age = min(tick - food_since[step(head, d)] for d in Move if m.smell >> d & 1)
                    name = next(n for lo, n in reversed(buckets) if age >= lo)
                    by_age[name][0] += right
                    by_age[name][1] += 1
                if m.head is not None:
                    heads[m.snake] = m.head
                if m.eat:
                    eaten.append(m.head)
            for cell in eaten:  # the board the words describe is the one before every move of the tick
                food_since.pop(cell, None)
            for cell in item.spawns:
                food_since[cell] = tick
    print(f"{len(rows)} held-out episodes of {corpus_path}, {ckpt}")
    for kind, (right, total) in by_kind.items():
        print(f"  SMELL word {kind}: {right}/{total} argmax right ({right / total:.1%})")
    for _, name in buckets:
        right, total = by_age.get(name, (0, 0))
        if total:
            print(f"  food beside, written {name} ticks before: {right}/{total} ({right / total:.1%})")


if __name__ == "__main__":
    main()
