"""Teacher-forced: the probability a model gives the first token (Sk) of each death the rules write, by cause.

    python reports/bs-cpu-long-cells-sense-hits-duel/death_prob.py CKPT [GAMES]

Plays GAMES unseen duels (episodes 100,000 on, seed 0, the game's agent mix) in the checkpoint's own design, and at
each death reads P(Sk) where the death's Sk is written; at each tick without a death, P(no Sk) where the death
section would start. Prints, per cause, the count, the mean probability, how many the argmax would write (p > 0.5) and
the median.
"""

import sys
from collections import defaultdict

import numpy as np
import torch

from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.batch_agents import lineup_codes
from gamegrammar.games.battlesnake.grammar import Keyframe, as_pairs, parse
from gamegrammar.training.checkpoint import load_checkpoint

torch.set_num_threads(2)
loaded = load_checkpoint(sys.argv[1])
game, config, codec = load_game("battlesnake"), loaded.spec.game, loaded.spec.codec
print(codec)
eps = np.arange(100_000, 100_000 + int(sys.argv[2] if len(sys.argv) > 2 else 200))
res = game.play_batch(config, codec, 0, eps, lineup_codes(dict(game.default_agents), 0, eps, config.num_snakes))
vocab = game.vocabulary(config)
tok, model = loaded.tokenizer, loaded.model.eval()
snakes = [tok.encode([f"S{k}"])[0] for k in range(config.num_snakes)]
starts = np.cumsum(res.lengths) - res.lengths
by_cause: dict[str, list[float]] = defaultdict(list)
no_death: list[float] = []
for a, k in zip(starts, res.lengths):
    words = [vocab[i] for i in res.tokens[a : a + k].tolist()]
    ids = torch.tensor([tok.encode(words)])
    with torch.no_grad():
        prob = torch.softmax(model(ids[:, :-1])[0][0].float(), -1)
    pairs, origin = as_pairs(words)
    for item in parse(pairs):
        if isinstance(item, Keyframe):
            continue
        if item.deaths:
            for d in item.deaths:
                sk = origin[d.at]
                by_cause[d.cause].append(prob[sk - 1, ids[0, sk]].item())
        else:
            post = origin[item.positions["deaths"]] if item.positions["deaths"] < len(origin) else len(words)
            no_death.append(1 - prob[post - 1, snakes].sum().item())
for cause, v in sorted(by_cause.items()):
    v = np.array(v)
    print(f"{cause:22s} {len(v):4d}  mean p {v.mean():.3f}  argmax writes it {(v > 0.5).sum():4d}  median {np.median(v):.3f}")
print(f"ticks without a death {len(no_death)}: mean P(no Sk) {np.mean(no_death):.4f}")
