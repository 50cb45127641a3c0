"""gamegrammar corpus stats|export|import|convert|merge: inspect a corpus, read and write game records, assemble parts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from gamegrammar.commands.game_args import add_game_arguments, game_config
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import atomic_write, check_output_file
from gamegrammar.data.corpus import Corpus, corpus_stats, merge, write_records
from gamegrammar.games import game_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="inspect a corpus, or merge corpus parts")
    csub = p.add_subparsers(dest="corpus_command", required=True, metavar="ACTION")
    stats = csub.add_parser("stats", help="episodes, tokens, length quantiles, per-agent score and end reasons, distinct states")
    stats.add_argument("path", help="corpus directory")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.add_argument(
        "--no-states", action="store_true", help="skip counting distinct states (Zobrist keys; cached in the corpus after the first count)"
    )
    stats.set_defaults(run=run_stats)
    export = csub.add_parser("export", help="one episode per line as space-separated tokens")
    export.add_argument("path", help="corpus directory")
    export.add_argument("--split", choices=["train", "val"], default=None, help="only this split's episodes (default: both)")
    export.add_argument("--limit", type=int, default=None, help="at most N episodes, in corpus order (default: all)")
    export.add_argument("--out", default="-", help="file to write (default: standard output)")
    export.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    export.add_argument(
        "--format", choices=["tokens", "records"], default="tokens", help="tokens (one episode a line) or the game's records (Go: SGF)"
    )
    export.set_defaults(run=run_export)
    imported = csub.add_parser("import", help="game records (Go: SGF files, one game or a collection each) into a corpus")
    imported.add_argument("out", help="directory of the new corpus")
    imported.add_argument("files", nargs="+", help="record files (a game each, or a collection)")
    imported.add_argument("--keyframe-interval", type=int, default=0, help="keyframe after every K-th tick; 0 = only at tick 0")
    imported.add_argument("--val-fraction", type=float, default=0.05, help="share of games held out for validation (default: %(default)s)")
    imported.add_argument("--overwrite", action="store_true", help="replace an existing corpus in OUT")
    add_game_arguments(imported, what="the records' board and komi")
    imported.set_defaults(run=run_import)
    convert = csub.add_parser("convert", help="episodes written one a line (samples, an export) as the game's records (Go: SGF)")
    convert.add_argument("tokens", help="a file of episodes, one a line as space-separated tokens")
    convert.add_argument("--out", default="-", help="file to write (default: standard output)")
    convert.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    add_game_arguments(convert, what="the episodes' board")
    convert.set_defaults(run=run_convert)
    join = csub.add_parser("merge", help="assemble the parts written with --shard-index/--num-shards into one corpus")
    join.add_argument("out", help="directory of the merged corpus")
    join.add_argument("parts", nargs="+", help="part directories (one spec)")
    join.add_argument("--move", action="store_true", help="move shard files instead of copying them (the parts are used up)")
    join.add_argument("--overwrite", action="store_true", help="replace an existing corpus in OUT")
    join.set_defaults(run=run_merge)


def state_stats(corpus: Corpus) -> dict:
    """States of the corpus's episodes (every tick's, repeats counted) and distinct ones, by split; how many of val's
    distinct states train never reaches."""
    from gamegrammar.core.zobrist import member
    from gamegrammar.data.novelty import corpus_states

    train, val = corpus_states(corpus, "train"), corpus_states(corpus, "val")
    unseen = int((~member(val.keys, train.keys)).sum())
    return {
        "total": train.states + val.states,
        "distinct": len(train.keys) + unseen,
        "train": {"states": train.states, "distinct": len(train.keys)},
        "val": {"states": val.states, "distinct": len(val.keys), "distinct_not_in_train": unseen},
    }


def run_stats(args: argparse.Namespace) -> int:
    corpus = Corpus(args.path)
    stats = corpus_stats(corpus)
    if not args.no_states:
        stats["states"] = state_stats(corpus)
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    facts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in stats["config"].items())
    print(f"corpus      {stats['path']}  ({stats['game']}: {facts}, vocab {stats['vocab_size']})")
    print(f"episodes    {stats['episodes']}  (train {stats['train_episodes']}, val {stats['val_episodes']})")
    print(f"tokens      {stats['tokens']}")
    states = stats.get("states")
    if states:
        train, val = states["train"], states["val"]
        unseen = f", {val['distinct_not_in_train'] / val['distinct']:.1%} of them not in train" if val["distinct"] else ""
        print(f"states      {states['total']}  (train {train['states']}, val {val['states']})")
        print(f"distinct    {states['distinct']}  (train {train['distinct']}, val {val['distinct']}{unseen})")
    q = stats["length_quantiles"]
    print("length      " + "  ".join(f"{k} {v:g}" for k, v in q.items()))
    print(f"{'agent':<14}{'episodes':>9}{'score':>8}{'max':>5}{'ticks':>8}  ends")
    for name, a in stats["agents"].items():
        ends = ", ".join(f"{k} {v / a['episodes']:.0%}" for k, v in a["ends"].items() if v)
        print(f"{name:<14}{a['episodes']:>9}{a['mean_score']:>8.2f}{a['max_score']:>5}{a['mean_ticks']:>8.1f}  {ends}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 0:
        raise GameGrammarError(f"--limit must be >= 0, got {args.limit}")
    if args.out != "-":
        check_output_file(args.out, what="--out", overwrite=args.overwrite, inputs=(args.path,))
    corpus = Corpus(args.path)
    rows = corpus.split(args.split) if args.split else range(len(corpus))
    rows = rows[: args.limit] if args.limit is not None else rows
    game = corpus.game_spec
    if args.format == "records":
        game.write_record(corpus.episode_tokens(rows[0]) if len(rows) else ["BOS"], corpus.game)  # refused in one line first

    def write(out) -> None:
        for row in rows:
            tokens = corpus.episode_tokens(row)
            out.write((game.write_record(tokens, corpus.game) if args.format == "records" else " ".join(tokens) + "\n").encode())

    if args.out == "-":
        write(sys.stdout.buffer)
        sys.stdout.flush()
    else:
        atomic_write(args.out, write)  # a killed export leaves no half file under the name
    return 0


def _write_out(path: str, overwrite: bool, inputs: tuple[str, ...], text_of: Callable[[], Iterator[str]]) -> None:
    """Write the pieces of text to `path` atomically (or to standard output for "-")."""
    if path == "-":
        for piece in text_of():
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    check_output_file(path, what="--out", overwrite=overwrite, inputs=inputs)
    atomic_write(path, lambda f: [f.write(piece.encode()) for piece in text_of()])


def run_import(args: argparse.Namespace) -> int:
    config = game_config(args)
    game = game_of(config)
    if not game.record_format:
        raise GameGrammarError(f"{game.name} has no game-record format to import (Go's is SGF: --game go)")
    codec = game.codec_type(args.keyframe_interval)
    episodes, refused = [], []
    for path in args.files:
        try:
            text = Path(path).read_bytes()
        except OSError as err:
            raise GameGrammarError(f"{path}: {err.strerror or err}") from None
        for item in game.read_records(text, config, codec):
            if isinstance(item, GameGrammarError):
                refused.append(f"{path}: {item}")
            else:
                episodes.append(item)
    for line in refused:
        print(f"skipped {line}", file=sys.stderr)
    if not episodes:
        raise GameGrammarError(f"no game of {len(args.files)} file(s) is a {game.name} game of this config ({len(refused)} refused)")
    origin = {"agent": game.record_format, "files": [str(p) for p in args.files], "refused": len(refused)}
    manifest = write_records(args.out, config, codec, episodes, origin, overwrite=args.overwrite, val_fraction=args.val_fraction)
    print(f"imported {manifest['episodes']} {game.record_format} games ({manifest['tokens']} tokens) to {args.out}; skipped {len(refused)}")
    return 0


def run_convert(args: argparse.Namespace) -> int:
    config = game_config(args)
    game = game_of(config)
    try:
        lines = [line.split() for line in Path(args.tokens).read_text().splitlines() if line.strip()]
    except OSError as err:
        raise GameGrammarError(f"{args.tokens}: {err.strerror or err}") from None
    if lines:
        game.write_record(lines[0], config)  # a game without records is refused in one line, before anything is written
    _write_out(args.out, args.overwrite, (args.tokens,), lambda: (game.write_record(tokens, config) for tokens in lines))
    return 0


def run_merge(args: argparse.Namespace) -> int:
    manifest = merge(args.out, args.parts, overwrite=args.overwrite, move=args.move)
    counts = f"{manifest['episodes']} episodes, {manifest['tokens']} tokens in {len(manifest['shards'])} shards"
    print(f"merged {len(args.parts)} parts: {counts} to {args.out}")
    return 0
