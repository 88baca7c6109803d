"""L3 and L2 of the multi-hit moves (``turn.multihit_moves()``): Gen 9 battles of ``turn.step`` against
Showdown, state and PRNG after every decision (``test_l3_restricted.py``'s comparison).

Teams are restricted pool teams (``turn.restricted_team``) holding a multi-hit move; the players pick one
half the time: Triple Axel (20, 40, 60, an accuracy check per hit), Scale Shot (2-5 hits, then -1 Def
+1 Spe), Bullet Seed, Icicle Spear, Rock Blast, Tail Slap (2-5 hits), Dual Wingbeat, Dragon Darts,
Tachyon Cutter (2 hits), Surging Strikes (3 critical hits), Population Bomb (10 hits, an accuracy check
per hit).

L2 scenarios: Triple Axel and Population Bomb leads attacking three turns running (later hits missing,
the loop stopping); multi-hit leads against frail foes (a KO mid-loop, the forced switch after it);
Scale Shot leads (its boosts after the loop, the next turn's order by the new speed); multi-hit leads
against foes immune to their type (no hit, no count drawn).
"""

from __future__ import annotations

import math

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
    led_by,
    move_decisions,
    move_mask,
    play,
    teams_holding,
)

L2_DECISIONS = 10
MULTIHIT = move_mask(turn.multihit_moves())


def _multihit_teams() -> list[int]:
    """Usable teams with at least one move of ``turn.multihit_moves()`` once restricted."""
    return teams_holding(MULTIHIT)


def _uses(states, actions) -> dict:
    """Per multi-hit move, the decisions where a side chose it; ``hit``: where the foe (the same
    Pokémon, up before) lost HP; ``ko``: where it fainted; ``scaleshot_boost``: a Scale Shot user's
    Defense fell and Speed rose."""
    seen = {m: 0 for m in turn.multihit_moves()}
    seen.update(hit=0, ko=0, scaleshot_boost=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in seen:
            continue
        seen[move] += 1
        same = b.active[i, 1 - s] == f or b.hp[i, 1 - s, f] == 0
        lost = same and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f]
        seen["hit"] += int(lost)
        seen["ko"] += int(lost and b.hp[i, 1 - s, f] == 0)
        if move == "scaleshot" and b.active[i, s] == k and b.hp[i, s, k] > 0:
            seen["scaleshot_boost"] += int(b.boosts[i, s, 1] < a.boosts[i, s, 1] and b.boosts[i, s, 4] > a.boosts[i, s, 4])
    return seen


def _run(showdown9, p1, p2, seeds, rng, scripted=None, prefer=True, max_decisions=None):
    kwargs = {} if max_decisions is None else {"max_decisions": max_decisions}
    states, actions, sets = play(p1, p2, seeds, rng, scripted, boost=0.5 if prefer else 0.0, prefer=MULTIHIT, **kwargs)
    assert_identical(showdown9, states, actions, sets, seeds)
    return states, actions, sets


def _hit_counts(showdown9, sets, seeds, actions) -> dict:
    """Per multi-hit move, Showdown's ``-hitcount`` lines of the battles (how many hits each use made)."""
    reference = showdown9.play([{"teams": [sets[i], sets[len(seeds) + i]], "seed": seeds[i], "actions": actions[i],
                                 "trace": True} for i in range(len(seeds))])
    counts: dict = {}
    for r in reference:
        last = None
        for line in r.get("log", []):
            parts = line.split("|")
            if len(parts) > 3 and parts[1] == "move":
                last = "".join(c for c in parts[3].lower() if c.isalnum())
            elif len(parts) > 3 and parts[1] == "-hitcount" and last is not None:
                counts.setdefault(last, []).append(int(parts[3]))
    return counts


def test_multihit_battles_match_showdown(showdown9):
    """48 battles of teams with multi-hit moves, chosen half the time."""
    rng = np.random.default_rng(91)
    usable = _multihit_teams()
    assert len(usable) >= 100, len(usable)
    count = 48
    p1, p2, seeds = draw_battles(rng, usable, count)
    states, actions, sets = _run(showdown9, p1, p2, seeds, rng)
    seen = _uses(states, actions)
    assert seen["hit"] >= 60 and seen["ko"] >= 5, seen
    used = [m for m in turn.multihit_moves() if seen[m]]
    assert len(used) >= 7, seen
    assert seen["tripleaxel"] >= 5 and seen["scaleshot"] >= 3 and seen["scaleshot_boost"] >= 2, seen
    counts = _hit_counts(showdown9, sets, seeds, actions)
    sampled = [c for m in ("bulletseed", "iciclespear", "rockblast", "tailslap", "scaleshot") for c in counts.get(m, [])]
    assert {2, 3, 4, 5} <= set(sampled), counts             # every count of a [2, 5] move
    assert sum(len(v) for v in counts.values()) >= 40, counts


def _scripted_run(showdown9, leads, p2, rng, turns=3):
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * turns for _, k in leads]
    return (*_run(showdown9, [t for t, _ in leads], p2, seeds, rng, scripted, prefer=False,
                  max_decisions=L2_DECISIONS), seeds)


def test_l2_triple_axel_and_population_bomb(showdown9):
    """Triple Axel and Population Bomb leads use them three turns running: each later hit checks the
    accuracy again (a miss ends the loop), Triple Axel's power rises per hit."""
    rng = np.random.default_rng(92)
    leads = led_by(("tripleaxel",), 24, rng) + led_by(("populationbomb",), 24, rng)
    assert len(leads) >= 24, len(leads)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    states, actions, sets, seeds = _scripted_run(showdown9, leads, p2, rng)
    seen = _uses(states, actions)
    assert seen["tripleaxel"] >= 12 and seen["populationbomb"] >= 6 and seen["hit"] >= 20, seen
    counts = _hit_counts(showdown9, sets, seeds, actions)
    assert 3 in counts["tripleaxel"] and {1, 2} & set(counts["tripleaxel"]), counts
    assert 10 in counts["populationbomb"] and min(counts["populationbomb"]) < 10, counts


def test_l2_multihit_ko_mid_loop(showdown9):
    """Multi-hit leads use their move six turns running against random foes: KOs mid-loop (the loop
    stops at the faint, its later hits' draws not made) and the forced switches after them."""
    rng = np.random.default_rng(93)
    leads = led_by(set(turn.multihit_moves()), 48, rng)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    states, actions, _, _ = _scripted_run(showdown9, leads, p2, rng, turns=6)
    seen = _uses(states, actions)
    assert seen["ko"] >= 8 and seen["hit"] >= 40, seen


def test_l2_scale_shot(showdown9):
    """Scale Shot leads use it three turns running: -1 Def +1 Spe after the loop (the Speed from the
    next turn's order), down to -6 Def."""
    rng = np.random.default_rng(94)
    leads = led_by(("scaleshot",), 24, rng)
    assert len(leads) >= 8, len(leads)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    states, actions, _, _ = _scripted_run(showdown9, leads, p2, rng)
    seen = _uses(states, actions)
    assert seen["scaleshot_boost"] >= 8, seen


def _immune_foe(move: str, rng) -> list:
    """A usable team whose restricted lead is immune to ``move``'s type."""
    t = TABLES
    mtype = int(t.move_type[t.move_index[move]])
    chart = np.asarray(t.type_chart)[mtype]
    teams = [DOCUMENT["teams"][n] for n in _usable_teams()
             if any(chart[int(x)] == 3 for x in t.species_types[t.species_index[DOCUMENT["teams"][n][0][0]]]
                    if int(x) != tables.TYPE_NONE)]
    return teams[int(rng.integers(len(teams)))] if teams else None


def test_l2_multihit_into_immune(showdown9):
    """Multi-hit leads (Normal, Ground-immune Flying... moves) against leads immune to their type: the
    move fails before its hit count is drawn."""
    rng = np.random.default_rng(95)
    leads = [lead for lead in led_by(set(turn.multihit_moves()), 200, rng)
             if _immune_foe(turn.restricted_team(lead[0])[0][5][lead[1]], rng) is not None][:24]
    assert len(leads) >= 12, len(leads)
    p2 = [_immune_foe(turn.restricted_team(t)[0][5][k], rng) for t, k in leads]
    states, actions, _, _ = _scripted_run(showdown9, leads, p2, rng, turns=2)
    first = actions
    immune = 0
    for i in range(len(leads)):
        if states[1].request[i] == S.REQUEST_MOVE and first[i] and first[i][0][0] == leads[i][1]:
            immune += int(states[2].hp[i, 1, 0] == states[1].hp[i, 1, 0] or states[2].active[i, 1] != 0)
    assert immune >= 6, immune


def test_multihit_tables():
    """The columns of the multi-hit moves; a multiaccuracy move's later-hit threshold as Showdown's floats
    give it, below 100."""
    cols = turn._multihit_columns()
    idx = TABLES.move_index
    assert cols["hits"][idx["populationbomb"]] == 10 and cols["multiacc"][idx["populationbomb"]]
    assert cols["hits_sampled"][idx["scaleshot"]] and cols["has_self_boost"][idx["scaleshot"]]
    assert cols["power_per_hit"][idx["tripleaxel"]] == 20 and cols["hits"][idx["tripleaxel"]] == 3
    assert cols["hits"][idx["earthquake"]] == 1 and not cols["hits_sampled"][idx["earthquake"]]
    assert set(turn.multihit_moves()) <= set(turn.restricted_moves())
    table = [1, 4 / 3, 5 / 3, 2, 7 / 3, 8 / 3, 3]
    for m in turn.multihit_moves():
        if not cols["multiacc"][idx[m]]:
            continue
        acc = int(TABLES.move_accuracy[idx[m]])
        for a in range(-6, 7):
            for e in range(-6, 7):
                x = acc * table[a] if a > 0 else acc / table[-a]
                x = x / table[e] if e > 0 else (x * table[-e] if e < 0 else x)
                ours = int(turn._hit_threshold(np.int32(acc), np.int32(a), np.int32(e)))
                assert min(math.ceil(x), 100) == min(ours, 100), (m, a, e, x, ours)


def test_single_hit_self_boost_battles_match_showdown(showdown9):
    """32 battles of teams holding Clanging Scales (``turn.self_boost_moves()``: its ``selfBoost``, -1 Defense to its
    user after the hit loop, no draw, as Scale Shot's), chosen half the time: the drop after a hit (into a substitute
    too), none after a miss, down to -6."""
    assert turn.self_boost_moves() == ["clangingscales"]
    rng = np.random.default_rng(47)
    users = teams_holding(move_mask(turn.self_boost_moves()))
    assert len(users) >= 8, len(users)
    p1, p2, seeds = draw_battles(rng, users, 32, _usable_teams())
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.6, prefer=move_mask(turn.self_boost_moves()))
    assert_identical(showdown9, states, actions, sets, seeds)
    dropped = kept = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move != "clangingscales" or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or b.hp[i, s, k] == 0:
            continue
        dropped += int(b.boosts[i, s, 1] < a.boosts[i, s, 1])
        kept += int(b.boosts[i, s, 1] == a.boosts[i, s, 1])
    assert dropped >= 15 and kept >= 2, (dropped, kept)
