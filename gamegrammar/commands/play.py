"""gamegrammar play: the model as an agent in the real game, in one table with the game's scripted agents.

    gamegrammar play --ckpt runs/cpu/checkpoints/last.ckpt --games 1000 --out reports/play
    gamegrammar play --ckpt bs.ckpt --opponents space --agents model,greedy      # Battlesnake: snake 0 against space
    gamegrammar play --game snake --agents greedy,random                          # scripted agents alone, no model
    gamegrammar play --ckpt models/snake --planner lookahead --rollouts 2 --horizon 4 --agents planner,greedy
    gamegrammar play --ckpt models/snake --planner mcts --simulations 32 --horizon 8 --simulator rules --agents planner

The engine writes every event; the model writes only player 0's input, among the inputs the game allows
(an action mask), at --temperature. Every agent plays episodes 0..games-1 of --seed: the same starts and
the same opponents. `--corpus-out DIR` also keeps the model's games as a corpus (the checkpoint's codec).
With `--planner`, the `planner` agent is the same model searching before each move (gamegrammar.act.planner):
rollouts in its own dreams (`--simulator model`) or, as the upper bound, in the rules (`--simulator rules`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.commands.progress import progress_bar, stage_log
from gamegrammar.commands.sample import add_dtype_argument
from gamegrammar.core.agents import parse_agent_mix
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="the model plays the real game (action-masked inputs) beside the scripted agents",
        description="The model plays the real game beside the scripted agents. With --out, a killed run carries on from "
        "OUT/play.partial (the model's finished batches of games) when the same command is rerun.",
    )
    p.add_argument("--ckpt", default=None, help="a training checkpoint (.ckpt) or an exported model directory: the model agent")
    p.add_argument("--games", type=int, default=1000, help="games per agent (default: %(default)s)")
    p.add_argument("--temperature", type=float, default=1.0, help="the model's sampling temperature; 0 = argmax")
    p.add_argument("--seed", type=int, default=0, help="episodes 0..games-1 of this seed (starts, food, opponents)")
    p.add_argument("--agents", default=None, help="who plays, comma-separated: model and scripted agents (default: model and every one)")
    p.add_argument("--opponents", default=None, help="games with several players: the others' agent mix (default: the game's)")
    p.add_argument("--batch-size", type=int, default=128, help="games the model plays at once (default: %(default)s)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when available)")
    add_dtype_argument(p)
    p.add_argument("--threads", type=int, default=None, help="torch threads for the model (default: torch's, one per core)")
    p.add_argument("--out", default=None, help="report directory: report.json, report.md, scores.png")
    p.add_argument("--corpus-out", default=None, help="also write the model's games as a corpus here")
    p.add_argument("--overwrite", action="store_true", help="replace a finished corpus in --corpus-out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group("planning", "the planner agent: the model searching before each move (docs/play.md)")
    g.add_argument(
        "--planner",
        choices=("lookahead", "mcts"),
        default=None,
        help="add the planner agent: lookahead (for each legal input, K rollouts of H ticks, scored by score gained and "
        "death) or mcts (PUCT over the model's policy as the prior, --simulations rollouts of at most H ticks) (default: no planner)",
    )
    g.add_argument("--rollouts", type=int, default=2, help="lookahead: rollouts per legal input, K (default: %(default)s)")
    g.add_argument(
        "--horizon", type=int, default=4, help="ticks per rollout (MCTS: per simulation, tree and rollout), H (default: %(default)s)"
    )
    g.add_argument("--simulations", type=int, default=32, help="mcts: simulations per move, N (default: %(default)s)")
    g.add_argument(
        "--c-puct", type=float, default=1.25, help="mcts: the prior's weight against the normalised returns (default: %(default)s)"
    )
    g.add_argument(
        "--parallel-simulations",
        type=int,
        default=1,
        help="mcts: simulations of a game written in the same model passes, kept apart by in-flight visits (default: %(default)s)",
    )
    g.add_argument(
        "--simulator",
        choices=("model", "rules"),
        default="model",
        help="who writes the rollouts: the model's own dream (default), or the true rules from the real state (the upper bound)",
    )
    g.add_argument(
        "--rollout-policy",
        default="model",
        help="a rollout's later inputs: the model's own (model, sampled), uniform (random), the game's cheap default read off "
        "the tokens written so far (heuristic; Snake: greedy's choice on the head, body and food the dream wrote), or, on "
        "--simulator rules, a scripted agent of the game playing the rollout's true state (greedy, ...) (default: %(default)s)",
    )
    g.add_argument("--rollout-temperature", type=float, default=1.0, help="the model's sampling inside rollouts (default: %(default)s)")
    g.add_argument("--death-cost", type=float, default=10.0, help="what being out costs, in score (default: %(default)s)")
    g.add_argument(
        "--discount", type=float, default=1.0, help="a gain or death in a rollout's t-th tick counts this ** (t - 1) (default: %(default)s)"
    )
    g.add_argument(
        "--leaf-weight",
        type=float,
        default=0.0,
        help="add this times the game's heuristic of where a rollout ends (Snake: minus the head's distance to the food, read "
        "off the tokens) to a rollout not out; keep it under 1 / the longest distance, so that eating still pays (default: %(default)s)",
    )
    g.add_argument(
        "--prior-weight",
        type=float,
        default=0.0,
        help="add this times the model's log-probability of an input to its searched value: the model's own "
        "preference weighs in beyond ties (default: %(default)s)",
    )
    add_game_arguments(p, what="without --ckpt")
    p.set_defaults(run=run)


def _agents(args: argparse.Namespace, scripted: tuple[str, ...]) -> list[str]:
    models = ("model", "planner") if args.planner else ("model",)
    names = [a.strip() for a in (args.agents or ",".join((*models, *scripted) if args.ckpt else scripted)).split(",") if a.strip()]
    for name in names:
        if name not in models and name not in scripted:
            hint = " (the planner agent needs --planner)" if name == "planner" else ""
            raise GameGrammarError(f"unknown agent {name!r}; choose from {', '.join(models)}, {', '.join(scripted)}{hint}")
    for name in models:
        if name in names and args.ckpt is None:
            raise GameGrammarError(f"the {name} agent needs --ckpt")
    if not names or len(set(names)) != len(names):
        raise GameGrammarError(f"--agents must name each agent once, got {args.agents!r}")
    return names


def run(args: argparse.Namespace) -> int:
    from gamegrammar.core.io import check_output_dir

    if args.games < 1:
        raise GameGrammarError(f"--games must be at least 1, got {args.games}")
    if args.threads is not None and args.threads < 1:
        raise GameGrammarError(f"--threads must be at least 1, got {args.threads}")
    if not 0 <= args.seed < 1 << 63:
        raise GameGrammarError(f"--seed must be in [0, 2**63), got {args.seed}")
    inputs = (args.ckpt,)
    for flag, path in (("--out", args.out), ("--corpus-out", args.corpus_out)):
        if path:
            check_output_dir(path, what=flag, inputs=inputs)
    if args.corpus_out:
        if args.ckpt is None:
            raise GameGrammarError("--corpus-out keeps the model's games: give --ckpt")
        if (Path(args.corpus_out) / "manifest.json").exists() and not args.overwrite:
            raise GameGrammarError(f"--corpus-out {args.corpus_out} already holds a finished corpus; pass --overwrite to replace it")
    agent: Any = None
    planner: Any = None
    precision: Any = None
    if args.ckpt is not None:
        from gamegrammar.act.play import ModelAgent, torch_threads
        from gamegrammar.commands.sample import device_of, generation_precision
        from gamegrammar.model.precision import TICK_TOKENS, cast_for_generation

        agent = ModelAgent.from_checkpoint(
            args.ckpt, temperature=args.temperature, batch_size=args.batch_size, device=device_of(args.device)
        )
        config, codec = game_config(args, agent.config), agent.codec
        if args.planner:
            from gamegrammar.act.planner import PlannerAgent, PlannerConfig

            plan = PlannerConfig(
                args.planner,
                args.rollouts,
                args.horizon,
                args.simulator,
                args.rollout_policy,
                args.rollout_temperature,
                args.death_cost,
                args.prior_weight,
                simulations=args.simulations,
                c_puct=args.c_puct,
                parallel_simulations=args.parallel_simulations,
                discount=args.discount,
                leaf_weight=args.leaf_weight,
            )
            planner = PlannerAgent(agent.model, agent.tokenizer, agent.game, agent.config, codec, plan=plan, batch_size=args.batch_size)
    else:
        config = game_config(args)
        codec = game_of(config).codec_type()
    game = game_of(config)
    names = _agents(args, game.agent_names)
    if args.corpus_out and "model" not in names:
        raise GameGrammarError("--corpus-out keeps the model's games: let the model play (--agents model,...)")
    opponents = None if args.opponents is None else parse_agent_mix(args.opponents, game.agent_names)
    players = {name: (agent if name == "model" else planner if name == "planner" else name) for name in names}
    if agent is not None:  # every setting checked: now the measurement, if --dtype auto
        with torch_threads(args.threads):  # measured as the games will run
            precision = generation_precision(args, agent.model, TICK_TOKENS)  # a pass feeds a game its tick's tokens
        cast_for_generation(agent.model, precision)  # the agent (and the planner, which shares its model) only generates: cast in place
    return play(args, game, config, codec, players, opponents, precision)


def play(
    args: argparse.Namespace, game: Any, config: Any, codec: Any, agents: dict[str, Any], opponents: dict | None, precision: Any = None
) -> int:
    """Play every agent, print the table, write the report and the model's games."""
    import numpy as np

    from gamegrammar.act.play import play_agents, play_report, render_markdown, torch_threads, write_play_report

    model = agents.get("model")
    planner = agents.get("planner")
    journals = {}
    if args.out:  # each model agent's batches, kept until the report is written
        from gamegrammar.act.play_journal import PlayJournal

        log = stage_log("play")
        for name, folder in (("model", "play.partial"), ("planner", "plan.partial")):
            if agents.get(name) is None:
                continue
            journal = journals[name] = PlayJournal(Path(args.out) / folder, agents[name].fingerprint(config, codec, args.seed, opponents))
            if journal.stale:
                log(f"{journal.directory} was from another run (model or settings); starting afresh")
            elif journal.kept():
                log(f"resuming from {journal.directory}: {journal.kept()} batches of the {name}'s games were played before")
    bar = progress_bar(args.games * len(agents), "game", "play", args.quiet)
    try:
        with torch_threads(args.threads):
            played = play_agents(game, config, codec, args.seed, args.games, agents, opponents, lambda name, n: bar.update(n), journals)
    finally:
        bar.close()
    meta: dict[str, Any] = {"games": args.games, "seed": args.seed, "episodes": f"0..{args.games - 1}"}
    resumed = {name: j.resumed for name, j in journals.items() if j.resumed}
    if resumed:
        batches = " and ".join(f"{n} batches of the {name}'s games" for name, n in resumed.items())
        meta["resumed"] = f"{batches} read back from an interrupted run (their seconds counted)"
    if model is not None or planner is not None:
        first = model if model is not None else planner
        meta |= {"checkpoint": str(args.ckpt), "model": first.model.describe()}
        if precision is not None:
            meta["dtype"] = str(precision)
    if model is not None:
        meta |= {"temperature": args.temperature, "model_forward_passes": model.forward_passes}
    if planner is not None:
        from dataclasses import asdict

        meta["planner"] = asdict(planner.plan)
        meta["planner_cost"] = planner.stats.summary() | {"note": "games played in this run (batches read back not counted)"}
    if next(iter(played.values())).result.place is not None:  # several players: whom player 0 met
        meta["opponents"] = ", ".join(f"{k}={v:g}" for k, v in (opponents or game.default_agents).items())
    report = play_report(game, config, played, meta)
    print(render_markdown(report), end="")
    if args.out:
        print(f"wrote {write_play_report(report, args.out)}")
    if args.corpus_out:
        from gamegrammar.data.corpus import write_played

        games = played["model"].result.episodes
        origin = {"agent": "model", "checkpoint": str(args.ckpt), "temperature": args.temperature, "seed": args.seed}
        write_played(
            args.corpus_out, config, codec, model.tokenizer, args.seed, np.arange(args.games), games, origin, overwrite=args.overwrite
        )
        print(f"wrote the model's {args.games} games to {args.corpus_out}")
    for journal in journals.values():
        journal.remove()
    return 0
