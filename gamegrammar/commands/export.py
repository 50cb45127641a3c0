"""gamegrammar export CKPT OUT: a training checkpoint as model.safetensors + config.json + tokenizer.json."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a checkpoint as model.safetensors, config.json and tokenizer.json")
    p.add_argument("ckpt", help="a .ckpt written by `gamegrammar train`")
    p.add_argument("out", help="directory to write (created if needed)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gamegrammar.checkpoint import export  # imports Lightning: keep it off the CLI's start-up path

    out = export(args.ckpt, args.out)
    print(f"exported {args.ckpt} to {out}/ (model.safetensors, config.json, tokenizer.json)")
    return 0
