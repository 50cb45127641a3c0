"""gamegrammar replay: show a token sequence as an ASCII animation, an animated GIF or an HTML player.

The sequence comes from a token file's line or a corpus episode; the game from the
corpus (or --game and its config flags); the drawing from the game's renderer
(`GameSpec.renderer()`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.errors import GameGrammarError
from gamegrammar.games import game_of
from gamegrammar.io import check_output_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a token sequence (a token-file line or a corpus episode) as ASCII, a GIF or an HTML player",
        description="Replay one token sequence through the game's rules, marking the first rule violation. "
        "Give --tokens FILE [--line N] or --corpus DIR [--episode ROW]; with no --gif/--html the replay is printed as ASCII.",
    )
    src = p.add_argument_group("input")
    src.add_argument("--tokens", default=None, help="text file, one space-separated sequence per line (corpus export, sample)")
    src.add_argument("--line", type=int, default=1, help="with --tokens: the line to replay, 1-based (default: %(default)s)")
    src.add_argument("--corpus", default=None, help="corpus directory: the episode source (without --tokens) and the game config")
    src.add_argument("--episode", type=int, default=None, help="with --corpus: the episode's row, 0-based (default: 0)")
    add_game_arguments(p, what="without --corpus")
    out = p.add_argument_group("output")
    out.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF, one frame per tick")
    out.add_argument("--html", default=None, metavar="OUT.html", help="write a self-contained HTML player")
    out.add_argument("--ascii", action="store_true", help="print the replay in the terminal (the default without --gif/--html)")
    out.add_argument("--delay", type=float, default=0.2, help="ASCII: seconds between frames; 0 prints all frames at once")
    out.add_argument("--frame", type=int, default=None, help="ASCII: print only this tick's frame")
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
    from gamegrammar.corpus import Corpus  # numpy-backed; only needed for this source

    corpus = Corpus(path)
    if not 0 <= row < len(corpus):
        raise GameGrammarError(f"--episode {row} is out of range: {path} has {len(corpus)} episodes (0..{len(corpus) - 1})")
    return corpus.episode_tokens(row), corpus.game


def load_sequence(args: argparse.Namespace) -> tuple[list[str], Any, str]:
    """The tokens to replay, the game config, and a title naming where they came from."""
    if args.tokens is None and args.corpus is None:
        raise GameGrammarError("give --tokens FILE [--line N] or --corpus DIR [--episode ROW]")
    if args.tokens is not None and args.episode is not None:
        raise GameGrammarError("--episode picks a corpus episode; with --tokens use --line")
    if args.tokens is not None:
        corpus_game = None
        if args.corpus is not None:
            from gamegrammar.corpus import Corpus

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
    for flag, path in (("--gif", args.gif), ("--html", args.html)):
        if path:
            check_output_file(path, what=flag, overwrite=args.overwrite, inputs=(args.tokens, args.corpus))
    tokens, config, title = load_sequence(args)
    renderer = game_of(config).renderer()
    rp = renderer.replay(tokens, config)
    last = len(rp.frames) - 1
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
