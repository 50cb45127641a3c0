"""Subcommands of the `gamegrammar` CLI, one module each."""
