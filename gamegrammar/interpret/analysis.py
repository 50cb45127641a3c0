"""Tiers 2-3 and world-state probes as one analysis: run, render and write them.

Shared by `gamegrammar analyze` and `gamegrammar evaluate --tiers`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamegrammar.errors import GameGrammarError

if TYPE_CHECKING:
    from gamegrammar.checkpoint import LoadedModel
    from gamegrammar.corpus import Corpus


def run_analysis(
    loaded: LoadedModel,
    corpus: Corpus,
    tiers: set[str],
    probes: bool,
    *,
    episodes: int = 200,
    probe_ticks: int = 60,
    all_layers: bool = True,
    seed: int = 0,
) -> dict[str, Any]:
    """{"tier2": ..., "tier3": ..., "probes": ..., "analysis_seconds": {...}} for the requested parts (tier 1 is evaluate's)."""
    from gamegrammar.evaluation import archetypes, emergence
    from gamegrammar.evaluation import probes as probes_mod

    if corpus.tokenizer.sha256() != loaded.tokenizer.sha256():
        raise GameGrammarError(f"the checkpoint was trained for another game config than the corpus {corpus.path}")
    if episodes < 1:
        raise GameGrammarError(f"--analysis-episodes must be at least 1, got {episodes}")
    rows = corpus.split("val")[:episodes]
    if not len(rows):
        raise GameGrammarError(f"{corpus.path} has no held-out (val) episodes to analyse")
    ids = [corpus.episode_ids(int(r)) for r in rows]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    model, config = loaded.model, corpus.game
    baseline = emergence.random_like(model, seed)
    out: dict[str, Any] = {"analysis_seconds": {}}
    if "2" in tiers:
        start = time.perf_counter()
        out["tier2"] = emergence.tier2(model, ids, tokens, loaded.tokenizer, config, seed=seed, baseline=baseline)
        out["analysis_seconds"]["tier2"] = round(time.perf_counter() - start, 1)
    if "3" in tiers:
        start = time.perf_counter()
        agents = [corpus.agent(int(r)) for r in rows]
        out["tier3"] = archetypes.archetypes(model, ids, tokens, agents, config, baseline=baseline, seed=seed)
        out["analysis_seconds"]["tier3"] = round(time.perf_counter() - start, 1)
    if probes:
        start = time.perf_counter()
        out["probes"] = probes_mod.world_state_probes(
            model, ids, tokens, config, baseline=baseline, all_layers=all_layers, max_ticks_per_episode=probe_ticks, seed=seed
        )
        out["analysis_seconds"]["probes"] = round(time.perf_counter() - start, 1)
    return out


def markdown_sections(analysis: dict[str, Any]) -> list[str]:
    """The markdown of whichever of tier2 / tier3 / probes the dict holds (also used by report.render_markdown)."""
    from gamegrammar.evaluation import archetypes, emergence, probes

    lines: list[str] = []
    for key, module in (("tier2", emergence), ("tier3", archetypes), ("probes", probes)):
        if analysis.get(key):
            lines += ["", *module.markdown(analysis[key])]
    return lines


def write_plots(analysis: dict[str, Any], out: Path) -> list[str]:
    from gamegrammar.evaluation import archetypes, emergence, probes

    names: list[str] = []
    for key, module in (("tier2", emergence), ("tier3", archetypes), ("probes", probes)):
        if analysis.get(key):
            names += module.plot(analysis[key], out)
    return names


def json_ready(analysis: dict[str, Any]) -> dict[str, Any]:
    """The analysis without the tier-3 arrays (kept in memory for plots and notebooks, not for JSON)."""
    clean = dict(analysis)
    if "tier3" in clean:
        clean["tier3"] = {k: v for k, v in clean["tier3"].items() if k != "arrays"}
    return clean


def render_markdown(analysis: dict[str, Any]) -> str:
    meta = analysis.get("meta", {})
    lines = [f"# Analysis: {meta.get('name', '')}", ""] + [f"- {k}: {v}" for k, v in meta.items() if k != "name"]
    lines += markdown_sections(analysis)
    if analysis.get("plots"):
        lines += ["", "## Plots", ""] + [f"![{p}]({p})" for p in analysis["plots"]]
    return "\n".join(lines) + "\n"


def write_documents(doc: dict[str, Any], out: str | Path, stem: str, plots: Any, render: Any) -> Path:
    """`stem`.json, `stem`.md and the plots (`plots(doc, out)` -> their names) in `out`; returns the markdown path.

    One writer for reports and analyses: both are a dict rendered to markdown beside its JSON and plots.
    """
    from gamegrammar.io import atomic_write_json, atomic_write_text

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc["plots"] = plots(doc, out)
    atomic_write_json(out / f"{stem}.json", json_ready(doc))
    atomic_write_text(out / f"{stem}.md", render(doc))
    return out / f"{stem}.md"


def write_analysis(analysis: dict[str, Any], out: str | Path) -> Path:
    """analysis.json, analysis.md and the plots in `out`; returns the markdown path."""
    return write_documents(analysis, out, "analysis", write_plots, render_markdown)
