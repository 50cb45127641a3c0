"""Lightning pieces for training GameGPT on a corpus: the LightningModule and the LightningDataModule.

Windows. A training example is one episode read from its BOS (`windows: episode`),
cut to block_size+1 tokens, so the model always knows the full state from the
opening keyframe; short episodes are padded (PAD inputs, IGNORE_INDEX targets),
and a batch is padded only to its longest episode, not to block_size. For
short-context presets (gg31k, 64 tokens) `windows: keyframe` also starts windows
at a mid-episode keyframe (the game's keyframe token; needs a corpus with keyframe_interval > 0) and
`windows: random` at any token, which shows the model the later parts of
episodes at the cost of windows that begin without a state description.
`windows: packed` starts at an episode's BOS like `episode` but runs on into the
next episodes instead of padding: the same tokens per step for half the compute
when episodes are shorter than the context.

The train loader's order is the run's own (`WindowOrder`: each epoch a permutation of the seed, dealt to the
ranks under DDP as Lightning's DistributedSampler deals), so that a checkpoint can keep its place
(`ResumableLoader`) and a resumed run goes on with the very windows the uninterrupted one would have.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, Literal, get_args

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from lightning.pytorch.callbacks import Callback, ModelCheckpoint
from lightning.pytorch.utilities import rank_zero_info, rank_zero_warn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus, CorpusMix, open_corpus
from gamegrammar.model.gpt import IGNORE_INDEX, GameGPT, GPTConfig
from gamegrammar.model.gpt import preset as preset_config
from gamegrammar.training.checkpoint import CHECKPOINT_FORMAT, CHECKPOINT_KEY, load_checkpoint
from gamegrammar.training.optim import OptimizerName, build_optimizer

Windows = Literal["episode", "packed", "keyframe", "random"]
ChanceTargets = Literal["drawn", "exact"]
# The exact chance targets of a batch: (row, target index, candidate token ids [N, K], their probabilities [N, K]).
SoftTargets = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


# ---------------------------------------------------------------- data


class EpisodeWindows(Dataset):
    """Window i: up to block_size+1 token ids of episode rows[i], starting where `windows` says.

    `packed` windows start at episode rows[i]'s BOS and run on into the following episodes of
    the same split, so no window is padded. `augment` maps each window through one of the game's
    symmetries that keep the rules' start (`GameSpec.symmetries(...).names`: for Snake on an even board the identity
    and the transpose, on an odd one all 8), drawn at random: no image is a game the rules cannot write.
    `chance_targets="exact"` also gives, for each token of the window that the game's chance wrote, the distribution
    it was drawn from (`GameSpec.chance_targets`, read off each episode of the window that starts at its BOS, after
    the symmetry): an item is then (ids, (positions, candidate ids, probabilities)).

    An index past the rows, `epoch * len(self) + i` (what `WindowOrder` yields), is window i: its random draws (the
    symmetry, a `random` or `keyframe` window's start) are keyed by (`seed`, index), so each epoch draws anew and a
    resumed run draws what the uninterrupted one would have, in any data-loading process.
    """

    def __init__(
        self,
        corpus: Corpus | CorpusMix,
        rows: np.ndarray,
        block_size: int,
        windows: Windows = "episode",
        augment: bool = False,
        chance_targets: ChanceTargets = "drawn",
        seed: int = 0,
    ) -> None:
        self.corpus, self.rows, self.block_size, self.windows, self.seed = corpus, rows, block_size, windows, seed
        self.keyframe_id = keyframe_id(corpus) if windows == "keyframe" else None
        self.symmetry = corpus.game_spec.symmetries(corpus.tokenizer, corpus.game) if augment else None
        self.exact = chance_targets == "exact"

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> np.ndarray | tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        rng = np.random.default_rng((self.seed, index))
        window = self._window(index % len(self.rows), rng)
        if self.symmetry is not None:
            names = self.symmetry.names
            window = self.symmetry.apply(window, names[int(rng.integers(len(names)))])
        return (window, self._chance_targets(window)) if self.exact else window

    def _chance_targets(self, window: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions [N], candidate ids [N, K], probabilities [N, K], zero-padded) of the window's chance tokens."""
        tokenizer, game = self.corpus.tokenizer, self.corpus.game_spec
        starts = np.flatnonzero(window == tokenizer.bos_id)
        found: list[tuple[int, dict[str, float]]] = []
        for start, stop in zip(starts, [*starts[1:], len(window)]):
            tokens = tokenizer.decode(window[start:stop].tolist())
            found += [(int(start) + at, dist) for at, dist in game.chance_targets(tokens, self.corpus.game)]
        k = max((len(dist) for _, dist in found), default=1)
        positions = np.array([at for at, _ in found], dtype=np.int64)
        ids, probs = np.zeros((len(found), k), dtype=np.int64), np.zeros((len(found), k), dtype=np.float32)
        for row, (_, dist) in enumerate(found):
            ids[row, : len(dist)] = tokenizer.encode(dist)
            probs[row, : len(dist)] = list(dist.values())
        return positions, ids, probs

    def _window(self, i: int, rng: np.random.Generator) -> np.ndarray:
        n = self.block_size + 1
        if self.windows == "packed":
            parts, have, row = [], 0, i
            while have < n and row < len(self.rows):
                parts.append(self.corpus.episode_ids(int(self.rows[row]))[: n - have])
                have += len(parts[-1])
                row += 1
            return np.concatenate(parts).astype(np.int64)
        ids = self.corpus.episode_ids(int(self.rows[i]))
        start = 0
        if len(ids) > n and self.windows != "episode":
            if self.windows == "random":
                start = int(rng.integers(len(ids) - n + 1))
            else:  # BOS or any keyframe after the first (the first keyframe follows BOS)
                starts = np.concatenate([[0], np.flatnonzero(ids[2:] == self.keyframe_id) + 2])
                starts = starts[starts <= len(ids) - 2]  # at least one target
                start = int(starts[int(rng.integers(len(starts)))])
        return np.asarray(ids[start : start + n], dtype=np.int64)


def keyframe_id(corpus: Corpus | CorpusMix) -> int:
    """The id of the token `windows: keyframe` starts windows at, refused for a corpus with no mid-episode keyframes
    (its keyframe windows would be episode windows under another name)."""
    game = corpus.game_spec
    if game.keyframe_token is None:
        raise GameGrammarError(f"--data.windows keyframe: the game {game.name} has no keyframe token")
    if corpus.codec.keyframe_interval <= 0:
        raise GameGrammarError(
            f"--data.windows keyframe: corpus {corpus} has no keyframe after the first (keyframe_interval 0); "
            "generate it with --keyframe-interval K, or choose another --data.windows"
        )
    return corpus.tokenizer.ids[game.keyframe_token]


def collate_windows(batch: list[Any], pad_id: int) -> tuple[torch.Tensor, ...]:
    """(inputs, targets) padded to the batch's longest window; targets are IGNORE_INDEX at padding. Items with exact
    chance targets add a third element, `SoftTargets` (the token at window position i is the target at i - 1)."""
    windows = [item[0] for item in batch] if isinstance(batch[0], tuple) else batch
    width = max(len(w) for w in windows) - 1
    x = torch.full((len(batch), width), pad_id, dtype=torch.long)
    y = torch.full((len(batch), width), IGNORE_INDEX, dtype=torch.long)
    for row, w in enumerate(windows):
        t = torch.from_numpy(w)
        x[row, : len(w) - 1] = t[:-1]
        y[row, : len(w) - 1] = t[1:]
    if windows is batch:
        return x, y
    k = max(item[1][1].shape[1] for item in batch)
    rows, cols, ids, probs = [], [], [], []
    for row, (_, (positions, cand, p)) in enumerate(batch):
        keep = positions >= 1  # a window's first token is no target
        rows.append(np.full(int(keep.sum()), row, dtype=np.int64))
        cols.append(positions[keep] - 1)
        ids.append(np.pad(cand[keep], ((0, 0), (0, k - cand.shape[1]))))
        probs.append(np.pad(p[keep], ((0, 0), (0, k - p.shape[1]))))
    soft = tuple(torch.from_numpy(np.concatenate(part)) for part in (rows, cols, ids, probs))
    return x, y, soft


def targets_after(x: torch.Tensor, words: torch.Tensor, offsets: tuple[int, ...]) -> torch.Tensor:
    """Which targets of the windows `x` are the tokens `offsets` places after one of `words` (the target at t is the
    token at t + 1, so the token k after a word at t is the target at t + k - 1)."""
    at = torch.isin(x, words)
    mask = torch.zeros_like(at)
    for k in offsets:
        if k - 1 < x.size(1):
            mask[:, k - 1 :] |= at[:, : x.size(1) - k + 1]
    return mask


class WindowOrder(DistributedSampler):
    """The training windows' order: epoch e's is a permutation drawn from (seed, e), dealt to the processes as
    DistributedSampler deals it, each window yielded as e * n + i (so that EpisodeWindows keys its draws by the epoch too).

    Why not a shuffled DataLoader: Lightning's checkpoint keeps how far an epoch got, not a plain loader's place in it,
    so a run resumed mid-epoch (`--ckpt_path last` after a crash or max_time) would start the epoch's windows over and
    train on them twice. This order starts `skip` windows into `epoch` instead: where the checkpoint was written. It is
    a DistributedSampler so that Lightning keeps it under DDP rather than wrapping it.
    """

    def __init__(self, n: int, seed: int, num_replicas: int = 1, rank: int = 0, epoch: int = 0, skip: int = 0) -> None:
        super().__init__(range(n), num_replicas=num_replicas, rank=rank, shuffle=True, seed=seed)
        self.epoch, self.skip = epoch, skip
        self.offset = 0  # the data's epoch less Lightning's
        self.resumed: int | None = None  # the data's epoch a checkpoint left, until Lightning next names its own

    def set_epoch(self, epoch: int) -> None:
        """Lightning's epoch count: a run stopped mid-epoch (max_time, SIGTERM) counts that epoch as done, and resumed
        it starts the next, while the data goes on with the rest of the stopped one and keeps that lag."""
        if self.resumed is not None:
            self.offset, self.resumed = self.resumed - epoch, None
        self.epoch = epoch + self.offset

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)  # type: ignore[arg-type]
        order = np.resize(np.random.default_rng((self.seed, self.epoch)).permutation(n), self.total_size)
        mine = order[self.rank :: self.num_replicas]
        skip, self.skip = self.skip, 0  # only the resumed epoch starts late
        return iter((self.epoch * n + mine[skip:]).tolist())


class ResumableLoader(DataLoader):
    """A DataLoader in a WindowOrder that a checkpoint keeps the place of (Lightning's stateful-loader hooks): the order's
    seed, its epoch, and the windows of it trained on so far, counted by `progress` (the batches whose step is taken,
    which the loader cannot count itself: Lightning fetches a batch ahead)."""

    progress: Callable[[], int] | None = None

    def state_dict(self) -> dict[str, int]:
        order = self.sampler
        assert isinstance(order, WindowOrder)
        done = self.progress() if self.progress is not None else 0
        return {"seed": order.seed, "epoch": order.epoch, "windows": done * int(self.batch_size or 1)}

    def load_state_dict(self, state_dict: dict[str, int]) -> None:
        order = self.sampler
        assert isinstance(order, WindowOrder)
        order.seed, order.epoch, order.skip = state_dict["seed"], state_dict["epoch"], state_dict["windows"]
        if order.skip >= order.num_samples:  # written at the epoch's last step: the next epoch starts from its beginning
            order.epoch, order.skip = order.epoch + 1, 0
        order.resumed = order.epoch


def window_loader(
    corpus: Corpus | CorpusMix,
    rows: np.ndarray,
    block_size: int,
    windows: Windows,
    batch_size: int,
    augment: bool = False,
    shuffle: bool = True,
    num_workers: int = 0,
    chance_targets: ChanceTargets = "drawn",
    order: WindowOrder | None = None,
    seed: int = 0,
) -> DataLoader:
    """(inputs, targets) batches of these corpus rows' windows, as training and the benchmarks read them (with
    `chance_targets="exact"`: (inputs, targets, SoftTargets)); in `order` if given (training's), else shuffled or not.
    `seed` keys the windows' random draws (EpisodeWindows)."""
    return (DataLoader if order is None else ResumableLoader)(
        EpisodeWindows(corpus, rows, block_size, windows, augment, chance_targets, seed),
        batch_size=batch_size,
        shuffle=shuffle if order is None else None,
        sampler=order,
        drop_last=False,
        num_workers=num_workers,
        persistent_workers=num_workers > 0,
        collate_fn=partial(collate_windows, pad_id=corpus.tokenizer.pad_id),
    )


class CorpusDataModule(L.LightningDataModule):
    """Episodes of a corpus directory, or of several read as one; train/val split by episode as each corpus records it.

    The `Args` below are `gamegrammar train fit`'s `--data.*` options (their help).

    Args:
        path: a corpus directory, or a list of corpora of one game config and vocabulary (a real corpus and self-play
            games: `--data.path '[data/corpus, runs/selfplay]'`); each epoch reads every training episode of each
            once, unless `weights` says otherwise.
        batch_size: windows per training step.
        block_size: tokens per window; null: the model's context (a longer one is refused).
        windows: where a training window starts: "episode" at an episode's BOS (padded); "packed" at a BOS and on
            into the next episodes (no padding: the same tokens for half the compute when episodes are shorter
            than the context); "keyframe" at the BOS or a mid-episode keyframe, "random" at any token (both show
            a short context the later parts of episodes).
        augment: map each training window through a symmetry of the board drawn at random, among those that keep
            the rules' start: more distinct games from the same corpus.
        num_workers: data-loading processes; 0 loads in the training process.
        weights: one per corpus of `path`, each corpus's share of an epoch's training windows (its episodes drawn
            over and over, or some of them, to fill it); validation reads every corpus's val split as it is.
        chance_targets: "drawn" trains each token the game's chance wrote on the draw written; "exact" on the
            distribution it was drawn from (GameSpec.chance_targets: Snake's spawn, uniform over the empty cells),
            which carries the same learnable part without the draw's noise. Training windows only: val/loss stays
            the plain one.
    """

    def __init__(
        self,
        path: str | list[str] = "data/corpus",
        batch_size: int = 16,
        block_size: int | None = None,
        windows: Windows = "episode",
        augment: bool = False,
        num_workers: int = 0,
        weights: list[float] | None = None,
        chance_targets: ChanceTargets = "drawn",
    ) -> None:
        super().__init__()
        # block_size is left out: the model's hparams have their own (its context), and Lightning refuses to log
        # two different values under one key, as --model.block_size 256 with the default data.block_size (None) has.
        self.save_hyperparameters(ignore=["block_size"])
        if batch_size < 1:
            raise GameGrammarError(f"--data.batch_size must be at least 1, got {batch_size}")
        if block_size is not None and block_size < 1:
            raise GameGrammarError(f"--data.block_size must be at least 1, got {block_size}")
        if num_workers < 0:
            raise GameGrammarError(f"--data.num_workers must be at least 0 (0: load in the training process), got {num_workers}")
        if windows not in get_args(Windows):
            raise GameGrammarError(f"--data.windows must be one of {', '.join(get_args(Windows))}, got {windows!r}")
        if chance_targets not in get_args(ChanceTargets):
            raise GameGrammarError(f"--data.chance_targets must be one of {', '.join(get_args(ChanceTargets))}, got {chance_targets!r}")
        self.corpus = open_corpus(path)  # opened now: a bad path fails before any model is built
        self.path = path if isinstance(path, str) else ", ".join(map(str, path))
        self.batch_size, self.block_size, self.windows, self.num_workers = batch_size, block_size, windows, num_workers
        self.augment, self.chance_targets = augment, chance_targets
        # The windows' order and draws are keyed by this (seed_everything's seed, which LightningCLI sets before building
        # this module); a checkpoint keeps it with where the epoch stood (ResumableLoader), and a resumed run takes both.
        self.seed = torch.initial_seed() % 2**63
        self.weights = None if weights is None else _check_weights(weights, len(path) if isinstance(path, list) else 1)
        self.tokenizer = self.corpus.tokenizer
        if not len(self.corpus.split("train")):
            raise GameGrammarError(f"corpus {path} has no training episodes")
        if windows == "keyframe":
            keyframe_id(self.corpus)
        if augment:  # refused now if the game's config has no symmetries
            try:
                self.corpus.game_spec.symmetries(self.tokenizer, self.corpus.game)
            except GameGrammarError as err:
                raise GameGrammarError(f"--data.augment: {err} (corpus {self.path})") from None
        if chance_targets == "exact":  # refused now if the game does not declare its chance
            try:
                self.corpus.game_spec.chance_targets([], self.corpus.game)
            except GameGrammarError as err:
                raise GameGrammarError(f"--data.chance_targets exact: {err} (corpus {self.path})") from None

    @property
    def vocab_size(self) -> int:
        """The model's vocab_size (the CLI links it into --model)."""
        return len(self.tokenizer)

    @property
    def tick_id(self) -> int:
        """The id of the game's tick token, the model's game clock (the CLI links it into --model)."""
        return self.tokenizer.ids[self.corpus.game_spec.tick_token]

    def checkpoint_info(self) -> dict[str, Any]:
        """What a checkpoint needs to sample and evaluate without the corpus (plain python types)."""
        return {
            "format_version": CHECKPOINT_FORMAT,
            "corpus_spec": self.corpus.spec.to_dict(),
            "tokenizer_json": self.tokenizer.to_json(),
            "tokenizer_sha256": self.tokenizer.sha256(),
            "corpus_path": str(self.path),
            "longest_episode": int(self.corpus.index["length"].max()) if len(self.corpus) else 0,  # the sampler's default cap
        }

    def fit_context(self, context: int | None) -> None:
        """Take the model's context (`context`: its position table; None for a model that is not a GameGPTModule) as
        the block size, or refuse a longer --data.block_size. `gamegrammar train` calls it before Lightning starts."""
        if self.block_size is None:
            if context is None:
                raise GameGrammarError("--data.block_size is needed when the model is not a GameGPTModule")
            self.block_size = context
        elif context is not None and self.block_size > context:
            raise GameGrammarError(f"--data.block_size {self.block_size} is longer than the model's position table ({context} tokens)")

    def setup(self, stage: str) -> None:
        module = self.trainer.lightning_module if self.trainer is not None else None
        self.fit_context(module.config.block_size if isinstance(module, GameGPTModule) else None)
        lengths = self.corpus.index["length"]
        cut = int((lengths > self.block_size + 1).sum())
        if cut and self.windows == "episode":
            rank_zero_info(
                f"{cut} of {len(lengths)} episodes are longer than the context ({self.block_size} tokens): windows hold their "
                f"first {self.block_size + 1} tokens (the longest episode has {int(lengths.max())})"
            )

    def train_rows(self) -> np.ndarray:
        """The training split's rows for one epoch: each episode once, or with `weights` each corpus's share of them."""
        rows = self.corpus.split("train")
        if self.weights is None or not isinstance(self.corpus, CorpusMix):
            return rows
        rng = np.random.default_rng(0)  # which episodes fill a share is fixed: the loader shuffles the order
        parts = []
        for i, weight in enumerate(self.weights):
            own = np.intersect1d(rows, self.corpus.part_rows(i))
            count = round(len(rows) * weight / sum(self.weights))
            if count and not len(own):
                raise GameGrammarError(f"--data.weights gives corpus {self.corpus.paths[i]} a share, but it has no training episodes")
            parts.append(np.resize(rng.permutation(own), count) if count else own[:0])
        return np.concatenate(parts)

    def _loader(self, split: str, order: WindowOrder | None = None) -> DataLoader:
        train = split == "train"
        rows = self.train_rows() if train else self.corpus.split(split)
        chance = self.chance_targets if train else "drawn"
        return window_loader(
            self.corpus,
            rows,
            self.block_size,
            self.windows,
            self.batch_size,
            self.augment and train,
            False,
            self.num_workers,
            chance,
            order,
            self.seed,
        )

    def train_dataloader(self) -> DataLoader:
        trainer = self.trainer
        replicas, rank = (trainer.world_size, trainer.global_rank) if trainer is not None else (1, 0)
        loader = self._loader("train", WindowOrder(len(self.train_rows()), self.seed, replicas, rank))
        if trainer is not None:
            assert isinstance(loader, ResumableLoader)
            loader.progress = lambda: trainer.fit_loop.epoch_loop.batch_progress.current.processed
        return loader

    def val_dataloader(self) -> DataLoader:
        if not len(self.corpus.split("val")):
            rank_zero_warn(f"corpus {self.path} has no validation episodes; val/loss is not logged")
            return []  # type: ignore[return-value]
        return self._loader("val")


def check_before_fit(module: L.LightningModule, datamodule: L.LightningDataModule | None, resume: dict[str, Any] | None) -> None:
    """Everything a run can refuse that needs the model and the corpus together (the block size against the model's
    context, the vocabulary, init_from's weights, the checkpoint `resume` holds), checked before a Trainer exists:
    an error then comes first and alone, not after Lightning's and wandb's first lines."""
    if isinstance(datamodule, CorpusDataModule):
        datamodule.fit_context(module.config.block_size if isinstance(module, GameGPTModule) else None)
    if isinstance(module, GameGPTModule):
        module.prepare(datamodule)
        if resume is not None:
            module.check_resume(resume)


def _check_weights(weights: list[float], corpora: int) -> list[float]:
    if len(weights) != corpora:
        raise GameGrammarError(f"--data.weights needs one weight per corpus of --data.path ({corpora}), got {len(weights)}")
    if not all(0 <= w < math.inf for w in weights) or not sum(weights) > 0:
        raise GameGrammarError(f"--data.weights must be finite, >= 0 and not all 0, got {weights}")
    return [float(w) for w in weights]


# ---------------------------------------------------------------- model


LrSchedule = Literal["cosine", "wsd"]


def lr_factor(
    step: int, warmup_steps: int, max_steps: int, min_ratio: float, schedule: LrSchedule = "cosine", decay_fraction: float = 0.2
) -> float:
    """The learning rate at `step` as a fraction of the peak: linear warmup to 1, then down to min_ratio at max_steps.

    "cosine" decays from the end of warmup; "wsd" (warmup-stable-decay) holds the peak and decays linearly over
    the last `decay_fraction` of max_steps only, so a short run spends more of its steps at the peak rate.
    """
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if step >= max_steps:
        return min_ratio
    if schedule == "wsd":
        decay_start = max(warmup_steps, max_steps - round(decay_fraction * max_steps))
        if step < decay_start:
            return 1.0
        return 1.0 - (1.0 - min_ratio) * (step - decay_start) / max(1, max_steps - decay_start)
    progress = (step - warmup_steps) / max(1, max_steps - warmup_steps)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


class TokensPerSecond(Callback):
    """Logs train/tokens_per_s: target tokens of a step over the wall time of the step before it, data loading included."""

    def __init__(self) -> None:
        self._started: float | None = None

    def on_train_batch_start(self, trainer: L.Trainer, pl_module: L.LightningModule, batch: Any, batch_idx: int) -> None:
        now = time.perf_counter()
        if self._started is not None:
            # A tensor, not a float: reading the count back would stall a GPU's queue every step.
            tokens = (batch[1] != IGNORE_INDEX).sum() * trainer.world_size
            pl_module.log("train/tokens_per_s", tokens / max(now - self._started, 1e-9), prog_bar=True)
        self._started = now

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._started = None  # the step after validation would otherwise count validation time


class FinalLastCheckpoint(Callback):
    """Makes last.ckpt the final state, whatever ends training (max_steps, max_time, an early stop, SIGTERM).

    ModelCheckpoint writes last.ckpt only every n steps. This saves it at the step training stops, in the
    same hook as ModelCheckpoint's own saves, so that resuming from it continues exactly. After SIGTERM, Lightning
    stops (raising its SIGTERMException) at the end of the running step, after this hook has saved it; a SIGTERM
    that comes later in the step (during a validation, say) stops it there, leaving the last.ckpt saved before.
    """

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any, batch_idx: int) -> None:
        # max_time's Timer has set should_stop by now
        if not (trainer.global_step == trainer.max_steps or trainer.should_stop or trainer.received_sigterm):
            return
        for cb in trainer.checkpoint_callbacks:
            if isinstance(cb, ModelCheckpoint) and cb.save_last and cb.dirpath:
                path = str(Path(cb.dirpath) / f"{cb.CHECKPOINT_NAME_LAST}{cb.FILE_EXTENSION}")
                # Recorded as the callback's own, so a validation at this step overwrites it (not last-v1.ckpt).
                cb.last_model_path = path
                trainer.save_checkpoint(path, weights_only=False)
                break


class GameGPTModule(L.LightningModule):
    """GameGPT trained by next-token prediction with Muon (or AdamW), warmup and a decaying learning rate.

    The `Args` below are `gamegrammar train fit`'s `--model.*` options (their help). val/loss is always the plain
    mean per token, whatever the loss weights, so runs stay comparable.

    Args:
        preset: the model's shape: a name in gamegrammar.model.PRESETS (gg31k, gg-cpu, gg-gpu) or a GPTConfig;
            any model field given here overrides it (the command line's way: --model.n_layer 6).
        vocab_size: the vocabulary's size; the CLI links it from the corpus (data.vocab_size).
        tick_id: the id of the game's tick token, which the tick clock counts; the CLI links it from the corpus.
        block_size: the context: the longest window the model sees (null: the preset's).
        n_layer: transformer blocks (null: the preset's).
        n_head: attention heads per block; n_embd must divide by it (null: the preset's).
        n_embd: the width of the embeddings and the blocks (null: the preset's).
        dropout: dropout probability in attention, the MLPs and the embeddings (null: the preset's).
        bias: biases in the linear layers and layer norms (null: the preset's).
        tick_table: rows of the tick-clock embedding, ticks since BOS; 0 = no clock (null: the preset's).
        rope: rotary position embeddings instead of a learned position table (null: the preset's).
        lr: AdamW's peak learning rate (under Muon: that of the embeddings, norms and biases).
        weight_decay: decoupled weight decay of the weight matrices (never of norms and biases).
        betas: AdamW's two momentum coefficients.
        warmup_steps: steps of linear warmup to the peak learning rates.
        max_steps: where the learning-rate schedule ends; null: the Trainer's max_steps.
        min_lr_ratio: the learning rate at the schedule's end, as a fraction of the peak.
        lr_schedule: "cosine" decay after warmup, or "wsd" (hold the peak, decay over the last decay_fraction).
        decay_fraction: wsd: the share of max_steps over which the learning rate decays.
        compile: run the model through torch.compile (faster steps on a GPU, after a slow first one).
        outcome_weight: training-loss weight of each tick's outcome (the token after an input: MOVE, EAT or a
            death), the rule small models learn last; 1 is the plain mean.
        chance_weight: training-loss weight of the tokens the game's chance writes (GameSpec.chance_tokens: Snake's
            food spawn cell). A spawn is one draw among the empty cells, so most of its loss cannot be learned, and
            the part that can (no mass on the body) is a small, one-sided signal; this scales it up.
        optimizer: "muon" (Muon on the blocks' matrices at muon_lr, AdamW at lr on embeddings, norms, biases:
            fewer tokens to the same loss, docs/levers.md run S), or "adamw" on every parameter.
        muon_lr: Muon's peak learning rate on the blocks' matrices (optimizer muon).
        init_from: a checkpoint whose model weights a fresh fit starts from (fine-tuning, as `gamegrammar
            ouroboros` does): its model must have this config (a longer context too, with rotary positions) and its
            vocabulary the corpus's or part of it (a grammar option's words, or more players' S words: each of its
            words keeps its row, the new words' embeddings start fresh); optimizer, schedule and step start afresh.
            `--ckpt_path` (a resume) restores its own weights over them.
    """

    def __init__(
        self,
        preset: str | GPTConfig = "gg-cpu",
        vocab_size: int | None = None,
        tick_id: int | None = None,
        block_size: int | None = None,
        n_layer: int | None = None,
        n_head: int | None = None,
        n_embd: int | None = None,
        dropout: float | None = None,
        bias: bool | None = None,
        tick_table: int | None = None,
        rope: bool | None = None,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        betas: tuple[float, float] = (0.9, 0.95),
        warmup_steps: int = 100,
        max_steps: int | None = None,
        min_lr_ratio: float = 0.1,
        lr_schedule: LrSchedule = "cosine",
        decay_fraction: float = 0.2,
        compile: bool = False,
        outcome_weight: float = 1.0,
        chance_weight: float = 1.0,
        optimizer: OptimizerName = "muon",
        muon_lr: float = 0.02,
        init_from: str | None = None,
    ) -> None:
        super().__init__()
        self.save_hyperparameters()
        if isinstance(preset, GPTConfig):  # a whole config: the hparams keep it as a plain dict
            self.hparams.preset = preset.to_dict()
            vocab_size = vocab_size or preset.vocab_size
            tick_id = preset.tick_id if tick_id is None else tick_id
        elif isinstance(preset, dict):  # a module restored from its hparams
            preset = GPTConfig.from_dict(preset)
        if vocab_size is None:
            raise GameGrammarError("the model's vocab_size comes from the corpus: pass vocab_size=datamodule.vocab_size")
        self.config: GPTConfig = preset_config(
            preset,
            vocab_size=vocab_size,
            tick_id=tick_id,
            block_size=block_size,
            n_layer=n_layer,
            n_head=n_head,
            n_embd=n_embd,
            dropout=dropout,
            bias=bias,
            tick_table=tick_table,
            rope=rope,
        )
        if lr_schedule not in get_args(LrSchedule):
            raise GameGrammarError(f"--model.lr_schedule must be one of {', '.join(get_args(LrSchedule))}, got {lr_schedule!r}")
        if not 0 < decay_fraction <= 1:
            raise GameGrammarError(f"--model.decay_fraction must be in (0, 1], got {decay_fraction}")
        for flag, value in (("outcome_weight", outcome_weight), ("chance_weight", chance_weight)):
            if not 0 < value < math.inf:
                raise GameGrammarError(f"--model.{flag} must be a positive number, got {value}")
        if optimizer not in get_args(OptimizerName):
            raise GameGrammarError(f"--model.optimizer must be one of {', '.join(get_args(OptimizerName))}, got {optimizer!r}")
        for flag, value in (("lr", lr), ("muon_lr", muon_lr)):
            if not 0 < value < math.inf:
                raise GameGrammarError(f"--model.{flag} must be a positive number, got {value}")
        if not 0 <= weight_decay < math.inf:
            raise GameGrammarError(f"--model.weight_decay must be >= 0, got {weight_decay}")
        if not all(0 <= b < 1 for b in betas):
            raise GameGrammarError(f"--model.betas must be in [0, 1), got {list(betas)}")
        if warmup_steps < 0:
            raise GameGrammarError(f"--model.warmup_steps must be >= 0, got {warmup_steps}")
        if not 0 <= min_lr_ratio <= 1:
            raise GameGrammarError(f"--model.min_lr_ratio must be in [0, 1], got {min_lr_ratio}")
        self.model = GameGPT(self.config)
        self._input_ids: torch.Tensor | None = None  # INPUT_d token ids, for outcome_weight
        self._chance: list[tuple[torch.Tensor, tuple[int, ...]]] | None = None  # (word ids, offsets), for chance_weight
        self._initialized = False  # init_from's weights are loaded (once, in setup)
        self.corpus_info: dict[str, Any] | None = None  # filled from the datamodule or a checkpoint
        self._words: list[str] | None = None  # the corpus's vocabulary, from the datamodule (init_from's growth)
        self._forward = self.model

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        return self._forward(idx, targets)

    def setup(self, stage: str) -> None:
        self.prepare(self.trainer.datamodule if self._trainer is not None else None)
        if self.hparams.compile and self._forward is self.model:
            # Kept out of the module tree so state_dict keys stay plain (no "_orig_mod.").
            object.__setattr__(self, "_forward", torch.compile(self.model))
        if stage == "fit":
            rank_zero_info(f"GameGPT {self.hparams.preset}: {self.model.num_params():,} parameters, {self.config}")

    def prepare(self, dm: Any) -> None:
        """Read what training needs off the corpus of `dm` (a CorpusDataModule; anything else brings none) and load
        init_from's weights, refusing in one line what does not fit. `gamegrammar train` calls it before Lightning
        starts, so that such an error comes first and alone; setup calls it again (the weights are loaded once)."""
        if isinstance(dm, CorpusDataModule):
            if dm.vocab_size != self.config.vocab_size:
                raise GameGrammarError(f"corpus {dm.path} has {dm.vocab_size} tokens; the model's vocab_size is {self.config.vocab_size}")
            self.corpus_info = dm.checkpoint_info()
            self._words = list(dm.tokenizer.tokens)
            corpus = dm.corpus
            self._input_ids = torch.tensor(dm.tokenizer.encode(corpus.game_spec.input_tokens(corpus.game)))
            self._chance = [
                (torch.tensor(dm.tokenizer.encode([word])), offsets)
                for word, offsets in corpus.game_spec.chance_tokens(corpus.game, corpus.codec)
            ]
            if self.hparams.chance_weight != 1.0 and not self._chance:
                raise GameGrammarError(f"--model.chance_weight: {corpus.game_spec.name} writes no chance tokens to weight")
        if self.hparams.init_from and not self._initialized:
            self._load_initial_weights(self.hparams.init_from)

    def _load_initial_weights(self, path: str) -> None:
        """init_from: the model weights of a gamegrammar checkpoint or exported model (such as models/snake), refused in
        one line if they do not fit."""
        loaded = load_checkpoint(path)
        words = loaded.tokenizer.tokens
        # a vocabulary that holds every word of the checkpoint's and more: an option's words after the others', or a
        # format with more players (Battlesnake's S2 and S3 among the duel's words); each word keeps its row
        grown = self._words is not None and len(words) < len(self._words) and set(words) <= set(self._words)
        theirs, ours = loaded.gpt_config.to_dict(), self.config.to_dict()
        if grown:
            theirs["vocab_size"] = ours["vocab_size"]
        if theirs["rope"] and ours["rope"]:  # rotary positions have no table to learn: a longer context fits as well
            theirs["block_size"] = ours["block_size"]
        if theirs != ours:
            diff = {k: v for k, v in theirs.items() if ours.get(k) != v}
            raise GameGrammarError(f"--model.init_from {path}: its model differs from the configured one ({diff})")
        if self.corpus_info is not None and not grown and loaded.tokenizer.sha256() != self.corpus_info["tokenizer_sha256"]:
            raise GameGrammarError(f"--model.init_from {path} was trained on another vocabulary than the corpus's")
        state = loaded.model.state_dict()
        if grown:  # the old words' rows (the embedding, and the output head tied to it) by word; new words keep their init
            own = self.model.state_dict()
            position = {word: i for i, word in enumerate(self._words)}
            rows = torch.tensor([position[word] for word in words])
            for name, value in state.items():
                if value.shape != own[name].shape:
                    state[name] = own[name].clone().index_copy_(0, rows, value)
        self.model.load_state_dict(state)
        self._initialized = True
        more = f" (its {len(words)} words, and {len(self._words) - len(words)} new ones that start fresh)" if grown else ""
        rank_zero_info(f"model weights from {path}{more}")

    # -- steps

    def training_loss(self, x: torch.Tensor, y: torch.Tensor, soft: SoftTargets | None = None) -> torch.Tensor:
        """The mean cross-entropy, with each outcome token weighted by `outcome_weight` and each chance token by
        `chance_weight`; at the targets `soft` names (exact chance targets), the cross-entropy against their
        distribution instead of the one token drawn."""
        outcome, chance = self.hparams.outcome_weight, self.hparams.chance_weight
        if outcome == 1.0 and chance == 1.0 and soft is None:
            return self(x, y)[1]
        if (outcome != 1.0 and self._input_ids is None) or (chance != 1.0 and self._chance is None):
            raise GameGrammarError("outcome_weight and chance_weight need the corpus's tokenizer: train with CorpusDataModule")
        logits, _ = self(x)
        ce = F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE_INDEX, reduction="none")
        if soft is not None and len(soft[0]):
            rows, cols, ids, probs = soft
            logp = F.log_softmax(logits[rows, cols].float(), dim=-1)
            exact = -(probs * logp.gather(1, ids)).sum(1)
            ce = ce.view(x.shape).index_put((rows, cols), exact).reshape(-1)
        w = torch.ones(x.shape, device=x.device)
        if outcome != 1.0:
            w[torch.isin(x, self._input_ids.to(x.device))] = outcome
        if chance != 1.0:
            for ids, offsets in self._chance:
                w[targets_after(x, ids.to(x.device), offsets)] = chance
        w = w.reshape(-1) * (y.reshape(-1) != IGNORE_INDEX)
        return (ce * w).sum() / w.sum().clamp(min=1.0)

    def training_step(self, batch: tuple[Any, ...], batch_idx: int) -> torch.Tensor:
        x, y = batch[:2]
        loss = self.training_loss(x, y, batch[2] if len(batch) > 2 else None)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int) -> None:
        x, y = batch
        _, loss = self(x, y)
        tokens = int((y != IGNORE_INDEX).sum())
        # Weighted by target tokens, so val/loss is the per-token loss over the whole split.
        self.log("val/loss", loss, prog_bar=True, batch_size=tokens, sync_dist=True)

    # -- optimisation

    def configure_optimizers(self) -> dict[str, Any]:
        hp = self.hparams
        optimizer = build_optimizer(
            self.model, hp.optimizer, lr=hp.lr, weight_decay=hp.weight_decay, betas=tuple(hp.betas), muon_lr=hp.muon_lr
        )
        max_steps = hp.max_steps
        if max_steps is None:
            max_steps = self.trainer.max_steps if self.trainer.max_steps > 0 else int(self.trainer.estimated_stepping_batches)
        schedule = partial(
            lr_factor,
            warmup_steps=max(1, hp.warmup_steps),
            max_steps=max_steps,
            min_ratio=hp.min_lr_ratio,
            schedule=hp.lr_schedule,
            decay_fraction=hp.decay_fraction,
        )
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}

    def on_train_batch_end(self, outputs: Any, batch: Any, batch_idx: int) -> None:
        self.log("train/lr", self.optimizers().param_groups[-1]["lr"])  # model.lr as scheduled (the first group is Muon's under muon)

    def configure_callbacks(self) -> list[Callback]:
        """What every run needs, whatever its config lists: throughput logging and a final last.ckpt."""
        return [TokensPerSecond(), FinalLastCheckpoint()]

    # -- checkpoints: plain python only, so torch.load(weights_only=True) reads them

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        if self.corpus_info is None:
            raise GameGrammarError("cannot save a checkpoint without the corpus's tokenizer and spec (train with CorpusDataModule)")
        checkpoint[CHECKPOINT_KEY] = {**self.corpus_info, "gpt_config": self.config.to_dict()}

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        self.check_resume(checkpoint)
        if self.corpus_info is None:
            self.corpus_info = {k: v for k, v in checkpoint[CHECKPOINT_KEY].items() if k != "gpt_config"}

    def check_resume(self, checkpoint: dict[str, Any]) -> None:
        """Refuse a checkpoint this model cannot resume from: another vocabulary than the corpus's, another model
        config, another optimizer. `gamegrammar train` calls it (after `prepare`) before Lightning starts."""
        saved = checkpoint.get(CHECKPOINT_KEY)
        if saved is None:
            raise GameGrammarError("not a gamegrammar checkpoint: it carries no tokenizer or game config")
        if self.corpus_info is not None and self.corpus_info["tokenizer_sha256"] != saved["tokenizer_sha256"]:
            raise GameGrammarError(
                f"corpus {self.corpus_info['corpus_path']} has a different vocabulary from the checkpoint's "
                f"(trained on {saved.get('corpus_path', 'another corpus')}); resume on a corpus of the same game config"
            )
        if saved["gpt_config"] != self.config.to_dict():
            diff = {k: v for k, v in saved["gpt_config"].items() if self.config.to_dict().get(k) != v}
            raise GameGrammarError(f"the checkpoint's model differs from the configured one: the checkpoint has {diff}")
        trained_with = checkpoint.get("hyper_parameters", {}).get("optimizer", "adamw")  # runs before the option: AdamW
        if checkpoint.get("optimizer_states") and trained_with != self.hparams.optimizer:
            raise GameGrammarError(
                f"the checkpoint was trained with --model.optimizer {trained_with}, not {self.hparams.optimizer}; "
                "resume with the optimizer it was trained with"
            )
