"""gamegrammar play: the model beside the scripted agents in one table, its games as a corpus, bad input in one line."""

from __future__ import annotations

import json

import pytest

from gamegrammar.cli import main
from gamegrammar.data.corpus import Corpus

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # a tiny model: more threads only wait on each other


def test_the_model_plays_beside_every_scripted_agent(tiny_run, tmp_path, capsys):
    corpus, _, ckpt = tiny_run
    out, games = tmp_path / "report", tmp_path / "games"
    argv = ["play", "--ckpt", str(ckpt), "--games", "20", "--seed", "4", "--out", str(out), "--corpus-out", str(games), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    for agent in ("model", "random", "greedy", "wall_follower"):
        assert f"| {agent} | 20 |" in text
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["board"] == "board 5x5, max_ticks 40" and report["meta"]["temperature"] == 1.0
    assert report["agents"]["model"]["score"]["mean"] >= 0 and (out / "report.md").exists() and (out / "scores.png").exists()
    played = Corpus(games)
    assert len(played) == 20 and played.agent(0) == "model" and played.tokenizer.sha256() == Corpus(corpus).tokenizer.sha256()
    assert played.index["score"].mean() == pytest.approx(report["agents"]["model"]["score"]["mean"])
    assert main([*argv[:7], "--agents", "model", "--temperature", "0", "--quiet"]) == 0  # argmax, the model alone
    assert "| greedy |" not in capsys.readouterr().out


def test_scripted_agents_alone_need_no_model(capsys):
    assert (
        main(
            [
                "play",
                "--game",
                "battlesnake",
                "--num-snakes",
                "2",
                "--width",
                "7",
                "--height",
                "7",
                "--games",
                "10",
                "--agents",
                "greedy,random",
                "--opponents",
                "space",
                "--quiet",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "| greedy | 10 |" in text and "place" in text and "opponents: space=1" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "model"], "needs --ckpt"),
        (["--agents", "greedy,nobody"], "unknown agent 'nobody'"),
        (["--agents", "greedy,greedy"], "each agent once"),
        (["--games", "0"], "--games must be at least 1"),
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--corpus-out", "x"], "give --ckpt"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(["play", "--game", "snake", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_finished_corpus_is_not_replaced(tiny_run, tmp_path, capsys):
    _, _, ckpt = tiny_run
    argv = ["play", "--ckpt", str(ckpt), "--games", "3", "--agents", "model", "--corpus-out", str(tmp_path / "games"), "--quiet"]
    assert main(argv) == 0
    assert main(argv) == 2 and "--overwrite" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0


def test_an_interrupted_play_resumes_from_the_model_batches_it_finished(tiny_run, tmp_path, monkeypatch, capsys):
    from gamegrammar.act.play_journal import PlayJournal

    _, _, ckpt = tiny_run
    argv = ["play", "--ckpt", str(ckpt), "--games", "10", "--batch-size", "4", "--agents", "model,greedy", "--quiet"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert main([*argv, "--out", str(whole), "--corpus-out", str(tmp_path / "whole-games")]) == 0
    put = PlayJournal.put

    def put_then_stop(self, episodes, batch):
        put(self, episodes, batch)
        if int(episodes[0]) == 4:  # after the second batch
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(PlayJournal, "put", put_then_stop)
        assert main([*argv, "--out", str(resumed), "--corpus-out", str(tmp_path / "resumed-games")]) == 130
    assert sorted(p.name for p in (resumed / "play.partial").iterdir()) == ["batch-0-4.npz", "batch-4-4.npz", "run.json"]
    capsys.readouterr()
    assert main([*argv, "--out", str(resumed), "--corpus-out", str(tmp_path / "resumed-games")]) == 0
    assert "2 batches of the model's games were played before" in capsys.readouterr().err
    a, b = (json.loads((d / "report.json").read_text()) for d in (whole, resumed))
    for report in (a, b):
        for row in report["agents"].values():
            row.pop("seconds", None)
            row.pop("games_per_second", None)
    assert a["agents"] == b["agents"] and a["meta"]["model_forward_passes"] == b["meta"]["model_forward_passes"]
    assert b["meta"]["resumed"].startswith("2 batches")
    assert Corpus(tmp_path / "whole-games").episode_tokens(9) == Corpus(tmp_path / "resumed-games").episode_tokens(9)
    assert not (resumed / "play.partial").exists()
    # another temperature is another run: its games are not these
    with monkeypatch.context() as m:
        m.setattr(PlayJournal, "put", put_then_stop)
        assert main([*argv, "--out", str(resumed), "--temperature", "0"]) == 130
    assert main([*argv, "--out", str(resumed), "--temperature", "0.5"]) == 0
    assert "from another run" in capsys.readouterr().err


def test_the_planner_plays_beside_the_model_on_either_simulator(tiny_run, tmp_path, capsys):
    _, _, ckpt = tiny_run
    base = ["play", "--ckpt", str(ckpt), "--games", "6", "--seed", "1", "--quiet", "--planner", "lookahead", "--rollouts", "1"]
    out = tmp_path / "plan"
    assert main([*base, "--horizon", "2", "--agents", "model,planner,greedy", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| planner | 6 |" in text and "| model | 6 |" in text and "| greedy | 6 |" in text
    report = json.loads((out / "report.json").read_text())
    cost = report["meta"]["planner_cost"]
    assert report["meta"]["planner"]["simulator"] == "model" and cost["moves"] == report["agents"]["planner"]["ticks"]["mean"] * 6
    assert cost["rollout_tokens"] > 0 and cost["moves_per_second"] > 0
    assert not (out / "play.partial").exists() and not (out / "plan.partial").exists()
    assert main([*base, "--simulator", "rules", "--rollout-policy", "random", "--agents", "planner"]) == 0
    assert "| planner | 6 |" in capsys.readouterr().out
    assert main(["play", "--ckpt", str(ckpt), "--games", "2", "--agents", "planner", "--quiet"]) == 2
    assert "needs --planner" in capsys.readouterr().err


def test_mcts_plays_from_the_command_line_and_reports_its_settings(tiny_run, tmp_path, capsys):
    _, _, ckpt = tiny_run
    out = tmp_path / "mcts"
    argv = ["play", "--ckpt", str(ckpt), "--games", "3", "--quiet", "--agents", "planner", "--planner", "mcts", "--horizon", "2"]
    assert main([*argv, "--simulations", "3", "--parallel-simulations", "2", "--simulator", "rules", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    plan, cost = report["meta"]["planner"], report["meta"]["planner_cost"]
    assert (plan["planner"], plan["simulations"], plan["parallel_simulations"]) == ("mcts", 3, 2)
    assert cost["rollouts"] == 3 * cost["moves"] > 0
    capsys.readouterr()
    assert main([*argv, "--simulations", "0"]) == 2
    assert "simulations must be at least 1" in capsys.readouterr().err
