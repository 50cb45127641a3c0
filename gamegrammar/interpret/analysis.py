"""Tiers 2-3 and world-state probes as one analysis: run, render and write them.

Shared by `gamegrammar analyze` and `gamegrammar evaluate --tiers`. Tier 3 and the
probes are game-agnostic (`archetypes`, `probes`); tier 2 is the game's own
(`GameSpec.emergence()`: what its rules are, and how to test each), so its section
remembers which game wrote it (`tier2["game"]`, kept in memory for rendering and
left out of the JSON, like tier 3's arrays).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamegrammar.core.errors import GameGrammarError

if TYPE_CHECKING:
    from gamegrammar.data.corpus import Corpus
    from gamegrammar.training.checkpoint import LoadedModel

IN_MEMORY = {"tier2": "game", "tier3": "arrays"}  # section -> key that renders need and JSON leaves out
PROBE_EPOCHS = 30  # the most epochs a probe trains; it stops earlier on its held-out training episodes
PROBE_PATIENCE = 4  # epochs past the best held-out loss before a probe stops


def run_analysis(
    loaded: LoadedModel,
    corpus: Corpus,
    tiers: set[str],
    probes: bool,
    *,
    episodes: int = 200,
    probe_ticks: int = 0,
    all_layers: bool = True,
    interventions: bool = False,
    intervention_episodes: int = 0,
    probe_epochs: int = PROBE_EPOCHS,
    probe_min_steps: int = 300,
    probe_patience: int = PROBE_PATIENCE,
    seed: int = 0,
    tier3_windows: tuple[int, ...] | None = None,
    tier3_pair: tuple[str, str] | None = None,
    log: Callable[[str], None] | None = None,
    bar: Callable[[int, str, str], Any] | None = None,
    journal: Path | None = None,
) -> dict[str, Any]:
    """{"tier2": ..., "tier3": ..., "probes": ..., "analysis_seconds": {...}} for the requested parts (tier 1 is evaluate's).

    `log` hears a line as each part starts and ends: on a CPU a large model's tier 2 takes a quarter of an hour.
    `bar(total, unit, description)` makes a progress bar (a context manager with `update(n)`) for tier 2's
    episodes and the probes' fits. `interventions` (with `probes`) edits the hidden state along the probes and checks
    the next word against the rules (`interpret.interventions`). `probe_ticks` 0 reads every tick of each episode.
    `probe_patience` > 0 stops each probe early on held-out training episodes, 0 runs `probe_epochs` epochs.
    `tier3_windows`, `tier3_pair`: tier 3's tick counts (default `archetypes.WINDOWS`) and its second task's two agents
    (default: the pair the statistics separate worst).
    `journal`: a folder where each part is kept as it finishes, and read back instead of run again by a rerun of
    the same model, corpus and settings (the caller removes it once the report is written).
    `intervention_episodes` > 0 edits only that many of the episodes the probes held out (the first, in corpus order).
    """
    from gamegrammar.games import game_of
    from gamegrammar.interpret import archetypes
    from gamegrammar.interpret import probes as probes_mod
    from gamegrammar.model.hidden import random_like

    corpus.check_model(loaded)
    if episodes < 1:
        raise GameGrammarError(f"--analysis-episodes must be at least 1, got {episodes}")
    if intervention_episodes < 0:
        raise GameGrammarError(f"--intervention-episodes must be 0 (all) or more, got {intervention_episodes}")
    rows = corpus.split("val")[:episodes]
    if not len(rows):
        raise GameGrammarError(f"{corpus.path} has no held-out (val) episodes to analyse")
    ids = [corpus.episode_ids(int(r)) for r in rows]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    model, config = loaded.model, corpus.game
    game = game_of(config)
    baseline = random_like(model, seed)
    out: dict[str, Any] = {"analysis_seconds": {}}
    windows = tuple(tier3_windows or archetypes.WINDOWS)
    kept = None
    if journal is not None:
        from gamegrammar.interpret.analysis_journal import AnalysisJournal, analysis_fingerprint

        settings = {"episodes": episodes, "probe_ticks": probe_ticks, "all_layers": all_layers, "seed": seed}
        if interventions:
            settings["interventions"] = True if intervention_episodes < 1 else intervention_episodes
        if (probe_epochs, probe_min_steps, probe_patience) != (PROBE_EPOCHS, 300, PROBE_PATIENCE):
            settings["probe_steps"] = [probe_epochs, probe_min_steps, probe_patience]
        if windows != archetypes.WINDOWS or tier3_pair:
            settings |= {"tier3_windows": list(windows), "tier3_pair": list(tier3_pair or [])}
        settings["device"] = next(model.parameters()).device.type
        kept = AnalysisJournal(journal, analysis_fingerprint(model.weights_sha256(), corpus.path, settings))
        if kept.stale and log:
            log(f"{journal} was from another run (model, corpus or settings); starting afresh")

    def part(key: str, what: str, work: Callable[[], dict[str, Any]]) -> None:
        found = kept.get(key, IN_MEMORY.get(key)) if kept is not None else None
        if found is not None:
            out[key], out["analysis_seconds"][key] = found
            if log:
                log(f"{key}: read back from {journal} (an interrupted run finished it)")
            return
        if log:
            log(f"{key}: {what} on {len(rows)} held-out episodes, the model and an untrained one of its shape")
        start = time.perf_counter()
        out[key] = work()
        out["analysis_seconds"][key] = round(time.perf_counter() - start, 1)
        if kept is not None:
            kept.put(key, out[key], out["analysis_seconds"][key], IN_MEMORY.get(key))
        if log:
            log(f"{key}: done in {out['analysis_seconds'][key]} s")

    if "2" in tiers:
        emergence = game.emergence()

        def tier2() -> dict[str, Any]:
            with bar(2 * len(ids), "episode", "tier2 (the model, then an untrained one)") if bar else nullcontext() as shown:
                update = shown.update if shown is not None else None
                found = emergence.tier2(model, ids, tokens, loaded.tokenizer, config, seed=seed, baseline=baseline, progress=update)
            return {**found, "game": game.name}

        part("tier2", "rule emergence and counterfactual probes", tier2)
    if "3" in tiers:
        agents = [corpus.agent(int(r)) for r in rows]
        part(
            "tier3",
            "who is playing, from the first ticks",
            lambda: archetypes.archetypes(
                model, ids, tokens, agents, config, baseline=baseline, windows=windows, pair=tier3_pair, seed=seed
            ),
        )
    if probes:
        from gamegrammar.interpret.interventions import run_interventions

        def intervene(kept: dict[int | str, Any], held_out: list[int]) -> dict[str, Any]:
            held_out = held_out[:intervention_episodes] if intervention_episodes else held_out
            if log:
                log(f"probes: interventions on {len(held_out)} episodes the probes did not train on")
            return run_interventions(model, ids, tokens, config, kept, dict(loaded.tokenizer.ids), held_out, seed=seed)

        def world_state() -> dict[str, Any]:
            anchor, positions = game.probe_anchor, dict(game.probe_positions)
            with (
                bar(
                    probes_mod.probe_fits(model, all_layers, positions, relative=anchor), "fit", "probes (the model, then an untrained one)"
                )
                if bar
                else nullcontext() as shown
            ):
                return probes_mod.world_state_probes(
                    model,
                    ids,
                    tokens,
                    config,
                    baseline=baseline,
                    all_layers=all_layers,
                    relative=anchor,
                    positions=positions,
                    max_ticks_per_episode=probe_ticks or None,
                    epochs=probe_epochs,
                    min_steps=probe_min_steps,
                    patience=probe_patience,
                    intervene=intervene if interventions else None,
                    seed=seed,
                    progress=shown.update if shown is not None else None,
                )

        part("probes", "world-state probes" + (" and interventions" if interventions else ""), world_state)
    return out


def _renderers(analysis: dict[str, Any]) -> list[tuple[str, Any]]:
    """(section, module with markdown() and plot()) for each of tier2 / tier3 / probes the dict holds."""
    from gamegrammar.games import load_game
    from gamegrammar.interpret import archetypes, interventions, probes

    out: list[tuple[str, Any]] = []
    if analysis.get("tier2"):
        name = analysis["tier2"].get("game")
        if name is None:
            raise GameGrammarError("the tier-2 section does not say which game wrote it (tier2['game']); cannot render it")
        out.append(("tier2", load_game(name).emergence()))
    out += [(key, module) for key, module in (("tier3", archetypes), ("probes", probes)) if analysis.get(key)]
    if analysis.get("probes", {}).get("interventions"):  # a part of the probes' section, rendered by its own module
        out.append(("probes", interventions))
    return out


def markdown_sections(analysis: dict[str, Any]) -> list[str]:
    """The markdown of whichever of tier2 / tier3 / probes the dict holds (also used by report.render_markdown)."""
    lines: list[str] = []
    for key, module in _renderers(analysis):
        lines += ["", *module.markdown(analysis[key])]
    return lines


def write_plots(analysis: dict[str, Any], out: Path) -> list[str]:
    names: list[str] = []
    for key, module in _renderers(analysis):
        names += module.plot(analysis[key], out)
    return names


def json_ready(analysis: dict[str, Any]) -> dict[str, Any]:
    """The analysis without what is kept in memory only (tier 2's game, tier 3's arrays: for plots and notebooks)."""
    clean = dict(analysis)
    for section, key in IN_MEMORY.items():
        if isinstance(clean.get(section), dict):
            clean[section] = {k: v for k, v in clean[section].items() if k != key}
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
    from gamegrammar.core.io import atomic_write_json, atomic_write_text

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc["plots"] = plots(doc, out)
    atomic_write_json(out / f"{stem}.json", json_ready(doc))
    atomic_write_text(out / f"{stem}.md", render(doc))
    return out / f"{stem}.md"


def write_analysis(analysis: dict[str, Any], out: str | Path) -> Path:
    """analysis.json, analysis.md and the plots in `out`; returns the markdown path."""
    return write_documents(analysis, out, "analysis", write_plots, render_markdown)
