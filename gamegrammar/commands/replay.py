"""gamegrammar replay: show a token sequence as an ASCII animation, an animated GIF or an HTML player.

The sequence comes from a token file's line, a corpus episode or a game a model writes
(--ckpt); the game from the corpus or the model (or --game and its config flags); the
drawing from the game's renderer (`GameSpec.renderer()`). Several models' games print
side by side, so two models can be watched playing at once.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import check_output_file
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a token sequence (a token-file line or a corpus episode) as ASCII, a GIF or an HTML player",
        description="Replay one token sequence through the game's rules, marking the first rule violation. "
        "Give --tokens FILE [--line N], --corpus DIR [--episode ROW], or --ckpt MODEL for a game the model writes "
        "(--ckpt twice or more: their games side by side); with no --gif/--html the replay is printed as ASCII.",
    )
    src = p.add_argument_group("input")
    src.add_argument("--tokens", default=None, help="text file, one space-separated sequence per line (corpus export, sample)")
    src.add_argument("--line", type=int, default=1, help="with --tokens: the line to replay, 1-based (default: %(default)s)")
    src.add_argument("--corpus", default=None, help="corpus directory: the episode source (without --tokens) and the game config")
    src.add_argument("--episode", type=int, default=None, help="with --corpus: the episode's row, 0-based (default: 0)")
    src.add_argument(
        "--ckpt",
        action="append",
        default=None,
        metavar="MODEL",
        help="a checkpoint or exported model directory: replay one game it writes from BOS; repeat it to print "
        "several models' games side by side (ASCII only)",
    )
    src.add_argument("--seed", type=int, default=0, help="with --ckpt: the sampling seed (default: %(default)s)")
    src.add_argument("--temperature", type=float, default=1.0, help="with --ckpt: the sampling temperature (default: %(default)s)")
    add_game_arguments(p, what="without --corpus")
    out = p.add_argument_group("output")
    out.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF, one frame per tick")
    out.add_argument("--html", default=None, metavar="OUT.html", help="write a self-contained HTML player")
    out.add_argument("--ascii", action="store_true", help="print the replay in the terminal (the default without --gif/--html)")
    out.add_argument("--delay", type=float, default=0.2, help="ASCII: seconds between frames; 0 prints all frames at once")
    out.add_argument("--frame", type=int, default=None, help="ASCII: print only this tick's frame (-1: the last)")
    out.add_argument("--start-tick", type=int, default=None, help="HTML: open paused at this tick (default: play from tick 0)")
    out.add_argument("--cell", type=int, default=24, help="GIF: pixels per board cell (default: %(default)s)")
    out.add_argument("--fps", type=float, default=5.0, help="GIF: ticks per second (default: %(default)s)")
    out.add_argument("--overwrite", action="store_true", help="replace --gif/--html files that exist")
    p.set_defaults(run=run)


def token_file_line(path: str | Path, line: int, config: Any) -> list[str]:
    """The tokens on line `line` (1-based) of a text file with one space-separated sequence per line.

    Only that line is checked against the game's vocabulary: a file of model
    samples may hold a bad line elsewhere, and one replay should not depend on it.
    An unknown token is refused rather than replayed, because it usually means
    the wrong game config (its flags, or --corpus).
    """
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise GameGrammarError(f"cannot read token file {path}: {err}") from None
    if line < 1 or line > len(lines):
        raise GameGrammarError(f"--line {line} is out of range: {path} has {len(lines)} line{'s' * (len(lines) != 1)}")
    tokens = lines[line - 1].split()
    if not tokens:
        raise GameGrammarError(f"{path} line {line} is blank")
    game = game_of(config)
    vocab = set(game.vocabulary(config))
    unknown = next((t for t in tokens if t not in vocab), None)
    if unknown is not None:
        which = game.describe_config(config).get("board", game.name)
        raise GameGrammarError(f"{path} line {line}: token {unknown!r} is not in the vocabulary of the {which} game")
    return tokens


def corpus_episode(path: str | Path, row: int) -> tuple[list[str], Any]:
    """The tokens of episode `row` (0-based, in corpus order) and the corpus's game config."""
    from gamegrammar.data.corpus import Corpus  # numpy-backed; only needed for this source

    corpus = Corpus(path)
    if not 0 <= row < len(corpus):
        raise GameGrammarError(f"--episode {row} is out of range: {path} has {len(corpus)} episodes (0..{len(corpus) - 1})")
    return corpus.episode_tokens(row), corpus.game


def model_game(path: str, seed: int, temperature: float) -> tuple[list[str], Any, str]:
    """One game the model at `path` writes from BOS (whole, up to the sampling command's default length), its game
    config, and a title."""
    from gamegrammar.commands.sample import default_max_length
    from gamegrammar.model.sampling import SamplingConfig, generate
    from gamegrammar.training.checkpoint import load_checkpoint

    loaded = load_checkpoint(path)
    max_length = default_max_length(loaded.model.config.block_size, loaded.longest_episode)
    config = SamplingConfig(temperature=temperature, max_length=max_length, batch_size=1, seed=seed)
    ids = generate(loaded.model, [[loaded.tokenizer.bos_id]], loaded.tokenizer.eos_id, config)
    return loaded.tokenizer.decode(ids[0]), loaded.game, f"{path}, seed {seed}"


def beside(columns: list[str], gap: int = 4) -> str:
    """Texts printed side by side, each padded to its widest line."""
    split = [c.splitlines() for c in columns]
    widths = [max(map(len, lines), default=0) for lines in split]
    rows = max(map(len, split), default=0)
    padded = [lines + [""] * (rows - len(lines)) for lines in split]
    return "\n".join((" " * gap).join(col[r].ljust(w) for col, w in zip(padded, widths)).rstrip() for r in range(rows))


def frame_index(k: int, rp: Any) -> int:
    """A tick of the replay, counting back from the last frame when negative (-1: the last)."""
    return k if k >= 0 else max(1, len(rp.frames)) + k


def load_sequence(args: argparse.Namespace) -> tuple[list[str], Any, str]:
    """The tokens to replay, the game config, and a title naming where they came from."""
    if sum(x is not None for x in (args.tokens, args.ckpt)) > 1 or (args.ckpt and args.corpus is not None):
        raise GameGrammarError("give one source: --tokens FILE, --corpus DIR or --ckpt MODEL")
    if args.ckpt:
        return model_game(args.ckpt[0], args.seed, args.temperature)
    if args.tokens is None and args.corpus is None:
        raise GameGrammarError("give --tokens FILE [--line N], --corpus DIR [--episode ROW] or --ckpt MODEL")
    if args.tokens is not None and args.episode is not None:
        raise GameGrammarError("--episode picks a corpus episode; with --tokens use --line")
    if args.tokens is not None:
        corpus_game = None
        if args.corpus is not None:
            from gamegrammar.data.corpus import Corpus

            corpus_game = Corpus(args.corpus).game
        config = game_config(args, corpus_game)
        return token_file_line(args.tokens, args.line, config), config, f"{args.tokens} line {args.line}"
    row = 0 if args.episode is None else args.episode
    tokens, corpus_game = corpus_episode(args.corpus, row)
    return tokens, game_config(args, corpus_game), f"{args.corpus} episode {row}"


def run(args: argparse.Namespace) -> int:
    if args.cell < 2:
        raise GameGrammarError(f"--cell must be at least 2 pixels, got {args.cell}")
    if args.fps <= 0:
        raise GameGrammarError(f"--fps must be positive, got {args.fps}")
    if args.delay < 0:
        raise GameGrammarError(f"--delay must be >= 0, got {args.delay}")
    if not args.temperature >= 0:
        raise GameGrammarError(f"--temperature must be >= 0 (0: the most likely token), got {args.temperature}")
    if args.ckpt and len(args.ckpt) > 1:
        return run_beside(args)
    for flag, path in (("--gif", args.gif), ("--html", args.html)):
        if path:
            check_output_file(path, what=flag, overwrite=args.overwrite, inputs=(args.tokens, args.corpus, *(args.ckpt or ())))
    tokens, config, title = load_sequence(args)
    renderer = game_of(config).renderer()
    rp = renderer.replay(tokens, config)
    last = len(rp.frames) - 1
    if args.frame is not None:
        args.frame = frame_index(args.frame, rp)
    for flag, tick in (("--frame", args.frame), ("--start-tick", args.start_tick)):
        if tick is not None and not 0 <= tick <= max(0, last):
            raise GameGrammarError(f"{flag} {tick} is out of range: the replay has ticks 0..{max(0, last)}")
    wrote = []
    if args.gif:
        images = renderer.write_gif(rp, args.gif, cell=args.cell, frame_ms=max(20, round(1000 / args.fps)))
        wrote.append(f"{args.gif} ({images} frames)")
    if args.html:
        renderer.write_html(rp, args.html, start_tick=args.start_tick, title=f"gamegrammar replay: {title}")
        wrote.append(args.html)
    if args.ascii or args.frame is not None or not wrote:
        if args.frame is not None:
            print(renderer.render_frame(rp, args.frame))
            print(rp.summary())
        else:
            renderer.play(rp, delay=args.delay)
    if wrote:
        print(f"wrote {', '.join(wrote)}: {rp.summary()}")
    return 0


def run_beside(args: argparse.Namespace) -> int:
    """Several models' games, frame by frame side by side in the terminal (a shorter game holds its last frame)."""
    import time

    if args.gif or args.html or args.tokens is not None or args.corpus is not None:
        raise GameGrammarError("several --ckpt print side by side as ASCII: drop --gif, --html, --tokens and --corpus")
    games = [model_game(path, args.seed, args.temperature) for path in args.ckpt]
    shown = []
    for tokens, config, title in games:
        renderer = game_of(config).renderer()
        shown.append((title, renderer, renderer.replay(tokens, config)))
    frames = max(len(rp.frames) for _, _, rp in shown)
    picks = range(frames) if args.frame is None else [args.frame]

    def frame(renderer: Any, rp: Any, k: int) -> str:
        return renderer.render_frame(rp, min(max(0, len(rp.frames) - 1), frame_index(k, rp)))

    for k in picks:
        print(beside([f"{title}\n{frame(renderer, rp, k)}" for title, renderer, rp in shown]) + "\n")
        if args.delay > 0 and args.frame is None and k < frames - 1:
            time.sleep(args.delay)
    for title, _, rp in shown:
        print(f"{title}: {rp.summary()}")
    return 0
