"""Tier 2: rule events and their context splits, counterfactual edits, branch log-probs, and `gamegrammar analyze`."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

from gamegrammar.checkpoint import EXPORT_FORMAT
from gamegrammar.cli import main
from gamegrammar.games.snake.grammar import Keyframe, Tick, parse
from gamegrammar.corpus import Corpus
from gamegrammar.evaluation import emergence as em
from gamegrammar.hidden import branch_logprobs, next_logprobs, run_episodes
from gamegrammar.games.snake.validity import validate
from gamegrammar.games.snake.rules import Outcome, resolve
from gamegrammar.model import GameGPT, preset
from gamegrammar.replay import replay


def tiny_model(corpus: Corpus, seed: int = 0, **overrides: int) -> GameGPT:
    torch.manual_seed(seed)
    return GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256, **overrides)).eval()


def export_model(model: GameGPT, corpus: Corpus, out) -> None:
    """An exported-model directory (what `gamegrammar export` writes), so the CLI can load an untrained model."""
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "head.weight"}
    save_file(state, out / "model.safetensors", metadata={"format": "pt"})
    (out / "tokenizer.json").write_text(corpus.tokenizer.to_json())
    config = {"format_version": EXPORT_FORMAT, "gpt_config": model.config.to_dict(), "corpus_spec": corpus.spec.to_dict()}
    (out / "config.json").write_text(json.dumps(config))


@pytest.fixture(scope="module")
def corpus(tiny_corpus) -> Corpus:
    return Corpus(tiny_corpus)


def test_rule_events_match_the_episode(corpus):
    cfg = corpus.game
    for row in range(12):
        tokens = corpus.episode_tokens(row)
        events = em.rule_events(tokens, cfg)
        counts = {r: sum(e.rule == r for e in events) for r in em.RULES}
        r = corpus.index[row]
        assert counts["eat_when_food"] == counts["grow_after_eat"] == counts["score_increments"] == r["score"]
        assert counts["spawn_on_empty"] == r["score"]  # no WIN on a 10x10 board in 200 ticks
        end = corpus.index["end"][row]
        assert counts["wall_death"] == (end == 0) and counts["self_death"] == (end == 1) and counts["timeout_at_limit"] == (end == 3)
        alive = r["ticks"] - (end in (0, 1))
        assert counts["move_follows_input"] == alive
        for e in events:
            if e.rule == "eat_when_food":
                assert tokens[e.positions[0]] == "EAT"
            if e.rule == "move_follows_input":
                assert tokens[e.positions[0]] == "MOVE" and tokens[e.positions[1]].startswith("X")
            if e.rule == "spawn_on_empty":
                assert tokens[e.positions[0] - 1] == "FOOD_SPAWN"
                cell = (int(tokens[e.positions[0]][1:]), int(tokens[e.positions[0] + 1][1:]))
                assert cell not in e.occupied and len(e.occupied) == e.length + 1


def test_emergence_splits_add_up_and_eats_are_counted(corpus):
    rows = corpus.split("train")[:6]
    ids = [corpus.episode_ids(int(r)) for r in rows]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    result = em.rule_emergence(tiny_model(corpus), ids, tokens, corpus.tokenizer, corpus.game)
    assert result["episodes"] == 6
    rules = result["rules"]
    assert rules["eat_when_food"]["count"] == int(corpus.index["score"][rows].sum())
    for rule, entry in rules.items():
        for context, buckets in entry["by"].items():
            assert sum(b["count"] for b in buckets.values()) == entry["count"], (rule, context)
            assert set(buckets) <= set(result["contexts"][context])
        if entry["count"]:
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["accuracy"] <= 1
    spawn = rules["spawn_on_empty"]
    if spawn["count"]:
        assert spawn["mean_prob"] + spawn["occupied_mass"] <= 1 + 1e-6
        # An untrained model spreads its mass almost evenly: its share on empty cells is about the empty fraction.
        share = spawn["mean_prob"] / (spawn["mean_prob"] + spawn["occupied_mass"])
        assert abs(share - spawn["empty_fraction"]) < 0.1


def test_bucket_labels():
    edges = em.CONTEXTS["length"]
    assert em.bucket_label(1, edges) == "1" and em.bucket_label(3, edges) == "2-3" and em.bucket_label(40, edges) == "32+"
    assert em.bucket_labels(edges)[-1] == "32+"


def test_food_ahead_edit_puts_the_food_in_front_of_the_head(corpus):
    rng = np.random.default_rng(0)
    made = 0
    for row in range(20):
        tokens = corpus.episode_tokens(row)
        for probe in em.food_ahead_probes(tokens, corpus.game, row, rng):
            made += 1
            kf = next(parse(probe.tokens[:-2]))
            original = next(parse(probe.control[:-2]))
            assert isinstance(kf, Keyframe) and isinstance(original, Keyframe)
            d = kf.direction
            assert kf.food == (kf.head[0] + d.delta[0], kf.head[1] + d.delta[1]) != original.food
            assert probe.tokens[-1] == f"INPUT_{d.name}"
            # Everything but the food is untouched, and the rules say EAT.
            assert (kf.head, kf.body_steps, kf.score) == (original.head, original.body_steps, original.score)
            assert resolve(kf.state(0), corpus.game, d)[1] is Outcome.EAT
            assert resolve(original.state(0), corpus.game, d)[1].value == probe.control_mandated == "MOVE"
    assert made >= 15


def test_fatal_input_probes_are_what_the_rules_say(corpus):
    rng = np.random.default_rng(1)
    kinds = set()
    for row in range(30):
        tokens = corpus.episode_tokens(row)
        for probe in em.fatal_input_probes(tokens, corpus.game, row, rng):
            kinds.add(probe.kind)
            # The edited prefix with the mandated death is a complete, valid episode for the strict evaluator.
            assert validate([*probe.tokens, probe.mandated, "EOS"], corpus.game).valid
            assert probe.tokens[:-1] == probe.control[:-1] and probe.tokens[-1] != probe.control[-1]
            real = next(t for t in parse(tokens) if isinstance(t, Tick) and t.number == probe.tick)
            assert real.outcome == probe.control_mandated
    assert kinds == {"wall_ahead", "body_ahead"}


def test_branch_and_window_logprobs_agree_with_plain_forwards(corpus):
    model = tiny_model(corpus, block_size=24)
    ids = [int(t) for t in corpus.episode_ids(int(np.argmax(corpus.index["length"])))]
    cands = [corpus.tokenizer.ids[f"X{x}"] for x in range(4)]
    points = [3, 20, 23, 24, 57, 200]
    for p, got in zip(points, branch_logprobs(model, ids, points, cands)):
        want = next_logprobs(model, [[*ids[:p], c] for c in cands])
        assert torch.allclose(got, want, atol=1e-5)
    out = run_episodes(model, [ids[:100]], ["final"])[0]
    # Within the first window the windowed log-probs are the plain forward's; the final state is what the head reads.
    plain = torch.log_softmax(model(torch.tensor([ids[:24]]))[0][0], -1)
    assert torch.allclose(out.logp[:24], plain, atol=1e-5)
    assert torch.allclose(torch.log_softmax(model.head(out.hidden["final"]), -1), out.logp, atol=1e-4)
    # Beyond it, position 60 is read from the window starting at 48 (windows step by half the context of 24),
    # with the game clock of the 48 tokens before it carried.
    cache = model.new_cache(1, 13)
    cache.ticks = torch.tensor([sum(t == model.config.tick_id for t in ids[:48])])
    window = torch.log_softmax(model(torch.tensor([ids[48:61]]), cache=cache)[0][0, -1], -1)
    assert torch.allclose(out.logp[60], window, atol=1e-5)
    assert not torch.allclose(out.logp[60], torch.log_softmax(model(torch.tensor([ids[48:61]]))[0][0, -1], -1), atol=1e-3)


def test_counterfactuals_and_tier2_shape(corpus):
    rows = corpus.split("train")[:5]
    tokens = [corpus.episode_tokens(int(r)) for r in rows]
    ids = [corpus.episode_ids(int(r)) for r in rows]
    model = tiny_model(corpus, seed=1)
    result = em.tier2(model, ids, tokens, corpus.tokenizer, corpus.game)
    cf = result["counterfactuals"]
    assert cf["model"]["food_ahead"]["count"] == 5
    for kind, entry in cf["model"].items():
        if entry["count"]:
            assert cf["untrained"][kind]["count"] == entry["count"]
            assert 0 <= entry["mean_prob"] <= 1 and 0 <= entry["control_mean_prob"] <= 1
    assert "untrained" in result["emergence"]["rules"]["move_follows_input"]
    lines = em.markdown(result)
    assert any("food_ahead" in line for line in lines)
    json.dumps(result)  # plain python values only


def test_analyze_cli_writes_a_report(tmp_path, tiny_corpus, capsys):
    corpus = Corpus(tiny_corpus)
    export_model(tiny_model(corpus), corpus, tmp_path / "model")
    out = tmp_path / "analysis"
    args = ["analyze", "--ckpt", str(tmp_path / "model"), "--corpus", str(tiny_corpus), "--out", str(out), "--tiers", "2,3", "--probes"]
    code = main([*args, "--analysis-episodes", "8", "--probe-ticks", "10", "--probe-layers", "final", "--device", "cpu"])
    assert code == 0, capsys.readouterr().err
    data = json.loads((out / "analysis.json").read_text())
    assert {"tier2", "tier3", "probes", "meta"} <= set(data)
    assert "arrays" not in data["tier3"]
    md = (out / "analysis.md").read_text()
    assert "Tier 2" in md and "Tier 3" in md and "World-state probes" in md
    for png in ("emergence.png", "counterfactuals.png", "archetypes.png", "probes.png"):
        assert (out / png).stat().st_size > 1000
    assert not math.isnan(data["tier3"]["features"]["statistics"]["kmeans"]["nmi"])


def test_analyze_rejects_bad_tiers(tmp_path, tiny_corpus, capsys):
    code = main(["analyze", "--ckpt", str(tmp_path), "--corpus", str(tiny_corpus), "--out", str(tmp_path / "o"), "--tiers", "2,5"])
    assert code == 2
    assert capsys.readouterr().err.strip() == "gamegrammar: error: --tiers takes a comma-separated list of 1, 2 and 3, got '2,5'"


def test_replay_frames_are_the_states_before_ticks(corpus):
    """The convention rule_events relies on: frames[k] is the state after tick k."""
    tokens = corpus.episode_tokens(0)
    frames = replay(tokens, corpus.game).frames
    ticks = [t for t in parse(tokens) if isinstance(t, Tick)]
    for t in ticks[:20]:
        if t.move is not None:
            assert frames[t.number].state.head == t.move


def test_evaluate_tiers_adds_the_analysis_to_the_report(tmp_path, tiny_corpus):
    corpus = Corpus(tiny_corpus)
    export_model(tiny_model(corpus), corpus, tmp_path / "model")
    out = tmp_path / "report"
    args = ["evaluate", "--ckpt", str(tmp_path / "model"), "--corpus", str(tiny_corpus), "--out", str(out), "--num", "2"]
    args += ["--max-length", "40", "--teacher-episodes", "0", "--tiers", "1,2", "--analysis-episodes", "3", "--device", "cpu"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    assert "tier2" in report and "tier3" not in report and "validity" in report
    assert report["meta"]["max_length"] == 40
    assert "## Tier 2: rule emergence (3 held-out episodes" in (out / "report.md").read_text()
    assert "emergence.png" in report["plots"] and (out / "emergence.png").exists()


def test_evaluate_tiers_need_a_corpus(tmp_path, capsys):
    assert main(["evaluate", "--ckpt", str(tmp_path), "--out", str(tmp_path / "r"), "--tiers", "1,3"]) == 2
    assert "give --corpus" in capsys.readouterr().err
