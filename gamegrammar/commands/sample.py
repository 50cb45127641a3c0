"""gamegrammar sample: write model rollouts, one token sequence per line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamegrammar.commands.progress import progress_bar, stage_log
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import atomic_write_text, check_output_file

if TYPE_CHECKING:  # torch loads only when a command runs, so `gamegrammar --help` stays quick
    from collections.abc import Callable

    from gamegrammar.core.gamespec import RuleDraft
    from gamegrammar.model.precision import Precision
    from gamegrammar.model.sampling import SamplingConfig, SamplingProgress, SamplingStats
    from gamegrammar.training.checkpoint import LoadedModel


def add_decoding_arguments(p: argparse.ArgumentParser) -> None:
    """--temperature and --top-k, as every command that samples from a model offers them."""
    p.add_argument("--temperature", type=float, default=1.0, help="the model's sampling temperature; 0 = argmax (default: %(default)s)")
    p.add_argument("--top-k", type=int, default=None, metavar="K", help="sample from the K most likely tokens only (default: all)")


def add_dtype_argument(p: argparse.ArgumentParser) -> None:
    """--dtype, as every command that generates with a model offers it."""
    p.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "mixed"),  # precision.DTYPE_CHOICES, spelled out: importing it loads torch
        default="auto",
        help="what the model computes in while it writes: mixed is bf16 matmuls beside a float32 KV cache and attention; auto "
        "times a pass of the model in each (at start, a second or two) and takes the fastest where it is clearly faster than "
        "float32, float32 elsewhere and on a GPU; samples depend on it (default: %(default)s)",
    )


def generation_precision(args: argparse.Namespace, model: Any, tokens: int = 1) -> Precision:
    """What `--dtype` means for this model on its device, for a command whose passes feed `tokens` tokens a row (`auto`
    times such a pass), said once on stderr."""
    from gamegrammar.model.precision import choose_precision

    precision = choose_precision(args.dtype, model, tokens)
    stage_log(getattr(args, "command", "sample"))(f"computing in {precision}")
    return precision


def add_sampling_arguments(p: argparse.ArgumentParser, ckpt_required: bool = True) -> None:
    p.add_argument("--ckpt", required=ckpt_required, help="a training checkpoint (.ckpt) or an exported model directory")
    p.add_argument("--num", type=int, default=1000, help="sequences to sample (default: %(default)s)")
    add_decoding_arguments(p)
    p.add_argument(
        "--top-p", type=float, default=None, metavar="P", help="sample from the fewest tokens whose probability reaches P (default: all)"
    )
    p.add_argument("--seed", type=int, default=0, help="the seed of the sampler's random draws (default: %(default)s)")
    p.add_argument(
        "--max-length",
        type=int,
        default=None,
        help="tokens per sequence, prompt included (default: room for the longest training episode, at least 1.5 contexts or 2048)",
    )
    p.add_argument("--batch-size", type=int, default=256, help="sequences sampled at once (default: %(default)s)")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when available)")
    add_dtype_argument(p)
    p.add_argument(
        "--draft",
        choices=("rules", "none"),
        default="rules",
        help="rules: feed the tokens the game's rules fix next (the outcome, its cell, the score, ...) and verify them in the "
        "same forward pass, several tokens a pass (speculative sampling: the same samples up to rounding); none: one token a "
        "pass. Games without a rules draft sample one token a pass either way (default: %(default)s)",
    )
    p.add_argument("--prompt-corpus", default=None, help="start from prefixes of this corpus's held-out episodes instead of BOS")
    p.add_argument("--prompt-ticks", type=int, default=0, help="ticks of each held-out episode to keep as the prompt")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sample",
        help="sample rollouts from a trained model",
        description="Sample rollouts from a trained model. A killed run carries on from OUT.partial when the same command is rerun.",
    )
    add_sampling_arguments(p)
    p.add_argument("--out", required=True, help="text file: one space-separated sequence per line")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    p.set_defaults(run=run)


def default_max_length(context: int, longest_episode: int | None) -> int:
    """Room for whole episodes: 2048 tokens, 1.5 contexts, or 1.25 times the training corpus's longest episode."""
    return max(2048, context + context // 2, (longest_episode or 0) * 5 // 4)


def sampling_config(args: argparse.Namespace, context: int, longest_episode: int | None = None) -> SamplingConfig:
    from gamegrammar.model.sampling import SamplingConfig

    if args.num < 1:
        raise GameGrammarError(f"--num must be at least 1, got {args.num}")
    max_length = default_max_length(context, longest_episode) if args.max_length is None else args.max_length
    return SamplingConfig(args.temperature, args.top_k, args.top_p, max_length, args.batch_size, args.seed)


def build_prompts(args: argparse.Namespace, loaded: LoadedModel) -> list[list[int]]:
    tok = loaded.tokenizer
    if args.prompt_corpus is None:
        return [[tok.bos_id]] * args.num
    from gamegrammar.data.corpus import Corpus

    corpus = Corpus(args.prompt_corpus)
    corpus.check_model(loaded, "the model")
    rows = corpus.split("val")
    if not len(rows):
        raise GameGrammarError(f"{args.prompt_corpus} has no held-out episodes to prompt from")
    game = corpus.game_spec
    return [tok.encode(game.episode_prefix(corpus.episode_tokens(int(rows[i % len(rows)])), args.prompt_ticks)) for i in range(args.num)]


def load_model(args: argparse.Namespace) -> LoadedModel:
    from gamegrammar.training.checkpoint import load_checkpoint

    return load_checkpoint(args.ckpt, map_location=device_of(args.device))


def device_of(name: str | None):
    """The torch device `--device` names (default: cuda when available), refused in one line when there is none such."""
    import torch

    if name is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise GameGrammarError(f"--device {name!r} is not a device torch knows (cpu, cuda, cuda:1, mps, ...)") from None
    available = {"cpu": True, "cuda": torch.cuda.is_available(), "mps": torch.backends.mps.is_available()}
    if not available.get(device.type, False):
        raise GameGrammarError(f"--device {name}: no {device.type} device on this machine")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise GameGrammarError(f"--device {name}: this machine has {torch.cuda.device_count()} CUDA devices")
    return device


def journal_path(out: str | Path) -> Path:
    """Where a run sampling into `out` keeps its finished batches until `out` is written."""
    return Path(f"{out}.partial")


def rules_draft(args: argparse.Namespace, loaded: LoadedModel) -> Callable[[], RuleDraft] | None:
    """What `--draft` means for this model: a maker of its game's rules draft, or None (one token a pass)."""
    if getattr(args, "draft", "none") != "rules":
        return None
    game, config, codec = loaded.game_spec, loaded.game, loaded.codec
    if game.rule_draft(config, codec) is None:
        stage_log(getattr(args, "command", "sample"))(f"one token a pass: {game.name} has no rules draft for this design")
        return None
    return lambda: game.rule_draft(config, codec)


def sample_from_args(
    args: argparse.Namespace, loaded: LoadedModel, stats: SamplingStats, journal: Path
) -> tuple[list[list[str]], Precision, bool]:
    """The samples the arguments ask for, carrying on from `journal` if an identical run was interrupted, the
    precision they were written in (`--dtype`; the loaded model itself is left as it is) and whether the rules
    drafted them (`--draft`).

    The caller removes the journal once the samples are safely written.
    """
    from gamegrammar.model.precision import DRAFTED_TOKENS, for_generation
    from gamegrammar.model.sample_journal import STATS_FIELDS, SampleJournal, run_fingerprint
    from gamegrammar.model.sampling import generate

    config = sampling_config(args, loaded.model.config.block_size, loaded.longest_episode)
    prompts = build_prompts(args, loaded)
    draft = rules_draft(args, loaded)
    precision = generation_precision(args, loaded.model, 1 if draft is None else DRAFTED_TOKENS)
    model = for_generation(loaded.model, precision)
    device = next(model.parameters()).device
    book = SampleJournal(journal, run_fingerprint(model, prompts, config, device, drafted=draft is not None))
    found, log = book.load(), stage_log(getattr(args, "command", "sample"))
    resume = None
    if found is not None:
        resume, earlier = found
        for name in STATS_FIELDS:
            setattr(stats, name, getattr(stats, name) + getattr(earlier, name))
        log(f"resuming from {journal}: {len(resume.sequences)} of {len(prompts)} sequences were sampled before")
    elif book.stale:
        log(f"{journal} is from another run (model, prompts or settings); starting afresh")

    def after_batch(progress: SamplingProgress) -> None:  # the finished batches, on disk before the next begins
        book.record(progress, stats)

    done = len(resume.sequences) if resume is not None else 0
    with progress_bar(len(prompts), "seq", f"sample ({device})", args.quiet, initial=done) as bar:
        ids = generate(
            model,
            prompts,
            loaded.tokenizer.eos_id,
            config,
            stats,
            progress=bar.update,
            resume=resume,
            after_batch=after_batch,
            draft=None if draft is None else (loaded.tokenizer, draft),
        )
    return [loaded.tokenizer.decode(seq) for seq in ids], precision, draft is not None


def run(args: argparse.Namespace) -> int:
    from gamegrammar.model.sampling import SamplingStats

    check_output_file(args.out, what="--out", overwrite=args.overwrite, inputs=(args.ckpt, args.prompt_corpus))
    sampling_config(args, context=0)  # bad settings fail now, not after loading the model
    loaded = load_model(args)
    stats = SamplingStats()
    journal = journal_path(args.out)
    sequences, _, _ = sample_from_args(args, loaded, stats, journal)
    atomic_write_text(args.out, "".join(" ".join(s) + "\n" for s in sequences))
    journal.unlink(missing_ok=True)
    print(f"wrote {len(sequences)} sequences to {args.out} ({stats.generated_tokens} tokens, {stats.tokens_per_second:,.0f} tokens/s)")
    return 0
