"""L3 and L2 of the entry hazards: Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after
every decision (the comparison of ``test_l3_restricted.py``, which includes each side's hazard layers,
``BattleState.hazards`` against Showdown's ``side.sideConditions``).

Teams are restricted pool teams (``turn.restricted_team``) holding a move of ``turn.hazard_moves()``
(Stealth Rock, Spikes, Toxic Spikes, Sticky Web); the players pick one of them half the time and
switch often: the layers and their failure at the most, the switch-in damage by type (Tera types
count), groundedness, Toxic Spikes' poison and their absorption by a Poison type, Sticky Web's Speed
drop, Pokémon fainting on entry (mid-turn, in a forced switch: a new switch request of the same turn,
or the end of the battle).

L2 scenarios: Stealth Rock set on turn 1, then p2 switching in each of its Pokémon (the damage by
their weakness to Rock, 4x weak ones losing half their HP); Spikes used three turns running (three
layers, the fourth failing), then p2 switching; Defog mirror matches (its failure at -6 evasion with no
hazards skips the hit's Update events); Tidy Up mirror matches (the same at +6 Attack and Speed).
Tidy Up (both sides' hazards and both actives' substitutes removed, +1 Attack and Speed) against
teams with hazards and Substitute.
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
    holders_leading,
    led_by,
    move_decisions,
    move_mask,
    play,
    preferring_battles,
    teams_holding,
)

HAZARD_MOVES = move_mask(turn.hazard_moves())
REMOVAL_MOVES = move_mask(turn.removal_moves())
TIDY_MOVES = move_mask(turn.TIDY_MOVES)


def _hazard_teams() -> list[int]:
    """Usable teams with at least one hazard move once restricted."""
    return teams_holding(HAZARD_MOVES)


def _entries(states):
    """(switch-ins onto a side with hazards, of them losing HP, fainting on entry, boosts of -1 Speed
    on entry, poisoned on entry, Toxic Spikes absorbed) over consecutive states."""
    seen = dict(entries=0, hurt=0, fainted=0, web=0, poisoned=0, absorbed=0, layers3=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if a.request[i] == S.REQUEST_ENDED:
                continue
            for s in range(2):
                seen["layers3"] += int(b.hazards[i, s, 1] == 3)
                k = int(b.active[i, s])
                if k == a.active[i, s] or not a.hazards[i, s].any():
                    continue
                seen["entries"] += 1
                seen["hurt"] += int(b.hp[i, s, k] < a.hp[i, s, k])
                seen["fainted"] += int(b.hp[i, s, k] == 0)
                seen["web"] += int(a.hazards[i, s, 3] > 0 and b.boosts[i, s, 4] < 0)
                seen["poisoned"] += int(a.hazards[i, s, 2] > 0 and a.status[i, s, k] == 0 and b.status[i, s, k] in (S.PSN, S.TOX))
                seen["absorbed"] += int(a.hazards[i, s, 2] > 0 and b.hazards[i, s, 2] == 0)
    return seen


def test_hazard_battles_match_showdown(showdown9):
    """48 battles of teams with hazard moves, chosen half the time."""
    states, _ = preferring_battles(showdown9, _hazard_teams(), 48, 51, HAZARD_MOVES, min_teams=200)
    seen = _entries(states)
    assert seen["entries"] >= 100 and seen["hurt"] >= 50 and seen["fainted"] >= 1, seen
    assert seen["web"] >= 1 and seen["poisoned"] >= 1 and seen["layers3"] >= 1, seen


def _removals(states, actions) -> dict:
    """Decisions where a side's hazards were cleared by its own Rapid Spin, Mortal Spin or Defog, or the foe's Defog."""
    seen = {"rapidspin": 0, "mortalspin": 0, "defog": 0}
    for a, b, i, s, _, _, _, move in move_decisions(states, actions):
        if move in seen and a.hazards[i].any() and not b.hazards[i, s].any():
            seen[move] += int(a.hazards[i, s].any() or move == "defog")
    return seen


def test_removal_battles_match_showdown(showdown9):
    """48 battles of teams with Rapid Spin or Defog against teams with hazard moves, both chosen half
    the time: the hazards removed by Rapid Spin (after its hit and +1 Speed, its user up) and by Defog
    (both sides, with -1 evasion; failing with neither), then laid again."""
    rng = np.random.default_rng(54)
    usable = _usable_teams()
    removers = [n for n in usable if any(REMOVAL_MOVES[TABLES.move_index[m]]
                                         for r in turn.restricted_team(DOCUMENT["teams"][n]) for m in r[5])]
    assert len(removers) >= 100, len(removers)
    count = 48
    p1, p2, seeds = draw_battles(rng, removers, count, _hazard_teams())
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=HAZARD_MOVES | REMOVAL_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _removals(states, actions)
    assert seen["rapidspin"] >= 3 and seen["defog"] >= 3, seen


def test_mortal_spin_battles_match_showdown(showdown9):
    """Mortal Spin (Rapid Spin's ``onAfterHit`` after a poison secondary, chance 100): every team holding it leads with
    its holder, which uses it whenever it may, against leads laying a hazard every turn (three battles a team), then 24
    random battles of its teams against hazard teams, choosing hazards and their removal half the time: the foe
    poisoned (not a Poison or Steel type, no status), then its user's side cleared."""
    rng = np.random.default_rng(57)
    leads = holders_leading(["mortalspin"], teams_holding(move_mask(["mortalspin"]))) * 3
    assert len(leads) >= 15, len(leads)
    layers = led_by(turn.hazard_moves(), len(leads), rng)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, j]] * 6 for (_, k), (_, j) in zip(leads, layers)]
    runs = [play([t for t, _ in leads], [t for t, _ in layers], seeds, rng, scripted, max_decisions=10) + (seeds,)]
    p1, p2, seeds = draw_battles(rng, teams_holding(move_mask(["mortalspin"])), 24, _hazard_teams())
    runs.append(play(p1, p2, seeds, rng, boost=0.5, prefer=HAZARD_MOVES | REMOVAL_MOVES) + (seeds,))
    poisoned = cleared = 0
    for states, actions, sets, seeds in runs:
        assert_identical(showdown9, states, actions, sets, seeds)
        cleared += _removals(states, actions)["mortalspin"]
        for a, b, i, s, k, f, act, move in move_decisions(states, actions):
            poisoned += int(move == "mortalspin" and a.status[i, 1 - s, f] == 0 and b.status[i, 1 - s, f] == S.PSN)
    assert poisoned >= 10 and cleared >= 5, (poisoned, cleared)


def test_tidy_up_battles_match_showdown(showdown9):
    """48 battles of teams with Tidy Up against teams with hazard moves or Substitute, those chosen half the
    time: hazards of both sides and substitutes of both actives removed, its stages raised, its failure
    with nothing to remove at +6 Attack and Speed."""
    rng = np.random.default_rng(55)
    tidiers = teams_holding(TIDY_MOVES)
    assert len(tidiers) >= 20, len(tidiers)
    layers_or_subs = HAZARD_MOVES | move_mask(turn.substitute_moves())
    count = 48
    p1, p2, seeds = draw_battles(rng, tidiers, count, teams_holding(layers_or_subs))
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=TIDY_MOVES | layers_or_subs)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = {"hazards": 0, "subs": 0, "raised": 0}
    for a, b, i, s, k, f, _, move in move_decisions(states, actions):
        if move == "tidyup" and b.active[i, s] == k and b.hp[i, s, k] > 0:
            seen["hazards"] += int(a.hazards[i].any() and not b.hazards[i].any())
            seen["subs"] += int(a.sub_hp[i].any() and not b.sub_hp[i].any())
            seen["raised"] += int(b.boosts[i, s, 0] > a.boosts[i, s, 0])
    assert seen["hazards"] >= 3 and seen["subs"] >= 1 and seen["raised"] >= 10, seen


def _leads_with(move: str, count: int) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose restricted lead has ``move``."""
    found = []
    for n in _usable_teams():
        moves = turn.restricted_team(DOCUMENT["teams"][n])[0][5]
        if move in moves:
            found.append((n, moves.index(move)))
        if len(found) == count:
            break
    return found


def _rock_weakness(team_row) -> int:
    """Rock's type modifier against a restricted pool Pokémon's types (no Tera)."""
    chart = np.asarray(TABLES.type_chart)[TABLES.type_index["Rock"]]
    types = TABLES.species_types[TABLES.species_index[team_row[0]]]
    return sum({1: 1, 2: -1}.get(int(chart[int(x)]), 0) for x in types)


def test_l2_stealth_rock_by_weakness(showdown9):
    """p1's lead sets Stealth Rock on turn 1 (p2 attacks), then p2 switches to each of its other
    Pokémon in turn: each switch-in loses maxhp * 2 ** typeMod / 8 (the state comparison checks the
    HP), a 4x weak one half its HP."""
    leads = _leads_with("stealthrock", 24)
    assert len(leads) == 24
    rng = np.random.default_rng(52)
    usable = _usable_teams()
    p1 = [DOCUMENT["teams"][n] for n, _ in leads]
    # p2 teams with a Pokémon 4x weak to Rock first
    weak = [n for n in usable if any(_rock_weakness(r) == 2 for r in DOCUMENT["teams"][n][1:])]
    assert len(weak) >= 24
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(weak, len(leads), replace=False)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] + [[k, 8 + j] for j in (1, 2, 3, 4, 5, 0)] for _, k in leads]
    states, actions, sets = play(p1, p2, seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    halves = 0
    for a, b in zip(states, states[1:]):
        for i in range(len(leads)):
            k = int(b.active[i, 1])
            if a.request[i] == S.REQUEST_MOVE and k != a.active[i, 1] and a.hazards[i, 1, 0]:
                mod = _rock_weakness([TABLES.species_ids[int(b.species[i, 1, k])]])
                if mod == 2 and not b.terastallized[i, 1, k] and b.hp[i, 1, k] > 0:
                    halves += int(a.hp[i, 1, k] - b.hp[i, 1, k] >= b.max_hp[i, 1, k] // 2)
    assert halves >= 3, halves


def test_l2_spikes_layers(showdown9):
    """p1's lead uses Spikes four turns running (three layers, then a failure that still spends its PP),
    then p2 switches each turn: grounded switch-ins lose 1/4 of their HP, Flying ones nothing."""
    leads = _leads_with("spikes", 24)
    assert len(leads) >= 12
    rng = np.random.default_rng(53)
    p1 = [DOCUMENT["teams"][n] for n, _ in leads]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 4 + [[k, 8 + j] for j in (1, 2, 3, 4, 5)] for _, k in leads]
    states, actions, sets = play(p1, p2, seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert (states[3].hazards[:, 1, 1] == 3).sum() >= 6
    quarter = flying = 0
    fly = TABLES.type_index["Flying"]
    for a, b in zip(states[4:], states[5:]):
        for i in range(len(leads)):
            k = int(b.active[i, 1])
            if a.request[i] != S.REQUEST_MOVE or k == a.active[i, 1] or a.hazards[i, 1, 1] != 3:
                continue
            if b.terastallized[i, 1, k] or b.hp[i, 1, k] == 0:
                continue
            lost = int(a.hp[i, 1, k] - b.hp[i, 1, k])
            if fly in b.types[i, 1, k]:
                flying += int(lost == 0 or a.hazards[i, 1, 0] > 0)
            else:
                quarter += int(lost >= b.max_hp[i, 1, k] // 4)
    assert quarter >= 10, (quarter, flying)


def test_l2_defog_mirror(showdown9):
    """The same team on both sides, both leads using Defog eight turns running: each lowers the other's
    evasion to -6, then fails (no hazards to clear), skipping the hit's two Update events; every turn
    ties on speed, so those events' draws decide the PRNG after."""
    leads = _leads_with("defog", 12)
    assert len(leads) >= 4, leads
    seeds = [[5, 4, 3, k] for k in range(len(leads))]
    teams = [DOCUMENT["teams"][n] for n, _ in leads]
    scripted = [[[k, k]] * 8 for _, k in leads]
    states, actions, sets = play(teams, teams, seeds, np.random.default_rng(5), scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert (states[7].boosts[:, :, 6] == -6).all(-1).sum() >= 2


def test_l2_tidy_up_mirror(showdown9):
    """The same team on both sides, both leads using Tidy Up eight turns running: +1 Attack and Speed each
    turn up to +6, then failing (nothing to remove, no stage to raise), which skips the move's Update
    events; every turn ties on speed, so those events' draws decide the PRNG after."""
    leads = led_by(["tidyup"], 8, np.random.default_rng(6))
    assert len(leads) >= 6, leads
    seeds = [[6, 5, 4, k] for k in range(len(leads))]
    teams = [team for team, _ in leads]
    scripted = [[[k, k]] * 8 for _, k in leads]
    states, actions, sets = play(teams, teams, seeds, np.random.default_rng(6), scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert (states[7].boosts[:, :, 0] == 6).all(-1).sum() >= 2
    assert (states[7].boosts[:, :, 4] == 6).all(-1).sum() >= 2


def test_hazard_tables():
    """The hazard moves' table column: one hazard each, none elsewhere."""
    lay = turn._status_tables()[10]
    for m in turn.hazard_moves():
        row = lay[TABLES.move_index[m]]
        assert row.sum() == 1 and S.HAZARDS[int(np.argmax(row))] == m
    assert lay.sum() == len(turn.hazard_moves())
    assert tables.load().move_category[TABLES.move_index["stealthrock"]] == tables.STATUS


AFTER_HIT = move_mask(turn.after_hit_hazard_moves())


def test_after_hit_hazard_battles_match_showdown(showdown9):
    """48 battles of teams holding Ceaseless Edge or Stone Axe (``turn.after_hit_hazard_moves()``: Spikes / Stealth
    Rock on the foe's side after the hit, into a substitute too, their user up; their empty secondary's draw), chosen
    half the time, against teams holding Rapid Spin, Defog or Substitute half the time: layers laid, up to the most,
    and the switch-ins onto them."""
    rng = np.random.default_rng(57)
    users = teams_holding(AFTER_HIT)
    assert len(users) >= 20, len(users)
    foes = teams_holding(REMOVAL_MOVES | move_mask(turn.substitute_moves()))
    p1, _, seeds = draw_battles(rng, users, 48)
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(foes, 48)]
    p2 = [team if rng.random() < 0.5 else DOCUMENT["teams"][int(rng.choice(_usable_teams()))] for team in p2]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=AFTER_HIT | REMOVAL_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)
    laid = {"ceaselessedge": 0, "stoneaxe": 0}
    stale = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move not in laid or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4]:
            continue
        hazard = S.HAZARDS.index(turn.AFTER_HIT_HAZARD_MOVES[move])
        laid[move] += int(b.hazards[i, 1 - s, hazard] > a.hazards[i, 1 - s, hazard])
        stale += int(b.hazards[i, 1 - s, hazard] == a.hazards[i, 1 - s, hazard] > 0)
    hurt = sum(int((b.hazards[i].sum() > 0) and (b.active[i] != a.active[i]).any())
               for a, b in zip(states, states[1:]) for i in range(len(b.turn)))
    assert laid["ceaselessedge"] >= 8 and laid["stoneaxe"] >= 8 and stale >= 3 and hurt >= 20, (laid, stale, hurt)
