"""A Go match through GTP: python scripts/go_match.py --ckpt models/go --levels 1 10 --games 20 --out runs/go-match

Each player (the model, through `gamegrammar gtp --ckpt`, and the scripted agents, through `gamegrammar gtp --agent`)
plays GNU Go (`gnugo --mode gtp --chinese-rules --positional-superko --forbid-suicide --level L`) on 9x9 with komi 7.5,
colours alternating (the player Black in even games), both engines spoken to in GTP: each engine's genmove is played on
the other, and this package's rules referee every move (the same rules as GNU Go's flags: docs/go.md, "GNU Go"). A game
ends with two passes, a resignation or the 4 N^2 move limit, scored by area with komi. Prints a table: each row's win
rate against each level with its Wilson 95% interval, by colour too. Every finished game is appended to
OUT/games.jsonl, so that an interrupted match carries on where it stopped when rerun with the same arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.games.go.gtp import GtpClient, gnugo_argv, gnugo_missing
from gamegrammar.games.go.rules import BLACK, PASS, RESIGN, GoConfig, GoState, area, attempt, end_reason, parse_vertex, winner

BLACK_WORDS = ("black", "white")


PLAN_FLAGS = ("simulator", "candidates", "rollouts", "horizon")  # the planner's settings, passed to its engine


def engine_argv(player: str, ckpt: str | None, temperature: float, seed: int, plan: dict | None = None) -> list[str]:
    """The command line of our GTP engine for `player` ("model", "planner": the model searching with `plan`'s
    settings, or a scripted agent's name)."""
    base = [sys.executable, "-m", "gamegrammar.cli", "gtp", "--game", "go"]
    if player in ("model", "planner"):
        if ckpt is None:
            raise GameGrammarError("the model's rows need --ckpt")
        argv = [*base[:4], "--ckpt", ckpt, "--temperature", f"{temperature:g}", "--seed", str(seed), "--device", "cpu"]
        if player == "planner":
            argv += ["--planner", "lookahead", *(f"--{k}={(plan or {})[k]}" for k in PLAN_FLAGS)]
        return argv
    return [*base, "--agent", player]


def play_game(engines: tuple[GtpClient, GtpClient], config: GoConfig) -> dict:
    """One game between two GTP engines (Black's first), refereed by the rules: its moves, result and why it ended."""
    for engine in engines:
        engine.send(f"boardsize {config.size}")
        engine.send("clear_board")
        engine.send(f"komi {config.komi:g}")
    state = GoState.empty(config.size)
    moves: list[str] = []
    while end_reason(state, config) is None:
        mover, other = engines[state.to_play], engines[1 - state.to_play]
        colour = BLACK_WORDS[state.to_play]
        answer = mover.send(f"genmove {colour}").strip().upper()
        move = RESIGN if answer == "RESIGN" else PASS if answer == "PASS" else parse_vertex(answer, config.size)
        refusal, after, _ = attempt(state, move)
        if refusal is not None or after is None:
            raise GameGrammarError(f"{colour}'s engine played {answer}, which the rules refuse ({refusal}), after {' '.join(moves)}")
        moves.append(answer)
        if move != RESIGN:
            other.send(f"play {colour} {answer}")
        state = after
    if state.moves[-1] == RESIGN:
        won, black, white = 1 - (state.tick - 1) % 2, None, None  # the player who did not resign
    else:
        black, white = area(state.board, config.size)
        colour = winner(black, white, config.komi)
        won = None if colour is None else 0 if colour == BLACK else 1  # the player: 0 Black, 1 White; None a draw
    return {"moves": moves, "winner": won, "black_area": black, "white_area": white, "end": end_reason(state, config)}


def main() -> int:
    parser = OneLineParser(prog="python scripts/go_match.py", description=__doc__.splitlines()[0])
    parser.add_argument("--ckpt", default=None, help="the model (checkpoint or exported directory); without it, only --agents play")
    parser.add_argument(
        "--agents", nargs="*", default=["random", "capture"], help="scripted agents in the same match (default: random capture)"
    )
    parser.add_argument("--levels", nargs="+", type=int, default=[1, 10], help="GNU Go levels (default: 1 10)")
    parser.add_argument(
        "--games", nargs="+", type=int, default=[20], help="games per row, one for every level or one for all (default: 20)"
    )
    parser.add_argument("--temperature", type=float, default=1.0, help="the model's sampling temperature over legal moves (default: 1.0)")
    parser.add_argument("--seed", type=int, default=0, help="the model's seed (default: %(default)s)")
    parser.add_argument("--size", type=int, default=9, help="board size (default: %(default)s)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default: %(default)s)")
    parser.add_argument(
        "--planner", action="store_true", help="the model's row searches before each move (gamegrammar gtp --planner lookahead)"
    )
    parser.add_argument("--simulator", choices=("model", "rules"), default="model", help="with --planner: the rollouts' writer")
    parser.add_argument("--candidates", type=int, default=8, help="with --planner: the model's likeliest legal moves searched")
    parser.add_argument("--rollouts", type=int, default=4, help="with --planner: rollouts per candidate")
    parser.add_argument("--horizon", type=int, default=8, help="with --planner: plies per rollout")
    parser.add_argument("--out", required=True, help="directory: games.jsonl (the journal), match.json, match.md")
    args = parser.parse_args()
    if gnugo_missing():
        raise GameGrammarError(gnugo_missing() or "")
    if len(args.games) not in (1, len(args.levels)) or min(args.games) < 1:
        raise GameGrammarError("--games takes one count (>= 1) for every level, or one for all")
    counts = dict(zip(args.levels, args.games * len(args.levels) if len(args.games) == 1 else args.games))
    config = GoConfig(args.size, args.komi)
    if args.planner and not args.ckpt:
        raise GameGrammarError("--planner searches with a model: give --ckpt")
    players = (["planner" if args.planner else "model"] if args.ckpt else []) + list(args.agents)
    if not players:
        raise GameGrammarError("nothing to play: give --ckpt or --agents")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    journal = out / "games.jsonl"
    done = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()] if journal.exists() else []
    setting = {"ckpt": args.ckpt, "temperature": args.temperature, "seed": args.seed, "size": args.size, "komi": args.komi}
    if args.planner:
        setting["planner"] = {k: getattr(args, k) for k in PLAN_FLAGS}
    if any(game["setting"] != setting for game in done):
        raise GameGrammarError(f"{journal} holds games of another setting: give another --out, or remove it")
    for player in players:
        for level in args.levels:
            have = sum(1 for game in done if game["player"] == player and game["level"] == level)
            if have >= counts[level]:
                continue
            start = time.perf_counter()
            play_row(player, level, range(have, counts[level]), args, config, setting, journal, done)
            print(f"{player} vs level {level}: {counts[level] - have} games in {time.perf_counter() - start:.0f} s", flush=True)
    table = summarize(done, players, args.levels)
    (out / "match.json").write_text(json.dumps({"setting": setting, "rows": table}, indent=2) + "\n")
    text = markdown(table, args.levels)
    (out / "match.md").write_text(text)
    print(text, end="")
    return 0


def gnugo_winner(score: str) -> int | None:
    """The player GNU Go's final_score names (`B+3.5`: 0, `W+R`: 1), dead stones removed as GNU Go judges them; None
    for a draw (`0`)."""
    head = score.strip()[:2].upper()
    return 0 if head == "B+" else 1 if head == "W+" else None


def play_row(
    player: str, level: int, games: range, args: argparse.Namespace, config: GoConfig, setting: dict, journal: Path, done: list[dict]
) -> None:
    """Games `games` of one row (one player against one level), each appended to the journal as it ends."""
    ours_argv = engine_argv(player, args.ckpt, args.temperature, args.seed + 1000 * level, setting.get("planner"))
    with GtpClient(ours_argv) as ours, GtpClient(gnugo_argv(config.size, config.komi, level)) as theirs:
        for i in games:
            colour = i % 2  # our player is Black (0) in even games, White (1) in odd ones
            game = play_game((ours, theirs) if colour == 0 else (theirs, ours), config)
            game["gnugo_winner"] = game["winner"] if game["end"] == "RESIGNATION" else gnugo_winner(theirs.send("final_score"))
            record = {"setting": setting, "player": player, "level": level, "game": i, "colour": BLACK_WORDS[colour]}
            record |= {**game, "won": game["winner"] == colour, "won_by_gnugo": game["gnugo_winner"] == colour}
            with journal.open("a") as f:
                f.write(json.dumps(record) + "\n")
            done.append(record)
            outcome = "won" if record["won"] else "lost"
            print(
                f"{player} vs GNU Go {level}, game {i}: {outcome} as {record['colour']} ({len(game['moves'])} moves, {game['end']})",
                flush=True,
            )


def summarize(games: list[dict], players: list[str], levels: list[int]) -> list[dict]:
    rows = []
    for player in players:
        for level in levels:
            mine = [g for g in games if g["player"] == player and g["level"] == level]
            wins = sum(g["won"] for g in mine)
            lo, hi = wilson_interval(wins, len(mine))
            judged = sum(g["won_by_gnugo"] for g in mine)
            jlo, jhi = wilson_interval(judged, len(mine))
            by_colour = {c: [g["won"] for g in mine if g["colour"] == c] for c in BLACK_WORDS}
            moves = sum(len(g["moves"]) for g in mine) / len(mine) if mine else 0.0
            rows.append(
                {"player": player, "level": level, "games": len(mine), "wins": wins, "ci95": [lo, hi], "moves": moves}
                | {"wins_gnugo_scored": judged, "ci95_gnugo_scored": [jlo, jhi]}
                | {f"wins_as_{c}": f"{sum(v)}/{len(v)}" for c, v in by_colour.items()}
            )
    return rows


def markdown(rows: list[dict], levels: list[int]) -> str:
    lines = [
        "| player | GNU Go level | games | wins (rules) | win rate [95% CI] | as black | as white | wins (GNU Go's score) | win rate [95% CI] | moves a game |",
        "|" + " --- |" * 10,
    ]
    for r in rows:
        rate = r["wins"] / r["games"] if r["games"] else 0.0
        lo, hi = r["ci95"]
        lines.append(
            f"| {r['player']} | {r['level']} | {r['games']} | {r['wins']} | {100 * rate:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] "
            f"| {r['wins_as_black']} | {r['wins_as_white']} | {r['wins_gnugo_scored']} | {_rate(r['wins_gnugo_scored'], r['games'], r['ci95_gnugo_scored'])} "
            f"| {r['moves']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def _rate(k: int, n: int, ci: list[float]) -> str:
    return f"{100 * k / n if n else 0:.0f}% [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "go_match"))
