"""L3 and L2 of the Fangs, Fake Out and confusion: Gen 9 battles of ``turn.step`` against Showdown, state
and PRNG after every decision (the comparison of ``test_l3_restricted.py``, which includes each active's
``confusion`` turns and whether it has moved since switching in, Fake Out's condition).

Teams are restricted pool teams each of whose Pokémon is given one of the moves under test as its
first move (Showdown builds a battle of given sets without validating them); the players pick those
moves half the time: the Fangs' two secondary draws (status, then flinch), Fake Out's first-turn
``onTry`` (a failed one spends its PP and draws nothing), a confusion secondary's turns
``random(2, 6)``, the confused Pokémon's ``BeforeMove`` (its turns, ``randomChance(33, 100)``, the
self-hit's damage roll, a self-hit fainting its user), switching out curing it.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from pokejax.gen9 import state as S
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    MAX_DECISIONS,
    TABLES,
    _usable_teams,
    assert_identical,
    move_decisions,
    move_mask,
    play,
)

FANGS = [m for m in turn.flinch_moves() if m.endswith("fang")]
FIRST_TURN = ["fakeout"]
CONFUSERS = turn.confusion_moves()


def _given(team: list, moves: list[str], rng: np.random.Generator) -> list:
    """``team`` (pool rows) with each Pokémon's first move replaced by one of ``moves`` (kept first
    by ``turn.restricted_team``)."""
    out = []
    for row in team:
        row = list(row)
        row[5] = [str(rng.choice(moves))] + [m for m in row[5] if m not in moves][1:]
        out.append(row)
    return out


def _battles(moves: list[str], count: int, seed: int, prefer: float = 0.5, scripted=None, leads=None,
             max_decisions: int = MAX_DECISIONS):
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    p1 = [_given(DOCUMENT["teams"][int(n)], moves, rng) for n in rng.choice(usable, count)]
    p2 = [_given(DOCUMENT["teams"][int(n)], moves if leads is None else leads, rng) for n in rng.choice(usable, count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, scripted, boost=prefer, prefer=move_mask(moves), max_decisions=max_decisions)
    return states, actions, sets, seeds


def test_moves_are_covered():
    assert {"firefang", "icefang"} <= set(FANGS)
    assert "fakeout" in turn.FIRST_TURN_MOVES and "fakeout" in turn.flinch_moves()
    assert {"dynamicpunch", "waterpulse", "strangesteam"} <= set(CONFUSERS) <= set(turn.restricted_moves())


def test_fang_and_fake_out_battles_match_showdown(showdown9):
    """24 battles of teams holding a Fang or Fake Out on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(FANGS + FIRST_TURN, 24, 51)
    assert_identical(showdown9, states, actions, sets, seeds)
    # the Fangs' status secondaries did land somewhere (a burn or a freeze)
    assert sum(int(((st.status == S.BRN) | (st.status == S.FRZ)).sum()) for st in states) > 0


def test_triple_arrows_battles_match_showdown(showdown9):
    """24 battles of teams holding Triple Arrows on every Pokémon (two secondaries, -1 Defense at 50 % then a flinch
    at 30 %, a ``random(100)`` each, the stages set before the second draw; a high crit ratio), chosen half the time."""
    assert "triplearrows" in turn.flinch_moves() and "triplearrows" in turn.boost_moves()
    states, actions, sets, seeds = _battles(["triplearrows"], 24, 55)
    assert_identical(showdown9, states, actions, sets, seeds)
    dropped = flinched = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move == "triplearrows" and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] > 0:
            dropped += int(b.boosts[i, 1 - s, 1] < a.boosts[i, 1 - s, 1])
            flinched += int(b.pp[i, 1 - s, f].sum() == a.pp[i, 1 - s, f].sum() and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
    assert dropped >= 10 and flinched >= 2, (dropped, flinched)


def test_confusion_battles_match_showdown(showdown9):
    """24 battles of teams holding Dynamic Punch, Water Pulse or Strange Steam on every Pokémon,
    chosen half the time."""
    states, actions, sets, seeds = _battles(CONFUSERS, 24, 52)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert sum(int((st.confusion > 0).sum()) for st in states) >= 20


def test_confusion_battles_match_showdown_more(showdown9):
    """24 more battles, the confusion moves chosen 80 % of the time (more self-hits, self-KOs)."""
    states, actions, sets, seeds = _battles(CONFUSERS, 24, 53, prefer=0.8)
    assert_identical(showdown9, states, actions, sets, seeds)


def test_l2_fake_out_works_on_the_first_turn_only(showdown9):
    """p1's lead uses Fake Out three turns running, p2's lead attacks: the first one hits first (priority
    +3) and makes the target flinch (p2 spends no PP); the second and third fail (their PP spent,
    the target's HP unchanged by them)."""
    count = 24
    scripted = [[[0, 0]] * 3 for _ in range(count)]
    states, actions, sets, seeds = _battles(FIRST_TURN, count, 54, prefer=0.0, scripted=scripted, leads=CONFUSERS)
    assert_identical(showdown9, states, actions, sets, seeds)
    first_hits = later_fails = 0
    for i in range(count):
        if actions[i][:3] != [[0, 0]] * 3 or any(st.request[i] != S.REQUEST_MOVE for st in states[:3]):
            continue
        if any(st.active[i].tolist() != [0, 0] for st in states[:4]):
            continue
        a, b = states[0], states[1]
        ghost = TABLES.type_index["Ghost"] in a.types[i, 1, 0].tolist()
        if not ghost and b.hp[i, 1, 0] < a.hp[i, 1, 0] and b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0]:
            first_hits += 1
        for a, b in zip(states[1:3], states[2:4]):
            assert b.pp[i, 0, 0, 0] == a.pp[i, 0, 0, 0] - 1 or a.status[i, 0, 0] != 0 or a.confusion[i, 0] > 0
            # p2's damage to p1 aside, p1's failed Fake Out leaves p2's HP as it was
            later_fails += int(b.hp[i, 1, 0] == a.hp[i, 1, 0])
    assert first_hits >= 8 and later_fails >= 16, (first_hits, later_fails)


def test_l2_confused_pokemon_hit_themselves(showdown9):
    """p1's lead uses Dynamic Punch (100 % confusion) every turn, p2's lead attacks: p2 is confused,
    sometimes hits itself (no PP spent, HP lost), and its confusion runs out."""
    count = 48
    scripted = [[[0, 0]] * 10 for _ in range(count)]
    states, actions, sets, seeds = _battles(["dynamicpunch"], count, 55, prefer=0.0, scripted=scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    self_hits = ended = 0
    for a, b in zip(states, states[1:]):
        for i in range(count):
            if a.request[i] != S.REQUEST_MOVE or a.active[i, 1] != b.active[i, 1] or a.confusion[i, 1] == 0:
                continue
            k = a.active[i, 1]
            still = (b.pp[i, 1, k] == a.pp[i, 1, k]).all() and a.status[i, 1, k] == 0 and not a.flinch[i, 1]
            self_hits += int(still and a.confusion[i, 1] > 1 and 0 < b.hp[i, 1, k] < a.hp[i, 1, k])
            ended += int(a.confusion[i, 1] == 1 and b.confusion[i, 1] == 0 and b.hp[i, 1, k] > 0)
    assert self_hits >= 5 and ended >= 5, (self_hits, ended)
