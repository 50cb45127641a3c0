"""Battlesnake's tests run with the game registered by name (until the registry's BUILTIN lists it)."""

from __future__ import annotations

from gamegrammar.games import register_game

register_game("battlesnake", "gamegrammar.games.battlesnake:GAME")
