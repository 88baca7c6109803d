"""The reference engine: readable, object-oriented Python; the executable form of docs/tcg/rules.md."""

from tcgjax.reference.engine import Game, IllegalActionError
from tcgjax.reference.state import GameState, PlayerState, PokemonInPlay, canonical

__all__ = ["Game", "GameState", "IllegalActionError", "PlayerState", "PokemonInPlay", "canonical"]
