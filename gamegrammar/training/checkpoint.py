"""Loading trained models for sampling and evaluation, and exporting them without Lightning.

A training checkpoint (.ckpt) carries, besides the weights, the GPT config, the
tokenizer JSON and the corpus spec (game and codec config) as plain python
values, so it loads with `torch.load(weights_only=True)` and is enough on its
own to sample and evaluate. `export` writes the same as three plain files:
model.safetensors, config.json and tokenizer.json.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import atomic_write, atomic_write_json, atomic_write_text
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.data.corpus import CorpusSpec, SpecView
from gamegrammar.model.gpt import GameGPT, GPTConfig

CHECKPOINT_KEY = "gamegrammar"  # our plain-python section of a Lightning checkpoint
CHECKPOINT_FORMAT = 1
EXPORT_FORMAT = 1
EXPORT_FILES = ("model.safetensors", "config.json", "tokenizer.json")
MODEL_PREFIX = "model."  # GameGPTModule keeps GameGPT as `self.model`
T = TypeVar("T")


@dataclass
class LoadedModel(SpecView):
    """Everything needed to sample from a trained model and evaluate what it writes (`game`: the config it was trained on)."""

    model: GameGPT  # in eval mode
    tokenizer: GameTokenizer
    spec: CorpusSpec  # the training corpus's spec
    gpt_config: GPTConfig
    longest_episode: int | None = None  # tokens in the training corpus's longest episode (None: not recorded)


def _part(source: Path, part: str, read: Callable[[Any], T], stored: Any) -> T:
    """One part of a stored model, or a one-line error that names the part that is malformed."""
    try:
        return read(stored)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        detail = f"missing {err}" if isinstance(err, KeyError) else str(err)
        raise GameGrammarError(f"{source} has a malformed {part}: {detail}") from None


def _build(
    gpt: dict[str, Any],
    state: dict[str, torch.Tensor],
    tokenizer_json: str,
    spec: dict[str, Any],
    source: Path,
    longest: int | None,
    device: str | torch.device,
) -> LoadedModel:
    """The model on `device`: `load_state_dict` copies into the parameters where they are, so they are made there."""
    config = _part(source, "model config", GPTConfig.from_dict, gpt)
    tokenizer = _part(source, "tokenizer", GameTokenizer.from_json, tokenizer_json)
    corpus_spec = _part(source, "corpus spec", CorpusSpec.from_dict, spec)
    if len(tokenizer) != config.vocab_size:
        raise GameGrammarError(f"{source}: the tokenizer has {len(tokenizer)} tokens but the model's vocab_size is {config.vocab_size}")
    with torch.device(device):
        model = GameGPT(config)
    state = dict(state)
    state.setdefault("head.weight", state.get("wte.weight"))  # tied: stored once
    try:
        model.load_state_dict(state)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[-1].strip()
        raise GameGrammarError(f"{source}: the weights do not fit the model config ({first})") from None
    return LoadedModel(model.eval(), tokenizer, corpus_spec, config, longest)


def read_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """A gamegrammar training checkpoint's contents, read with weights_only=True (no pickled code runs).

    The one reader: sampling, export and a training resume (`train --ckpt_path`) all refuse a missing, truncated,
    foreign or code-carrying file here, in one line.
    """
    path = Path(path)
    if not path.exists():
        raise GameGrammarError(f"checkpoint {path} does not exist")
    if path.is_dir():
        raise GameGrammarError(f"checkpoint {path} is a directory; give a .ckpt file")
    if not zipfile.is_zipfile(path):
        raise GameGrammarError(f"{path} is not a checkpoint (not a PyTorch zip archive; truncated or another kind of file)")
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError:
        raise GameGrammarError(f"{path} holds python objects beyond tensors and plain values; it was not written by gamegrammar") from None
    except (RuntimeError, OSError, EOFError, ValueError, zipfile.BadZipFile) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise GameGrammarError(f"cannot read checkpoint {path}: {first}") from None
    if not isinstance(ckpt, dict) or CHECKPOINT_KEY not in ckpt or "state_dict" not in ckpt:
        raise GameGrammarError(f"{path} is not a gamegrammar checkpoint (no model config or tokenizer in it)")
    return ckpt


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> LoadedModel:
    """A Lightning checkpoint written by `gamegrammar train`, read with weights_only=True (no pickled code runs)."""
    path = Path(path)
    if path.is_dir():
        if (path / "config.json").exists():
            return load_exported(path, map_location)
        raise GameGrammarError(f"{path} is a directory without config.json; pass a .ckpt file or an exported model directory")
    ckpt = read_checkpoint(path, map_location)
    info = ckpt[CHECKPOINT_KEY]
    state = {k[len(MODEL_PREFIX) :]: v for k, v in ckpt["state_dict"].items() if k.startswith(MODEL_PREFIX)}
    try:
        return _build(
            info["gpt_config"], state, info["tokenizer_json"], info["corpus_spec"], path, info.get("longest_episode"), map_location
        )
    except KeyError as err:
        raise GameGrammarError(f"{path} lacks {err.args[0]!r} in its gamegrammar section") from None


EXPORT_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def export(ckpt: str | Path, out_dir: str | Path, dtype: str = "float32") -> Path:
    """Write model.safetensors, config.json and tokenizer.json for the checkpoint to out_dir.

    dtype: how the parameters are stored; bfloat16 halves the file (a large model in a repository). Buffers
    stay as they are, and a reader computes in float32 whatever the file holds, so the rounding of the
    weights is the only difference: evaluate the export itself before quoting its figures.
    """
    if dtype not in EXPORT_DTYPES:
        raise GameGrammarError(f"--dtype must be one of {', '.join(EXPORT_DTYPES)}, got {dtype!r}")
    return write_export(load_checkpoint(ckpt), out_dir, dtype)


def write_export(loaded: LoadedModel, out_dir: str | Path, dtype: str = "float32") -> Path:
    """`export`'s three files for a model in memory (one a test built, say); config.json last, naming the others."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise GameGrammarError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    params = {name for name, _ in loaded.model.named_parameters()}
    state = {
        k: (v.detach().to(EXPORT_DTYPES[dtype]) if k in params else v.detach()).contiguous()
        for k, v in loaded.model.state_dict().items()
        if k != "head.weight"
    }
    metadata = {"format": "pt", "gamegrammar_export": str(EXPORT_FORMAT)}
    weights = save(state, metadata=metadata)
    atomic_write(out / "model.safetensors", lambda f: f.write(weights))
    atomic_write_text(out / "tokenizer.json", loaded.tokenizer.to_json())
    config = {
        "format_version": EXPORT_FORMAT,
        "model": "GameGPT",
        "gpt_config": loaded.gpt_config.to_dict(),
        "longest_episode": loaded.longest_episode,
        "corpus_spec": loaded.spec.to_dict(),
        "tokenizer_sha256": loaded.tokenizer.sha256(),
        "weights_dtype": dtype,
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
    }
    atomic_write_json(out / "config.json", config)  # last: it vouches for the two files written before it
    return out


def _check_export_file(d: Path, name: str, config: dict[str, Any], field: str, found: Callable[[], str]) -> None:
    """Refuse an export whose weights or tokenizer are not the ones its config.json was written with: an export
    killed half-way over an older one, or a file replaced by hand, would otherwise load as a model it is not. The
    hashes are required: a config.json without them vouches for nothing."""
    said = config.get(field)
    if not isinstance(said, str):
        raise GameGrammarError(f"{d}/config.json lacks {field!r}, the hash of its {name}: export the model again")
    if said != found():
        raise GameGrammarError(f"{d}/{name} is not the one its config.json names: export the model again")


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_exported(directory: str | Path, map_location: str | torch.device = "cpu") -> LoadedModel:
    """Read back what `export` wrote."""
    d = Path(directory)
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (d / name).exists():
            raise GameGrammarError(f"{d} is not an exported model: {name} is missing")
    name = "config.json"
    try:
        config = json.loads((d / name).read_text())
        name = "model.safetensors"
        state = load_file(d / name, device=str(map_location))
        name = "tokenizer.json"
        tokenizer_json = (d / name).read_text()
    except (OSError, ValueError, SafetensorError) as err:
        raise GameGrammarError(f"cannot read {d / name} (truncated or not written by `gamegrammar export`?): {err}") from None
    if not isinstance(config, dict) or config.get("format_version") != EXPORT_FORMAT:
        raise GameGrammarError(f"{d}/config.json is not a gamegrammar export of format {EXPORT_FORMAT}")
    _check_export_file(d, "model.safetensors", config, "weights_sha256", lambda: _file_sha256(d / "model.safetensors"))
    try:
        loaded = _build(config["gpt_config"], state, tokenizer_json, config["corpus_spec"], d, config.get("longest_episode"), map_location)
    except KeyError as err:
        raise GameGrammarError(f"{d}/config.json lacks {err.args[0]!r}") from None
    _check_export_file(d, "tokenizer.json", config, "tokenizer_sha256", loaded.tokenizer.sha256)
    return loaded
