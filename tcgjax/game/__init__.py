"""The JAX engine: the rules of docs/tcg/rules.md as pure functions on fixed-size arrays."""

from tcgjax.game.state import GameState, canonical
from tcgjax.game.step import legal_actions, new_game, step
from tcgjax.game.tables import CardTables, card_tables

__all__ = ["CardTables", "GameState", "canonical", "card_tables", "legal_actions", "new_game", "step"]
