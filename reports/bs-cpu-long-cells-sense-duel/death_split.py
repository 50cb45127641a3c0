"""Where do a Battlesnake model's deaths fail, teacher-forced? (issue 46: "deaths" is about half right in every design)

`python reports/bs-cpu-long-cells-sense-duel/death_split.py CKPT`: 200 duels the model never saw (episodes
100,000-100,199 of seed 0, the default agent mix, written in the checkpoint's own design by the batch engine), read
whole; at each death the rules write, whether the model's argmax writes its `Sk` (that a death comes at all, after
every snake's move) and, given it, its `DIE_<cause>` word, by cause; at each tick without a death, whether it writes a
death's `Sk` there anyway; and what it writes instead of a missed one.
"""

import sys
from collections import Counter

import numpy as np
import torch

from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.batch_agents import lineup_codes
from gamegrammar.games.battlesnake.grammar import Keyframe, as_pairs, parse
from gamegrammar.training.checkpoint import load_checkpoint

torch.set_num_threads(2)
ck = sys.argv[1]
loaded = load_checkpoint(ck)
game, config, codec = load_game("battlesnake"), loaded.spec.game, loaded.spec.codec
eps = np.arange(100_000, 100_200)
res = game.play_batch(config, codec, 0, eps, lineup_codes(dict(game.default_agents), 0, eps, config.num_snakes))
vocab = game.vocabulary(config)
starts = np.cumsum(res.lengths) - res.lengths
c = Counter()
model = loaded.model.eval()
tok = loaded.tokenizer
for a, k in zip(starts, res.lengths):
    words = [vocab[i] for i in res.tokens[a : a + k].tolist()]
    ids = torch.tensor([tok.encode(words)])
    with torch.no_grad():
        logits = model(ids[:, :-1])[0][0]
    pred = logits.argmax(-1).tolist()
    pairs, origin = as_pairs(words)
    for item in parse(pairs):
        if isinstance(item, Keyframe):
            continue
        post = origin[item.positions["deaths"]]  # where the death section starts (in the sequence's own spelling)
        if item.deaths:
            for d in item.deaths:
                sk, die = origin[d.at], origin[d.at + 1]
                c["sk", d.cause] += 1
                c["sk ok", d.cause] += pred[sk - 1] == ids[0, sk].item()
                c["die", d.cause] += 1
                c["die ok", d.cause] += pred[die - 1] == ids[0, die].item()
                if pred[sk - 1] != ids[0, sk].item():
                    c["sk said", tok.tokens[pred[sk - 1]]] += 1
        else:
            c["nodeath"] += 1
            said = tok.tokens[pred[post - 1]]
            c["nodeath says death"] += said.startswith("S") and said[1:].isdigit()
for cause in sorted({k[1] for k in c if isinstance(k, tuple) and k[0] == "sk"}):
    print(f"{cause:22s} Sk {c['sk ok', cause]}/{c['sk', cause]}   DIE {c['die ok', cause]}/{c['die', cause]}")
print("ticks without a death:", c["nodeath"], "where the model writes a death's Sk:", c["nodeath says death"])
print("what it writes instead of a death's Sk:", [(k[1], v) for k, v in c.most_common() if isinstance(k, tuple) and k[0] == "sk said"])
