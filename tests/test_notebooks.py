"""Every notebook in notebooks/ runs top to bottom on a tiny corpus and a model trained here in seconds.

Notebooks read their inputs from the environment, with defaults for a real run:
GG_CORPUS, GG_CKPT (a .ckpt or exported model directory), GG_EPISODES, GG_OUT for the
analysis notebooks; GG_NOTEBOOK_WORKDIR and GG_NOTEBOOK_QUICK for the quickstart.
They are executed with the repository root as the working directory.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import torch
from nbclient import NotebookClient

from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import game_of
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.model import GameGPT, preset
from gamegrammar.training.checkpoint import LoadedModel, write_export
from gamegrammar.training.lightning import EpisodeWindows, collate_windows

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def train_tiny(corpus: Corpus, out: Path, steps: int = 120) -> Path:
    """A gg31k-shaped model trained for a few seconds with a plain loop, written as an exported model directory."""
    torch.manual_seed(0)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    model = GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=128, tick_id=tick_id))
    data = EpisodeWindows(corpus, corpus.split("train"), block_size=64, windows="random")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        picks = torch.randint(0, len(data), (16,)).tolist()
        x, y = collate_windows([data[i] for i in picks], corpus.tokenizer.pad_id)
        opt.zero_grad()
        model(x, y)[1].backward()
        opt.step()
    return write_export(LoadedModel(model.eval(), corpus.tokenizer, corpus.spec, model.config), out)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("notebooks")
    generate(CorpusSpec(game=SnakeConfig(max_ticks=80), episodes=90, seed=7, val_fraction=0.3), base / "corpus")
    model = train_tiny(Corpus(base / "corpus"), base / "model")
    return {
        "GG_CORPUS": str(base / "corpus"),
        "GG_CKPT": str(model),
        "GG_EPISODES": "12",
        "GG_OUT": str(base / "out"),
        "GG_NOTEBOOK_WORKDIR": str(base / "quickstart"),
        "GG_NOTEBOOK_QUICK": "1",
    }


def test_the_analysis_notebooks_are_there():
    assert {"rule_emergence.ipynb", "archetypes.ipynb", "replays.ipynb"} <= {p.name for p in NOTEBOOKS}


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, inputs: dict[str, str], monkeypatch: pytest.MonkeyPatch):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code"), (
        f"{path.name} is committed with outputs; strip them"
    )
    for key, value in inputs.items():
        monkeypatch.setenv(key, value)  # the kernel inherits this process's environment
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    if path.stem == "replays":
        out = Path(inputs["GG_OUT"])
        assert list(out.glob("episode_*.gif")) and list(out.glob("episode_*.html")) and (out / "sample.html").exists()
