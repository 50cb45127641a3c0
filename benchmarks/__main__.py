"""Every benchmark in one command: `python -m benchmarks [--quick]` (what `make bench` runs).

Each prints its own table with ratios against a baseline measured in the same run:
the scalar engine for generation, the reference replay for the evaluator, full
recomputation for KV-cache sampling, whole prefixes for tier 2's probes, the single Snake env for the environments. The
original implementation's figures (DESIGN.md) are quoted beside them, labelled as copied: they were measured on another
machine, so no ratio is taken against them.
"""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = [  # (module, its own arguments)
    ("bench_generate", []),
    ("bench_generate", ["--game", "battlesnake"]),
    ("bench_generate", ["--game", "go"]),
    ("bench_evaluator", []),
    ("bench_evaluator", ["--game", "battlesnake", "--repeats", "1"]),  # its reference replay takes minutes: one pass
    ("bench_sampling", []),
    ("bench_draft", []),
    ("bench_attention", []),
    ("bench_training", []),
    ("bench_denormals", []),
    ("bench_envs", []),
    ("bench_play", []),
    ("bench_probes", []),
]


def main() -> int:
    extra = sys.argv[1:]
    failed = []
    for name, own in BENCHMARKS:
        title = " ".join([name, *own])
        print(f"\n=== {title} ===", flush=True)
        args = [a for a in extra if a == "--quick" or name != "bench_training"]
        if name == "bench_training" and "--quick" in extra:
            args = ["--steps", "3"]
        if subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *own, *args]).returncode:
            failed.append(title)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
