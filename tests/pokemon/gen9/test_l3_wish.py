"""L3 and L2 of Wish (``turn.wish_moves()``): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every
decision (the comparison of ``test_l3_restricted.py``, which includes each side's ``wish`` slot condition: the wisher's
max HP, ``BattleState.wish_hp``, and its ``startingTurn``, ``BattleState.wish_turn``).

Wish (a status move on its user) adds the ``wish`` slot condition to its user's slot: ``onStart`` keeps half the user's
max HP and ``startingTurn`` (the turn - 1, mod 256); while one waits there ``addSlotCondition`` fails (the move fails,
no ``Update``). Its residual handler (order 4: before the statuses'; a fainted holder's runs too, sorted by its cached
speed; two wishes tie on speed with a draw) returns on the turn it was made and at the next turn's residual ends it:
``onEnd`` heals whoever is in the slot then (switching does not move it) by the kept half, truncated, at least 1, unless
that Pokémon is fainted or holds Heal Block (Psychic Noise's ``healblock``: its ``onTryHeal``); the wish is gone all
the same; nothing at full HP.

Teams are restricted pool teams each of whose Pokémon is given Wish as its first move; the players pick it half the
time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import assert_identical, pp_spent

TABLES = tables.load()
WISH = TABLES.move_index["wish"]


def _wishes(states) -> dict:
    """Over consecutive decisions: wishes made (Wish's PP spent, a wish now waiting from this turn), Wishes that failed
    (one waiting already), wishes resolved, of them healing (the slot's active gained HP), healing a Pokémon other than
    the wisher (its max HP not the wish's), and both sides holding a wish at a residual."""
    seen = dict(made=0, failed=0, resolved=0, healed=0, passed=0, both=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            live = a.request[i] == S.REQUEST_MOVE
            seen["both"] += int(live and (b.wish_hp[i] > 0).all() and b.turn[i] > a.turn[i])
            for s in range(2):
                if a.wish_hp[i, s] > 0 and b.wish_hp[i, s] == 0:
                    seen["resolved"] += 1
                    kb = int(b.active[i, s])
                    if b.hp[i, s, kb] > a.hp[i, s, kb]:
                        seen["healed"] += 1
                        seen["passed"] += int(b.max_hp[i, s, kb] != a.wish_hp[i, s])
                if not live or not pp_spent(a, b, i, s, WISH):
                    continue
                if a.wish_hp[i, s] > 0:            # it waits (and ends at this residual): this one fails
                    seen["failed"] += 1
                    assert b.wish_hp[i, s] == 0 or b.turn[i] == a.turn[i]     # unless the residual waits (U-turn)
                elif b.wish_hp[i, s] > 0:
                    seen["made"] += 1
    return seen


def test_moves_are_covered():
    assert turn.wish_moves() == ["wish"]
    assert set(turn.wish_moves()) <= set(turn.restricted_moves())


def test_wish_battles_match_showdown(showdown9):
    """32 battles of teams holding Wish on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["wish"], 32, 131)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _wishes(states)
    print(seen)
    assert seen["made"] >= 500 and seen["failed"] >= 200 and seen["resolved"] >= 500, seen
    assert seen["healed"] >= 30 and seen["passed"] >= 10 and seen["both"] >= 10, seen


def test_l2_wish_heals_the_pokemon_switched_in(showdown9):
    """p1's lead uses Wish on turn 1 (hit by the foe's attack), switches on turn 2: the Pokémon coming in, hit too, is
    healed at turn 2's residual by half the wisher's max HP; the wisher comes back on turn 3 and uses Wish on turns 4
    and 5 (the second fails while the first waits)."""
    count = 48
    users = [_row(s, ["wish", "earthquake"]) for s in ("clefable", "vaporeon", "jirachi", "blissey")]
    foes = [_row(s, ["earthquake"]) for s in ("hippowdon", "garchomp", "tyranitar")]
    states, actions, sets, seeds = _led(users, foes, count, 132, [[0, 0], [8 + 1, 0], [8, 0], [0, 0], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    passed = 0
    for i in range(count):
        a, b = states[1], states[2]
        if a.request[i] == S.REQUEST_MOVE and b.active[i, 0] == 1 and a.wish_hp[i, 0] > 0:
            assert b.wish_hp[i, 0] == 0
            passed += int(a.wish_hp[i, 0] == a.max_hp[i, 0, 0])
    assert passed >= 12, passed
    seen = _wishes(states)
    assert seen["failed"] >= 5, seen
