"""L3 and L2 of the battle-dependent damaging moves (``turn.power_moves()``): Gen 9 battles of
``turn.step`` against Showdown, state and PRNG after every decision (``test_l3_restricted.py``'s
comparison).

Teams are restricted pool teams (``turn.restricted_team``) holding a move of ``turn.power_moves()``;
the players pick one of them half the time: Knock Off with no item, Sucker Punch succeeding and failing
(``onTry``: no draw), Poltergeist failing, Tera Blast's type and category once Terastallized, Facade
under a status (and no burn halving), Hex against a status, Stored Power with raised stages, the weight
moves, Super Fang, Eruption and Water Spout by their user's HP, Payback and Avalanche; Ruination leads using it
every turn (half the target's HP); Power Trip after Shell Smash and Dragon Energy leads.

L2 scenarios: Sucker Punch leads against a status move, an attack and a switch (failing, hitting,
failing); Tera Blast leads Terastallizing on turn 1 (the Tera type, Physical for users whose Atk beats
their SpA); Poltergeist leads (failing every turn, PP spent); Facade against leads inflicting a status
(doubled, a burn not halving it); Hex after its user's status move; Stored Power after stage-raising
moves; Payback and Avalanche leads against foes using their first move.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    draw_battles,
    holder_runs,
    holders_leading,
    led_by,
    move_decisions,
    move_mask,
    play,
    preferring_battles,
    teams_holding,
)

L2_DECISIONS = 10    # the scripted turns and a few after them (not the battles' ends)
POWER_MOVES = np.zeros(len(TABLES.move_ids), bool)
POWER_MOVES[[TABLES.move_index[m] for m in turn.power_moves()]] = True


def _power_teams() -> list[int]:
    """Usable teams with at least one move of ``turn.power_moves()`` once restricted."""
    return teams_holding(POWER_MOVES)


def _uses(states, actions) -> dict:
    """Per power move, the decisions where a side chose it (and the effect seen): ``hit`` where the foe
    lost HP; Sucker Punch's and Poltergeist's failures (the foe's HP unchanged with its user moving and
    the foe up); Facade under a status; Tera Blast by a Terastallized user; Hex against a status;
    Stored Power with a raised stage."""
    seen = {m: 0 for m in turn.power_moves()}
    seen.update(hit=0, sucker_fail=0, sucker_hit=0, poltergeist_fail=0, facade_status=0, facade_burned=0,
                terablast_tera=0, hex_status=0, stored_boosted=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in seen:
            continue
        seen[move] += 1
        lost = b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        spent = b.pp[i, s, k, act % 4] < a.pp[i, s, k, act % 4]
        seen["hit"] += int(lost)
        up = b.hp[i, 1 - s, f] > 0 and b.active[i, 1 - s] == f and a.active[i, 1 - s] == f
        if move in ("suckerpunch", "thunderclap") and spent:
            seen["sucker_hit" if lost else "sucker_fail"] += int(lost or up)
        if move == "poltergeist" and spent and up:
            seen["poltergeist_fail"] += int(not lost)
        seen["facade_status"] += int(move == "facade" and a.status[i, s, k] not in (0, S.SLP) and bool(lost))
        seen["facade_burned"] += int(move == "facade" and a.status[i, s, k] == S.BRN and bool(lost))
        seen["terablast_tera"] += int(move == "terablast" and (b.terastallized[i, s, k] or act >= 4) and bool(lost))
        seen["hex_status"] += int(move == "hex" and a.status[i, 1 - s, f] != 0 and bool(lost))
        seen["stored_boosted"] += int(move == "storedpower" and (a.boosts[i, s] > 0).any() and bool(lost))
    return seen


def test_power_battles_match_showdown(showdown9):
    """64 battles of teams with power moves, chosen half the time."""
    states, actions = preferring_battles(showdown9, _power_teams(), 64, 61, POWER_MOVES, min_teams=200)
    seen = _uses(states, actions)
    assert seen["knockoff"] >= 50 and seen["hit"] >= 150, seen
    assert seen["sucker_fail"] >= 1 and seen["sucker_hit"] >= 1, seen
    used = [m for m in turn.power_moves() if seen[m]]
    assert len(used) >= 10, seen


def test_revelation_dance_battles_match_showdown(showdown9):
    """32 battles of teams holding Revelation Dance (the Oricorio formes), chosen nine times in ten, against any
    usable teams: its type is its user's first current type (the form's type; the Tera type once Terastallized,
    the random play Terastallizing a quarter of the time)."""
    rng = np.random.default_rng(63)
    dancers = teams_holding(move_mask(["revelationdance"]))
    assert len(dancers) >= 10, len(dancers)
    count = 32
    p1, p2, seeds = draw_battles(rng, dancers, count, _usable_teams())
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.9, prefer=move_mask(["revelationdance"]))
    assert_identical(showdown9, states, actions, sets, seeds)
    types, tera = set(), 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move == "revelationdance":
            types.add(int(a.types[i, s, k, 0]))
            tera += int(act >= 4 or a.terastallized[i, s, k])
    assert len(types) >= 3 and tera >= 3, (types, tera)


def test_ruination_battles_match_showdown(showdown9):
    """Every team holding Ruination leads with its holder, which uses it whenever it may, against any usable teams
    (two battles a team): half the target's HP, floored, at least 1, with no crit or roll draw (its
    ``damageCallback``), Dark's type chart (Tera types too), a miss's accuracy draw."""
    rng = np.random.default_rng(64)
    leads = holders_leading(["ruination"]) * 2
    assert len(leads) >= 12, len(leads)
    p2, _, seeds = draw_battles(rng, _usable_teams(), len(leads))
    scripted = [[[k, -1]] * 6 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    halved = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move == "ruination" and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]:
            halved += int(b.hp[i, 1 - s, f] == a.hp[i, 1 - s, f] - max(a.hp[i, 1 - s, f] // 2, 1))
    assert halved >= 20, halved


def test_power_trip_and_dragon_energy_battles_match_showdown(showdown9):
    """Power Trip (Stored Power's rule: 20 + 20 per positive stage of its user) and Dragon Energy (Eruption's: 150 *
    hp / maxhp): every team holding one leads with its holder against any usable teams (three battles a team); Power
    Trip's holder uses Shell Smash first, then Power Trip whenever it may; Dragon Energy's every turn (its power
    falling with its user's HP)."""
    rng = np.random.default_rng(65)
    leads = holders_leading(["powertrip", "dragonenergy"]) * 3
    assert len(leads) >= 20, len(leads)
    p2, _, seeds = draw_battles(rng, _usable_teams(), len(leads))
    scripted = []
    for team, k in leads:
        moves = turn.restricted_team(team)[0][5]
        smash = [[moves.index("shellsmash"), -1]] if "shellsmash" in moves else []
        scripted.append(smash + [[k, -1]] * (6 - len(smash)))
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = dict(trip_boosted=0, energy_hurt=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        lost = b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        seen["trip_boosted"] += int(move == "powertrip" and (a.boosts[i, s] > 0).any() and bool(lost))
        seen["energy_hurt"] += int(move == "dragonenergy" and a.hp[i, s, k] < a.max_hp[i, s, k] and bool(lost))
    assert seen["trip_boosted"] >= 5 and seen["energy_hurt"] >= 5, seen


# the foes' moves against Stomping Tantrum's and Temper Flare's leads: Protect blocks them (null: no doubling), Spore's
# sleep and Thunder Wave's full paralysis stop them in BeforeMove (false: doubled next turn)
TANTRUM_FOES = ("protect", "spore", "thunderwave")
TANTRUM_MOVES = ("stompingtantrum", "temperflare")


def test_stomping_tantrum_battles_match_showdown(showdown9):
    """Stomping Tantrum and Temper Flare (doubled when their user's move failed last turn: ``moveLastTurnResult ===
    false``, ``BattleState.move_failed_last``, which every L3 record compares): every team holding one leads with its
    holder, which uses it whenever it may, against leads using one of ``TANTRUM_FOES`` every turn (two battles a team)
    and against any usable teams (Ground into a Flying type: immune, false), then 32 random battles of those teams
    choosing it half the time."""
    rng = np.random.default_rng(66)
    users = teams_holding(move_mask(TANTRUM_MOVES))
    assert len(users) >= 30, len(users)
    leads = holders_leading(TANTRUM_MOVES, users)
    holders = {m: holders_leading((m,), teams_holding(move_mask((m,)))) for m in TANTRUM_FOES}
    foes = [holders[m][int(rng.integers(len(holders[m])))] for m in np.resize(TANTRUM_FOES, 2 * len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in foes]
    scripted = [[[k, j]] * 6 for (_, k), (_, j) in zip(leads * 2, foes)]
    runs = [play([t for t, _ in leads * 2], [t for t, _ in foes], seeds, rng, scripted, max_decisions=10) + (seeds,)]
    p2, _, seeds = draw_battles(rng, _usable_teams(), len(leads))
    runs.append(play([t for t, _ in leads], p2, seeds, rng, [[[k, -1]] * 6 for _, k in leads], max_decisions=10)
                + (seeds,))
    p1, p2, seeds = draw_battles(rng, users, 32)
    runs.append(play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(TANTRUM_MOVES)) + (seeds,))
    seen = dict(doubled=0, plain=0, failed_last=0)
    for states, actions, sets, seeds in runs:
        assert_identical(showdown9, states, actions, sets, seeds)
        for a, b, i, s, k, f, act, move in move_decisions(states, actions):
            seen["failed_last"] += int(a.move_failed_last[i, s])
            if move in TANTRUM_MOVES and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]:
                seen["doubled" if a.move_failed_last[i, s] else "plain"] += 1
    assert seen["doubled"] >= 10 and seen["plain"] >= 30, seen


def test_photon_geyser_battles_match_showdown(showdown9):
    """Photon Geyser (Physical when its user's Atk with stages beats its SpA: its ``onModifyMove``): every team holding
    it leads with its holder, which uses Dragon Dance or Calm Mind (if it holds one) twice, then Photon Geyser
    whenever it may, against any usable teams (four battles a team); then 24 random battles of those teams choosing it
    half the time."""
    def script(team, k):
        moves = turn.restricted_team(team)[0][5]
        setup = [[moves.index(m), -1] for m in moves if m in ("dragondance", "calmmind")][:1]
        return setup * 2 + [[k, -1]] * 5

    runs = holder_runs(showdown9, ["photongeyser"], np.random.default_rng(67), copies=4, min_leads=30, script=script)
    seen = dict(physical=0, special=0)
    for states, actions, *_ in runs:
        for a, b, i, s, k, f, act, move in move_decisions(states, actions):
            if move == "photongeyser" and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]:
                atk, spa = (boosted(a.stats[i, s, k, j], a.boosts[i, s, j]) for j in (0, 2))   # Atk, SpA
                seen["physical" if atk > spa else "special"] += 1
    assert seen["physical"] >= 10 and seen["special"] >= 10, seen


def boosted(stat: int, stage: int) -> int:
    """A stat with its stage (Showdown's ``getStat`` without modifiers)."""
    scale = [1, 1.5, 2, 2.5, 3, 3.5, 4][abs(int(stage))]
    return int(stat * scale) if stage >= 0 else int(stat / scale)


def test_cantusetwice_battles_match_showdown(showdown9):
    """Gigaton Hammer and Blood Moon (``cantusetwice``: the request disables the move its user used last,
    ``masks.disabled``): every team holding one leads with its holder, which picks it whenever the request offers it,
    against any usable teams (three battles a team), then 32 random battles of those teams choosing it half the time.
    Every L3 record compares the request's move list, so each disabled slot is checked against Showdown's."""
    twice = ["gigatonhammer", "bloodmoon"]
    runs = holder_runs(showdown9, twice, np.random.default_rng(68), copies=3, min_leads=30, random_count=32, turns=8)
    held = 0
    for states, *_ in runs:
        for st in states:
            for i in range(len(st.turn)):
                for s in range(2):
                    slot = int(st.last_move[i, s])
                    k = int(st.active[i, s])
                    held += int(st.request[i] == S.REQUEST_MOVE and 0 <= slot < 4 and st.hp[i, s, k] > 0
                                and TABLES.move_ids[int(st.moves[i, s, k, slot])] in twice)
    assert held >= 40, held


def test_fickle_beam_battles_match_showdown(showdown9):
    """Fickle Beam (its ``onBasePower``: ``randomChance(3, 10)`` between the crit and the damage roll, doubling its
    power): every team holding it leads with its holder, which uses it whenever it may, against any usable teams (four
    battles a team); then 24 random battles of those teams choosing it half the time. The PRNG state after every
    decision places the draw; the HP the power."""
    runs = holder_runs(showdown9, ["ficklebeam"], np.random.default_rng(69), copies=4, min_leads=20)
    hits = sum(int(move == "ficklebeam" and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
               for states, actions, *_ in runs for a, b, i, s, k, f, act, move in move_decisions(states, actions))
    assert hits >= 40, hits


def _leads_with(move: str, count: int, where=lambda lead: True) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose restricted lead has ``move``."""
    found = []
    for n in _usable_teams():
        lead = turn.restricted_team(DOCUMENT["teams"][n])[0]
        if move in lead[5] and where(lead):
            found.append((n, lead[5].index(move)))
        if len(found) == count:
            break
    return found


def _lead_slot(team: list, kind: str) -> int:
    """The slot of the restricted lead's first status move (``kind`` "status") or damaging move, or -1."""
    for k, m in enumerate(turn.restricted_team(team)[0][5]):
        status = TABLES.move_category[TABLES.move_index[m]] == tables.STATUS
        if status == (kind == "status") and (kind == "status" or m not in ("suckerpunch", "thunderclap", "poltergeist")):
            return k
    return -1


def test_l2_sucker_punch(showdown9):
    """p1's lead uses Sucker Punch three turns running; p2's lead uses a status move on turn 1 (Sucker
    Punch fails: PP spent, no hit, no draw), a damaging move on turn 2 (it hits first), then switches
    (it fails)."""
    leads = _leads_with("suckerpunch", 24)
    assert len(leads) >= 12, leads
    seen = _against_status_attack_switch(showdown9, [(DOCUMENT["teams"][n], k) for n, k in leads], 62)
    assert seen["sucker_fail"] >= 10 and seen["sucker_hit"] >= 5, seen


def _against_status_attack_switch(bridge, leads: list, seed: int) -> dict:
    """``leads`` (team, slot) use their move three turns running against foes whose lead uses a status move, then a
    damaging move, then switches; asserted identical to Showdown; ``_uses`` of the battles."""
    rng = np.random.default_rng(seed)
    foes = [n for n in _usable_teams() if _lead_slot(DOCUMENT["teams"][n], "status") >= 0
            and _lead_slot(DOCUMENT["teams"][n], "attack") >= 0]
    p2 = [int(n) for n in rng.choice(foes, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, _lead_slot(DOCUMENT["teams"][f], "status")], [k, _lead_slot(DOCUMENT["teams"][f], "attack")],
                 [k, 9]] for (_, k), f in zip(leads, p2)]
    states, actions, sets = play([t for t, _ in leads], [DOCUMENT["teams"][n] for n in p2], seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(bridge, states, actions, sets, seeds)
    return _uses(states, actions)


def test_l2_endeavor(showdown9):
    """Endeavor leads (moved to the lead) use it three turns running against random teams, and random battles of its
    holders choosing it half the time: the target left at its user's HP (the damage into a substitute too), the move
    failing where its user has as much HP as the target or more (``onTryImmunity``: no accuracy draw), Ghosts immune."""
    rng = np.random.default_rng(65)
    leads = holders_leading(("endeavor",))
    assert len(leads) >= 8, len(leads)
    leads = [leads[int(k)] for k in rng.choice(len(leads), 24)]
    foes = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], foes, seeds, rng, scripted, max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _endeavors(states, actions)
    holders = teams_holding(move_mask(("endeavor",)))
    p1, p2, seeds = draw_battles(rng, holders, 24, _usable_teams())
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(("endeavor",)))
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _endeavors(states, actions).items():
        seen[key] += n
    assert seen["levelled"] >= 8 and seen["failed"] >= 4, seen


def _endeavors(states, actions) -> dict:
    """Endeavor uses (PP spent, the same foe up before): those leaving the foe at its user's HP, those changing nothing."""
    seen = dict(levelled=0, failed=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move != "endeavor" or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or a.hp[i, 1 - s, f] == 0:
            continue
        if b.active[i, 1 - s] == f:
            seen["levelled"] += int(b.hp[i, 1 - s, f] == a.hp[i, s, k] < a.hp[i, 1 - s, f])
            seen["failed"] += int(b.hp[i, 1 - s, f] == a.hp[i, 1 - s, f] and a.sub_hp[i, 1 - s] == b.sub_hp[i, 1 - s])
    return seen


def test_l2_electro_drift_and_collision_course(showdown9):
    """Electro Drift and Collision Course leads (``POWER_SUPER_BOOST``: power x 5461/4096, truncated, against a target
    their type is super effective on, by its current types) use their move three turns running against random teams,
    the foes Terastallizing on their first turn half the time."""
    from pokejax.gen9 import damage

    rng = np.random.default_rng(66)
    leads = holders_leading(("electrodrift",)) + holders_leading(("collisioncourse",))
    assert len(leads) >= 8, len(leads)
    leads = [leads[int(k)] for k in rng.choice(len(leads), 32)]
    foes = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 4 if rng.random() < 0.5 else 0], [k, 0], [k, 0]] for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], foes, seeds, rng, scripted, max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    boosted = plain = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in ("electrodrift", "collisioncourse") or b.active[i, 1 - s] != f:
            continue
        if b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f] and b.pp[i, s, k, act % 4] < a.pp[i, s, k, act % 4]:
            tera = int(a.tera_type[i, 1 - s, f]) if a.terastallized[i, 1 - s, f] else tables.TYPE_NONE
            _, mod = damage.effectiveness(TABLES.move_type[TABLES.move_index[move]], a.types[i, 1 - s, f], tera)
            boosted, plain = boosted + int(mod > 0), plain + int(mod <= 0)
    assert boosted >= 6 and plain >= 6, (boosted, plain)


def test_l2_thunderclap(showdown9):
    """Thunderclap (its ``onTry`` is Sucker Punch's, ``POWER_SUCKER``), its holder moved to the lead, three turns
    running as in ``test_l2_sucker_punch``: against a status move (it fails), a damaging move (it hits first), a
    switch (it fails)."""
    leads = holders_leading(("thunderclap",))
    assert len(leads) >= 10, len(leads)
    seen = _against_status_attack_switch(showdown9, leads[:24], 64)
    assert seen["thunderclap"] >= 20 and seen["sucker_fail"] >= 8 and seen["sucker_hit"] >= 4, seen


def test_l2_tera_blast(showdown9):
    """p1's lead Terastallizes and uses Tera Blast on turn 1 and again on turn 2: its Tera type (immunities
    included), Physical for a lead whose Atk beats its SpA."""
    leads = _leads_with("terablast", 24)
    assert len(leads) >= 12, leads
    rng = np.random.default_rng(63)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[4 + k, 0], [k, 0]] for _, k in leads]
    states, actions, sets = play([DOCUMENT["teams"][n] for n, _ in leads], p2, seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    physical = sum(int(st.stats[i, 0, 0, 0] > st.stats[i, 0, 0, 2]) for st in states[:1] for i in range(len(leads)))
    assert physical >= 3 and _uses(states, actions)["terablast_tera"] >= 10


def test_l2_poltergeist(showdown9):
    """p1's lead uses Poltergeist three turns running: it fails every time (no item), its PP spent."""
    leads = _leads_with("poltergeist", 16)
    assert len(leads) >= 8, leads
    rng = np.random.default_rng(64)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k in leads]
    states, actions, sets = play([DOCUMENT["teams"][n] for n, _ in leads], p2, seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert _uses(states, actions)["poltergeist_fail"] >= 8


STATUSING = [m for m in turn.status_moves() if TABLES.move_category[TABLES.move_index[m]] == tables.STATUS
             and m not in ("hypnosis", "sleeppowder", "spore")]
RAISING = [m for m in turn.boost_moves() if TABLES.move_category[TABLES.move_index[m]] == tables.STATUS]


def _first(team: list, moves) -> int:
    """The slot of the restricted lead's first move among ``moves``, or -1."""
    lead = turn.restricted_team(team)[0][5]
    return next((k for k, m in enumerate(lead) if m in moves), -1)


def test_l2_facade_under_status(showdown9):
    """p1's lead uses Facade three turns running while p2's lead uses Will-O-Wisp, Thunder Wave, Toxic,
    Glare or Stun Spore on turn 1, then attacks: Facade doubled under the status, burned or not halved."""
    rng = np.random.default_rng(65)
    leads = led_by(("facade",), 32, rng)
    foes = [f for f, _ in led_by(STATUSING, 64, rng)]
    assert len(leads) >= 24 and len(foes) >= 32, (len(leads), len(foes))
    p2 = [foes[int(k)] for k in rng.choice(len(foes), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, _first(f, STATUSING)], [k, 0], [k, 0]] for (_, k), f in zip(leads, p2)]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _uses(states, actions)
    assert seen["facade_status"] >= 8 and seen["facade_burned"] >= 2, seen


def test_l2_hex_and_stored_power(showdown9):
    """Hex leads use their status move on turn 1, then Hex twice (doubled against the status); Stored
    Power leads use their stage-raising move twice, then Stored Power twice (20 more per stage)."""
    rng = np.random.default_rng(66)
    hex_leads, stored_leads = led_by(("hex",), 16, rng), led_by(("storedpower",), 24, rng)
    assert len(hex_leads) >= 12 and len(stored_leads) >= 20, (len(hex_leads), len(stored_leads))
    scripted = ([[[_first(t, STATUSING), 0], [k, 0], [k, 0]] for t, k in hex_leads]
                + [[[_first(t, RAISING), 0]] * 2 + [[k, 0]] * 2 for t, k in stored_leads])
    p1 = [t for t, _ in hex_leads + stored_leads]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(p1))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in p1]
    states, actions, sets = play(p1, p2, seeds, rng, scripted, max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _uses(states, actions)
    assert seen["hex_status"] >= 4 and seen["stored_boosted"] >= 8, seen


def _second_hits(states, actions, move: str) -> int:
    """Decisions where a side used ``move`` after the foe's damaging move hit it that turn (both up and
    moving; the foe's HP fell after the user's own move too)."""
    n_hits = 0
    for n, (a, b) in enumerate(zip(states, states[1:])):
        for i in range(len(a.turn)):
            if n >= len(actions[i]) or a.request[i] != S.REQUEST_MOVE or min(actions[i][n]) < 0 or max(actions[i][n]) >= 8:
                continue
            for s in range(2):
                k, f = int(a.active[i, s]), int(a.active[i, 1 - s])
                if TABLES.move_ids[int(a.moves[i, s, k, actions[i][n][s] % 4])] != move:
                    continue
                foe_move = int(a.moves[i, 1 - s, f, actions[i][n][1 - s] % 4])
                if TABLES.move_category[foe_move] == tables.STATUS:
                    continue
                n_hits += int(b.hp[i, s, k] < a.hp[i, s, k] and 0 < b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
    return n_hits


def test_l2_payback_and_avalanche(showdown9):
    """Payback and Avalanche leads use them three turns running against foes using their first move:
    Payback doubled after the foe moved (not after a switch, not before the foe), Avalanche (priority
    -4) doubled after the foe's move damaged its user."""
    rng = np.random.default_rng(67)
    leads = led_by(("payback",), 24, rng) + led_by(("avalanche",), 24, rng)
    assert len(leads) >= 12, len(leads)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted,
                                 max_decisions=L2_DECISIONS)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert _second_hits(states, actions, "payback") >= 1 and _second_hits(states, actions, "avalanche") >= 4


def test_power_table():
    """Each power move's rule in the status table's column; none elsewhere."""
    rule = turn._power_columns()["power_rule"]
    for m in turn.power_moves():
        assert rule[TABLES.move_index[m]] == turn.POWER_RULES[m]
    assert (rule >= 0).sum() == len(turn.power_moves())
    assert set(turn.power_moves()) <= set(turn.restricted_moves())


def test_glaive_rush_battles_match_showdown(showdown9):
    """Glaive Rush (``turn.glaive_moves()``: its user's ``glaiverush`` volatile after a hit, until its next BeforeMove):
    every team holding it leads with its holder, which uses it whenever it may, against any usable teams (six battles a
    team); then 32 random battles of those teams choosing it half the time. A slower foe's moves into the holder never
    miss (no accuracy draw: the PRNG state) and deal double damage (the HP)."""
    runs = holder_runs(showdown9, list(turn.GLAIVE_MOVES), np.random.default_rng(70), copies=6, min_leads=40,
                       random_count=32, turns=8)
    into = sum(int(a.glaive[i, 1 - s] and TABLES.move_category[TABLES.move_index[move]] != tables.STATUS
                   and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
               for states, actions, *_ in runs for a, b, i, s, k, f, act, move in move_decisions(states, actions))
    held = sum(int(st.glaive[i].any()) for states, *_ in runs for st in states for i in range(len(st.turn)))
    assert into >= 15 and held >= 40, (into, held)


def test_multi_accuracy_moves_into_glaive_rush_match_showdown(showdown9):
    """Glaive Rush leads (p1) using it every turn against leads using Triple Axel or Population Bomb every turn: a
    multi-hit move's later hits into the holder skip their accuracy checks (no draw) and deal double damage."""
    rng = np.random.default_rng(75)
    glaive = holders_leading(list(turn.GLAIVE_MOVES))
    multi = [m for m in turn.multihit_moves() if TABLES.data["moves"][TABLES.move_index[m] - 1].get("multiaccuracy")]
    hitters = holders_leading(multi)
    count = 48
    p1 = [glaive[n % len(glaive)] for n in range(count)]
    p2 = [hitters[int(k)] for k in rng.choice(len(hitters), count, replace=len(hitters) < count)]
    _, _, seeds = draw_battles(rng, _usable_teams(), count)
    scripted = [[[p1[n][1], p2[n][1]]] * 8 for n in range(count)]
    states, actions, sets = play([t for t, _ in p1], [t for t, _ in p2], seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    into = sum(1 for a, b, i, s, k, f, act, move in move_decisions(states, actions)
               if s == 1 and move in multi and b.glaive[i, 0] and a.active[i, 0] == b.active[i, 0]
               and b.hp[i, 0, f] < a.hp[i, 0, f])
    assert into >= 20, into
