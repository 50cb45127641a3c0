"""The vocabulary as a Hugging Face `tokenizers` WordLevel model.

Our own code maps tokens to ids with a dict (fast), but the same mapping is saved
as tokenizer.json so that `tokenizers.Tokenizer.from_file` outside gamegrammar
encodes a text episode to exactly the ids stored in a corpus.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from tokenizers import AddedToken, Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import WhitespaceSplit

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import SPECIAL_TOKENS


class GameTokenizer:
    """Token strings <-> ids for one game config's vocabulary (`GameSpec.vocabulary`; `games.tokenizer_for(config)`)."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = list(tokens)
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        if len(self.ids) != len(self.tokens):
            raise GameGrammarError("the vocabulary has duplicate tokens")
        if tuple(self.tokens[: len(SPECIAL_TOKENS)]) != SPECIAL_TOKENS:
            raise GameGrammarError(f"a vocabulary starts with the special tokens {', '.join(SPECIAL_TOKENS)}")

    @classmethod
    def from_json(cls, text: str) -> GameTokenizer:
        vocab = json.loads(text)["model"]["vocab"]
        return cls(sorted(vocab, key=vocab.__getitem__))

    @classmethod
    def from_file(cls, path: str | Path) -> GameTokenizer:
        try:
            return cls.from_json(Path(path).read_text())
        except OSError as err:
            raise GameGrammarError(f"cannot read tokenizer {path}: {err.strerror or err}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            detail = f"no {err} in it" if isinstance(err, KeyError) else str(err)
            raise GameGrammarError(f"{path} is not a gamegrammar tokenizer ({detail})") from None

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def pad_id(self) -> int:
        return self.ids["PAD"]

    @property
    def bos_id(self) -> int:
        return self.ids["BOS"]

    @property
    def eos_id(self) -> int:
        return self.ids["EOS"]

    @property
    def dtype(self) -> np.dtype:
        """The smallest unsigned integer type that holds every id (shards are stored in it)."""
        return np.dtype(np.uint16 if len(self.tokens) <= 1 << 16 else np.uint32)

    def encode(self, tokens: Iterable[str]) -> list[int]:
        try:
            return [self.ids[t] for t in tokens]
        except KeyError as err:
            raise GameGrammarError(f"unknown token {err.args[0]!r} for this game's vocabulary") from None

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.tokens[int(i)] for i in ids]

    def hf_tokenizer(self) -> Tokenizer:
        tok = Tokenizer(WordLevel(self.ids, unk_token="UNK"))
        tok.pre_tokenizer = WhitespaceSplit()
        tok.add_special_tokens([AddedToken(t, special=True, single_word=True) for t in SPECIAL_TOKENS])
        return tok

    def to_json(self) -> str:
        return self.hf_tokenizer().to_str(pretty=True)

    def save(self, path: str | Path) -> None:
        from gamegrammar.core.io import atomic_write_text

        atomic_write_text(path, self.to_json())

    def sha256(self) -> str:
        """A hash of the vocabulary alone (token order), to tell corpora and checkpoints apart."""
        return hashlib.sha256("\n".join(self.tokens).encode()).hexdigest()
