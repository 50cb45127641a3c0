from __future__ import annotations

import pytest
import torch

from gamegrammar.act.gtp_planner import PlannerPolicy, TurnPlanConfig
from gamegrammar.act.gtp_player import ModelPolicy
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.games.go.rules import GoConfig, legal_plays, vertex
from gamegrammar.model import GameGPT, GPTConfig

CONFIG = GoConfig(5, komi=0.5)
GO = load_game("go")


@pytest.fixture(scope="module")
def policy():
    tokenizer = tokenizer_for(CONFIG)
    torch.manual_seed(0)
    gpt = GPTConfig(vocab_size=len(tokenizer), block_size=128, n_layer=1, n_head=2, n_embd=16, tick_table=64, tick_id=tokenizer.ids["TICK"])
    return ModelPolicy(GameGPT(gpt), tokenizer, temperature=1.0, seed=0)


def _position(moves: list[str]) -> tuple[list[str], list[str]]:
    """The game after `moves` (Black first) as the GTP engine writes it for genmove, and the legal moves there."""
    engine = GO.gtp_engine(CONFIG, "random")
    for i, move in enumerate(moves):
        engine.play(["bw"[i % 2], move])
    legal = [*(vertex(p, CONFIG.size) for p in legal_plays(engine.state)), "PASS"]
    return [*engine.tokens(), "TICK"], legal


class RulesUnread(type(GO)):
    def simulate_plies(self, *args):
        raise AssertionError("the planner on the model read the rules")


def test_on_the_rules_it_takes_the_capture_the_model_would_not_see(policy):
    tokens, legal = _position(["B1", "A1", "E5", "E4"])  # White's A1 is in atari: A2 takes it
    plan = TurnPlanConfig(candidates=len(legal), rollouts=1, horizon=1, simulator="rules")
    planner = PlannerPolicy(policy, GO, CONFIG, CodecConfig(), plan)
    assert planner(tokens, legal) == "A2"
    assert planner.last_values["A2"] == max(planner.last_values.values())
    few = PlannerPolicy(policy, GO, CONFIG, CodecConfig(), TurnPlanConfig(candidates=2, rollouts=1, horizon=1, simulator="rules"))
    few(tokens, legal)
    assert len(few.last_values) == 2  # only the model's two likeliest legal moves are searched


def test_on_the_model_it_dreams_without_the_rules_and_plays_a_legal_move(policy):
    tokens, legal = _position(["C3", "B2"])
    plan = TurnPlanConfig(candidates=3, rollouts=2, horizon=3, simulator="model")
    planners = [PlannerPolicy(policy, RulesUnread(), CONFIG, CodecConfig(), plan, seed=1) for _ in range(2)]
    moves = [p(tokens, legal) for p in planners]
    assert moves[0] in legal and moves[0] == moves[1]  # a function of the game, the model and the settings
    stats = planners[0].stats
    assert stats.rollouts == 6 and stats.rollout_tokens > 0 and len(planners[0].last_values) == 3
    _, cache = planners[0]._prefix(tokens)
    dreams = planners[0]._dream(cache, ["A1", "A1", "E5"], 0, len(tokens))
    assert [d[0] for d in dreams] == ["A1", "A1", "E5"]
    assert all(d.count("TICK") < plan.horizon for d in dreams)  # a dream stops before the ply past its horizon


def test_bad_settings_and_games_without_a_turn_planner_are_refused_in_one_line(policy):
    with pytest.raises(GameGrammarError, match="--rollouts must be at least 1"):
        TurnPlanConfig(rollouts=0)
    with pytest.raises(GameGrammarError, match="--simulator must be one of"):
        TurnPlanConfig(simulator="dreams")
    with pytest.raises(GameGrammarError, match="no turn planner"):
        PlannerPolicy(policy, load_game("snake"), CONFIG, CodecConfig(), TurnPlanConfig())
