"""Constructed game states for the L1/L2 tests, run on both engines.

    game = make_game(me=side(active=mon("Pikachu ex", "LL"), hand=["Potion"]), opp=side(active=mon("Onix")))
    game = both(runner, game, [spec.ATTACK + 0])     # parity after every action, returns the reference game

`make_game` starts from a real game (two shipped decks) and overwrites the parts of the state the
scenario names; seat 0 is the turn player on turn 5 unless told otherwise. `coins(game, "HT")`
moves the stream to a position whose next values flip heads then tails.
"""

from __future__ import annotations

import numpy as np

from tcgjax import spec
from tcgjax.cards import TYPE_INDEX, load_cards
from tcgjax.decks import shipped_decks
from tcgjax.reference import Game
from tcgjax.reference.state import ActiveEffects, PokemonInPlay
from tcgjax.rng import stream_value
from tcgjax.verify import replay_reference

DB = load_cards()
LETTERS = {"G": "grass", "R": "fire", "W": "water", "L": "lightning", "P": "psychic", "F": "fighting", "D": "darkness", "M": "metal"}


def card(name_or_id: str) -> int:
    """Card index by id ("A1 001") or by name (its first printing)."""
    if name_or_id in DB.by_id:
        return DB.by_id[name_or_id].index
    for c in DB.cards:
        if c.name == name_or_id:
            return c.index
    raise KeyError(name_or_id)


def energy_vector(letters: str) -> list[int]:
    vec = [0] * 8
    for letter in letters:
        vec[TYPE_INDEX[LETTERS[letter]]] += 1
    return vec


def mon(*names: str, energy: str = "", damage: int = 0, turn_played: int = 1) -> PokemonInPlay:
    """A Pokémon in play: names bottom to top (e.g. mon("Charmander", "Charmeleon"))."""
    return PokemonInPlay(cards=[card(n) for n in names], damage=damage, energy=energy_vector(energy), turn_played=turn_played)


def side(active=None, bench=(), hand=(), deck=None, energy_types=("fire",), current=None, next_energy=None,
         points=0, effects: ActiveEffects | None = None, discard=(), **flags):
    return dict(active=active, bench=list(bench), hand=list(hand), deck=deck, energy_types=energy_types,
                current=current, next_energy=next_energy, points=points, effects=effects, discard=list(discard), flags=flags)


def _apply_side(player, spec_: dict) -> None:
    player.slots = [spec_["active"]] + list(spec_["bench"]) + [None] * (3 - len(spec_["bench"]))
    player.hand = [card(n) for n in spec_["hand"]]
    if spec_["deck"] is not None:
        player.deck = [card(n) for n in spec_["deck"]]
    player.energy_types = tuple(TYPE_INDEX[t] for t in spec_["energy_types"])
    player.energy_current = TYPE_INDEX[spec_["current"]] if spec_["current"] else -1
    player.energy_next = TYPE_INDEX[spec_["next_energy"] or spec_["energy_types"][0]]
    player.points = spec_["points"]
    player.discard = [card(n) for n in spec_["discard"]]
    player.active_effects = spec_["effects"] or ActiveEffects()
    for key, value in spec_["flags"].items():
        setattr(player, key, value)


def make_game(me: dict | None = None, opp: dict | None = None, turn: int = 5, seed: int = 12345,
              first_player: int = 0, max_turns: int = spec.DEFAULT_MAX_TURNS) -> Game:
    decks = list(shipped_decks().values())
    game = Game.new([decks[0], decks[1]], seed, max_turns=max_turns)
    s = game.state
    s.turn, s.turn_player, s.first_player, s.phase, s.decider = turn, 0, first_player, spec.MAIN, 0
    _apply_side(s.players[0], me or side(active=mon("Bulbasaur")))
    _apply_side(s.players[1], opp or side(active=mon("Bulbasaur")))
    return game


def coins(game: Game, pattern: str, start: int | None = None) -> Game:
    """Move the stream so that the next len(pattern) values are heads (H) / tails (T) as given."""
    counter = game.rng.counter if start is None else start
    while True:
        flips = "".join("H" if stream_value(game.state.seed, counter + i) % 2 else "T" for i in range(len(pattern)))
        if flips == pattern:
            game.rng.counter = game.state.rng_counter = counter
            return game
        counter += 1


def values_mod(game: Game, wanted: list[tuple[int, int]]) -> Game:
    """Move the stream so that value i mod n_i == r_i for the listed (n_i, r_i)."""
    counter = game.rng.counter
    while not all(stream_value(game.state.seed, counter + i) % n == r for i, (n, r) in enumerate(wanted)):
        counter += 1
    game.rng.counter = game.state.rng_counter = counter
    return game


def both(runner, game: Game, actions: list[int]) -> Game:
    """Apply `actions` on the reference and on the JAX engine from the same state; assert that the
    legal masks before and the states after every action are identical. Returns the reference game."""
    start = game.canonical()
    ref_masks, ref_states = replay_reference(game, actions)
    [(jax_masks, jax_states)] = runner.replay(None, [actions], starts=[start])
    for k, action in enumerate(actions):
        assert np.array_equal(ref_masks[k], jax_masks[k]), (
            f"legal mask before action {k} ({spec.action_name(action)}): reference {np.flatnonzero(ref_masks[k])} "
            f"jax {np.flatnonzero(jax_masks[k])}")
        for name, value in ref_states[k].items():
            assert np.array_equal(value, jax_states[k][name]), (
                f"after action {k} ({spec.action_name(action)}), field {name}: reference {value.tolist()} "
                f"jax {jax_states[k][name].tolist()}")
    return game


def legal(runner, game: Game) -> np.ndarray:
    """The legal mask of the state on both engines (asserted equal)."""
    start = game.canonical()
    ref = game.legal_actions()
    [(jax_masks, _)] = runner.replay(None, [[-1]], starts=[start])
    assert np.array_equal(ref, jax_masks[0]), f"reference {np.flatnonzero(ref)} jax {np.flatnonzero(jax_masks[0])}"
    return ref
