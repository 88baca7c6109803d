"""L3 and L2 of damaging moves with one callback that changes nothing here or that ``step`` runs: the
moves whose accuracy only weather changes (``turn.WEATHER_ACCURACY_MOVES``: Thunder, Hurricane,
Blizzard; their ``onModifyMove`` acts in rain, sun or snow, which these battles never have) and
Freeze-Dry (``turn.WATER_SUPER_MOVES``: its ``onEffectiveness`` makes each Water type of the target
weak to it): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision
(``test_l3_restricted.py``'s comparison), with their secondaries: Thunder's paralysis (30 %),
Hurricane's confusion (30 %), Blizzard's and Freeze-Dry's freeze (10 %); and High Jump Kick and
Supercell Slam (``turn.crash_moves()``: their ``onMoveFail`` costs the user half its max HP on a miss or
an immunity, which may faint it and end the battle).
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    holders_leading,
    move_decisions,
    holder_runs,
    move_mask,
    play,
)

MOVES = turn.WEATHER_ACCURACY_MOVES + turn.WATER_SUPER_MOVES + tuple(turn.crash_moves())
WEATHER = move_mask(MOVES)


def _teams(moves=MOVES) -> list[int]:
    """Usable teams with a move of ``moves`` once restricted."""
    return [n for n in _usable_teams()
            if any(m in moves for r in turn.restricted_team(DOCUMENT["teams"][n]) for m in r[5])]


def _each_move_battles(bridge, rng, moves: tuple, min_holders: int, p2_teams: list, count: int = 48):
    """``count`` battles whose p1 teams hold each move of ``moves`` in turn (its holders: at least ``min_holders``),
    p2's drawn from ``p2_teams``, the moves chosen half the time; asserted identical to Showdown."""
    holders = {m: _teams((m,)) for m in moves}
    assert all(len(v) >= min_holders for v in holders.values()), {m: len(v) for m, v in holders.items()}
    p1 = [DOCUMENT["teams"][int(rng.choice(holders[moves[n % len(moves)]]))] for n in range(count)]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(p2_teams, count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(moves))
    assert_identical(bridge, states, actions, sets, seeds)
    return states, actions


def _uses(states, actions) -> dict:
    """Per move, the decisions where a side chose it; ``hit``/``miss``: the foe (up, the same Pokémon)
    lost HP or not while the user spent PP; ``par``, ``frz``, ``confused``: the effect it left."""
    seen = {m: 0 for m in MOVES}
    seen.update(hit=0, miss=0, par=0, frz=0, confused=0, water_hit=0, crash=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in seen:
            continue
        seen[move] += 1
        spent = b.pp[i, s, k, act % 4] < a.pp[i, s, k, act % 4]
        same = b.active[i, 1 - s] == f or b.hp[i, 1 - s, f] == 0
        if not (spent and same and a.hp[i, 1 - s, f] > 0):
            continue
        lost = b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        seen["hit" if lost else "miss"] += 1
        seen["crash"] += int(move in turn.CRASH_MOVES and not lost
                             and a.hp[i, s, k] - b.hp[i, s, k] >= min(a.max_hp[i, s, k] // 2, a.hp[i, s, k]))
        water = TABLES.type_index["Water"]
        types = [int(a.tera_type[i, 1 - s, f])] if a.terastallized[i, 1 - s, f] else list(a.types[i, 1 - s, f])
        seen["water_hit"] += int(move == "freezedry" and lost and water in types)
        seen["par"] += int(move == "thunder" and a.status[i, 1 - s, f] == 0 and b.status[i, 1 - s, f] == S.PAR)
        seen["frz"] += int(move == "blizzard" and a.status[i, 1 - s, f] == 0 and b.status[i, 1 - s, f] == S.FRZ)
        seen["confused"] += int(move == "hurricane" and a.confusion[i, 1 - s] == 0 and b.confusion[i, 1 - s] > 0)
    return seen


def test_weatherless_battles_match_showdown(showdown9):
    """48 battles of teams holding Thunder, Hurricane, Blizzard or Freeze-Dry (a quarter of p1's Thunder),
    chosen half the time (the seed draws battles with at least two paralyses and two confusions)."""
    rng = np.random.default_rng(103)
    usable = _teams()
    assert len(usable) >= 100, len(usable)
    count = 48
    # a quarter of the p1 teams hold Thunder (rarer in the pool than the others), for its paralysis
    thunder = _teams(("thunder",))
    p1 = [DOCUMENT["teams"][int(n)] for n in np.concatenate([rng.choice(thunder, count // 4),
                                                                rng.choice(usable, count - count // 4)])]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=WEATHER)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _uses(states, actions)
    assert all(seen[m] >= 5 for m in MOVES), seen
    assert seen["hit"] >= 40 and seen["miss"] >= 8, seen
    assert seen["par"] >= 2 and seen["confused"] >= 2, seen


def test_l2_weatherless_leads(showdown9):
    """Leads holding one of the three use it three turns running: 70 % accuracy with no weather, the
    secondaries (a freeze among them)."""
    rng = np.random.default_rng(102)
    found = holders_leading(MOVES)
    leads = [found[int(k)] for k in rng.choice(len(found), min(96, len(found)), replace=False)]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _uses(states, actions)
    assert seen["hit"] >= 60 and seen["miss"] >= 15 and seen["frz"] + seen["par"] + seen["confused"] >= 10, seen


def test_l2_freeze_dry_on_water_types(showdown9):
    """Freeze-Dry leads use it three turns running against leads with a Water type (Water/Ground
    included: 4x weak instead of neutral); the foes Terastallize half the time (a Water Tera type)."""
    rng = np.random.default_rng(103)
    water = TABLES.type_index["Water"]
    found = []
    for n in _usable_teams():
        team = DOCUMENT["teams"][n]
        for j, r in enumerate(turn.restricted_team(team)):
            if "freezedry" in r[5]:
                found.append(([team[j]] + team[:j] + team[j + 1:], r[5].index("freezedry")))
                break
    foes = [DOCUMENT["teams"][n] for n in _usable_teams()
            if water in TABLES.species_types[TABLES.species_index[DOCUMENT["teams"][n][0][0]]]
            or DOCUMENT["teams"][n][0][6] == "Water"]
    assert len(found) >= 16 and len(foes) >= 48, (len(found), len(foes))
    leads = [found[int(k)] for k in rng.choice(len(found), min(48, len(found)), replace=False)]
    p2 = [foes[int(k)] for k in rng.choice(len(foes), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 4 * int(rng.random() < 0.5)]] + [[k, 0]] * 2 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert _uses(states, actions)["water_hit"] >= 20


def _crash_leads() -> list[tuple[list, int, str]]:
    """Per usable team with a crash move once restricted: the team with its first such Pokémon moved to
    the lead, that move's slot and the move."""
    found = []
    for n in _usable_teams():
        team = DOCUMENT["teams"][n]
        for j, r in enumerate(turn.restricted_team(team)):
            slot = next((k for k, m in enumerate(r[5]) if m in turn.CRASH_MOVES), -1)
            if slot >= 0:
                found.append(([team[j]] + team[:j] + team[j + 1:], slot, r[5][slot]))
                break
    return found


def test_l2_crash_into_immune(showdown9):
    """High Jump Kick and Supercell Slam leads use them three turns running against leads immune to their
    type (Ghost, Ground: a crash each turn, the user fainting) or random leads (a miss now and then)."""
    rng = np.random.default_rng(104)
    found = _crash_leads()
    immune_to = {"highjumpkick": TABLES.type_index["Ghost"], "supercellslam": TABLES.type_index["Ground"]}
    types_of = lambda team: TABLES.species_types[TABLES.species_index[team[0][0]]]
    leads = [found[int(k)] for k in rng.choice(len(found), min(48, len(found)), replace=False)]
    p2 = []
    for _, _, move in leads:
        foes = [DOCUMENT["teams"][n] for n in _usable_teams() if immune_to[move] in types_of(DOCUMENT["teams"][n])]
        pool_ = foes if rng.random() < 0.7 else [DOCUMENT["teams"][n] for n in _usable_teams()[:500]]
        p2.append(pool_[int(rng.integers(len(pool_)))])
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k, _ in leads]
    states, actions, sets = play([t for t, _, _ in leads], p2, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert _uses(states, actions)["crash"] >= 15


def test_callback_moves_are_restricted():
    assert set(MOVES) <= set(turn.restricted_moves())
    assert {"thunder", "blizzard", "freezedry"} <= set(turn.status_moves()) and "hurricane" in turn.confusion_moves()


def test_l2_crash_into_protect(showdown9):
    """High Jump Kick and Supercell Slam leads use them twice against Protect leads protecting both turns:
    a move stopped by the ``protect`` volatile has failed, so its ``onMoveFail`` crash comes too (and no
    crash where the second Protect failed and the move hit)."""
    rng = np.random.default_rng(105)
    found = [(team, slot) for team, slot, _ in _crash_leads()]
    guards = []
    for n in _usable_teams():
        team = DOCUMENT["teams"][n]
        lead = turn.restricted_team(team)[0]
        if "protect" in lead[5]:
            guards.append((team, lead[5].index("protect")))
    assert len(found) >= 12 and len(guards) >= 12, (len(found), len(guards))
    leads = [found[int(k)] for k in rng.choice(len(found), min(48, len(found)), replace=False)]
    foes = [guards[int(k)] for k in rng.integers(0, len(guards), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, g]] * 2 for (_, k), (_, g) in zip(leads, foes)]
    states, actions, sets = play([t for t, _ in leads], [t for t, _ in foes], seeds, rng, scripted, max_decisions=6)
    assert_identical(showdown9, states, actions, sets, seeds)
    # the stall volatile (counter 3) outlives the turn of a successful Protect
    protected = sum(int(states[1].stall[i, 1] > 0) for i in range(len(leads)))
    assert protected >= 20, protected
    assert _uses(states, actions)["crash"] >= 15


# the terrain-only moves and Bleakwind Storm (its accuracy rain's only: 80 % in the battles without rain)
FIELD_ONLY = tuple(turn.FIELD_ONLY_MOVES) + ("bleakwindstorm",)


def test_field_only_battles_match_showdown(showdown9):
    """48 battles of teams holding Bleakwind Storm, Psyblade, Expanding Force or Grassy Glide (``turn.FIELD_ONLY_MOVES``:
    their callbacks act in terrain only, which these battles never have; Bleakwind Storm's in rain), chosen half the
    time: Bleakwind Storm's 80 % accuracy and its Speed drop (30 %), Grassy Glide at priority 0, the others' plain
    power."""
    assert set(FIELD_ONLY) <= set(turn.restricted_moves()) and "bleakwindstorm" in turn.boost_moves()
    states, actions = _each_move_battles(showdown9, np.random.default_rng(106), FIELD_ONLY, 5, _teams(FIELD_ONLY))
    used, hits, misses, slowed = {m: 0 for m in FIELD_ONLY}, 0, 0, 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in used or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or a.hp[i, 1 - s, f] == 0:
            continue
        used[move] += 1
        if b.active[i, 1 - s] == f and move == "bleakwindstorm":
            lost = b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
            hits, misses = hits + int(lost), misses + int(not lost)
            slowed += int(b.boosts[i, 1 - s, 4] < a.boosts[i, 1 - s, 4])
    assert all(n >= 8 for n in used.values()), used
    assert hits >= 8 and misses >= 1 and slowed >= 2, (hits, misses, slowed)


def test_ally_only_battles_match_showdown(showdown9):
    """Pollen Puff (``turn.ALLY_ONLY_MOVES``: its callbacks heal an ally, which singles never has): every team holding it
    leads with its holder, which uses it whenever it may, against any usable teams (three battles a team); then 24
    random battles of those teams choosing it half the time: a plain 90-power Bug hit."""
    assert set(turn.ALLY_ONLY_MOVES) <= set(turn.restricted_moves())
    runs = holder_runs(showdown9, tuple(turn.ALLY_ONLY_MOVES), np.random.default_rng(108), copies=3, min_leads=15)
    hits = sum(int(move == "pollenpuff" and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f])
               for states, actions, *_ in runs for a, b, i, s, k, f, act, move in move_decisions(states, actions))
    assert hits >= 20, hits


SAMPLED = tuple(turn.SAMPLED_STATUS_MOVES)


def test_sampled_status_battles_match_showdown(showdown9):
    """48 battles of teams holding Tri Attack or Dire Claw (``turn.sampled_status_moves()``: their secondary's onHit
    samples one of three statuses, random(3), and tries it), chosen half the time, and up to 32 whose p1 lead uses one
    three turns running: the statuses set (burn, paralysis, freeze; poison, sleep), those failing on a statused or immune
    target or under the Sleep Clause, and the sample drawn when the hit fainted the target."""
    assert turn.sampled_status_moves() == sorted(SAMPLED) and set(SAMPLED) <= set(turn.restricted_moves())
    rng = np.random.default_rng(107)
    states, actions = _each_move_battles(showdown9, rng, SAMPLED, 10, _usable_teams())
    seen = _statuses_set(states, actions)
    # leads using the move three turns running
    found = holders_leading(SAMPLED)
    assert len(found) >= 20, len(found)
    leads = [found[int(k)] for k in rng.choice(len(found), min(32, len(found)), replace=False)]
    foes = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 3 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], foes, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _statuses_set(states, actions).items():
        seen[key] += n
    assert seen["uses"] >= 80 and seen["kos"] >= 5, seen
    assert all(seen[x] >= 1 for x in ("brn", "par", "frz", "psn", "slp")), seen


def _statuses_set(states, actions) -> dict:
    """Tri Attack / Dire Claw uses whose user spent PP against the same foe, those knocking it out, and the statuses
    they set (the foe had none before, one after)."""
    names = {S.BRN: "brn", S.PAR: "par", S.FRZ: "frz", S.PSN: "psn", S.SLP: "slp"}
    seen = dict(uses=0, kos=0, **{x: 0 for x in names.values()})
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in SAMPLED or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or a.hp[i, 1 - s, f] == 0:
            continue
        seen["uses"] += 1
        seen["kos"] += int(b.hp[i, 1 - s, f] == 0)
        after = int(b.status[i, 1 - s, f])
        if a.status[i, 1 - s, f] == 0 and after in names:
            seen[names[after]] += 1
    return seen


PLAIN_HERE = ("firstimpression", "hydrosteam", "bugbite", "brickbreak", "thunderclap", "gravapple")


def test_plain_here_battles_match_showdown(showdown9):
    """48 battles of teams holding First Impression (Fake Out's ``onTry``: it fails after its user's first move action
    since switching in), Hydro Steam (``thawsTarget``), Bug Bite (no berry to eat), Brick Break (no screen to break),
    Thunderclap (Sucker Punch's ``onTry``) or Grav Apple (no Gravity; its Defense drop), chosen half the time."""
    assert set(PLAIN_HERE) <= set(turn.restricted_moves()) and turn.first_turn_moves() == ["firstimpression"]
    states, actions = _each_move_battles(showdown9, np.random.default_rng(108), PLAIN_HERE, 3, _teams(PLAIN_HERE))
    used, hits, failed = {m: 0 for m in PLAIN_HERE}, {m: 0 for m in PLAIN_HERE}, {m: 0 for m in PLAIN_HERE}
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in used or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or a.hp[i, 1 - s, f] == 0:
            continue
        used[move] += 1
        lost = b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        up = b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] > 0
        hits[move] += int(lost)
        failed[move] += int(up and not lost)
    assert all(n >= 6 for n in used.values()) and all(n >= 3 for n in hits.values()), (used, hits)
    assert failed["firstimpression"] >= 2 and failed["thunderclap"] >= 1, failed
