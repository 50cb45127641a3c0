"""Importing the model package flushes denormal floats on the CPU, in its thread pool too (gamegrammar/model/__init__.py)."""

from __future__ import annotations

import subprocess
import sys

# A product of denormals, in a tensor large enough that torch splits it over its threads: 0 where they are flushed.
PROGRAM = """
import torch
{imports}
torch.set_num_threads(2)
x = torch.full((1 << 22,), 1e-39)
print(float((x * 1.0).sum()))
"""


def product_sum(imports: str) -> float:
    run = subprocess.run([sys.executable, "-c", PROGRAM.format(imports=imports)], capture_output=True, text=True, check=True)
    return float(run.stdout)


def test_importing_the_model_package_flushes_denormals_in_every_thread() -> None:
    assert product_sum("") > 0  # torch alone computes on them
    assert product_sum("import gamegrammar.model") == 0.0
