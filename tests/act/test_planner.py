"""The planner: branches read the shared history exactly, the rules planner never walks into a death it can escape,
the model planner never reads the rules, and games do not depend on the batch."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from gamegrammar.act.planner import PlannerAgent, PlannerConfig, _Branch, _PlanningController
from gamegrammar.act.play import ModelAgent, play_games
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, GameSpec
from gamegrammar.games import load_game
from gamegrammar.games.battlesnake import BattlesnakeSpec
from gamegrammar.games.snake import SnakeSpec
from gamegrammar.games.snake.rules import Direction, Outcome, SnakeConfig, resolve
from gamegrammar.model import GameGPT, KVCache, kernels
from gamegrammar.model.gpt import BranchCache
from tests.act.test_play import BATTLESNAKE, episodes_of, inputs_of, tiny

SNAKE = SnakeConfig(6, 6, 60)
SHORT = SnakeConfig(6, 6, 20)  # for the costliest planners (MCTS): games that end by 20 ticks

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("seed", "chunk", "dtype", "width"),
    [
        *((0, 1, "float32", 16), (1, 1, "float32", 16), (0, 2, "float32", 16), (0, 1, "bfloat16", 16)),
        *((0, 1, "float32", 32), (1, 2, "float32", 32), (0, 1, "bfloat16", 32)),
    ],
)
def test_branched_logits_equal_recomputing_each_branch(seed, chunk, dtype, width):
    """Branches of per-row-lengths cache rows, each writing its own tokens (`chunk` a pass), give the logits of a full
    forward pass over their row's history and their own tokens (rotary positions and the tick clock included); in bf16
    too, where torch reads the prefix from a copy. Heads of 16 (width 32) go through our CPU kernel where it is built,
    heads of 8 through torch's attention."""
    model, tokenizer = tiny(SNAKE, block=64, scale=5, seed=seed, width=width)
    model = model.to(getattr(torch, dtype))
    torch.manual_seed(seed)
    lengths = [7, 12, 3]  # each row's history: random tokens, a TICK among them for the clock
    histories = [torch.randint(4, len(tokenizer), (n,)) for n in lengths]
    histories[1][4] = tokenizer.ids["TICK"]
    c = model.config
    shape = (c.n_layer, 3, c.n_head, 20, c.n_embd // c.n_head)
    store = KVCache(*(torch.zeros(shape, dtype=model.wte.weight.dtype) for _ in "kv"), lengths=torch.zeros(3, dtype=torch.long))
    x = torch.full((3, max(lengths)), tokenizer.pad_id)
    for r, h in enumerate(histories):
        x[r, : len(h)] = h
    real = torch.arange(x.shape[1])[None, :] < torch.tensor(lengths)[:, None]
    with torch.no_grad():
        model(x, cache=store, real=real)
    per_group, steps = 4, 5
    suffix = torch.randint(4, len(tokenizer), (3 * per_group, steps))
    suffix[1, 2] = tokenizer.ids["TICK"]
    branches = BranchCache(store.k, store.v, torch.tensor(lengths), per_group, steps)
    assert branches.kernel == (width == 32 and kernels.library() is not None)
    branches.ticks = torch.tensor([int((h == tokenizer.ids["TICK"]).sum()) for h in histories]).repeat_interleave(per_group)
    with torch.no_grad():
        stepped = torch.cat([model(suffix[:, s : s + chunk], cache=branches)[0] for s in range(0, steps, chunk)], dim=1)
        for b in range(3 * per_group):
            whole = torch.cat([histories[b // per_group], suffix[b]])[None]
            full = model(whole)[0][0, -steps:]
            tolerance = 1e-4 if dtype == "float32" else 0.1  # bf16 keeps 8 bits: the two orders of summation differ
            torch.testing.assert_close(stepped[b].float(), full.float(), atol=tolerance, rtol=tolerance)


def _deaths_escapable(game, tokens: list[str]) -> tuple[int, int]:
    """(moves into a death while some input escaped it, moves checked) in one played episode."""
    states = game.trace(tokens, SNAKE)
    bad = checked = 0
    for state, token in zip(states, inputs_of(tokens)):
        outcome = {d: resolve(state, SNAKE, d)[1] for d in Direction if d != state.direction.opposite}
        dies = {d for d, o in outcome.items() if o in (Outcome.DIE_WALL, Outcome.DIE_SELF)}
        if dies and len(dies) < len(outcome):
            checked += 1
            bad += Direction[token.removeprefix("INPUT_")] in dies
    return bad, checked


def _planner_on_a_model_that_wants_up(plan: PlannerConfig, config: SnakeConfig = SNAKE, games: int = 16):
    """`games` games of the planner on a model that wants UP above all: it, the games, and (moves into a death while
    some input escaped it, moves checked)."""
    model, tokenizer = tiny(config, block=256, prefer={"INPUT_U": 5.0})
    game = load_game("snake")
    planner = PlannerAgent(model, tokenizer, game, config, CodecConfig(), plan=plan, batch_size=games)
    result = play_games(game, config, planner.codec, 0, np.arange(games), planner)
    counts = [_deaths_escapable(game, tokens) for tokens in episodes_of(result, tokenizer)]
    return planner, result, sum(b for b, _ in counts), sum(c for _, c in counts)


def test_the_rules_planner_never_walks_into_a_death_it_can_escape():
    """On the rules, the root tick is exact: wherever some input survives the tick, the planner takes one (the same
    random model plays into walls and its body by argmax)."""
    planner, result, bad, checked = _planner_on_a_model_that_wants_up(
        PlannerConfig(rollouts=2, horizon=3, simulator="rules", rollout_policy="random")
    )
    assert checked > 20 and bad == 0
    model, tokenizer, game = planner.model, planner.tokenizer, planner.game
    argmax = ModelAgent(model, tokenizer, game, SNAKE, CodecConfig(), temperature=0, batch_size=16)
    plain = play_games(game, SNAKE, argmax.codec, 0, np.arange(16), argmax)
    assert sum(_deaths_escapable(game, t)[0] for t in episodes_of(plain, tokenizer)) > 0  # the test can fail
    assert result.ticks.mean() > 2 * plain.ticks.mean()
    assert planner.stats.moves == result.ticks.sum() and planner.stats.rollout_tokens == 0  # random inputs: no model


class RulesUnread:
    """A game whose rules a planner must not touch (mixed into its spec): the engine still plays the real game."""

    def trace(self, tokens, config):
        raise AssertionError("the planner read the rules (trace)")

    def read_tick(self, state, tokens, config, codec):
        raise AssertionError("the planner read the rules (read_tick)")

    def simulate_tick(self, state, inputs, config, codec, seed):
        raise AssertionError("the planner read the rules (simulate_tick)")


class NoRules(RulesUnread, SnakeSpec):
    pass


class NoRulesBattlesnake(RulesUnread, BattlesnakeSpec):
    pass


@pytest.mark.parametrize(("planner", "policy"), [("lookahead", "model"), ("lookahead", "random"), ("mcts", "model"), ("mcts", "random")])
def test_the_model_planner_never_reads_the_rules(planner, policy):
    model, tokenizer = tiny(SNAKE, block=256, scale=3)
    game = NoRules()
    plan = PlannerConfig(
        planner,
        rollouts=2,
        horizon=2,
        simulator="model",
        rollout_policy=policy,
        max_tick_tokens=8,
        simulations=6,
        discount=0.9,
        leaf_weight=0.05,
    )
    planner = PlannerAgent(model, tokenizer, game, SNAKE, CodecConfig(), plan=plan, batch_size=3)
    result = play_games(game, SNAKE, planner.codec, 1, np.arange(3), planner)
    assert planner.stats.moves == result.ticks.sum()
    assert planner.stats.rollout_tokens > 2 * 3 * planner.stats.moves  # six rollouts a move, a tick or more each
    rules = PlannerAgent(model, tokenizer, game, SNAKE, CodecConfig(), plan=PlannerConfig(simulator="rules"), batch_size=4)
    with pytest.raises(AssertionError, match="read the rules"):  # the spy works
        play_games(game, SNAKE, rules.codec, 1, np.arange(4), rules)


def test_rules_rollouts_with_the_models_inputs_cost_the_models_tokens():
    """The two simulators at the same budget: with the model's inputs, the rules' rollouts go through the model too."""
    model, tokenizer = tiny(SNAKE, block=256, scale=3)
    game = load_game("snake")
    cost = {}
    for simulator in ("model", "rules"):
        plan = PlannerConfig(rollouts=1, horizon=2, simulator=simulator, max_tick_tokens=8)
        planner = PlannerAgent(model, tokenizer, game, SNAKE, plan=plan, batch_size=2)
        play_games(game, SNAKE, planner.codec, 0, np.arange(2), planner)
        cost[simulator] = planner.stats.rollout_tokens / planner.stats.moves
    assert cost["rules"] > 3 * 4  # three inputs, a whole tick and more each


def test_games_do_not_depend_on_the_batch():
    model, tokenizer = tiny(SNAKE, block=256, scale=3)
    game = load_game("snake")
    plan = PlannerConfig(rollouts=2, horizon=3, simulator="rules", rollout_policy="random")
    played = []
    for batch in (6, 2):
        planner = PlannerAgent(model, tokenizer, game, SNAKE, plan=plan, batch_size=batch)
        played.append(episodes_of(play_games(game, SNAKE, planner.codec, 4, np.arange(6), planner), tokenizer))
    assert played[0] == played[1]


def test_rollout_passes_keep_no_autograd_graph():
    """Every pass of the search runs without autograd: with it, each move's graphs were kept and a long run grew to
    all of the machine's memory."""
    model, tokenizer = tiny(SNAKE, block=256, scale=3)
    game = load_game("snake")
    grad_on = []
    model.register_forward_pre_hook(lambda *_: grad_on.append(torch.is_grad_enabled()))
    plan = PlannerConfig(rollouts=1, horizon=2, simulator="model", rollout_policy="random", max_tick_tokens=8)
    planner = PlannerAgent(model, tokenizer, game, SNAKE, plan=plan, batch_size=2)
    play_games(game, SNAKE, planner.codec, 0, np.arange(2), planner)
    assert planner.stats.rollout_passes > 0 and grad_on and not any(grad_on)


def test_a_large_prior_weight_plays_the_models_argmax():
    """With the rules and no death cost, every safe input is worth its food: a prior weight far above any gain makes
    the planner the model by argmax, move for move."""
    model, tokenizer = tiny(SNAKE, block=256, scale=3, seed=2)
    game = load_game("snake")
    argmax = ModelAgent(model, tokenizer, game, SNAKE, temperature=0.0, batch_size=4)
    want = episodes_of(play_games(game, SNAKE, argmax.codec, 5, np.arange(4), argmax), tokenizer)
    plan = PlannerConfig(rollouts=1, horizon=2, simulator="rules", rollout_policy="random", death_cost=0.0, prior_weight=1e6)
    planner = PlannerAgent(model, tokenizer, game, SNAKE, plan=plan, batch_size=4)
    assert episodes_of(play_games(game, SNAKE, planner.codec, 5, np.arange(4), planner), tokenizer) == want
    with pytest.raises(GameGrammarError, match="prior weight must be a finite number >= 0"):
        PlannerConfig(prior_weight=-1.0)


def test_bad_settings_and_games_without_a_planner_get_one_line():
    with pytest.raises(GameGrammarError, match="unknown simulator"):
        PlannerConfig(simulator="engine")
    with pytest.raises(GameGrammarError, match="rollouts must be at least 1"):
        PlannerConfig(rollouts=0)
    model, tokenizer = tiny(BATTLESNAKE, block=64)
    with pytest.raises(GameGrammarError, match="cannot score a rollout"):
        PlannerAgent(model, tokenizer, NoPlan(), BATTLESNAKE)
    assert isinstance(model, GameGPT)


def test_scripted_rollouts_on_the_rules_feed_the_snake_without_the_model():
    """Greedy's later inputs on the rules, or greedy's choice read off the tokens (the heuristic): no model token is fed,
    no escapable death is taken, and the snake eats more than with random later inputs on the same episodes (whose
    rollouts only see food a few ticks away)."""
    scores = {}
    for policy in ("random", "greedy", "heuristic"):
        plan = PlannerConfig(rollouts=2, horizon=4, simulator="rules", rollout_policy=policy, discount=0.9)
        planner, result, bad, _checked = _planner_on_a_model_that_wants_up(plan, SHORT, games=8)
        assert bad == 0 and planner.stats.rollout_tokens == 0
        scores[policy] = result.score.mean()
    assert scores["greedy"] > scores["random"] + 1 and scores["heuristic"] > scores["random"] + 1


@pytest.mark.parametrize("name", ["snake", "battlesnake"])
def test_the_heuristic_rollout_policy_reads_the_dream(name):
    """On the model, the heuristic chooses the dream's later inputs off the dream's tokens (Snake: greedy's choice;
    Battlesnake: the safe agent's, for whichever snake's slot it is): the rollouts are written by the model (tokens fed)
    and every later input in them is one the game's heuristic reads off what came before, or, where it reads nothing,
    any allowed input (the planner then draws uniformly)."""
    config = SNAKE if name == "snake" else BATTLESNAKE
    game = NoRules() if name == "snake" else NoRulesBattlesnake()
    model, tokenizer = tiny(config, block=512, scale=3)
    plan = PlannerConfig(rollouts=1, horizon=3, simulator="model", rollout_policy="heuristic", max_tick_tokens=24)
    planner = PlannerAgent(model, tokenizer, game, config, plan=plan, batch_size=2)
    written = []
    run = _PlanningController._run

    def keep(self, *args):
        branches = run(self, *args)
        written.extend((self.histories[b.game], b.words) for b in branches if b.words)
        return branches

    inputs = game.input_tokens(config)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_PlanningController, "_run", keep)
        play_games(game, config, planner.codec, 0, np.arange(2), planner, {"safe": 1.0} if name == "battlesnake" else None)
    assert planner.stats.rollout_tokens > 0 and written
    read = 0
    for history, words in written:
        at = [i for i, word in enumerate(words) if word in inputs]
        for i in at[1:]:  # the later inputs (the first is the root's)
            options = {game.planner_input(history, words[:i], inputs, config, u) for u in np.linspace(0, 0.99, 12)}
            assert words[i] in options or options == {None}
            read += options != {None}
    assert read > 0


def test_a_heuristic_rollout_policy_needs_a_game_that_has_one():
    class NoHeuristic(BattlesnakeSpec):
        planner_input = GameSpec.planner_input

    model, tokenizer = tiny(BATTLESNAKE, block=64)
    with pytest.raises(GameGrammarError, match="no heuristic rollout policy"):
        PlannerAgent(model, tokenizer, NoHeuristic(), BATTLESNAKE, plan=PlannerConfig(rollout_policy="heuristic"))


def test_the_leaf_heuristic_pulls_toward_food_beyond_the_horizon():
    """Snake's leaf reads the head and the food as last written; with it, a one-tick lookahead eats more than without."""
    game = load_game("snake")
    start = ["BOS", "SNAP", "PLAYER", "X3", "Y3", "DIR_U", "LEN1", "BODY", "FOOD", "X0", "Y1", "SCORE", "V0"]
    assert game.planner_leaf(start) == -5.0
    assert game.planner_leaf([*start, "TICK", "INPUT_L", "SENSE_NONE", "MOVE", "X2", "Y3"]) == -4.0
    assert game.planner_leaf(["TICK", "INPUT_L"]) == 0.0  # nothing to read: no pull
    scores = {}
    for weight in (0.0, 0.05):
        plan = PlannerConfig(rollouts=1, horizon=1, simulator="rules", rollout_policy="random", leaf_weight=weight)
        scores[weight] = _planner_on_a_model_that_wants_up(plan, SHORT, games=8)[1].score.mean()
    assert scores[0.05] > scores[0.0] + 1


def test_the_discount_values_the_sooner_meal_and_the_later_death():
    """Of two rollouts that eat once, the sooner is worth more; a death at the horizon costs less than one now."""
    game = load_game("snake")
    stub = _PlanningController.__new__(_PlanningController)
    stub.planner = SimpleNamespace(game=game, plan=PlannerConfig(horizon=3, discount=0.5))
    eat, walk, die = ["INPUT_U", "EAT", "MOVE", "X1", "Y1"], ["INPUT_U", "MOVE", "X1", "Y1"], ["INPUT_U", "DIE_WALL"]

    def value(*ticks):
        return stub._value(_Branch(0, 0, (), words=[w for t in ticks for w in ["TICK", *t]], ticks=len(ticks)))

    assert value(eat, walk, walk) == 1.0 and value(walk, walk, eat) == 0.25
    assert value(die) == -20.0 and value(walk, walk, die) == pytest.approx(-10 * (2 - 2 / 3) * 0.25)


def test_scripted_rollout_policies_play_only_on_the_rules_and_must_exist():
    with pytest.raises(GameGrammarError, match="plays only on the rules simulator"):
        PlannerConfig(simulator="model", rollout_policy="greedy")
    with pytest.raises(GameGrammarError, match="discount must be in"):
        PlannerConfig(discount=0.0)
    model, tokenizer = tiny(SNAKE, block=64)
    with pytest.raises(GameGrammarError, match="unknown agent 'grready'"):
        PlannerAgent(model, tokenizer, load_game("snake"), SNAKE, plan=PlannerConfig(simulator="rules", rollout_policy="grready"))


class NoPlan(BattlesnakeSpec):
    """Battlesnake without its planner capability: a game no planner can score."""

    planner_outcome = GameSpec.planner_outcome


def test_battlesnake_planner_outcome_reads_snake_zeros_food_death_and_win():
    game = load_game("battlesnake")
    alive = [
        "TICK",
        "S0",
        "UP",
        "X1",
        "Y2",
        "EAT",
        "LEN4",
        "H100",
        "S1",
        "DOWN",
        "X3",
        "Y3",
        "EAT",
        "LEN4",
        "H100",
        "S1",
        "DIE_HEAD",
        "WIN",
        "EOS",
    ]
    assert game.planner_outcome(alive) == (1.0 + game.WIN_VALUE, False)
    dead = ["TICK", "S0", "UP", "OUT", "S1", "LEFT", "X3", "Y3", "S0", "DIE_WALL", "WIN", "EOS"]
    assert game.planner_outcome(dead) == (0.0, True)


@pytest.mark.parametrize("planner", ["lookahead", "mcts"])
def test_battlesnake_planners_choose_snake_zeros_move_on_both_simulators(planner):
    """Simultaneous moves: the planner chooses snake 0's input; the others' come from the rules' default (the safe
    agent) on the rules, from the rollout policy in the model's dream, which never reads the rules."""
    model, tokenizer = tiny(BATTLESNAKE, block=512, scale=3)
    for game, simulator in ((load_game("battlesnake"), "rules"), (NoRulesBattlesnake(), "model")):
        plan = PlannerConfig(planner, rollouts=1, horizon=2, simulator=simulator, simulations=4, max_tick_tokens=24)
        agent = PlannerAgent(model, tokenizer, game, BATTLESNAKE, plan=plan, batch_size=2)
        result = play_games(game, BATTLESNAKE, agent.codec, 0, np.arange(2), agent, {"safe": 1.0})
        assert (
            agent.stats.moves == result.ticks.sum() > 0 and agent.stats.rollouts >= 3 * agent.stats.moves
        )  # three inputs or more (lookahead), four simulations (mcts)


def test_mcts_on_the_rules_escapes_the_deaths_its_prior_walks_into():
    """The model wants UP above all (its argmax walks into the wall); MCTS with it as the prior, on the rules, tries
    every input and takes an escape wherever one exists, in fewer simulations than the prior's odds would allow."""
    plan = PlannerConfig("mcts", horizon=3, simulator="rules", rollout_policy="random", simulations=8)
    planner, result, bad, checked = _planner_on_a_model_that_wants_up(plan, SHORT, games=8)
    assert checked > 10 and bad == 0
    assert planner.stats.moves == result.ticks.sum() and planner.stats.rollouts == 8 * planner.stats.moves
    assert 0 < planner.stats.rollout_tokens < 8 * 3 * 5 * planner.stats.moves  # the model only in the tree


def test_mcts_with_one_simulation_plays_the_priors_argmax():
    model, tokenizer = tiny(SNAKE, block=256, scale=3, seed=2)
    game = load_game("snake")
    argmax = ModelAgent(model, tokenizer, game, SNAKE, temperature=0.0, batch_size=4)
    want = episodes_of(play_games(game, SNAKE, argmax.codec, 5, np.arange(4), argmax), tokenizer)
    for simulator in ("rules", "model"):
        plan = PlannerConfig("mcts", horizon=2, simulator=simulator, simulations=1, max_tick_tokens=8)
        planner = PlannerAgent(model, tokenizer, game, SNAKE, plan=plan, batch_size=4)
        assert episodes_of(play_games(game, SNAKE, planner.codec, 5, np.arange(4), planner), tokenizer) == want


def test_mcts_games_do_not_depend_on_the_batch_and_parallel_simulations_search():
    model, tokenizer = tiny(SHORT, block=256, scale=3)
    game = load_game("snake")
    played = []
    for batch, parallel in ((4, 1), (2, 1), (4, 3)):
        plan = PlannerConfig("mcts", horizon=3, simulator="rules", rollout_policy="random", simulations=6, parallel_simulations=parallel)
        planner = PlannerAgent(model, tokenizer, game, SHORT, plan=plan, batch_size=batch)
        played.append(episodes_of(play_games(game, SHORT, planner.codec, 4, np.arange(4), planner), tokenizer))
        assert planner.stats.rollouts == 6 * planner.stats.moves
    assert played[0] == played[1]
    assert played[2] != played[0]  # in-flight visits send a wave's simulations down other paths
    with pytest.raises(GameGrammarError, match="simulations must be at least 1"):
        PlannerConfig("mcts", simulations=0)
    with pytest.raises(GameGrammarError, match="c puct must be a finite number >= 0"):
        PlannerConfig("mcts", c_puct=float("nan"))
