"""L3 and L2 of the moves moving HP besides their damage (``turn.hp_moves()``): recoil, drain, healing.
Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision (the comparison of
``test_l3_restricted.py``).

Teams are restricted pool teams each of whose Pokémon is given one of the moves under test as its
first move (Showdown builds a battle of given sets without validating them); the players pick those
moves often: recoil (Math.round of the damage dealt's fraction, at least 1, after the hit loop's
faints; the user fainting by it, both sides out), drain (Math.round of the damage dealt's fraction,
nothing at full HP), the ``heal`` moves (Math.round of the max HP's half; failing at full HP with no
Update), Roost (its ``roost`` volatile: the user's Flying type gone for the foe's move of the turn, a
tie of two roost handlers at the residual), Synthesis and its kin (``modify(maxhp, 0.5)``, floored;
at full HP NOT_FAIL), Strength Sap and Pain Split.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import masks, turn
from pokejax.gen9 import state as S
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    move_mask,
    move_requests,
    play,
)

HP = turn.hp_moves()
KIND = turn._hp_tables()["heal_kind"]
RECOIL = [m for m in HP if turn._hp_tables()["recoil_mul"][TABLES.move_index[m]] > 0]
DRAIN = [m for m in HP if KIND[TABLES.move_index[m]] == turn.HEAL_DRAIN]
HEAL = [m for m in HP if KIND[TABLES.move_index[m]] > turn.HEAL_DRAIN]


def _kinds(states, moves) -> dict:
    """Over consecutive move decisions: uses of ``moves`` (their PP spent), of them by a user at full
    HP, users of them that gained HP, that lost HP, that fainted; turns where both actives fainted."""
    seen = dict(used=0, full=0, gained=0, lost=0, user_fainted=0, both_fainted=0)
    marked = move_mask(moves)
    for a, b, i in move_requests(states):
        for s in range(2):
            k = int(a.active[i, s])
            spent = (b.pp[i, s, k] < a.pp[i, s, k]) & marked[a.moves[i, s, k]]
            if b.active[i, s] != k or not spent.any():
                continue
            seen["used"] += 1
            seen["full"] += int(a.hp[i, s, k] == a.max_hp[i, s, k])
            seen["gained"] += int(b.hp[i, s, k] > a.hp[i, s, k])
            seen["lost"] += int(b.hp[i, s, k] < a.hp[i, s, k])
            seen["user_fainted"] += int(b.hp[i, s, k] == 0)
        ka, kb = int(a.active[i, 0]), int(a.active[i, 1])
        seen["both_fainted"] += int(b.hp[i, 0, ka] == 0 and b.hp[i, 1, kb] == 0 and a.hp[i, 0, ka] > 0
                                    and a.hp[i, 1, kb] > 0)
    return seen


def test_moves_are_covered():
    assert {"bravebird", "doubleedge", "flareblitz", "wavecrash", "woodhammer", "wildcharge", "headsmash",
            "volttackle"} <= set(RECOIL)
    assert {"drainpunch", "gigadrain", "drainingkiss", "leechlife", "hornleech", "bitterblade"} <= set(DRAIN)
    assert {"recover", "roost", "slackoff", "softboiled", "milkdrink", "synthesis", "moonlight", "morningsun",
            "shoreup", "strengthsap", "painsplit"} <= set(HEAL)
    assert set(HP) <= set(turn.restricted_moves())


def test_recoil_battles_match_showdown(showdown9):
    """24 battles of teams holding a recoil move on every Pokémon, chosen 70 % of the time."""
    states, actions, sets, seeds = _battles(RECOIL, 24, 61, prefer=0.7)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _kinds(states, RECOIL)
    print(seen)
    assert seen["used"] >= 150 and seen["lost"] >= 100 and seen["user_fainted"] >= 5, seen
    assert seen["both_fainted"] >= 1, seen


def test_drain_and_heal_battles_match_showdown(showdown9):
    """24 battles of teams holding a drain or healing move on every Pokémon, chosen 60 % of the time."""
    states, actions, sets, seeds = _battles(DRAIN + HEAL, 24, 62, prefer=0.6)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _kinds(states, DRAIN + HEAL)
    print(seen)
    assert seen["used"] >= 150 and seen["gained"] >= 60 and seen["full"] >= 10, seen


def test_hp_battles_match_showdown_mixed(showdown9):
    """24 battles of teams holding any of them (recoil against healing), chosen 60 % of the time."""
    states, actions, sets, seeds = _battles(HP, 24, 63, prefer=0.6)
    assert_identical(showdown9, states, actions, sets, seeds)


def _row(species: str, moves: list[str]) -> list:
    """The first pool row of ``species`` with ``moves`` first."""
    for team in DOCUMENT["teams"]:
        for row in team:
            if row[0] == species:
                row = list(row)
                row[5] = list(moves) + [m for m in row[5] if m not in moves]
                return row
    raise KeyError(species)


def _led(leads1: list[list], leads2: list[list] | None, count: int, seed: int, scripted):
    """``count`` battles of usable pool teams led by rows of ``leads1`` and ``leads2`` (in turn; None: a
    mirror match, p2 the same team as p1), the leads' ``scripted`` actions first, then random ones."""
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    p1, p2 = [], []
    for i, (a, b) in enumerate(zip(rng.choice(usable, count), rng.choice(usable, count))):
        team = [leads1[i % len(leads1)]] + DOCUMENT["teams"][int(a)][1:]
        p1.append(team)
        p2.append(team if leads2 is None else [leads2[i % len(leads2)]] + DOCUMENT["teams"][int(b)][1:])
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, [scripted] * count)
    return states, actions, sets, seeds


def test_l2_roost_loses_flying_for_the_turn(showdown9):
    """Fast Flying types (Talonflame, Braviary, Noivern, Zapdos, Tornadus) use Brave Bird (its recoil),
    then Roost each turn; slow Ground types use Earthquake: immune on turn 1, hit after each successful
    Roost (Fire/Flying Talonflame then weak to it; Normal/Flying Braviary neutral; pure Flying Tornadus
    Normal)."""
    count = 24
    flyers = [_row(s, ["roost", "bravebird"]) for s in ("talonflame", "braviary", "noivern", "zapdos", "tornadus")]
    ground = [_row(s, ["earthquake"]) for s in ("hippowdon", "quagsire", "clodsire", "mudsdale", "rhyperior")]
    states, actions, sets, seeds = _led(flyers, ground, count, 64, [[1, 0]] + [[0, 0]] * 4)
    assert_identical(showdown9, states, actions, sets, seeds)
    immune = grounded = 0
    for i in range(count):
        if any(st.active[i, 0] != 0 or st.request[i] != S.REQUEST_MOVE for st in states[:5]):
            continue
        immune += int(states[1].hp[i, 0, 0] == states[0].hp[i, 0, 0] or states[1].hp[i, 1, 0] < states[0].hp[i, 1, 0])
        for a, b in zip(states[1:4], states[2:5]):
            healed = min(int(a.max_hp[i, 0, 0]) - int(a.hp[i, 0, 0]), (int(a.max_hp[i, 0, 0]) + 1) // 2)
            grounded += int(a.hp[i, 0, 0] < a.max_hp[i, 0, 0] and b.hp[i, 0, 0] < a.hp[i, 0, 0] + healed)
    assert immune >= 10 and grounded >= 20, (immune, grounded)


def test_l2_terastallized_roost_keeps_no_volatile(showdown9):
    """Mirror matches: both leads use Brave Bird, then both Terastallize and Roost (the ``roost`` volatile's
    ``onStart`` fails on a Terastallized user: no residual handlers, no tie draw), then Brave Bird and
    Roost again."""
    count = 24
    tera = masks.ACTION_TERA_BASE
    leads = [_row(s, ["roost", "bravebird"]) for s in ("talonflame", "braviary", "noivern", "zapdos", "corviknight",
                                                      "skarmory")]
    states, actions, sets, seeds = _led(leads, None, count, 69, [[1, 1], [tera, tera], [1, 1], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    assert sum(int(states[2].terastallized[i, :, 0].all()) for i in range(count)) >= 12


def test_l2_heal_at_full_hp_in_a_speed_tie_mirror(showdown9):
    """Mirror matches (speed ties: a draw for every Update) of leads using Recover at full HP (it fails:
    no Update), then Synthesis at full HP (NOT_FAIL: the hit's Updates run), then attacking, then
    Recover and Synthesis again (healing: Math.round, then floored halves)."""
    count = 24
    leads = [_row(s, ["recover", "synthesis", "doubleedge"]) for s in ("garchomp", "dragonite", "hippowdon",
                                                                        "swampert", "gyarados", "tinglu")]
    states, actions, sets, seeds = _led(leads, None, count, 65, [[0, 0], [1, 1], [2, 2], [0, 1], [1, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    failed = sum(int((st.hp[:, :, 0] == st.max_hp[:, :, 0]).all(-1).sum()) for st in states[1:3])
    assert failed >= 40, failed


def test_l2_both_roost_in_a_speed_tie_mirror(showdown9):
    """Mirror matches: both leads use Brave Bird, then both Roost (two ``roost`` handlers at the residual,
    tied on speed: a draw)."""
    count = 24
    leads = [_row(s, ["roost", "bravebird"]) for s in ("talonflame", "braviary", "noivern", "zapdos", "corviknight",
                                                      "skarmory")]
    states, actions, sets, seeds = _led(leads, None, count, 66, [[1, 1], [0, 0], [1, 1], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)


def test_l2_fainted_speed_is_the_speed_stat(showdown9):
    """Mirror matches: both leads badly poisoned (Toxic), p1's lead +1 Speed (Dragon Dance), then Head
    Smash against Double-Edge until one faints (by the hit or its own recoil): at the residual the
    fainted one's tox handler is sorted by its raw Speed stat (``clearVolatile``'s ``setSpecies``), a
    tie with the other lead's (a draw), not by its boosted speed."""
    count = 24
    leads = [_row(s, ["toxic", "dragondance", "headsmash", "doubleedge"]) for s in
             ("garchomp", "dragonite", "gyarados", "tyranitar", "hippowdon", "swampert")]
    states, actions, sets, seeds = _led(leads, None, count, 67, [[0, 0], [1, 3]] + [[2, 3]] * 6)
    assert_identical(showdown9, states, actions, sets, seeds)
    reached = 0
    for a, b in zip(states, states[1:]):
        for i in range(count):
            k0, k1 = int(a.active[i, 0]), int(a.active[i, 1])
            reached += int(a.request[i] == S.REQUEST_MOVE and k0 == 0 and a.boosts[i, 0, 4] > 0
                           and b.hp[i, 0, 0] == 0 and a.status[i, 0, 0] == S.TOX and b.hp[i, 1, k1] > 0
                           and b.status[i, 1, k1] == S.TOX)
    assert reached >= 3, reached


def test_l2_strength_sap_to_minus_six(showdown9):
    """p1's lead uses Strength Sap seven turns running against a lead using Recover: -1 Attack each time
    (healing its user by the Attack before), the seventh one failing at -6 (its PP spent, no Update)."""
    count = 24
    sappers = [_row(s, ["strengthsap"]) for s in ("breloom", "amoonguss", "lurantis", "tsareena")]
    targets = [_row(s, ["recover", "doubleedge"]) for s in ("garchomp", "dragonite", "hippowdon", "swampert")]
    states, actions, sets, seeds = _led(sappers, targets, count, 68, [[0, 0]] * 7)
    assert_identical(showdown9, states, actions, sets, seeds)
    bottom = sum(int(states[7].boosts[i, 1, 0] == -6 and states[7].pp[i, 0, 0, 0] == states[0].pp[i, 0, 0, 0] - 7)
                 for i in range(count))
    assert bottom >= 10, bottom
