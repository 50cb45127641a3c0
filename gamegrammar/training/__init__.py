"""Training GameGPT on a corpus, and the checkpoints it writes.

  lightning   the LightningModule (GameGPTModule) and LightningDataModule (CorpusDataModule) that `gamegrammar train` runs
  optim       AdamW, or Muon on the blocks' matrices with AdamW on the rest
  checkpoint  loading a checkpoint or an exported model for sampling and evaluation, and exporting one

This file imports nothing: `checkpoint` is read wherever a model samples, plays or dreams, and that must not
import Lightning (an import-linter contract holds `checkpoint` to it; importing the package must not undo it).
"""
