"""gamegrammar analyze (and evaluate --tiers): the analyses run end to end on an exported model and are written out."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest
import torch

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus
from gamegrammar.games import game_of, load_game
from gamegrammar.model import GameGPT, preset
from gamegrammar.training.checkpoint import LoadedModel, write_export


def export_model(corpus: Corpus, out) -> None:
    """An untrained model as an exported-model directory (what `gamegrammar export` writes), for the CLI to load."""
    torch.manual_seed(0)
    tick_id = corpus.tokenizer.ids[game_of(corpus.game).tick_token]
    model = GameGPT(preset("gg31k", vocab_size=len(corpus.tokenizer), tick_table=256, tick_id=tick_id))
    write_export(LoadedModel(model.eval(), corpus.tokenizer, corpus.spec, model.config), out)


ANALYSIS = ["--tiers", "2,3", "--probes", "--analysis-episodes", "6", "--probe-ticks", "10", "--probe-layers", "final"]
ANALYSIS += ["--device", "cpu", "--probe-epochs", "2", "--probe-min-steps", "10"]  # a tiny model's probes: the plumbing


@pytest.fixture(scope="module")
def whole_analysis(tmp_path_factory, tiny_corpus):
    """(the arguments, the directory, stderr) of one uninterrupted analysis of every part, shared by the tests below."""
    base = tmp_path_factory.mktemp("analysis")
    export_model(Corpus(tiny_corpus), base / "model")
    args = ["analyze", "--ckpt", str(base / "model"), "--corpus", str(tiny_corpus), *ANALYSIS]
    err = io.StringIO()  # a module's fixture has no capsys
    with contextlib.redirect_stderr(err):
        code = main([*args, "--out", str(base / "whole")])
    assert code == 0, err.getvalue()
    return args, base / "whole", err.getvalue()


def test_analyze_writes_a_report(whole_analysis):
    _, out, err = whole_analysis
    # each part says when it starts and how long it took, on stderr
    assert [line.split(":")[1].strip() for line in err.splitlines() if "done in" in line] == ["tier2", "tier3", "probes"]
    data = json.loads((out / "analysis.json").read_text())
    assert {"tier2", "tier3", "probes", "meta"} <= set(data)
    assert "arrays" not in data["tier3"] and set(data["tier2"]) == {"emergence", "counterfactuals"}
    md = (out / "analysis.md").read_text()
    assert "Tier 2" in md and "Tier 3" in md and "World-state probes" in md
    for png in ("emergence.png", "counterfactuals.png", "archetypes.png", "probes.png", "probes_by_layer.png"):
        assert (out / png).stat().st_size > 1000
    last = data["tier3"]["tasks"]["all agents"]["windows"]["40"]
    assert not math.isnan(last["readers"]["statistics"]["nmi"]) and last["episodes"] == 6


def test_analyze_rejects_bad_tiers(tmp_path, tiny_corpus, capsys):
    code = main(["analyze", "--ckpt", str(tmp_path), "--corpus", str(tiny_corpus), "--out", str(tmp_path / "o"), "--tiers", "2,5"])
    assert code == 2
    assert capsys.readouterr().err.strip() == "gamegrammar: error: --tiers takes a comma-separated list of 1, 2 and 3, got '2,5'"
    bad_windows = ["--tier3-windows", "0,5"]
    assert main(["analyze", "--ckpt", str(tmp_path), "--corpus", str(tiny_corpus), "--out", str(tmp_path / "o"), *bad_windows]) == 2
    assert "--tier3-windows: takes a comma-separated list of tick counts >= 1, got '0,5'" in capsys.readouterr().err


def test_evaluate_tiers_adds_the_analysis_to_the_report(tmp_path, tiny_corpus):
    export_model(Corpus(tiny_corpus), tmp_path / "model")
    out = tmp_path / "report"
    args = ["evaluate", "--ckpt", str(tmp_path / "model"), "--corpus", str(tiny_corpus), "--out", str(out), "--num", "2"]
    args += ["--max-length", "40", "--teacher-episodes", "0", "--tiers", "1,2", "--analysis-episodes", "3", "--device", "cpu"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    assert "tier2" in report and "tier3" not in report and "validity" in report
    assert set(report["tier2"]) == {"emergence", "counterfactuals"}  # the game that wrote it stays in memory
    assert report["meta"]["max_length"] == 40
    assert "## Tier 2: rule emergence (3 held-out episodes" in (out / "report.md").read_text()
    assert "emergence.png" in report["plots"] and (out / "emergence.png").exists()


def test_evaluate_tiers_need_a_corpus(tmp_path, capsys):
    assert main(["evaluate", "--ckpt", str(tmp_path / "model"), "--out", str(tmp_path / "r"), "--tiers", "1,3"]) == 2
    assert "give --corpus" in capsys.readouterr().err


@pytest.mark.slow
def test_an_interrupted_analysis_reads_back_the_parts_it_finished(tmp_path, whole_analysis, capsys, monkeypatch):
    from gamegrammar.interpret.analysis_journal import AnalysisJournal

    args, whole, _ = whole_analysis
    args = [*args, "--quiet"]
    put = AnalysisJournal.put

    def put_then_stop_after(last: str):
        def put_then_stop(self, part, section, seconds, in_memory):
            put(self, part, section, seconds, in_memory)
            if part == last:
                raise KeyboardInterrupt

        return put_then_stop

    with monkeypatch.context() as m:
        m.setattr(AnalysisJournal, "put", put_then_stop_after("tier3"))
        assert main([*args, "--out", str(tmp_path / "resumed")]) == 130
    kept = tmp_path / "resumed" / "analysis.partial"
    assert sorted(p.name for p in kept.iterdir()) == ["run.json", "tier2.json", "tier3.json", "tier3.npz"]
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "resumed")]) == 0
    err = capsys.readouterr().err
    assert "tier2: read back" in err and "tier3: read back" in err and "probes: done in" in err
    whole_md, resumed_md = ((d / "analysis.md").read_text().splitlines()[1:] for d in (whole, tmp_path / "resumed"))
    assert whole_md == resumed_md and not kept.exists()
    # another seed is another analysis: nothing is read back (tier 2 alone, the rest read back above)
    quick = ["2" if a == "2,3" else a for a in args if a != "--probes"]
    with monkeypatch.context() as m:
        m.setattr(AnalysisJournal, "put", put_then_stop_after("tier2"))
        assert main([*quick, "--out", str(tmp_path / "again")]) == 130
    capsys.readouterr()
    assert main([*quick, "--out", str(tmp_path / "again"), "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "from another run" in err and "read back" not in err


def test_analyze_interventions_on_a_sense_corpus(tmp_path, capsys):
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec
    from gamegrammar.games.snake.rules import SnakeConfig

    spec = CorpusSpec(
        game=SnakeConfig(8, 8, 60), codec=SnakeCodec(sense=True), episodes=16, seed=2, val_fraction=0.5, agents={"greedy": 1.0}
    )
    generate(spec, tmp_path / "c")  # greedy snakes grow: body beside the head to add to and take away
    export_model(Corpus(tmp_path / "c"), tmp_path / "model")
    out = tmp_path / "analysis"
    args = ["analyze", "--ckpt", str(tmp_path / "model"), "--corpus", str(tmp_path / "c"), "--out", str(out), "--tiers", "none"]
    args += ["--interventions", "--analysis-episodes", "8", "--probe-ticks", "12", "--probe-layers", "final", "--device", "cpu"]
    assert main([*args, "--intervention-episodes", "-1"]) == 2 and "--intervention-episodes must be" in capsys.readouterr().err
    code = main([*args, "--probe-epochs", "2", "--probe-min-steps", "10", "--intervention-episodes", "3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "probes: world-state probes and interventions" in captured.err and "interventions at offset 1: " in captured.out
    assert "interventions at FOOD_SPAWN: " in captured.out  # the spawn's cases, edited with the probes read at the word
    assert [line.split(":")[1].strip() for line in captured.err.splitlines() if "done in" in line] == ["probes"]  # --tiers none
    found = json.loads((out / "analysis.json").read_text())["probes"]["interventions"]
    assert found["checked"] and [s["probe"] for s in found["sections"]] == [1, "FOOD_SPAWN"]
    for section in found["sections"]:
        assert section["layers"] == ["final", "final, relative"] and section["evaluation"]["cases"] > 0
        assert section["evaluation"]["episodes"] + section["calibration"]["episodes"] <= 3  # --intervention-episodes 3
    spawn = found["sections"][1]["evaluation"]["by_kind"]
    assert set(spawn) == {"add body (spawn)", "remove body (spawn)", "all"} and spawn["all"]["p_rules"]["real"] > 0
    md = (out / "analysis.md").read_text()
    assert "### Interventions" in md and "| all |" in md and "![intervention.png](intervention.png)" in md
    assert "#### At the word FOOD_SPAWN" in md and "![intervention-food_spawn.png](intervention-food_spawn.png)" in md
    assert (out / "intervention.png").stat().st_size > 1000 and (out / "probes_by_layer.png").stat().st_size > 1000
    assert (out / "intervention-food_spawn.png").stat().st_size > 1000


def test_analyze_probes_battlesnake_where_its_game_says(tmp_path, capsys):
    """Each game names the cell its probes relabel around (GameSpec.probe_anchor: Battlesnake's is snake 0's head) and
    where they read (GameSpec.probe_positions: Battlesnake's model works out the head only at snake 0's move word)."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.battlesnake import BattlesnakeConfig

    generate(CorpusSpec(game=BattlesnakeConfig(7, 7, 2, max_ticks=30), episodes=8, seed=4, val_fraction=0.5), tmp_path / "c")
    export_model(Corpus(tmp_path / "c"), tmp_path / "model")
    out = tmp_path / "analysis"
    args = ["analyze", "--ckpt", str(tmp_path / "model"), "--corpus", str(tmp_path / "c"), "--out", str(out), "--tiers", "none"]
    args += ["--probes", "--analysis-episodes", "4", "--probe-ticks", "8", "--probe-layers", "final", "--device", "cpu"]
    assert main([*args, "--probe-epochs", "2", "--probe-min-steps", "10"]) == 0, capsys.readouterr().err
    found = json.loads((out / "analysis.json").read_text())["probes"]
    assert found["relative"] == "own_head" and found["board_shape"] == [7, 7]
    read = {"tick": 0, "tick+1": 1, "tick+2": 2, "tick+3": 3}
    if "unread_positions" in found:  # a test game that spawns no food in a test episode: said, not scored
        assert set(found["unread_positions"]) == {"spawn"} and found["positions"] == read
    else:
        assert found["positions"] == {**read, "spawn": "SPAWN"}
    assert set(found["sweep"]) == set(found["positions"]) and found["rows_by_position"]["spawn"] < found["rows"]
    relabelled = found["sweep"]["tick"]["relative"]["linear"]["final"]["planes"]
    assert set(relabelled) == {"food", "own_body", "other_bodies", "other_heads"}  # the anchor's own plane left out
    assert len(relabelled["own_body"]["per_cell_f1"]) == 13 * 13
    assert "relabelled around the own_head" in (out / "analysis.md").read_text()
    assert game_of(Corpus(tmp_path / "c").game).probe_anchor == "own_head" and load_game("go").probe_anchor is None
