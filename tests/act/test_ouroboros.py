"""The self-improvement loop: its config, the selection, and a tiny run that is killed and resumed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from gamegrammar.act import ouroboros
from gamegrammar.act.ouroboros import KeepSettings, OuroborosConfig, run_loop, select
from gamegrammar.act.planner import PlannerConfig
from gamegrammar.commands import train
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, PlayerResult
from gamegrammar.data.corpus import Corpus

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # a tiny model: more threads only wait on each other


def test_the_config_refuses_unknown_keys_wrong_types_and_bad_values(tmp_path):
    good = {"checkpoint": "a.ckpt", "corpus": "data/corpus"}
    config = OuroborosConfig.from_dict({**good, "play": {"games": 10}, "keep": {"top_k": 3}})
    assert config.play.games == 10 and config.keep.top_k == 3 and config.finetune.selfplay_share == 0.5
    for bad, message in (
        ({**good, "generatons": 2}, "unknown key generatons"),
        ({**good, "play": {"gmaes": 1}}, "unknown key play.gmaes"),
        ({**good, "play": {"games": "many"}}, "play.games should be int"),
        ({**good, "keep": {"fraction": 0}}, "keep.fraction"),
        ({**good, "finetune": {"max_steps": None, "max_time": None}}, "needs a budget"),
        ({**good, "finetune": {"args": "--x"}}, "finetune.args should be list"),
        ({"corpus": "data/corpus"}, "checkpoint"),
    ):
        with pytest.raises(GameGrammarError, match=message):
            OuroborosConfig.from_dict(bad)
    expert = OuroborosConfig.from_dict({**good, "expert": {"rollouts": 1, "horizon": 2, "simulator": "rules"}}).expert
    assert expert == PlannerConfig(rollouts=1, horizon=2, simulator="rules") and OuroborosConfig.from_dict(good).expert is None
    for bad, message in (
        ({**good, "expert": {"horizn": 2}}, "unknown key expert.horizn"),
        ({**good, "expert": {"rollouts": 0}}, "ouroboros config: expert: the planner's rollouts must be at least 1"),
        ({**good, "expert": {"simulator": "engine"}}, "expert: unknown simulator 'engine'"),
        ({**good, "expert": 3}, "expert should be a mapping"),
    ):
        with pytest.raises(GameGrammarError, match=message):
            OuroborosConfig.from_dict(bad)
    (tmp_path / "bad.yaml").write_text("play: [1, 2\n")
    with pytest.raises(GameGrammarError, match="not valid YAML"):
        OuroborosConfig.from_yaml(tmp_path / "bad.yaml")
    shipped = OuroborosConfig.from_yaml(Path(__file__).parents[2] / "configs" / "ouroboros.yaml")
    assert shipped.play.games == 1000 and Path(shipped.finetune.config).name == "gg-cpu.yaml"
    readme_run = OuroborosConfig.from_yaml(Path(__file__).parents[2] / "configs" / "ouroboros-snake.yaml")
    assert readme_run.checkpoint == "models/snake-v1" and readme_run.generations == 3
    planner_run = OuroborosConfig.from_yaml(Path(__file__).parents[2] / "configs" / "ouroboros-snake-planner.yaml")
    assert planner_run.expert is not None and planner_run.expert.simulator == "model" and planner_run.checkpoint == "models/snake"


def test_the_readme_runs_each_change_the_lever_they_name() -> None:
    configs = Path(__file__).parents[2] / "configs"
    base, low_lr, share10, t05 = (
        OuroborosConfig.from_yaml(configs / f"ouroboros-snake{suffix}.yaml").to_dict() for suffix in ("", "-low-lr", "-share10", "-t05")
    )
    outs = {run["out"] for run in (base, low_lr, share10, t05)}
    assert len(outs) == 4, "each run needs its own directory"

    def flat(d: dict) -> dict:
        return {f"{k}.{kk}": vv for k, v in d.items() for kk, vv in (v.items() if isinstance(v, dict) else [("", v)])}

    def changed(a: dict, b: dict) -> set[str]:
        fa, fb = flat(a), flat(b)
        return {k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k)} - {"out.", "generations."}

    assert changed(base, low_lr) == {"finetune.args"}
    assert "--model.muon_lr" in low_lr["finetune"]["args"] and "--model.lr" in low_lr["finetune"]["args"]
    assert changed(low_lr, share10) == {"finetune.selfplay_share"} and share10["finetune"]["selfplay_share"] == 0.1
    assert changed(share10, t05) == {"play.temperature"} and t05["play"]["temperature"] == 0.5


def test_the_cpu_expert_rerun_changes_only_the_share_and_the_steps() -> None:
    configs = Path(__file__).parents[2] / "configs"
    first, rerun = (OuroborosConfig.from_yaml(configs / f"ouroboros-snake-cpu-expert{s}.yaml").to_dict() for s in ("", "-share75"))
    assert first["out"] != rerun["out"], "each run needs its own directory"
    changed = {k for k in first["finetune"] if first["finetune"][k] != rerun["finetune"][k]}
    assert changed == {"selfplay_share", "max_steps", "max_time"}
    assert rerun["finetune"]["selfplay_share"] == 0.75 and rerun["finetune"]["max_steps"] == 4 * first["finetune"]["max_steps"]
    assert {k: v for k, v in first.items() if k not in ("out", "generations", "finetune")} == {
        k: v for k, v in rerun.items() if k not in ("out", "generations", "finetune")
    }


def result_of(scores, place=None) -> PlayerResult:
    scores = np.asarray(scores)
    n = len(scores)
    episodes = BatchResult(np.zeros(0, np.int64), np.zeros(n, np.int64), np.zeros(n), scores, np.zeros(n, np.int64))
    return PlayerResult(episodes, scores, np.zeros(n), np.zeros(n, np.int64), ("X",), place)


def test_the_best_games_are_kept():
    assert select(result_of([3, 9, 1, 9, 5, 0, 7, 2]), KeepSettings(fraction=0.25)).tolist() == [1, 3]
    assert select(result_of([3, 9, 1, 9, 5, 0, 7, 2]), KeepSettings(top_k=3)).tolist() == [1, 3, 6]
    assert select(result_of([3, 9, 1]), KeepSettings(fraction=0.01)).tolist() == [1]
    assert select(result_of([5, 9, 2, 7], place=np.array([1, 2, 1, 3])), KeepSettings(top_k=2)).tolist() == [0, 2]  # place first


def digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("states-")):  # novelty caches beside it
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


@pytest.fixture
def loop_config(tiny_run, tmp_path) -> OuroborosConfig:
    corpus, config, ckpt = tiny_run
    return OuroborosConfig.from_dict(
        {
            "checkpoint": str(ckpt),
            "corpus": str(corpus),
            "out": str(tmp_path / "loop"),
            "generations": 2,
            "seed": 50,
            "play": {"games": 12, "batch_size": 8},
            "keep": {"top_k": 4},
            "finetune": {"config": str(config), "max_steps": 2, "max_time": None, "selfplay_share": 0.5},
            "measure": {"samples": 4, "batch_size": 4, "baselines": ["greedy"]},
        }
    )


def test_the_loop_resumes_after_a_kill_without_losing_a_finished_generation(loop_config, monkeypatch):
    out = Path(loop_config.out)
    real = Path(loop_config.corpus)
    real_before = digest(real)
    calls = []

    def killed_at_generation_2(argv):
        calls.append(argv)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed while generation 2 starts its fine-tune
        return train.main(argv)

    with pytest.raises(KeyboardInterrupt):
        run_loop(loop_config, killed_at_generation_2, log=lambda _: None)
    for k in (0, 1):
        assert (out / f"gen-{k:03d}" / "record.json").exists() and (out / f"gen-{k:03d}" / "selfplay" / "manifest.json").exists()
    assert not (out / "gen-002" / "record.json").exists()
    assert len(json.loads((out / "log.json").read_text())["generations"]) == 2
    kept = {k: (out / f"gen-{k:03d}" / "record.json").stat().st_mtime_ns for k in (0, 1)}
    selfplay = digest(out / "gen-001" / "selfplay")

    calls.clear()
    log = run_loop(loop_config, killed_at_generation_2, log=lambda _: None)  # the same command again
    assert len(calls) == 1 and "gen-002" in " ".join(calls[0])  # only generation 2 is fine-tuned
    assert {k: (out / f"gen-{k:03d}" / "record.json").stat().st_mtime_ns for k in (0, 1)} == kept
    assert digest(out / "gen-001" / "selfplay") == selfplay
    assert [r["generation"] for r in log["generations"]] == [0, 1, 2]
    for r in log["generations"]:
        assert r["play"]["games"] == 12 and 0 <= r["measure"]["strict"]["full"]["rate"] <= 1
        assert r["measure"]["novelty"]["games"]["sequences"] == 4
    assert log["generations"][1]["kept"]["games"] == 4 and log["generations"][2]["finetune"]["steps"] == 2
    assert (out / "ouroboros.png").stat().st_size > 0 and "greedy" in log["baselines"]
    # the real corpus is read, never replaced: first in every fine-tune's data, and unchanged
    data = yaml.safe_load((out / "gen-002" / "finetune.yaml").read_text())["data"]
    assert data["path"] == [str(real), str(out / "gen-000" / "selfplay"), str(out / "gen-001" / "selfplay")]
    assert data["weights"] == pytest.approx([0.5, 0.25, 0.25])
    assert digest(real) == real_before and len(Corpus(real)) == 150
    assert yaml.safe_load((out / "gen-002" / "finetune.yaml").read_text())["model"]["init_from"].endswith(
        "gen-001/train/checkpoints/last.ckpt"
    )


def test_a_generation_killed_after_its_fine_tune_keeps_it(loop_config, monkeypatch):
    config = OuroborosConfig.from_dict({**loop_config.to_dict(), "generations": 1})
    real_measure = ouroboros.measure
    calls = {"train": 0, "measure": 0}

    def counted_train(argv):
        calls["train"] += 1
        return train.main(argv)

    def dies_once(*args, **kwargs):
        calls["measure"] += 1
        if calls["measure"] == 2:  # generation 1, after its fine-tune and its games
            raise RuntimeError("killed")
        return real_measure(*args, **kwargs)

    monkeypatch.setattr(ouroboros, "measure", dies_once)
    with pytest.raises(RuntimeError, match="killed"):
        run_loop(config, counted_train, log=lambda _: None)
    assert calls["train"] == 1 and (Path(config.out) / "gen-001" / "train" / "finished.json").exists()
    played = Path(config.out) / "gen-001" / "play.partial"
    assert sorted(p.name for p in played.glob("batch-*")) == ["batch-0-8.npz", "batch-8-4.npz"]  # its games, kept
    lines: list[str] = []
    log = run_loop(config, counted_train, log=lines.append)
    assert calls["train"] == 1 and len(log["generations"]) == 2  # the fine-tune was not redone
    assert any("2 batches of games were played before" in line for line in lines)  # nor were the games
    assert not played.exists()
    with pytest.raises(GameGrammarError, match="another config"):
        run_loop(OuroborosConfig.from_dict({**config.to_dict(), "seed": 7}), counted_train, log=lambda _: None)


def test_with_an_expert_the_planners_games_are_kept_and_both_scores_recorded(loop_config):
    """Expert iteration proper: the planner on each generation's model plays the generation's episodes, its best games
    are what the next generation trains on, and the record holds the planner's score beside the model's own."""
    expert = {"rollouts": 1, "horizon": 2, "simulator": "model", "rollout_policy": "random", "max_tick_tokens": 8}
    config = OuroborosConfig.from_dict({**loop_config.to_dict(), "generations": 1, "expert": expert})
    log = run_loop(config, train.main, log=lambda _: None)
    out = Path(config.out)
    for record in log["generations"]:
        assert record["expert"]["games"] == 12 == record["play"]["games"]
        assert record["expert"]["cost"]["moves"] > 0 and record["expert"]["cost"]["rollout_tokens"] > 0
    kept = Corpus(out / "gen-000" / "selfplay")
    manifest = json.loads((out / "gen-000" / "selfplay" / "manifest.json").read_text())
    assert len(kept) == 4 and manifest["origin"]["agent"] == "planner" and manifest["origin"]["planner"]["horizon"] == 2
    report = json.loads((out / "gen-001" / "expert" / "report.json").read_text())
    assert report["meta"]["planner"]["rollout_policy"] == "random"
    assert not (out / "gen-001" / "expert.partial").exists()
