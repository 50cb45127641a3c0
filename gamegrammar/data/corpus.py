"""Corpus generation, storage and memory-mapped reading.

A corpus is a directory:

    manifest.json        game and codec config, agent mix, seed, counts, shard list (written last)
    tokenizer.json       HF `tokenizers` WordLevel, loadable by Tokenizer.from_file
    generate.json        the generation spec, written first, so an interrupted run can resume
    shards/NNNNN.index.npy   one record per episode (offset, length, agent, split, score, ...)
    shards/NNNNN.tokens      flat token ids (uint16 or uint32), read by memory map

Shard s holds episodes [s*E, (s+1)*E). Its content depends only on the spec,
never on the number of workers or the engine ("batch", vectorized, the default;
"scalar", the reference); each shard's index is written before its tokens and
both atomically, so a shard whose tokens file exists is complete.

Scale-out: `generate(..., part=Part(i, n))` writes only the shards s with
s % n == i, under a manifest marked "part"; `merge(out, parts)` checks that the
parts share one spec and cover every shard once, and assembles the corpus a
single run would have written, byte for byte.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing as mp
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gamegrammar import __version__
from gamegrammar.core import rng
from gamegrammar.core.agents import unknown_agent
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, CodecConfig, GameSpec
from gamegrammar.core.io import atomic_write, atomic_write_json, check_output_dir, remove_stale_temporaries
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games import DEFAULT_GAME, game_of, load_game, tokenizer_for

FORMAT_VERSION = 1
INDEX_DTYPE = np.dtype(
    [
        ("episode", "<i8"),
        ("offset", "<i8"),  # within the shard, in tokens
        ("length", "<i4"),
        ("ticks", "<i4"),
        ("score", "<i4"),
        ("agent", "u1"),  # position in the game's agent_names
        ("end", "u1"),  # position in the game's end_events
        ("split", "u1"),  # 0 train, 1 val
    ]
)
SPLITS = {"train": 0, "val": 1}


@dataclass(frozen=True)
class CorpusSpec:
    """Everything that determines a corpus's bytes (the engine and worker count do not).

    game is a game config (its class names the game); None means the default game's default config.
    agents: the agent mix (name -> weight); None means the game's default mix.
    """

    game: Any = None
    codec: CodecConfig = field(default_factory=CodecConfig)
    agents: dict[str, float] | None = None
    episodes: int = 1000
    seed: int = 0
    val_fraction: float = 0.05
    shard_episodes: int = 10_000

    def __post_init__(self) -> None:
        if self.game is None:
            object.__setattr__(self, "game", load_game(DEFAULT_GAME).make_config())
        spec = game_of(self.game)
        if self.agents is None:
            object.__setattr__(self, "agents", dict(spec.default_agents))
        if not isinstance(self.codec, spec.codec_type):  # the game's own grammar options, at their defaults
            object.__setattr__(self, "codec", spec.codec_type(**self.codec.to_dict()))
        for name in self.agents:
            if name not in spec.agent_names:
                raise unknown_agent(name, spec.agent_names)
        if self.episodes < 1:
            raise GameGrammarError(f"--episodes must be at least 1, got {self.episodes}")
        if not 0 <= self.val_fraction < 1:
            raise GameGrammarError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        if self.shard_episodes < 1:
            raise GameGrammarError(f"shard_episodes must be at least 1, got {self.shard_episodes}")
        if not 0 <= self.seed < 1 << 63:
            raise GameGrammarError(f"--seed must be in [0, 2**63), got {self.seed}")

    @property
    def game_name(self) -> str:
        return self.game.game

    @property
    def game_spec(self) -> GameSpec:
        return game_of(self.game)

    @property
    def num_shards(self) -> int:
        return -(-self.episodes // self.shard_episodes)

    def shard_range(self, shard: int) -> range:
        return range(shard * self.shard_episodes, min(self.episodes, (shard + 1) * self.shard_episodes))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["game"], d["codec"] = self.game.to_dict(), self.codec.to_dict()
        d["game_name"] = self.game_name
        # [name, weight] pairs: the mix's order decides which agent a draw picks, and JSON objects are written sorted
        d["agents"] = [[name, weight] for name, weight in self.agents.items()]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], game_name: str | None = None) -> CorpusSpec:
        """The spec of a manifest or checkpoint; those written before games were plug-ins name no game: the default."""
        d = dict(d)
        name = d.pop("game_name", None) or game_name or DEFAULT_GAME
        if game_name is not None and name != game_name:
            raise GameGrammarError(f"the spec is for the game {name!r}, not {game_name!r}")
        game = load_game(name)
        agents = dict(d["agents"]) if isinstance(d.get("agents"), list) else d.get("agents")  # a dict: written before pairs
        return cls(**{**d, "game": game.config_from_dict(d["game"]), "codec": game.codec_type(**d["codec"]), "agents": agents})


def split_of(seed: int, episode: int, val_fraction: float) -> int:
    """1 (val) for a hash-chosen val_fraction of episodes, independent of the corpus size."""
    return int(rng.unit(seed, episode, 0, rng.Purpose.SPLIT) < val_fraction)


# ---------------------------------------------------------------- generation (scalar engine)


def scalar_shard(spec: CorpusSpec, shard: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and index records of one shard, episode by episode."""
    game = spec.game_spec
    tokenizer = tokenizer_for(spec.game, spec.codec)
    episodes = spec.shard_range(shard)
    index = np.zeros(len(episodes), INDEX_DTYPE)
    chunks = []
    offset = 0
    for row, episode in enumerate(episodes):
        agents = game.episode_agents(spec.agents, spec.seed, episode, spec.game)  # one per player; the first is indexed
        record = game.play_episode(spec.game, spec.codec, ",".join(agents), spec.seed, episode)
        ids = tokenizer.encode(record.tokens)
        chunks.append(ids)
        index[row] = (
            episode,
            offset,
            len(ids),
            record.ticks,
            record.score,
            game.agent_names.index(agents[0]),
            game.end_events.index(record.end),
            split_of(spec.seed, episode, spec.val_fraction),
        )
        offset += len(ids)
    flat = np.fromiter((i for ids in chunks for i in ids), dtype=tokenizer.dtype, count=offset)
    return flat, index


# ---------------------------------------------------------------- generation (batch engine)

BATCH_EPISODES = 16_384  # games stepped together: bigger amortises NumPy's per-call cost (see benchmarks), smaller saves memory


def splits(spec: CorpusSpec, episodes: np.ndarray) -> np.ndarray:
    """`split_of` for many episodes."""
    u = (rng.draw_np(spec.seed, episodes, 0, rng.Purpose.SPLIT) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    return (u < spec.val_fraction).astype(np.uint8)


def batch_shard(spec: CorpusSpec, shard: int, batch_episodes: int = BATCH_EPISODES) -> tuple[np.ndarray, np.ndarray]:
    """The same bytes as `scalar_shard`, from the game's vectorized engine, `batch_episodes` games at a time."""
    play_batch = spec.game_spec.play_batch
    if play_batch is None:
        raise GameGrammarError(f"the game {spec.game_name} has no batch engine; use --engine scalar")
    episodes = np.arange(spec.shard_range(shard).start, spec.shard_range(shard).stop, dtype=np.int64)
    index = np.zeros(len(episodes), INDEX_DTYPE)
    chunks = []
    offset = 0
    for lo in range(0, len(episodes), batch_episodes):
        eps = episodes[lo : lo + batch_episodes]
        codes = spec.game_spec.episode_agent_codes(spec.agents, spec.seed, eps, spec.game)  # one per player
        result = play_batch(spec.game, spec.codec, spec.seed, eps, codes)
        rows = index[lo : lo + len(eps)]
        rows["episode"] = eps
        rows["offset"] = offset + np.concatenate([[0], np.cumsum(result.lengths)[:-1]])
        rows["length"] = result.lengths
        rows["ticks"] = result.ticks
        rows["score"] = result.scores
        rows["agent"] = codes if codes.ndim == 1 else codes[:, 0]
        rows["end"] = result.ends
        rows["split"] = splits(spec, eps)
        chunks.append(result.tokens)
        offset += len(result.tokens)
    dtype = tokenizer_for(spec.game, spec.codec).dtype
    return (np.concatenate(chunks) if chunks else np.zeros(0, dtype)), index


ShardEngine = Callable[[CorpusSpec, int], tuple[np.ndarray, np.ndarray]]
DEFAULT_ENGINE = "batch"  # where the game has one; "scalar" otherwise


def engines() -> dict[str, ShardEngine]:
    """Engines by name; every one writes the same bytes (the conformance kit checks batch == scalar for every game)."""
    return {"batch": batch_shard, "scalar": scalar_shard}


def default_engine(spec: CorpusSpec) -> str:
    return DEFAULT_ENGINE if spec.game_spec.play_batch is not None else "scalar"


def _shard_paths(out: Path, shard: int) -> tuple[Path, Path]:
    return out / "shards" / f"{shard:05d}.tokens", out / "shards" / f"{shard:05d}.index.npy"


def _write_shard(job: tuple[str, CorpusSpec, str, int]) -> tuple[int, int, int]:
    out, spec, engine, shard = job
    tokens, index = engines()[engine](spec, shard)
    tokens_path, index_path = _shard_paths(Path(out), shard)
    atomic_write(index_path, lambda f: np.save(f, index, allow_pickle=False))
    atomic_write(tokens_path, lambda f: f.write(tokens.tobytes()))  # last: its presence marks the shard complete
    return shard, len(index), len(tokens)


_OUR_FILES = ("manifest.json", "generate.json", "tokenizer.json")


@dataclass(frozen=True)
class Part:
    """Shards s with s % num_shards == shard_index: one machine's share of a corpus."""

    shard_index: int
    num_shards: int

    def __post_init__(self) -> None:
        if self.num_shards < 1:
            raise GameGrammarError(f"--num-shards must be at least 1, got {self.num_shards}")
        if not 0 <= self.shard_index < self.num_shards:
            raise GameGrammarError(f"--shard-index must be in [0, {self.num_shards}), got {self.shard_index}")

    def holds(self, shard: int) -> bool:
        return shard % self.num_shards == self.shard_index

    def to_dict(self) -> dict[str, int]:
        return {"shard_index": self.shard_index, "num_shards": self.num_shards}


def _plan(spec: CorpusSpec, part: Part | None) -> dict[str, Any]:
    """What generate.json holds: the spec, plus the part for a partial run (so a resume can not mix parts)."""
    return spec.to_dict() if part is None else {**spec.to_dict(), "part": part.to_dict()}


def _prepare_out(out: Path, plan: dict[str, Any], overwrite: bool, resume: bool = True) -> None:
    """Refuse to clobber, resume an interrupted run of the same plan, or start afresh."""
    if out.exists() and not out.is_dir():
        raise GameGrammarError(f"--out {out} exists and is not a directory")
    plan_path = out / "generate.json"
    if overwrite:
        for name in _OUR_FILES:
            (out / name).unlink(missing_ok=True)
        shutil.rmtree(out / "shards", ignore_errors=True)
    elif out.exists() and any(out.iterdir()):
        if (out / "manifest.json").exists():
            raise GameGrammarError(f"{out} already holds a finished corpus; pass --overwrite to replace it")
        if not resume or not plan_path.exists():
            raise GameGrammarError(f"--out {out} is not empty; pass --overwrite to replace its contents")
        try:
            found = json.loads(plan_path.read_text())
        except (ValueError, UnicodeDecodeError):  # damaged since: nothing says which corpus the shards there belong to
            raise GameGrammarError(
                f"{plan_path} is damaged (not valid JSON), so the interrupted run in {out} cannot be resumed; "
                "pass --overwrite to start afresh"
            ) from None
        if found != plan:
            raise GameGrammarError(f"--out {out} is not empty; pass --overwrite to replace its contents")
        for folder in (out, out / "shards"):  # what the killed run was writing when it died
            remove_stale_temporaries(folder)
        return  # same plan, interrupted: resume
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(plan_path, plan)


def read_index(path: Path) -> np.ndarray:
    """A shard's index as `generate` writes it, a 1-d array of INDEX_DTYPE records, or a one-line error: the one
    reader of index files (a corpus opening, a resumed `generate`, `merge`). Never unpickles anything."""
    try:
        index = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise GameGrammarError(f"shard index {path} is unreadable: {err}") from None
    if not isinstance(index, np.ndarray):  # an .npz archive
        index.close()
        raise GameGrammarError(f"shard index {path} is an archive of arrays, not one array of index records")
    if index.dtype != INDEX_DTYPE or index.ndim != 1:
        raise GameGrammarError(f"shard index {path} holds a {index.dtype} array of shape {index.shape}, not index records")
    return index


def _shard_done(out: Path, shard: int, itemsize: int) -> tuple[int, int] | None:
    """(episodes, tokens) of a finished shard; None while it is unfinished (its index is checked by `read_index`)."""
    tokens_path, index_path = _shard_paths(out, shard)
    if not tokens_path.exists() or not index_path.exists():
        return None
    index = read_index(index_path)
    n_tokens = int(index["length"].sum())
    if tokens_path.stat().st_size != n_tokens * itemsize:
        return None
    return len(index), n_tokens


def _manifest(spec: CorpusSpec, tokenizer: GameTokenizer, shards: dict[int, tuple[int, int]], part: Part | None) -> dict[str, Any]:
    manifest = {
        "format_version": FORMAT_VERSION,
        "game": spec.game_name,
        "spec": spec.to_dict(),
        "episodes": spec.episodes if part is None else sum(e for e, _ in shards.values()),
        "tokens": sum(t for _, t in shards.values()),
        "dtype": tokenizer.dtype.name,
        "vocab_size": len(tokenizer),
        "tokenizer_sha256": tokenizer.sha256(),
        "shards": [{"name": f"{s:05d}", "episodes": shards[s][0], "tokens": shards[s][1]} for s in sorted(shards)],
        "created_by": f"gamegrammar {__version__}",
    }
    if part is not None:
        manifest["part"] = part.to_dict()
    return manifest


def generate(
    spec: CorpusSpec,
    out: str | Path,
    *,
    workers: int = 1,
    engine: str | None = None,
    overwrite: bool = False,
    progress: Callable[[int], None] | None = None,
    part: Part | None = None,
) -> dict[str, Any]:
    """Write (or finish writing) the corpus of `spec` to `out`; returns the manifest.

    With `part`, only that part's shards are written, under a manifest marked
    as partial; `merge` assembles the parts into the corpus a single run writes.
    The engine (None: the game's fastest) does not change the bytes.
    """
    engine = engine or default_engine(spec)
    if engine not in engines():
        raise GameGrammarError(f"unknown engine {engine!r}; choose from {', '.join(engines())}")
    if workers < 1:
        raise GameGrammarError(f"--workers must be at least 1, got {workers}")
    if part is not None and part.num_shards == 1:
        part = None  # the one part is the whole corpus
    out = Path(out)
    _prepare_out(out, _plan(spec, part), overwrite)
    tokenizer = tokenizer_for(spec.game, spec.codec)
    tokenizer.save(out / "tokenizer.json")
    shards: dict[int, tuple[int, int]] = {}
    todo = []
    for s in range(spec.num_shards):
        if part is not None and not part.holds(s):
            continue
        try:
            done = _shard_done(out, s, tokenizer.dtype.itemsize)
        except GameGrammarError:  # a finished shard damaged since: written again, to the same bytes (a function of the spec)
            done = None
        if done is None:
            todo.append(s)
        else:
            shards[s] = done
            if progress:
                progress(done[0])
    jobs = [(str(out), spec, engine, s) for s in todo]
    if workers == 1 or len(jobs) <= 1:
        results: Iterator[tuple[int, int, int]] = map(_write_shard, jobs)
        for s, n_ep, n_tok in results:
            shards[s] = (n_ep, n_tok)
            if progress:
                progress(n_ep)
    else:
        with mp.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            for s, n_ep, n_tok in pool.imap_unordered(_write_shard, jobs):
                shards[s] = (n_ep, n_tok)
                if progress:
                    progress(n_ep)
    manifest = _manifest(spec, tokenizer, shards, part)
    atomic_write_json(out / "manifest.json", manifest)
    return manifest


def _read_manifest(path: Path) -> dict[str, Any]:
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        raise GameGrammarError(f"{path} is not a finished corpus or part: no manifest.json")
    try:
        manifest = json.loads(manifest_path.read_text())
    except ValueError as err:
        raise GameGrammarError(f"{manifest_path} is not valid JSON: {err}") from None
    if manifest.get("format_version") != FORMAT_VERSION:
        raise GameGrammarError(f"{path} has corpus format version {manifest.get('format_version')}; expected {FORMAT_VERSION}")
    return manifest


def _place(src: Path, dst: Path, move: bool) -> None:
    """Copy (or move) one file so that it appears at dst atomically."""
    if move:
        try:
            os.replace(src, dst)
            return
        except OSError:  # another file system: copy, then remove
            pass

    def copy(f: Any) -> None:
        with open(src, "rb") as source:
            shutil.copyfileobj(source, f, 1 << 20)

    atomic_write(dst, copy)
    if move:
        src.unlink()


def merge(out: str | Path, parts: list[str | Path], *, overwrite: bool = False, move: bool = False) -> dict[str, Any]:
    """Assemble corpus parts (made by `generate(..., part=...)` from one spec) into the corpus one run writes.

    Everything is checked before anything is written: the parts must share a
    spec and vocabulary and hold every shard exactly once. The manifest comes
    last, so an interrupted merge never looks finished.
    """
    if not parts:
        raise GameGrammarError("merge needs at least one part")
    out = Path(out)
    paths = [Path(p) for p in parts]
    check_output_dir(out, what="OUT", inputs=tuple(paths))  # not a part, nor inside one, nor holding one
    manifests = [_read_manifest(p) for p in paths]
    first = manifests[0]
    owner: dict[str, Path] = {}
    for path, manifest in zip(paths, manifests):
        if manifest["spec"] != first["spec"]:
            raise GameGrammarError(f"parts {paths[0]} and {path} were made with different specs (seed, episodes, game, ...)")
        if manifest["tokenizer_sha256"] != first["tokenizer_sha256"]:
            raise GameGrammarError(f"parts {paths[0]} and {path} have different vocabularies")
        for entry in manifest["shards"]:
            if entry["name"] in owner:
                raise GameGrammarError(f"shard {entry['name']} is in both {owner[entry['name']]} and {path}")
            owner[entry["name"]] = path
    spec = CorpusSpec.from_dict(first["spec"], game_name=first.get("game"))
    tokenizer = tokenizer_for(spec.game, spec.codec)
    expected = [f"{s:05d}" for s in range(spec.num_shards)]
    missing = [name for name in expected if name not in owner]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise GameGrammarError(f"the parts miss shards {', '.join(missing[:5])}{more} of {len(expected)}")
    if len(owner) != len(expected):
        extra = sorted(set(owner) - set(expected))
        raise GameGrammarError(f"shards {', '.join(extra[:5])} do not belong to a corpus of {len(expected)} shards")
    shards: dict[int, tuple[int, int]] = {}
    for s, name in enumerate(expected):
        done = _shard_done(owner[name], s, tokenizer.dtype.itemsize)
        if done is None:
            raise GameGrammarError(f"shard {name} in {owner[name]} is missing or truncated")
        shards[s] = done
    for manifest, path in zip(manifests, paths):
        for entry in manifest["shards"]:
            if shards[int(entry["name"])] != (entry["episodes"], entry["tokens"]):
                raise GameGrammarError(f"shard {entry['name']} in {path} does not match its manifest")
    _prepare_out(out, spec.to_dict(), overwrite, resume=False)
    tokenizer.save(out / "tokenizer.json")
    for s, name in enumerate(expected):
        for src, dst in zip(_shard_paths(owner[name], s)[::-1], _shard_paths(out, s)[::-1]):  # index first, tokens last
            _place(src, dst, move)
    manifest = _manifest(spec, tokenizer, shards, None)
    atomic_write_json(out / "manifest.json", manifest)
    if move:  # the parts no longer hold their shards: they must not look finished
        for path in paths:
            (path / "manifest.json").unlink(missing_ok=True)
    return manifest


# ---------------------------------------------------------------- reading


class SpecView:
    """The game, its spec and the codec, read off a corpus spec: a corpus, a mix of corpora, a loaded model."""

    spec: CorpusSpec

    @property
    def game(self) -> Any:
        """The game config (its `game` class variable names the game)."""
        return self.spec.game

    @property
    def game_spec(self) -> GameSpec:
        return self.spec.game_spec

    @property
    def codec(self) -> CodecConfig:
        return self.spec.codec


class _Episodes(SpecView):
    """What a corpus and a mix of corpora both answer from their spec and index."""

    index: np.ndarray

    def __len__(self) -> int:
        return len(self.index)


def _config_difference(model: SpecView, corpus: SpecView) -> str:
    """What tells a model's game config from a corpus's (game, board, grammar options), for an error message."""
    if model.game.game != corpus.game.game:
        return f": the model plays {model.game.game}, the corpus {corpus.game.game}"
    ours = {**dataclasses.asdict(model.game), **dataclasses.asdict(model.codec)}
    theirs = {**dataclasses.asdict(corpus.game), **dataclasses.asdict(corpus.codec)}
    names = sorted(name for name in ours.keys() | theirs.keys() if ours.get(name) != theirs.get(name))
    return "".join(
        f"{'; ' if i else ': '}{name} is {ours.get(name)} in the model, {theirs.get(name)} in the corpus" for i, name in enumerate(names)
    )


def _grammar_options(codec: CodecConfig) -> str:
    """A codec's game options that are on (`to_dict` names only those), as one readable phrase."""
    base = {f.name for f in dataclasses.fields(CodecConfig)}
    on = sorted(name for name in codec.to_dict() if name not in base)
    return ", ".join(on) if on else "none (the game's base grammar)"


class Corpus(_Episodes):
    """A finished corpus opened read-only; token shards are memory-mapped, never loaded whole.

    A part of a corpus (see `merge`) is refused unless `allow_partial`: training
    on one machine's share by mistake would go unnoticed otherwise.
    """

    def __init__(self, path: str | Path, allow_partial: bool = False) -> None:
        self.path = Path(path)
        manifest_path = self.path / "manifest.json"
        if not self.path.is_dir():
            raise GameGrammarError(f"corpus {self.path} does not exist")
        if not manifest_path.exists():
            hint = " (generation was interrupted: rerun the same command to finish)" if (self.path / "generate.json").exists() else ""
            raise GameGrammarError(f"{self.path} is not a finished corpus: no manifest.json{hint}")
        try:
            self.manifest = json.loads(manifest_path.read_text())
        except ValueError as err:
            raise GameGrammarError(f"{manifest_path} is not valid JSON: {err}") from None
        version = self.manifest.get("format_version") if isinstance(self.manifest, dict) else None
        if version != FORMAT_VERSION:
            raise GameGrammarError(f"{self.path} has corpus format version {version}; this gamegrammar reads version {FORMAT_VERSION}")
        check_manifest(self.manifest, manifest_path)
        if "part" in self.manifest and not allow_partial:
            p = self.manifest["part"]
            where = f"part {p['shard_index']} of {p['num_shards']}"
            raise GameGrammarError(f"{self.path} is {where} of a corpus; assemble the parts with `gamegrammar corpus merge`")
        try:
            self.spec = CorpusSpec.from_dict(self.manifest["spec"], game_name=self.manifest["game"])
        except (KeyError, TypeError, ValueError) as err:
            raise GameGrammarError(f"{manifest_path} has a malformed spec: {err}") from None
        self.tokenizer = GameTokenizer.from_file(self.path / "tokenizer.json")
        if self.tokenizer.sha256() != self.manifest["tokenizer_sha256"]:
            raise GameGrammarError(f"{self.path}/tokenizer.json does not match the manifest's vocabulary")
        if self.tokenizer.tokens != self.game_spec.codec_vocabulary(self.game, self.codec):
            raise GameGrammarError(f"{self.path}: the tokenizer's vocabulary is not the one of the manifest's game config ({self.game})")
        dtype = np.dtype(self.manifest["dtype"])
        if dtype != self.tokenizer.dtype:
            raise GameGrammarError(f"{manifest_path}: dtype {dtype} does not hold this vocabulary's ids ({self.tokenizer.dtype} does)")
        self.shards: list[np.ndarray] = []
        indexes = []
        for number, entry in enumerate(self.manifest["shards"]):
            tokens_path, index_path = self.path / "shards" / f"{entry['name']}.tokens", self.path / "shards" / f"{entry['name']}.index.npy"
            expected = entry["tokens"] * dtype.itemsize
            size = tokens_path.stat().st_size if tokens_path.exists() else None
            if size != expected:
                found = "missing" if size is None else f"{size} of {expected} bytes"
                raise GameGrammarError(f"shard {tokens_path} is truncated or corrupt ({found})")
            index = read_index(index_path)
            if len(index) != entry["episodes"] or int(index["length"].sum()) != entry["tokens"]:
                raise GameGrammarError(f"shard index {index_path} does not match the manifest")
            tokens = np.memmap(tokens_path, dtype=dtype, mode="r") if expected else np.zeros(0, dtype)
            if len(tokens) and int(tokens.max()) >= len(self.tokenizer):  # one pass over the shard, once
                raise GameGrammarError(
                    f"shard {tokens_path} holds token id {int(tokens.max())}, outside the vocabulary of {len(self.tokenizer)}"
                )
            self._check_index(index, entry["tokens"], index_path)
            self.shards.append(tokens)
            index = _with_shard(index, number)
            indexes.append(index)
        self.index = np.concatenate(indexes) if indexes else np.zeros(0, _with_shard(np.zeros(0, INDEX_DTYPE), 0).dtype)

    def __str__(self) -> str:
        return str(self.path)

    def _check_index(self, index: np.ndarray, tokens: int, path: Path) -> None:
        """Refuse index records that point outside their shard or name no agent, end or split of the game."""
        if not len(index):
            return
        if index["offset"].min() < 0 or index["length"].min() < 0 or (index["offset"] + index["length"]).max() > tokens:
            raise GameGrammarError(f"shard index {path} points outside its shard")
        agents = index["agent"][index["agent"] != OUTSIDE_AGENT]
        for name, codes, count in (
            ("agent", agents, len(self.game_spec.agent_names)),
            ("end", index["end"], len(self.game_spec.end_events)),
            ("split", index["split"], len(SPLITS)),
        ):
            if len(codes) and int(codes.max()) >= count:
                raise GameGrammarError(f"shard index {path} holds {name} code {int(codes.max())}; the game has {count}")

    def check_model(self, model: Any, who: str = "the checkpoint") -> None:
        """Refuse a model (a `LoadedModel`: tokenizer and codec) these episodes cannot be read against.

        Another vocabulary means another game config. The same vocabulary may still be another grammar design (a
        game's own grammar option, such as Snake's head_first, reorders tokens and adds none): teacher forcing,
        tier 2 and prompts would then feed the model a grammar it was not trained on, and quietly score it low.
        """
        if self.tokenizer.sha256() != model.tokenizer.sha256():
            differ = _config_difference(model, self)
            raise GameGrammarError(f"{who} was trained for another game config than the corpus {self.path}{differ}")
        ours, theirs = _grammar_options(model.codec), _grammar_options(self.codec)
        if ours != theirs:
            raise GameGrammarError(f"{who} was trained on the grammar options {ours}, the corpus {self.path} is written with {theirs}")

    def split(self, name: str) -> np.ndarray:
        """Row numbers (into `index`) of the episodes in a split."""
        if name not in SPLITS:
            raise GameGrammarError(f"unknown split {name!r}; choose from {', '.join(SPLITS)}")
        return np.flatnonzero(self.index["split"] == SPLITS[name])

    def episode_ids(self, row: int) -> np.ndarray:
        r = self.index[row]
        return self.shards[r["shard"]][r["offset"] : r["offset"] + r["length"]]

    def episode_tokens(self, row: int) -> list[str]:
        return self.tokenizer.decode(self.episode_ids(row))

    def agent(self, row: int) -> str:
        code = int(self.index[row]["agent"])
        if code == OUTSIDE_AGENT:  # a corpus of games played outside `generate` (`write_played`)
            return str(self.manifest.get("origin", {}).get("agent", "outside"))
        return self.game_spec.agent_names[code]


# ---------------------------------------------------------------- several corpora, and games played elsewhere


class CorpusMix(_Episodes):
    """Several corpora of one game config and vocabulary, read as one: rows run through the first corpus's episodes,
    then the next's. Training reads a real corpus and self-play games together this way (`--data.path [a, b]`); each
    corpus keeps its own split. `parts[i]` is corpus i and `part_rows(i)` its rows here."""

    def __init__(self, paths: list[str | Path]) -> None:
        if not paths:
            raise GameGrammarError("no corpus given")
        self.parts = [Corpus(p) for p in paths]
        first = self.parts[0]
        for other in self.parts[1:]:
            if other.tokenizer.sha256() != first.tokenizer.sha256() or other.game.to_dict() != first.game.to_dict():
                raise GameGrammarError(f"corpora {first.path} and {other.path} hold different game configs or vocabularies")
            if other.codec.to_dict() != first.codec.to_dict():
                raise GameGrammarError(f"corpora {first.path} and {other.path} were written with different codecs")
        self.path = first.path
        self.paths = [c.path for c in self.parts]
        self.spec, self.tokenizer, self.manifest = first.spec, first.tokenizer, first.manifest
        sizes = [len(c) for c in self.parts]
        self._part = np.repeat(np.arange(len(sizes)), sizes)
        self._offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.index = np.concatenate([c.index for c in self.parts])

    def __str__(self) -> str:
        return ", ".join(map(str, self.paths))

    def part_rows(self, i: int) -> np.ndarray:
        return self._offset[i] + np.arange(len(self.parts[i]))

    def split(self, name: str) -> np.ndarray:
        return np.concatenate([self._offset[i] + c.split(name) for i, c in enumerate(self.parts)])

    def _locate(self, row: int) -> tuple[Corpus, int]:
        part = int(self._part[row])
        return self.parts[part], int(row - self._offset[part])

    def episode_ids(self, row: int) -> np.ndarray:
        corpus, r = self._locate(row)
        return corpus.episode_ids(r)

    def episode_tokens(self, row: int) -> list[str]:
        return self.tokenizer.decode(self.episode_ids(row))

    def agent(self, row: int) -> str:
        corpus, r = self._locate(row)
        return corpus.agent(r)


def open_corpus(path: str | Path | list[str | Path] | tuple[str | Path, ...]) -> Corpus | CorpusMix:
    """One corpus, or several read as one (`CorpusMix`) when given a list of more than one path."""
    if isinstance(path, (list, tuple)):
        return Corpus(path[0]) if len(path) == 1 else CorpusMix(list(path))
    return Corpus(path)


OUTSIDE_AGENT = 255  # the index's agent code of an episode played outside the game's scripted agents (a model)


def write_played(
    out: str | Path,
    config: Any,
    codec: CodecConfig,
    tokenizer: GameTokenizer,
    seed: int,
    episodes: np.ndarray,
    result: BatchResult,
    origin: dict[str, Any],
    *,
    overwrite: bool = False,
    val_fraction: float = 0.0,
) -> dict[str, Any]:
    """A corpus of episodes played outside `generate` (by a model, or read from game records): the same layout and
    codec, one shard, agent code OUTSIDE_AGENT, every episode in the train split unless `val_fraction` holds some out
    (the hash-chosen split of `generate`). No agent mix made it (the spec's agents are empty), so the manifest's
    `origin` says who played it (origin["agent"] names the player). The manifest comes last."""
    out = Path(out)
    if (out / "manifest.json").exists() and not overwrite:
        raise GameGrammarError(f"{out} already holds a finished corpus; pass overwrite to replace it")
    if out.exists() and not out.is_dir():
        raise GameGrammarError(f"{out} exists and is not a directory")
    for name in _OUR_FILES:
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(out / "shards", ignore_errors=True)
    episodes = np.asarray(episodes, np.int64)
    if len(episodes) != len(result.lengths) or not len(episodes):
        raise GameGrammarError(f"write_played needs one result per episode, got {len(episodes)} episodes and {len(result.lengths)} results")
    spec = CorpusSpec(
        game=config, codec=codec, agents={}, episodes=len(episodes), seed=seed, val_fraction=val_fraction, shard_episodes=len(episodes)
    )
    index = np.zeros(len(episodes), INDEX_DTYPE)
    index["episode"] = episodes
    index["offset"] = np.cumsum(result.lengths) - result.lengths
    index["length"] = result.lengths
    index["ticks"] = result.ticks
    index["score"] = result.scores
    index["agent"] = OUTSIDE_AGENT
    index["end"] = result.ends
    index["split"] = splits(spec, episodes)
    tokens = np.asarray(result.tokens, tokenizer.dtype)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(out / "tokenizer.json")
    tokens_path, index_path = _shard_paths(out, 0)
    atomic_write(index_path, lambda f: np.save(f, index, allow_pickle=False))
    atomic_write(tokens_path, lambda f: f.write(tokens.tobytes()))
    manifest = {**_manifest(spec, tokenizer, {0: (len(episodes), len(tokens))}, None), "origin": origin}
    atomic_write_json(out / "manifest.json", manifest)
    return manifest


# manifest.json's fields and their types; `check_manifest` reads this once when a corpus opens.
_NUMBER = (int, float)
MANIFEST_SCHEMA: dict[str, Any] = {
    "format_version": int,
    "game": str,
    "spec": {
        "game": dict,
        "codec": dict,
        "agents": (dict, list),
        "episodes": int,
        "seed": int,
        "val_fraction": _NUMBER,
        "shard_episodes": int,
    },
    "episodes": int,
    "tokens": int,
    "dtype": str,
    "vocab_size": int,
    "tokenizer_sha256": str,
    "shards": [{"name": str, "episodes": int, "tokens": int}],
}


def _check(value: Any, schema: Any, where: str) -> None:
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise GameGrammarError(f"{where} should be an object")
        for key, sub in schema.items():
            if key not in value:
                raise GameGrammarError(f"{where} lacks the field {key!r}")
            _check(value[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        if not isinstance(value, list):
            raise GameGrammarError(f"{where} should be a list")
        for i, item in enumerate(value):
            _check(item, schema[0], f"{where}[{i}]")
    elif isinstance(value, bool) or not isinstance(value, schema):
        names = " or ".join(t.__name__ for t in (schema if isinstance(schema, tuple) else (schema,)))
        raise GameGrammarError(f"{where} should be {names}, got {type(value).__name__} {value!r:.40}")
    elif isinstance(value, int) and value < 0 and where.rsplit(".", 1)[-1] in ("episodes", "tokens", "vocab_size", "shard_episodes"):
        raise GameGrammarError(f"{where} should be >= 0, got {value}")


def check_manifest(manifest: Any, path: Path) -> None:
    """Refuse a manifest that misses a field or has one of the wrong type, in one line naming the field."""
    _check(manifest, MANIFEST_SCHEMA, str(path))
    if manifest["dtype"] not in ("uint16", "uint32"):
        raise GameGrammarError(f"{path}.dtype should be uint16 or uint32, got {manifest['dtype']!r}")
    names = [entry["name"] for entry in manifest["shards"]]
    if any(not n.isdigit() for n in names) or len(set(names)) != len(names):
        raise GameGrammarError(f"{path}.shards: shard names must be distinct numbers, got {names[:5]}")


def _with_shard(index: np.ndarray, shard: int) -> np.ndarray:
    out = np.zeros(len(index), [*INDEX_DTYPE.descr, ("shard", "<i4")])
    for name in INDEX_DTYPE.names:
        out[name] = index[name]
    out["shard"] = shard
    return out


def write_records(
    out: str | Path,
    config: Any,
    codec: CodecConfig,
    episodes: list[list[str]],
    origin: dict[str, Any],
    *,
    overwrite: bool,
    val_fraction: float,
) -> dict[str, Any]:
    """A corpus of episodes read from game records (`GameSpec.read_records`), each summarised by its game as the index
    needs (ticks, score, end): `write_played` with the records' origin."""
    game = game_of(config)
    tokenizer = tokenizer_for(config, codec)
    ids = [np.asarray(tokenizer.encode(tokens), tokenizer.dtype) for tokens in episodes]
    summaries = [game.summarize_episode(tokens) for tokens in episodes]
    result = BatchResult(
        np.concatenate(ids) if ids else np.zeros(0, tokenizer.dtype),
        np.array([len(i) for i in ids]),
        np.array([s.ticks for s in summaries]),
        np.array([s.score for s in summaries]),
        np.array([game.end_events.index(s.end) for s in summaries]),
    )
    return write_played(
        out, config, codec, tokenizer, 0, np.arange(len(ids)), result, origin, overwrite=overwrite, val_fraction=val_fraction
    )


def corpus_stats(corpus: Corpus) -> dict[str, Any]:
    """What `gamegrammar corpus stats` prints: counts, length quantiles, per-agent score and ends."""
    index = corpus.index
    lengths = index["length"]
    quantiles = (
        dict(zip(("min", "p5", "p25", "p50", "p75", "p95", "max"), np.quantile(lengths, [0, 0.05, 0.25, 0.5, 0.75, 0.95, 1]).tolist()))
        if len(index)
        else {}
    )
    agents = {}
    game = corpus.game_spec
    players = [*enumerate(game.agent_names), (OUTSIDE_AGENT, str(corpus.manifest.get("origin", {}).get("agent", "outside")))]
    for code, name in players:
        rows = index[index["agent"] == code]
        if not len(rows):
            continue
        agents[name] = {
            "episodes": len(rows),
            "mean_score": float(rows["score"].mean()),
            "max_score": int(rows["score"].max()),
            "mean_ticks": float(rows["ticks"].mean()),
            "ends": {end: int((rows["end"] == i).sum()) for i, end in enumerate(game.end_events)},
        }
    return {
        "path": str(corpus.path),
        "game": corpus.spec.game_name,
        "config": game.describe_config(corpus.game),
        "episodes": len(index),
        "train_episodes": int((index["split"] == 0).sum()),
        "val_episodes": int((index["split"] == 1).sum()),
        "tokens": int(lengths.sum()),
        "vocab_size": len(corpus.tokenizer),
        "length_quantiles": quantiles,
        "agents": agents,
    }
