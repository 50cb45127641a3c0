"""Strict full validity of sampled games by their length in ticks.

    gamegrammar evaluate --ckpt models/battlesnake --corpus data/bs-long-careless --num 1000 --out reports/bs-careless-ft
    gamegrammar evaluate --tokens reports/bs-careless-ft/samples.txt --corpus data/bs-long-careless \
        --json /tmp/verdicts.json --out /tmp/verdicts-report
    python reports/bs-careless-ft/valid_by_length.py reports/bs-careless-ft/samples.txt /tmp/verdicts.json

Why: a model of the careless mix writes shorter games than one of the game's own mix, and a short game has fewer
words to get wrong; its strict rate is compared by length, not as one figure.
"""

import json
import sys
from pathlib import Path

import numpy as np

lines = Path(sys.argv[1]).read_text().splitlines()
verdicts = json.loads(Path(sys.argv[2]).read_text())
ticks = np.array([line.split().count("TICK") for line in lines])
valid = np.array([v["tiers"]["full"] for v in verdicts])
print(f"{len(lines)} games, mean ticks {ticks.mean():.1f}, median {np.median(ticks):.0f}; strict full {valid.mean():.3f}")
for lo, hi in [(0, 25), (25, 50), (50, 100), (100, 200), (200, 301)]:
    m = (ticks >= lo) & (ticks < hi)
    share = f"{valid[m].mean():.3f}" if m.any() else "-"
    print(f"ticks {lo:3d}-{hi - 1:3d}: {m.sum():4d} games, strict full {share}")
