"""The self-improvement loop: the model plays the real game, keeps its best games, and learns from them.

Generation 0 is a trained checkpoint. Each generation k:

1. (k >= 1) fine-tune generation k-1's weights for a fixed budget through the same Lightning training
   (`gamegrammar train fit` with the configured YAML, plus a stacked YAML of this generation's data and
   budget: `model.init_from` the previous weights) on the real corpus *and* every kept self-play game so
   far. The real corpus is always there and never replaced: training only on its own games is how a
   self-consuming model collapses.
2. play `play.games` real games (episodes of seed + k) as the model agent (`gamegrammar.act.play`): the engine
   writes every event, the model only its inputs. Their mean score is the generation's score. With `expert`
   set, the planner on generation k's model (`gamegrammar.act.planner`: the model searching inside its own
   dreams) plays the same episodes too: the expert of expert iteration proper, whose games are better than the
   policy that the model's weights hold.
3. keep the best by score as a corpus of the real corpus's codec and game config (the expert's games when there
   is one, else the model's own; the next generations train on it; the last generation's waits for a longer rerun).
4. measure: strict validity and fidelity to the real corpus of free samples from BOS (they must not fall:
   no collapse), and the novelty of the played games' and the samples' states against the real corpus.

Each generation's record is written (atomically) when it is finished, then the log and the plot. Rerunning
the same command after a kill continues from the last finished generation: finished ones are read back,
never redone; a generation killed half-way reuses what it finished (its fine-tune resumes from its
last.ckpt, its kept games are read back).

Layout of `out`: ouroboros.yaml (the run's config), log.json, ouroboros.png, baselines.json, and per
generation gen-NNN/ with train/ (the fine-tune's run directory), finetune.yaml, play/ (the play report),
selfplay/ (the kept games' corpus) and record.json.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from gamegrammar.act.planner import PlannerAgent, PlannerConfig
from gamegrammar.act.play import ModelAgent, Played, play_games, play_report, summarize_player, torch_threads, write_play_report
from gamegrammar.act.play_journal import PlayJournal
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, PlayerResult
from gamegrammar.core.io import atomic_write_json, atomic_write_text, check_output_dir, save_figure
from gamegrammar.data.corpus import Corpus, write_played
from gamegrammar.evaluation.fidelity import compare_distributions, summarize_episodes
from gamegrammar.evaluation.validity import summarize, validate_many
from gamegrammar.training.checkpoint import LoadedModel, load_checkpoint, read_checkpoint

# ---------------------------------------------------------------- the config


@dataclass(frozen=True)
class PlaySettings:
    games: int = 1000  # real games the model plays per generation
    temperature: float = 1.0  # its sampling temperature (0 = argmax: no exploration)
    batch_size: int = 128  # games played at once
    threads: int | None = 1  # torch threads while playing and sampling (None: as set; fine-tuning keeps its own)
    device: str | None = None  # where the model plays and samples: cpu, cuda, ... (None: cuda when available)


@dataclass(frozen=True)
class KeepSettings:
    fraction: float = 0.25  # the best share of a generation's games by score...
    top_k: int | None = None  # ...or the best k (overrides fraction)


@dataclass(frozen=True)
class FinetuneSettings:
    config: str = "configs/gg-cpu.yaml"  # the training YAML (`gamegrammar train fit --config`)
    max_steps: int | None = 200  # the budget in steps (trainer.max_steps) ...
    max_time: str | None = "00:00:05:00"  # ... and in time (trainer.max_time, DD:HH:MM:SS)
    selfplay_share: float | None = 0.5  # the kept games' share of the training windows (None: every episode once)
    args: list[str] = field(default_factory=list)  # more `train fit` overrides, e.g. ["--model.lr", "1e-3"]


@dataclass(frozen=True)
class MeasureSettings:
    samples: int = 200  # free samples from BOS: strict validity, fidelity and novelty
    temperature: float = 1.0  # their sampling temperature
    batch_size: int = 64
    novelty_episodes: int | None = None  # real-corpus training episodes whose states count as known (None: all)
    baselines: list[str] = field(default_factory=lambda: ["greedy"])  # scripted agents on generation 0's episodes


@dataclass(frozen=True)
class OuroborosConfig:
    checkpoint: str  # generation 0
    corpus: str  # the real corpus the checkpoint was trained on: kept in every generation's data
    out: str = "runs/ouroboros"
    generations: int = 3  # fine-tuned generations after generation 0
    seed: int = 1000  # generation k plays episodes 0..games-1 of seed + k
    play: PlaySettings = field(default_factory=PlaySettings)
    keep: KeepSettings = field(default_factory=KeepSettings)
    finetune: FinetuneSettings = field(default_factory=FinetuneSettings)
    measure: MeasureSettings = field(default_factory=MeasureSettings)
    expert: PlannerConfig | None = None  # the planner whose games are kept (its fields; null: the model's own games)

    def __post_init__(self) -> None:
        checks = [
            (self.generations >= 0, f"generations must be >= 0, got {self.generations}"),
            (0 <= self.seed < 1 << 62, f"seed must be in [0, 2**62), got {self.seed}"),
            (self.play.games >= 1, f"play.games must be at least 1, got {self.play.games}"),
            (0 <= self.play.temperature < math.inf, f"play.temperature must be a finite number >= 0, got {self.play.temperature}"),
            (self.play.batch_size >= 1, f"play.batch_size must be at least 1, got {self.play.batch_size}"),
            (self.play.threads is None or self.play.threads >= 1, f"play.threads must be at least 1, got {self.play.threads}"),
            (0 < self.keep.fraction <= 1, f"keep.fraction must be in (0, 1], got {self.keep.fraction}"),
            (self.keep.top_k is None or self.keep.top_k >= 1, f"keep.top_k must be at least 1, got {self.keep.top_k}"),
            (
                self.finetune.max_steps is None or self.finetune.max_steps >= 1,
                f"finetune.max_steps must be >= 1, got {self.finetune.max_steps}",
            ),
            (self.finetune.max_steps is not None or self.finetune.max_time is not None, "finetune needs a budget: max_steps or max_time"),
            (
                self.finetune.selfplay_share is None or 0 <= self.finetune.selfplay_share < 1,
                f"finetune.selfplay_share must be in [0, 1), got {self.finetune.selfplay_share}",
            ),
            (self.measure.samples >= 1, f"measure.samples must be at least 1, got {self.measure.samples}"),
            (0 <= self.measure.temperature < math.inf, f"measure.temperature must be a finite number >= 0, got {self.measure.temperature}"),
        ]
        for ok, message in checks:
            if not ok:
                raise GameGrammarError(f"ouroboros config: {message}")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> OuroborosConfig:
        """From the YAML's mapping; unknown or missing keys are refused in one line."""
        return _build(cls, d, "")

    @classmethod
    def from_yaml(cls, path: str | Path) -> OuroborosConfig:
        path = Path(path)
        if not path.is_file():
            raise GameGrammarError(f"ouroboros config {path} does not exist")
        try:
            d = yaml.safe_load(path.read_text())
        except yaml.YAMLError as err:
            raise GameGrammarError(f"{path} is not valid YAML: {str(err).splitlines()[0]}") from None
        return cls.from_dict(d or {})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _build(cls: type, d: Any, where: str) -> Any:
    if not isinstance(d, dict):
        raise GameGrammarError(f"ouroboros config: {where.rstrip('.') or 'the file'} should be a mapping, got {d!r:.40}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - set(fields))
    if unknown:
        raise GameGrammarError(f"ouroboros config: unknown key {where}{unknown[0]} (known: {', '.join(fields)})")
    nested = {"PlaySettings": PlaySettings, "KeepSettings": KeepSettings, "FinetuneSettings": FinetuneSettings}
    nested |= {"MeasureSettings": MeasureSettings, "PlannerConfig": PlannerConfig}
    values = {}
    for name, value in d.items():
        kind = str(fields[name].type)  # annotations are strings here (postponed evaluation)
        section, _, optional = kind.partition(" | ")
        if section in nested:  # a section of its own, maybe `| None`
            values[name] = None if optional == "None" and value is None else _build(nested[section], value, f"{where}{name}.")
            continue
        if not _fits(value, kind):
            raise GameGrammarError(f"ouroboros config: {where}{name} should be {kind}, got {value!r:.60}")
        values[name] = float(value) if kind.startswith("float") and isinstance(value, int) else value
    try:
        return cls(**values)
    except TypeError as err:
        raise GameGrammarError(f"ouroboros config: {where or 'the file'} {err}") from None
    except GameGrammarError as err:  # a value its own class refuses (the planner's settings)
        if str(err).startswith("ouroboros config:"):
            raise
        raise GameGrammarError(f"ouroboros config: {where.rstrip('.')}: {err}") from None


_PLAIN = {"int": int, "float": (int, float), "str": str}


def _fits(value: Any, kind: str) -> bool:
    """Whether a YAML value fits a field's annotation (int, float, str, list[str], each maybe `| None`)."""
    base, _, rest = kind.partition(" | ")
    if rest == "None" and value is None:
        return True
    if base == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return not isinstance(value, bool) and isinstance(value, _PLAIN[base])


# ---------------------------------------------------------------- the loop

Train = Callable[[list[str]], Any]  # `gamegrammar train`'s main: argv after "train"


@dataclass
class Run:
    """One ouroboros run directory."""

    config: OuroborosConfig

    @property
    def out(self) -> Path:
        return Path(self.config.out)

    def generation_dir(self, k: int) -> Path:
        return self.out / f"gen-{k:03d}"

    def checkpoint(self, k: int) -> Path:
        return Path(self.config.checkpoint) if k == 0 else self.generation_dir(k) / "train" / "checkpoints" / "last.ckpt"

    def selfplay(self, k: int) -> Path:
        return self.generation_dir(k) / "selfplay"

    def record_path(self, k: int) -> Path:
        return self.generation_dir(k) / "record.json"


def _check_resumable(run: Run) -> None:
    """A run directory holds one config: a rerun continues it (generations may grow), anything else is refused."""
    saved = run.out / "ouroboros.yaml"
    mine = run.config.to_dict()
    if saved.exists():
        before = yaml.safe_load(saved.read_text()) or {}
        differ = sorted(k for k in set(before) | set(mine) if k != "generations" and before.get(k) != mine.get(k))
        if differ:
            raise GameGrammarError(f"{run.out} holds a run of another config (differs in {', '.join(differ)}): give another out")
    atomic_write_text(saved, yaml.safe_dump(mine, sort_keys=False))


def select(result: PlayerResult, keep: KeepSettings) -> np.ndarray:
    """Positions of the games to keep: the best by score (with several players, by place first), earlier games first on
    ties; top_k of them, else the best `fraction` (at least one)."""
    n = len(result.score)
    count = keep.top_k if keep.top_k is not None else max(1, math.ceil(keep.fraction * n))
    if result.place is not None:
        order = np.lexsort((np.arange(n), -result.score, result.place))
    else:
        order = np.lexsort((np.arange(n), -result.score))
    return np.sort(order[: min(count, n)])


def take(result: BatchResult, rows: np.ndarray) -> BatchResult:
    """The episodes at `rows` of a batch result."""
    starts = np.cumsum(result.lengths) - result.lengths
    tokens = np.concatenate([result.tokens[starts[r] : starts[r] + result.lengths[r]] for r in rows])
    return BatchResult(tokens, result.lengths[rows], result.ticks[rows], result.scores[rows], result.ends[rows])


def finetune_yaml(run: Run, k: int) -> dict[str, Any]:
    """The stacked training config of generation k: the data (real corpus + kept games so far), init, budget."""
    cfg = run.config
    selfplay = [str(run.selfplay(j)) for j in range(k)]
    data: dict[str, Any] = {"path": [cfg.corpus, *selfplay]}
    share = cfg.finetune.selfplay_share
    if share is not None and selfplay:
        data["weights"] = [1 - share, *([share / len(selfplay)] * len(selfplay))]
    trainer: dict[str, Any] = {}
    if cfg.finetune.max_steps is not None:
        trainer["max_steps"] = cfg.finetune.max_steps
    trainer["max_time"] = cfg.finetune.max_time
    return {"data": data, "model": {"init_from": str(run.checkpoint(k - 1))}, "trainer": trainer}


def finetune(run: Run, k: int, train: Train, log: Callable[[str], None]) -> dict[str, Any]:
    """Generation k's weights: generation k-1's fine-tuned through `gamegrammar train fit`; resumes a killed fine-tune."""
    gen = run.generation_dir(k)
    done = gen / "train" / "finished.json"
    if done.exists():
        return json.loads(done.read_text())
    stacked = gen / "finetune.yaml"
    atomic_write_text(stacked, yaml.safe_dump(finetune_yaml(run, k), sort_keys=False))
    argv = ["fit", "--config", run.config.finetune.config, "--config", str(stacked), *run.config.finetune.args]
    argv += ["--run_dir", str(gen / "train")]
    if list((gen / "train" / "checkpoints").glob("*.ckpt")):  # a fine-tune killed half-way: resume it
        argv += ["--ckpt_path", "last"]
    log(f"generation {k}: gamegrammar train {' '.join(argv)}")
    start = time.perf_counter()
    train(argv)
    last = run.checkpoint(k)
    if not last.exists():
        raise GameGrammarError(f"the fine-tune of generation {k} wrote no {last}: does its config save last.ckpt (save_last: true)?")
    info = {
        "steps": int(read_checkpoint(last)["global_step"]),
        "seconds": round(time.perf_counter() - start, 1),
        "run_dir": str(gen / "train"),
    }
    atomic_write_json(done, info)
    return info


def _sample(loaded: LoadedModel, settings: MeasureSettings, seed: int) -> list[list[str]]:
    from gamegrammar.model.sampling import SamplingConfig, generate

    block = loaded.model.config.block_size
    max_length = max(2048, block + block // 2, (loaded.longest_episode or 0) * 5 // 4)  # as `gamegrammar sample` by default
    config = SamplingConfig(settings.temperature, max_length=max_length, batch_size=settings.batch_size, seed=seed)
    game, codec = loaded.game_spec, loaded.codec
    draft = None if game.rule_draft(loaded.game, codec) is None else (loaded.tokenizer, lambda: game.rule_draft(loaded.game, codec))
    # the rules' draft (speculative sampling): the same samples, fewer passes
    ids = generate(loaded.model, [[loaded.tokenizer.bos_id]] * settings.samples, loaded.tokenizer.eos_id, config, draft=draft)
    return [loaded.tokenizer.decode(s) for s in ids]


def _novelty(sequences: Sequence[Sequence[str]], known: np.ndarray | None, config: Any) -> dict[str, Any] | None:
    if known is None:
        return None
    from gamegrammar.data.novelty import novelty

    return novelty(sequences, known, config)


def measure(
    loaded: LoadedModel, corpus: Corpus, settings: MeasureSettings, seed: int, known: np.ndarray | None, games: list[list[str]]
) -> dict:
    """Free samples' strict validity and fidelity to the real corpus; novelty of the samples and the played games."""
    start = time.perf_counter()
    samples = _sample(loaded, settings, seed)
    config = corpus.game
    summary = summarize(validate_many(samples, config, corpus.codec), corpus.game_spec.rules_for(corpus.codec))
    index = corpus.index
    dist = compare_distributions(summarize_episodes(samples, config), index["ticks"], index["score"], index["end"], config)
    return {
        "samples": len(samples),
        "temperature": settings.temperature,
        "strict": summary["tiers"],
        "lenient": summary["lenient"],
        "fidelity": {
            "length_tv": dist["length_ticks"]["tv"],
            "score_tv": dist["score"]["tv"],
            "end_tv": dist["end_reason"]["tv"],
            "sample_mean_ticks": dist["length_ticks"]["sample_mean"],
            "corpus_mean_ticks": dist["length_ticks"]["corpus_mean"],
            "sample_mean_score": dist["score"]["sample_mean"],
        },
        "novelty": {"samples": _novelty(samples, known, config), "games": _novelty(games, known, config)},
        "seconds": round(time.perf_counter() - start, 1),
    }


def _known_states(corpus: Corpus, settings: MeasureSettings, log: Callable[[str], None]) -> np.ndarray | None:
    try:
        from gamegrammar.data.novelty import corpus_state_keys
    except ImportError:  # pragma: no cover - the module ships with the package
        log("novelty: gamegrammar.data.novelty is not available; the records carry no novelty")
        return None
    try:
        return corpus_state_keys(corpus, "train", settings.novelty_episodes)
    except GameGrammarError as err:  # a game without state features: no novelty, the rest goes on
        log(f"novelty: {err}")
        return None


def generation(run: Run, k: int, corpus: Corpus, known: np.ndarray | None, log: Callable[[str], None]) -> dict[str, Any]:
    """Play, keep and measure generation k's model (its fine-tune is done); the generation's record."""
    cfg, gen = run.config, run.generation_dir(k)
    start = time.perf_counter()
    device = cfg.play.device or ("cuda" if torch.cuda.is_available() else "cpu")
    loaded = load_checkpoint(run.checkpoint(k), map_location=device)
    agent = ModelAgent(
        loaded.model,
        loaded.tokenizer,
        loaded.game_spec,
        loaded.game,
        loaded.codec,
        temperature=cfg.play.temperature,
        batch_size=cfg.play.batch_size,
    )
    seed = cfg.seed + k
    episodes = np.arange(cfg.play.games)
    result, seconds = _play_journaled(agent, corpus, seed, episodes, gen / "play.partial", f"generation {k}", log)
    log(f"generation {k}: {cfg.play.games} games in {seconds:.0f} s, mean score {result.score.mean():.2f}")
    meta = {
        "generation": k,
        "checkpoint": str(run.checkpoint(k)),
        "games": cfg.play.games,
        "seed": seed,
        "temperature": cfg.play.temperature,
    }
    write_play_report(play_report(corpus.game_spec, corpus.game, {"model": Played(result, seconds)}, meta), gen / "play")
    record: dict[str, Any] = {"generation": k, "checkpoint": str(run.checkpoint(k)), "seed": seed}
    record["play"] = summarize_player(result, seconds)
    origin = {"agent": "model", "checkpoint": str(run.checkpoint(k)), "generation": k, "temperature": cfg.play.temperature}
    if cfg.expert is not None:  # expert iteration proper: the planner on this model plays the same episodes
        result, record["expert"] = _expert_games(run, k, loaded, corpus, seed, episodes, log)
        origin |= {"agent": "planner", "planner": dataclasses.asdict(cfg.expert)}
    kept = select(result, cfg.keep)  # the last generation's too: a longer rerun of the loop trains on them
    origin |= {"seed": seed, "selected": f"the best {len(kept)} of {cfg.play.games} games by score"}
    kept_games = take(result.episodes, kept)
    write_played(run.selfplay(k), corpus.game, corpus.codec, loaded.tokenizer, seed, episodes[kept], kept_games, origin, overwrite=True)
    record["kept"] = {
        "games": len(kept),
        "min_score": float(result.score[kept].min()),
        "mean_score": float(result.score[kept].mean()),
        "corpus": str(run.selfplay(k)),
    }
    starts = np.cumsum(result.episodes.lengths) - result.episodes.lengths
    shown = range(min(cfg.measure.samples, len(starts)))  # as many played games as free samples for novelty
    games = [loaded.tokenizer.decode(result.episodes.tokens[starts[i] : starts[i] + result.episodes.lengths[i]]) for i in shown]
    record["measure"] = measure(loaded, corpus, cfg.measure, seed, known, games)
    record["seconds"] = round(time.perf_counter() - start, 1)
    return record


def _play_journaled(
    agent: ModelAgent, corpus: Corpus, seed: int, episodes: np.ndarray, partial: Path, who: str, log: Callable[[str], None]
) -> tuple[PlayerResult, float]:
    """The agent's games, and their seconds; the batches played so far are kept in `partial` until the generation's
    record is written, so that a killed run does not play them again."""
    start = time.perf_counter()
    journal = PlayJournal(partial, agent.fingerprint(corpus.game, corpus.codec, seed, None))
    if journal.kept():
        log(f"{who}: {journal.kept()} batches of games were played before the run stopped; reading them back")
    result = play_games(corpus.game_spec, corpus.game, corpus.codec, seed, episodes, agent, journal=journal)
    return result, time.perf_counter() - start + journal.resumed_seconds


def _expert_games(
    run: Run, k: int, loaded: LoadedModel, corpus: Corpus, seed: int, episodes: np.ndarray, log: Callable[[str], None]
) -> tuple[PlayerResult, dict[str, Any]]:
    """The planner on generation k's model plays the generation's episodes (resumable like the model's games)."""
    cfg, gen = run.config, run.generation_dir(k)
    assert cfg.expert is not None
    expert = PlannerAgent(
        loaded.model, loaded.tokenizer, loaded.game_spec, loaded.game, loaded.codec, plan=cfg.expert, batch_size=cfg.play.batch_size
    )
    result, seconds = _play_journaled(expert, corpus, seed, episodes, gen / "expert.partial", f"generation {k}'s planner", log)
    log(f"generation {k}: the planner played {len(episodes)} games in {seconds:.0f} s, mean score {result.score.mean():.2f}")
    meta = {"generation": k, "checkpoint": str(run.checkpoint(k)), "games": len(episodes), "seed": seed}
    meta |= {"planner": dataclasses.asdict(cfg.expert), "planner_cost": expert.stats.summary()}
    write_play_report(play_report(corpus.game_spec, corpus.game, {"planner": Played(result, seconds)}, meta), gen / "expert")
    return result, {**summarize_player(result, seconds), "cost": expert.stats.summary()}


def baselines(run: Run, corpus: Corpus) -> dict[str, Any]:
    """The scripted baselines on generation 0's episodes, played once (cached in baselines.json)."""
    path = run.out / "baselines.json"
    if path.exists():
        return json.loads(path.read_text())
    cfg = run.config
    out = {}
    for name in cfg.measure.baselines:
        start = time.perf_counter()
        result = play_games(corpus.game_spec, corpus.game, corpus.codec, cfg.seed, np.arange(cfg.play.games), name)
        out[name] = summarize_player(result, time.perf_counter() - start)
    atomic_write_json(path, out)
    return out


def run_loop(config: OuroborosConfig, train: Train, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run (or continue) the loop to `config.generations`; returns the log (also written to out/log.json)."""
    run = Run(config)
    check_output_dir(run.out, what="out", inputs=(config.corpus, config.checkpoint))  # its generations are no input's
    corpus = Corpus(config.corpus)
    corpus.check_model(load_checkpoint(config.checkpoint), f"the checkpoint {config.checkpoint}")
    if not Path(config.finetune.config).is_file() and config.generations:
        raise GameGrammarError(f"finetune.config {config.finetune.config} does not exist")
    run.out.mkdir(parents=True, exist_ok=True)
    _check_resumable(run)
    with torch_threads(config.play.threads):
        base = baselines(run, corpus)
    known = _known_states(corpus, config.measure, log)
    records: list[dict[str, Any]] = []
    written = None
    for k in range(config.generations + 1):
        path = run.record_path(k)
        if path.exists():
            records.append(json.loads(path.read_text()))
            continue
        record = {}
        if k:
            record["finetune"] = finetune(run, k, train, log)
        with torch_threads(config.play.threads):
            record = {**generation(run, k, corpus, known, log), **record}
        atomic_write_json(path, record)
        for partial in ("play.partial", "expert.partial"):
            shutil.rmtree(run.generation_dir(k) / partial, ignore_errors=True)
        records.append(record)
        written = write_log(run, base, records)
        log(f"generation {k} finished: {path}")
    return written if written is not None and len(written["generations"]) == len(records) else write_log(run, base, records)


def write_log(run: Run, base: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    out = {"config": run.config.to_dict(), "baselines": base, "generations": records}
    atomic_write_json(run.out / "log.json", out)
    plot(out, run.out / "ouroboros.png")
    return out


def plot(log: dict[str, Any], path: Path) -> None:
    """Per generation: the agent's mean score (and the baselines), strict validity of free samples, fidelity TVs, novelty."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = log["generations"]
    gens = [r["generation"] for r in records]
    fig, grid = plt.subplots(2, 2, figsize=(11, 7))
    axes = grid.ravel()

    def band(ax: Any, entries: list[dict[str, Any]], key: str, label: str) -> None:
        mean = [e[key] for e in entries]
        lo = [m - e["ci95"][0] for m, e in zip(mean, entries)]
        hi = [e["ci95"][1] - m for m, e in zip(mean, entries)]
        ax.errorbar(gens, mean, yerr=[lo, hi], marker="o", capsize=3, label=label)

    band(axes[0], [r["play"]["score"] for r in records], "mean", "model")
    if records and all("expert" in r for r in records):
        band(axes[0], [r["expert"]["score"] for r in records], "mean", "planner (the expert)")
        axes[0].legend(fontsize=8, loc="lower right")
    for name, row in log["baselines"].items():
        axes[0].axhline(row["score"]["mean"], ls="--", color="gray")
        axes[0].text(gens[0] if gens else 0, row["score"]["mean"], f" {name} {row['score']['mean']:.1f}", va="bottom", fontsize=8)
    axes[0].set_title("the model agent's mean score in the real game (95% CI)", fontsize=10)
    if all("win" in r["play"] for r in records) and records:  # several players: the win rate beside the score
        wins = axes[0].twinx()
        wins.plot(gens, [r["play"]["win"]["share"] for r in records], marker="s", color="C3", label="win rate")
        wins.set_ylim(0, 1.05)
        wins.set_ylabel("win rate", color="C3")
    band(axes[1], [r["measure"]["strict"]["full"] for r in records], "rate", "strict full")
    axes[1].set_ylim(0, 1.05)
    axes[1].set_title("free samples: strict validity, full (Wilson 95%)", fontsize=10)
    for key in ("length_tv", "score_tv", "end_tv"):
        axes[2].plot(gens, [r["measure"]["fidelity"][key] for r in records], marker="o", label=key[:-3])
    axes[2].set_title("free samples: fidelity to the real corpus (TV, lower is closer)", fontsize=10)
    axes[2].legend(fontsize=8)
    for what in ("games", "samples"):
        values = [(r["measure"]["novelty"][what] or {}).get("novel_share") for r in records]
        if any(v is not None for v in values):
            axes[3].plot(gens, [np.nan if v is None else v for v in values], marker="o", label=what)
    axes[3].set_title("share of states the real corpus never reaches", fontsize=10)
    axes[3].set_ylim(0, 1.05)
    axes[3].legend(fontsize=8)
    for ax in axes:
        ax.set_xlabel("generation")
        ax.set_xticks(gens)
    fig.subplots_adjust(hspace=0.35, wspace=0.25)
    save_figure(fig, path)
    plt.close(fig)
