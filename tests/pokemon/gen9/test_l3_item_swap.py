"""L3 of Trick and Switcheroo as they run in the restricted battles, where no Pokémon holds an item
(``turn.item_swap_moves()``): the accuracy check (Protect and a substitute stop them first), then their ``onHit``
fails with no item to swap, so the hit loop ends before its Updates. Gen 9 battles of ``turn.step`` against
Showdown, state and PRNG after every decision (``test_l3_restricted.py``'s comparison)."""

from __future__ import annotations


from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import move_decisions, move_mask, preferring_battles, teams_holding

SWAPS = move_mask(turn.ITEM_SWAP_MOVES)


def test_the_item_swaps_are_run():
    assert set(turn.item_swap_moves()) == set(turn.ITEM_SWAP_MOVES) <= set(turn.restricted_moves())


def test_item_swap_battles_match_showdown(showdown9):
    """48 battles of teams with Trick or Switcheroo, one of them chosen half the time."""
    teams = teams_holding(SWAPS)
    states, actions = preferring_battles(showdown9, teams, 48, 97, SWAPS, min_teams=40)
    used = sum(move in turn.ITEM_SWAP_MOVES for *_, move in move_decisions(states, actions))
    assert used >= 30, used
