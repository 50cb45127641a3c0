# Is a generation's fall in strict validity worse rules or longer games? Redraws each generation's free samples as
# the loop measured them (400 at T=1.0, seed 1000 + k) and reads, besides the strict rate, the rate of first
# violations per 1,000 ticks written before them (a tick hazard, which longer games do not raise by themselves) and
# the strict rate among samples of the same length.
#   python reports/ouroboros-snake-cpu-expert-share75/hazard.py RUN_DIR K [K ...]   (from the repository root)
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import yaml

from gamegrammar.act.ouroboros import MeasureSettings, _sample
from gamegrammar.data.corpus import Corpus
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.evaluation.validity import validate_many
from gamegrammar.training.checkpoint import load_checkpoint

run = Path(sys.argv[1])
cfg = yaml.safe_load((run / "ouroboros.yaml").read_text())
corpus = Corpus(cfg["corpus"])
settings = MeasureSettings(
    samples=cfg["measure"]["samples"], temperature=cfg["measure"]["temperature"], batch_size=cfg["measure"]["batch_size"]
)
bins = [0, 50, 100, 150, 201]
rows = []
for k in map(int, sys.argv[2:]):
    record = json.loads((run / f"gen-{k:03d}" / "record.json").read_text())
    loaded = load_checkpoint(record["checkpoint"])
    samples = _sample(loaded, settings, record["seed"])
    verdicts = validate_many(samples, corpus.game, corpus.codec)
    ticks_before = []  # ticks written before the first violation (all of them when valid)
    ticks_all = []
    for tokens, v in zip(samples, verdicts):
        ticks = np.cumsum([t == "TICK" for t in tokens])
        ticks_all.append(int(ticks[-1]))
        ticks_before.append(int(ticks[min(v.positions[v.violations[0]], len(ticks) - 1)]) if v.violations else int(ticks[-1]))
    passed = sum(v.valid for v in verdicts)
    failed = len(samples) - passed
    exposure = sum(ticks_before)
    row = {
        "generation": k,
        "samples": len(samples),
        "strict": passed / len(samples),
        "strict_ci95": list(wilson_interval(passed, len(samples))),
        "mean_ticks": float(np.mean(ticks_all)),
        "violations_per_1000_ticks": 1000 * failed / max(1, exposure),
        "by_ticks": {},
    }
    for lo, hi in itertools.pairwise(bins):
        sel = [v.valid for v, t in zip(verdicts, ticks_all) if lo <= t < hi]
        row["by_ticks"][f"{lo}-{hi - 1}"] = {
            "n": len(sel),
            "strict": (sum(sel) / len(sel)) if sel else None,
            "ci95": list(wilson_interval(sum(sel), len(sel))),
        }
    print(json.dumps(row))
    rows.append(row)
Path(sys.argv[0]).with_name(f"hazard-{run.name}.json").write_text(json.dumps(rows, indent=1))
