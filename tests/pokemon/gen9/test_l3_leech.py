"""L3 and L2 of Leech Seed (``turn.leech_moves()``): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG
after every decision (the comparison of ``test_l3_restricted.py``, which includes each active's ``leechseed`` volatile,
``BattleState.seeded``).

Leech Seed's ``onTryImmunity`` makes a Grass type (by its current types: a Tera type counts) immune before the accuracy
check (no draw); else its 90 % accuracy, then ``addVolatile('leechseed')``, failing (no ``Update``) on a target seeded
already. The volatile's residual handler (order 8: after a wish's, before the statuses'; two of them tie on speed, the
draw deciding which drains first) does nothing when the Pokémon in the seeder's slot is fainted, else deals
``floor(baseMaxhp / 8)`` (at least 1, at most the holder's HP) to its holder and heals that much to the foe (not under
Heal Block), then ``faintMessages`` (the holder fainting, its side out ending the battle). Switching out, fainting and
its holder's Rapid Spin (``onAfterHit``) remove it.

Teams are restricted pool teams each of whose Pokémon is given Leech Seed as its first move; the players pick it half
the time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import assert_identical, compare, move_requests, pp_spent

TABLES = tables.load()
LEECH = TABLES.move_index["leechseed"]
GRASS = TABLES.type_index["Grass"]


def _leeches(states) -> dict:
    """Over consecutive move decisions: Leech Seeds that seeded, that failed on a seeded target, on a Grass one; turns
    ending with a seeded active that lost HP while the foe was up, with both actives seeded, seeded Pokémon fainting at
    the residual (up after the moves), seeds removed by switching out."""
    seen = dict(seeded=0, again=0, grass=0, drained=0, both=0, fainted=0, switched=0)
    for a, b, i in move_requests(states):
        seen["both"] += int(b.seeded[i].all())
        for s in range(2):
            k, f = int(a.active[i, s]), int(a.active[i, 1 - s])
            seen["switched"] += int(a.seeded[i, s] and b.active[i, s] != k and b.hp[i, s, k] > 0)
            if a.seeded[i, s] and b.active[i, s] == k and b.hp[i, s, k] < a.hp[i, s, k]:
                seen["drained"] += 1
                seen["fainted"] += int(b.hp[i, s, k] == 0)
            if int(b.active[i, s]) != k or int(b.active[i, 1 - s]) != f or not pp_spent(a, b, i, s, LEECH):
                continue
            types = set(int(x) for x in a.types[i, 1 - s, f])
            if b.terastallized[i, 1 - s, f] and int(b.tera_type[i, 1 - s, f]) != TABLES.type_index["Stellar"]:
                types = {int(b.tera_type[i, 1 - s, f])}     # a Terastallization of this turn came first
            if GRASS in types:
                seen["grass"] += 1
                assert not b.seeded[i, 1 - s] or a.seeded[i, 1 - s]
            elif a.seeded[i, 1 - s]:
                seen["again"] += 1
            elif b.seeded[i, 1 - s]:
                seen["seeded"] += 1
    return seen


def test_moves_are_covered():
    assert turn.leech_moves() == ["leechseed"]
    assert set(turn.leech_moves()) <= set(turn.restricted_moves())
    assert "rapidspin" in turn.restricted_moves()


def test_leech_seed_battles_match_showdown(showdown9):
    """32 battles of teams holding Leech Seed on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(["leechseed"], 32, 141)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _leeches(states)
    print(seen)
    assert seen["seeded"] >= 100 and seen["again"] >= 30 and seen["grass"] >= 10, seen
    assert seen["drained"] >= 200 and seen["both"] >= 50 and seen["fainted"] >= 5 and seen["switched"] >= 20, seen


def test_l2_rapid_spin_removes_the_seed_and_grass_is_immune(showdown9):
    """p2's Grass leads (Amoonguss, Venusaur, Sinistcha) are immune to p1's Leech Seed on turn 1 (no accuracy draw);
    p1's leads seed a non-Grass foe in another set of battles, then switch out while the foe uses Rapid Spin: a hit
    removes the seed (with its side's hazards, its user up); an immune Ghost switching in leaves it."""
    count = 24
    users = [_row(s, ["leechseed"]) for s in ("venusaur", "amoonguss", "meowscarada")]
    grass = [_row(s, ["earthquake"]) for s in ("amoonguss", "venusaur", "sinistcha")]
    states, actions, sets, seeds = _led(users, grass, count, 142, [[0, 0]])
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, problems[:2]
    assert not states[1].seeded[:, 1].any()
    spinners = [_row(s, ["rapidspin", "earthquake"]) for s in ("excadrill", "donphan", "greattusk", "forretress")]
    states, actions, sets, seeds = _led(users, spinners, count, 143, [[0, 1], [8 + 1, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    removed = 0
    for i in range(count):
        a, b = states[1], states[2]
        if a.seeded[i, 1] and a.request[i] == S.REQUEST_MOVE and b.active[i, 1] == a.active[i, 1]:
            spun = b.pp[i, 1, int(a.active[i, 1]), 0] < a.pp[i, 1, int(a.active[i, 1]), 0]
            hit = b.hp[i, 0, int(b.active[i, 0])] < a.hp[i, 0, int(b.active[i, 0])]     # p1 switched first
            if spun and hit and b.hp[i, 1, int(b.active[i, 1])] > 0:
                assert not b.seeded[i, 1]
                removed += 1
    assert removed >= 8, removed


def test_l2_both_seeded_in_a_mirror_match(showdown9):
    """Mirror matches of non-Grass leads using Leech Seed on turns 1 to 3: both seeded after turn 1 (Leech Seed then
    failing on a seeded target), the two leechseed handlers tie on speed at each residual (a draw ordering them)."""
    count = 24
    users = [_row(s, ["leechseed", "protect"]) for s in ("blissey", "toxapex", "tinglu", "kingambit", "cinccino")]
    states, actions, sets, seeds = _led(users, None, count, 144, [[0, 0]] * 3)
    assert_identical(showdown9, states, actions, sets, seeds)
    both = sum(int(states[n].seeded[i].all()) for n in (2, 3) for i in range(count))
    assert both >= 20, both


def test_l2_no_heal_for_a_seeder_under_heal_block(showdown9):
    """p1's leads use Psychic Noise (its healblock volatile, 2 turns) on p2's, which seed them with Leech Seed: at the
    residuals after it the seeded p1 lead is drained, and p2's lead, damaged, gets none of it (healblock's
    ``onTryHeal``, its order 20 after leechseed's 8)."""
    count = 24
    noisy = [_row(s, ["psychicnoise"]) for s in ("espeon", "hatterene", "gardevoir", "azelf")]
    seeders = [_row(s, ["leechseed"]) for s in ("blissey", "toxapex", "cinccino")]          # none Dark (immune)
    states, actions, sets, seeds = _led(noisy, seeders, count, 145, [[0, 0], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    blocked = 0
    for i in range(count):
        a, b = states[0], states[1]                 # turn 1: the Psychic Noise and the Leech Seed, then the residual
        if any(st.active[i, s] != 0 or st.request[i] != S.REQUEST_MOVE for st in (a, b) for s in range(2)):
            continue
        if b.seeded[i, 0] and b.heal_block[i, 1] > 0 and b.hp[i, 0, 0] < a.hp[i, 0, 0]:
            assert b.hp[i, 1, 0] < a.hp[i, 1, 0], i          # hit by the Psychic Noise, none of the drain healed
            blocked += 1
    assert blocked >= 8, blocked


SALT = TABLES.move_index["saltcure"]


def _salted(states) -> dict:
    """Over consecutive move decisions: Salt Cures that added the volatile, turns ending with a salted active still in
    (its residual's damage), with both actives salted, salted Pokémon fainting."""
    seen = dict(salted=0, hurt=0, both=0, fainted=0)
    for a, b, i in move_requests(states):
        seen["both"] += int(b.salt_cure[i].all())
        for s in range(2):
            k = int(a.active[i, s])
            seen["salted"] += int(not a.salt_cure[i, s] and b.salt_cure[i, s])
            if a.salt_cure[i, s] and b.active[i, s] == k and b.hp[i, s, k] < a.hp[i, s, k]:
                seen["hurt"] += 1
                seen["fainted"] += int(b.hp[i, s, k] == 0)
    return seen


def test_salt_cure_battles_match_showdown(showdown9):
    """Salt Cure (``turn.salt_cure_moves()``): 32 battles of teams holding it on every Pokémon, chosen half the time,
    then 24 whose every Pokémon holds one of Salt Cure, Leech Seed and Toxic (the residual's leechseed, status and
    saltcure handlers in their orders 8, 9-10 and 13)."""
    assert turn.salt_cure_moves() == ["saltcure"] and "saltcure" in turn.restricted_moves()
    states, actions, sets, seeds = _battles(["saltcure"], 32, 151)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _salted(states)
    states, actions, sets, seeds = _battles(["saltcure", "leechseed", "toxic"], 24, 152)
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _salted(states).items():
        seen[key] += n
    assert seen["salted"] >= 60 and seen["hurt"] >= 100 and seen["both"] >= 10 and seen["fainted"] >= 5, seen


def test_l2_both_salted_in_a_mirror_match(showdown9):
    """Mirror matches of leads (Water and Steel types among them: a quarter of their max HP) using Salt Cure on turn 1:
    both salted, the two saltcure handlers tie on speed at each residual (a draw ordering them)."""
    count = 24
    users = [_row(s, ["saltcure", "protect"]) for s in ("garganacl", "corviknight", "toxapex", "blissey", "kingambit")]
    states, actions, sets, seeds = _led(users, None, count, 153, [[0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    both = sum(int(states[n].salt_cure[i].all()) for n in (1, 2) for i in range(count))
    assert both >= 20, both
