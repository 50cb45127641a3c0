"""gamegrammar export CKPT OUT: a training checkpoint as model.safetensors + config.json + tokenizer.json."""

from __future__ import annotations

import argparse

from gamegrammar.core.io import check_output_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a checkpoint as model.safetensors, config.json and tokenizer.json")
    p.add_argument("ckpt", help="a .ckpt written by `gamegrammar train`")
    p.add_argument("out", help="directory to write (created if needed)")
    p.add_argument("--overwrite", action="store_true", help="replace a model already exported to OUT")
    p.add_argument(
        "--dtype", choices=["float32", "bfloat16", "float16"], default="float32", help="how the weights are stored (read back as float32)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gamegrammar.training.checkpoint import EXPORT_FILES, export  # imports torch: keep it off the CLI's start-up path

    check_output_dir(args.out, what="OUT", keep=EXPORT_FILES, overwrite=args.overwrite)
    out = export(args.ckpt, args.out, args.dtype)
    print(f"exported {args.ckpt} to {out}/ (model.safetensors as {args.dtype}, config.json, tokenizer.json)")
    return 0
