# Does a generation's model choose the planner's input on the planner's own games? Teacher-forced over the last
# generation's kept games (games no model of the loop trained on), the share of ticks where each generation's argmax
# input (among the four INPUT words) is the planner's, in the first context's worth of each game; 95% interval from a
# bootstrap over the games (a game's ticks are not independent).
#   python reports/ouroboros-snake-cpu-expert-share75/agreement.py RUN_DIR HELD_OUT_GEN K [K ...]  (from the repository root)
import json
import sys
from pathlib import Path

import numpy as np
import torch

from gamegrammar.data.corpus import Corpus
from gamegrammar.training.checkpoint import load_checkpoint

run = Path(sys.argv[1])
games = Corpus(run / f"gen-{int(sys.argv[2]):03d}" / "selfplay")
rows = np.concatenate([games.split("train"), games.split("val")])
for k in map(int, sys.argv[3:]):
    record = json.loads((run / f"gen-{k:03d}" / "record.json").read_text())
    loaded = load_checkpoint(record["checkpoint"])
    model, tok = loaded.model.eval(), loaded.tokenizer
    inputs = tok.encode(f"INPUT_{d}" for d in "UDLR")
    agree, total = [], []
    with torch.no_grad():
        for row in rows:
            ids = torch.as_tensor(np.array(games.episode_ids(int(row))[: model.config.block_size]), dtype=torch.long)[None]
            logits = model(ids)[0][0]
            at = (ids[0, 1:, None] == torch.tensor(inputs)).any(-1).nonzero()[:, 0]  # positions whose next token is an input
            chosen = torch.tensor(inputs)[logits[at][:, inputs].argmax(-1)]
            agree.append(int((chosen == ids[0, at + 1]).sum()))
            total.append(len(at))
    agree, total = np.array(agree), np.array(total)
    draws = np.random.default_rng(0).integers(0, len(rows), (2000, len(rows)))
    low, high = np.quantile(agree[draws].sum(1) / total[draws].sum(1), [0.025, 0.975])
    rate = agree.sum() / total.sum()
    print(
        f"generation {k}: the planner's input at {agree.sum()}/{total.sum()} ticks = {rate:.1%} [{low:.1%}, {high:.1%}] ({len(rows)} games)"
    )
