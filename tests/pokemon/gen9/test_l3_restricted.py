"""L3 (restricted): whole Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision.

The restriction, while stages 2-6 are missing: pool teams (``pool.json``) passed through
``turn.restricted_team`` (no abilities, no items, moves whose whole effect is their damage or stat
stages; teams
with Ogerpon, Terapagos, Morpeko, Zacian or Zamazenta left out). Besides the four-move teams, teams
cut to one move with players that mostly attack run out of PP: Struggle, its recoil, double faints and
double forced switches. Both players choose uniformly among the legal actions of ``masks.legal_mask`` (moves, Terastallizing,
switches, forced switches); Showdown plays the same choices from the same teams and seed (``gen9.js``
``play``). After the start and after every decision: every Pokémon's HP, status, PP, Tera state,
Stellar mask and species, each side's active slot, stages, switch flag and Tera right, the turn,
the request (and whether a switch request is a self-switch's in the middle of the turn, with each side's
move action still queued), each active's protect volatile, stall counter, substitute's HP, taunt duration, last
move, encore (its duration and move), throatchop and healblock durations, the move
actions the request offers (``masks.legal_mask`` against the request's moves: disabled ones, Struggle
alone), the winner and the PRNG seed identical.

Battles of teams rich in stat-stage moves, players choosing them half the time, reach status boosts,
+6 and its failure, self drops and secondaries.

L2 scenarios: a speed tie of a mirror match, a Tera STAB KO, a forced switch after a faint,
setting up to +6 (the boost then failing) and attacking, failing boosts in a mirror match, a self drop.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng
from pokejax.gen9 import masks, turn
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables
from pokejax.gen9.parity import (  # noqa: F401  (BOOST_MOVES, play...: the other L3 files import them from here)
    BATCH, BOOST_MOVES, DOCUMENT, MAX_DECISIONS, REQUESTS, TABLES, _mask, _step, differences, ours_record, play,
    restricted, showdown_record, usable_teams)

_usable_teams = usable_teams   # the other L3 files import it by this name


def holders_leading(moves, teams=None) -> list[tuple[list, int]]:
    """``(team, slot)`` for each usable team (or each of ``teams``, pool indices) with a Pokémon holding a move of
    ``moves`` once restricted: the team (pool rows) with its first such Pokémon moved to the lead, and the slot of
    that Pokémon's first such move."""
    out = []
    for n in _usable_teams() if teams is None else teams:
        team = DOCUMENT["teams"][int(n)]
        for j, r in enumerate(turn.restricted_team(team)):
            slot = next((k for k, m in enumerate(r[5]) if m in moves), -1)
            if slot >= 0:
                out.append(([team[j]] + team[:j] + team[j + 1:], slot))
                break
    return out


def teams_holding(marked: np.ndarray) -> list[int]:
    """Usable teams with at least one move ``marked`` (bool ``[M]``) once restricted."""
    return [n for n in _usable_teams()
            if any(marked[TABLES.move_index[m]] for r in turn.restricted_team(DOCUMENT["teams"][n]) for m in r[5])]


def move_mask(moves) -> np.ndarray:
    """bool ``[M]``: the moves of ``moves`` (ids) marked, e.g. those a test's players prefer."""
    out = np.zeros(len(TABLES.move_ids), bool)
    out[[TABLES.move_index[m] for m in moves]] = True
    return out


def _leading(team: list, moves) -> tuple[list, int] | None:
    """``team`` (pool rows) with its first Pokémon holding one of ``moves`` once restricted moved to the lead
    (Showdown's lead is the team's first), and the slot of that Pokémon's first such move; None without one."""
    for j, row in enumerate(turn.restricted_team(team)):
        slot = next((k for k, m in enumerate(row[5]) if m in moves), -1)
        if slot >= 0:
            return [team[j]] + team[:j] + team[j + 1:], slot
    return None


def led_by(moves, count: int, rng: np.random.Generator) -> list[tuple[list, int]]:
    """(team, move slot) of ``_leading``: ``count`` of the usable teams that have such a Pokémon, drawn by
    ``rng.choice``."""
    found = [lead for lead in (_leading(DOCUMENT["teams"][n], moves) for n in _usable_teams()) if lead]
    picked = rng.choice(len(found), min(count, len(found)), replace=False)
    return [found[int(k)] for k in picked]


def first_led_by(moves, count: int, rng: np.random.Generator) -> list[tuple[list, int]]:
    """(team, move slot) of ``_leading``: the first ``count`` usable teams that have such a Pokémon, in
    ``rng.permutation``'s order."""
    found = []
    for n in rng.permutation(_usable_teams()):
        lead = _leading(DOCUMENT["teams"][int(n)], moves)
        if lead:
            found.append(lead)
        if len(found) == count:
            break
    return found


def move_decisions(states, actions):
    """Each move action of ``play``'s battles: ``(a, b, i, s, k, f, act, move)``, the host states before
    and after the decision, the battle, the side, its active's slot, the foe's, the action (0-7) and the
    move's id (moves chosen at a move request only, not switches)."""
    for n, (a, b) in enumerate(zip(states, states[1:])):
        for i in range(len(a.turn)):
            if n >= len(actions[i]) or a.request[i] != S.REQUEST_MOVE:
                continue
            for s in range(2):
                act = actions[i][n][s]
                if 0 <= act < 8:
                    k, f = int(a.active[i, s]), int(a.active[i, 1 - s])
                    yield a, b, i, s, k, f, act, TABLES.move_ids[int(a.moves[i, s, k, act % 4])]


def compare(bridge, states, actions, sets, seeds) -> tuple[list[str], int]:
    """Plays the battles in Showdown; returns the first difference of each battle and the decisions
    compared."""
    reference = bridge.play([{"teams": [sets[i], sets[len(seeds) + i]], "seed": seeds[i], "actions": actions[i]}
                             for i in range(len(seeds))])
    problems, compared = [], 0
    legal = [np.asarray(masks.legal_mask(st)) for st in states]
    for i, r in enumerate(reference):
        for n, snap in enumerate(r["states"]):
            compared += 1
            diff = differences(ours_record(states[n], i, legal[n]), showdown_record(snap))
            if diff:
                problems.append(f"battle {i} seed {seeds[i]} after decision {n} (actions {actions[i][:n]}): {diff}")
                break
        else:
            if r["error"] or len(r["states"]) != len(actions[i]) + 1:
                problems.append(f"battle {i} seed {seeds[i]}: Showdown stopped: {r['error']}")
    return problems, compared


def move_requests(states):
    """``(a, b, i)`` for each battle ``i`` at a move request in state ``a``; ``b`` the state after its decision."""
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if a.request[i] == S.REQUEST_MOVE:
                yield a, b, i


def pp_spent(a, b, i: int, s: int, move: int) -> bool:
    """Whether side ``s``'s active in state ``a`` of battle ``i`` knows ``move`` (a move index) and has less PP left in
    its slot in state ``b``: it used the move (or an Encore made it) in the decisions between."""
    k = int(a.active[i, s])
    slots = list(a.moves[i, s, k])
    return move in slots and b.pp[i, s, k, slots.index(move)] < a.pp[i, s, k, slots.index(move)]


def assert_identical(bridge, states, actions, sets, seeds) -> int:
    """``compare``, failing with the first difference of each battle that differs; the decisions compared."""
    problems, compared = compare(bridge, states, actions, sets, seeds)
    assert not problems, f"{len(problems)}/{len(seeds)} battles differ; first: {problems[:2]}"
    return compared


def draw_battles(rng: np.random.Generator, usable: list[int], count: int,
                 usable_p2: list[int] | None = None) -> tuple[list, list, list]:
    """``count`` battles: p1's pool teams drawn from ``usable``, p2's from ``usable_p2`` (default: ``usable``),
    and Showdown seeds, in that order of ``rng``'s draws."""
    p1 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, count)]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable if usable_p2 is None else usable_p2, count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    return p1, p2, seeds


def preferring_battles(bridge, usable: list[int], count: int, seed: int, prefer: np.ndarray | None = None,
                       min_teams: int = 100):
    """``count`` battles of teams drawn from ``usable`` (at least ``min_teams`` of them) at ``seed``, played with a
    boost move, or a move ``prefer`` marks, half the time (``play``), and asserted identical to Showdown's; returns
    the states and actions."""
    rng = np.random.default_rng(seed)
    assert len(usable) >= min_teams, len(usable)
    p1, p2, seeds = draw_battles(rng, usable, count)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=prefer)
    assert_identical(bridge, states, actions, sets, seeds)
    return states, actions


def holder_runs(bridge, moves, rng: np.random.Generator, copies: int, min_leads: int, random_count: int = 24,
                turns: int = 6, script=None, max_decisions: int = 10) -> list[tuple]:
    """The battles of the usable teams holding a move of ``moves`` (ids), each asserted identical to Showdown's: every
    such team led by its holder (``copies`` battles a team) against usable teams, the holder using that move whenever it
    may for ``turns`` turns (or playing ``script(team, slot)``'s actions: ``play``'s ``scripted`` rows), then
    ``random_count`` random battles of those teams choosing it half the time. Returns ``(states, actions, sets, seeds)``
    of both runs, for the caller's counts (``move_decisions``); at least ``min_leads`` led battles."""
    users = teams_holding(move_mask(moves))
    leads = holders_leading(moves, users) * copies
    assert len(leads) >= min_leads, len(leads)
    p2, _, seeds = draw_battles(rng, _usable_teams(), len(leads))
    scripted = [script(team, k) if script else [[k, -1]] * turns for team, k in leads]
    runs = [play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=max_decisions) + (seeds,)]
    p1, p2, seeds = draw_battles(rng, users, random_count)
    runs.append(play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(moves)) + (seeds,))
    for states, actions, sets, seeds in runs:
        assert_identical(bridge, states, actions, sets, seeds)
    return runs


def _battles(count: int, seed: int):
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    p1, p2, seeds = draw_battles(rng, usable, count)
    return p1, p2, seeds, rng


def _run(bridge, count: int, seed: int):
    p1, p2, seeds, rng = _battles(count, seed)
    states, actions, sets = play(p1, p2, seeds, rng)
    problems, compared = compare(bridge, states, actions, sets, seeds)
    assert not problems, f"{len(problems)}/{count} battles differ; first: {problems[:2]}"
    return states, actions


def test_restricted_random_battles_match_showdown(showdown9):
    states, actions = _run(showdown9, 24, 1)
    final = states[-1]
    decisions = [a for battle in actions for a in battle]
    # the battles reach Terastallization, switches, forced switches and ends
    assert any(4 <= a[s] < 8 for a in decisions for s in range(2))
    assert any(a[s] >= 8 for a in decisions for s in range(2))
    assert any(-1 in a for a in decisions)          # a forced switch: one side does not act
    assert (final.request == S.REQUEST_ENDED).sum() >= 20
    # and speed ties of the two actives at a move decision (their draws)
    ties = 0
    for st in states:
        speed = st.stats[np.arange(len(st.turn))[:, None], np.arange(2), st.active][..., 4]
        ties += int(((speed[:, 0] == speed[:, 1]) & (st.request == S.REQUEST_MOVE)).sum())
    assert ties >= 2, ties   # 3 since the teams hold Curse, Trick and Switcheroo


def _boost_teams() -> list[int]:
    """Usable teams with at least three stat-stage moves once restricted."""
    out = []
    for n in _usable_teams():
        rows = turn.restricted_team(DOCUMENT["teams"][n])
        if sum(BOOST_MOVES[TABLES.move_index[m]] for r in rows for m in r[5]) >= 3:
            out.append(n)
    return out


def _stage_kinds(states):
    """Counts of what the battles reached: status boosts, +6/-6 stages, self drops, a target's stages
    lowered."""
    seen = {"up": 0, "limit": 0, "down": 0}
    for st in states:
        live = st.request != S.REQUEST_ENDED
        seen["up"] += int(((st.boosts > 0) & live[:, None, None]).sum())
        seen["down"] += int(((st.boosts < 0) & live[:, None, None]).sum())
        seen["limit"] += int((np.abs(st.boosts) == 6).sum())
    return seen


def test_boost_battles_match_showdown(showdown9):
    """Teams rich in stat-stage moves, players choosing one of them half the time: status boosts, the
    clamp at +6 and the failure there, self drops, secondaries on either side with their random(100)
    draws, stages feeding damage, speed (order, ties) and the accuracy of later moves."""
    seen = _boost_run(showdown9, 24, 11)
    assert seen["up"] >= 50 and seen["down"] >= 20 and seen["limit"] >= 1, seen


def _boost_run(bridge, count: int, seed: int) -> dict:
    states, _ = preferring_battles(bridge, _boost_teams(), count, seed)
    return _stage_kinds(states)


def _leads_with(kind: str, count: int) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose restricted lead has a status move raising its own
    stages (``kind`` "status") or a damaging move lowering them (``kind`` "drop")."""
    found = []
    for n in _usable_teams():
        moves = turn.restricted_team(DOCUMENT["teams"][n])[0][5]
        for k, m in enumerate(moves):
            i = TABLES.move_index[m]
            status = TABLES.move_category[i] == tables.STATUS
            drop = turn._boost_tables()[1][i].min() < 0
            if BOOST_MOVES[i] and ((kind == "status" and status) or (kind == "drop" and drop)):
                found.append((n, k))
                break
        if len(found) == count:
            break
    return found


def test_l2_setup_to_the_limit_then_attack(showdown9):
    """Both leads use a status move raising their stages four turns running (+2 moves reach +6 on the
    third and fail on the fourth), then p1 attacks with the boosted stages and both play on."""
    leads = _leads_with("status", 48)
    assert len(leads) == 48
    p1, p2 = leads[:24], leads[24:]
    rng = np.random.default_rng(7)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in p1]
    scripted = [[[a, b]] * 4 for (_, a), (_, b) in zip(p1, p2)]
    states, actions, sets = play([DOCUMENT["teams"][n] for n, _ in p1], [DOCUMENT["teams"][n] for n, _ in p2],
                                 seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    # some stage sat at +6 through a turn its move was used again (the boost failed, nothing moved)
    at_limit = [(states[3].boosts[:, s] == 6) & (states[4].boosts[:, s] == 6) for s in range(2)]
    assert np.any(at_limit)
    assert (states[1].boosts[:, 0] > 0).any(-1).sum() >= 20


def test_l2_failed_boost_in_a_mirror(showdown9):
    """The same team on both sides, both leads using the same stage-raising status move five turns
    running: every turn ties on speed, so the draws of the Update events a successful boost has and a
    failed one (all its stages at +6) skips decide the move order and the PRNG after."""
    leads = _leads_with("status", 12)
    seeds = [[4, 3, 2, k] for k in range(len(leads))]
    teams = [DOCUMENT["teams"][n] for n, _ in leads]
    scripted = [[[k, k]] * 5 for _, k in leads]
    states, actions, sets = play(teams, teams, seeds, np.random.default_rng(3), scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    full = [(st.boosts[:, :, :5] == 6).any(-1).all(-1) for st in states[3:6]]
    assert (full[0] & full[1] & full[2]).sum() >= 3       # both at +6 and boosting again: failures


def test_l2_self_drop(showdown9):
    """p1's lead uses a move lowering its own stages (Close Combat, Draco Meteor...) on turns 1 and 2:
    where it hit, the stages fell by the move's amount (twice: -2 for Close Combat)."""
    leads = _leads_with("drop", 24)
    assert len(leads) == 24
    rng = np.random.default_rng(8)
    usable = _usable_teams()
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0], [k, 0]] for _, k in leads]
    states, actions, sets = play([DOCUMENT["teams"][n] for n, _ in leads], p2, seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    drops = (states[1].boosts[:, 0] < 0).any(-1) & (states[1].active[:, 0] == 0)
    assert drops.sum() >= 10
    assert (states[2].boosts[:, 0] <= -2).any(-1).sum() >= 3


def _struggle_run(bridge, count: int, seed: int):
    """One-move teams, players attacking nine times in ten: PP runs out, Struggle and its recoil."""
    p1, p2, seeds, rng = _battles(count, seed)
    states, actions, sets = play(p1, p2, seeds, rng, max_moves=1, attack=0.9)
    assert_identical(bridge, states, actions, sets, seeds)
    struggles = sum(int(((st.request == S.REQUEST_MOVE)
                         & ~(st.pp[np.arange(count)[:, None], np.arange(2), st.active] > 0).any(-1)[:, s]).sum())
                    for st in states for s in range(2))
    doubles = sum(int(((st.request == S.REQUEST_SWITCH) & st.switch_flag.all(-1)).sum()) for st in states)
    return struggles, doubles


def test_struggle_battles_match_showdown(showdown9):
    struggles, doubles = _struggle_run(showdown9, 48, 4)
    assert struggles >= 10 and doubles >= 1


@pytest.mark.slow
def test_restricted_random_battles_match_showdown_many(showdown9):
    for seed in range(2, 8):
        _run(showdown9, 32, seed)
        _struggle_run(showdown9, 48, seed)
        _boost_run(showdown9, 32, 100 + seed)


def test_l2_speed_tie_mirror(showdown9):
    """The same team on both sides, both using their lead's first damaging move (Latias: Psyshock, not
    Recover, which fails at full HP without its Update events): every turn ties on speed, so the order
    and the eachEvent sorts come from the draws alone; Showdown's trace shows both orders."""
    team = DOCUMENT["teams"][_usable_teams()[0]]
    lead = turn.restricted_team(team)[0][5]
    slot = next(i for i, m in enumerate(lead) if TABLES.move_power[TABLES.move_index[m]] > 0)
    seeds = [[1, 2, 3, k] for k in range(8)]
    scripted = [[[slot, slot]] * 3 for _ in seeds]
    states, actions, sets = play([team] * 8, [team] * 8, seeds, np.random.default_rng(0), scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    traced = showdown9.play([{"teams": [sets[i], sets[8 + i]], "seed": seeds[i], "actions": actions[i][:1],
                              "trace": True} for i in range(8)])
    first = set()
    for r in traced:
        log = r["log"][r["log"].index("|turn|1"):]
        first.add(next(line for line in log if line.startswith("|move|"))[:9])
        # the start's three tie draws, then per turn the sorts and eachEvents besides the hits' draws
        assert r["marks"][0] == 3
        assert sum("speedSort" in d[3] for d in r["draws"][r["marks"][0]:]) >= 8
    assert first == {"|move|p1a", "|move|p2a"}


def _tera_leads(count: int) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose lead has, once restricted, a move of its Tera type that
    is not one of its own types (Tera STAB only when Terastallized)."""
    found = []
    for n in _usable_teams():
        lead = turn.restricted_team(DOCUMENT["teams"][n])[0]
        species, tera, moves = lead[0], lead[6], lead[5]
        own = {int(x) for x in TABLES.species_types[TABLES.species_index[species]]}
        if tera == "Stellar" or TABLES.type_index[tera] in own:
            continue
        slots = [k for k, m in enumerate(moves) if int(TABLES.move_type[TABLES.move_index[m]]) == TABLES.type_index[tera]
                 and TABLES.move_category[TABLES.move_index[m]] != tables.STATUS]
        if slots:
            found.append((n, slots[0]))
        if len(found) == count:
            break
    return found


def test_l2_tera_stab_ko_and_forced_switch(showdown9):
    """p1's lead Terastallizes on turn 1 and uses a move of its Tera type (STAB only through Tera);
    p2 attacks, then both play on: the Tera STAB damage, KOs, the switch request of the side whose
    Pokémon fainted (the other side not acting) and the turn after it match, and some turn-1 hits KO."""
    leads = _tera_leads(24)
    assert len(leads) == 24
    rng = np.random.default_rng(99)
    usable = _usable_teams()
    p1 = [DOCUMENT["teams"][n] for n, _ in leads]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[4 + k, 0]] for _, k in leads]
    states, actions, sets = play(p1, p2, seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    assert all(a[0] == [4 + k, 0] for a, (_, k) in zip(actions, leads))
    # Terastallized (a lead KO'd first is no longer: Showdown clears the flag on fainting)
    assert (~states[1].can_tera[:, 0]).all() and (states[1].terastallized[:, 0, 0] | (states[1].hp[:, 0, 0] == 0)).all()
    ko = (states[1].hp[:, 1, 0] == 0) & (states[1].request == S.REQUEST_SWITCH)
    assert ko.sum() >= 1 and not states[1].switch_flag[ko, 0].any()
    assert any(-1 in a for battle in actions for a in battle)


@pytest.mark.slow
def test_step_under_vmap_is_the_batched_step():
    """``turn.step`` under ``vmap`` (one battle per row) gives the batched step's states. Slow (it compiles the
    vmapped turn, ~75 s cold): the default suite checks the same through the env, whose ``step`` runs the turn under
    ``vmap`` (``test_env.py::test_step_batch_equals_vmapped_step``)."""
    p1, p2, seeds, rng = _battles(6, 5)
    team_pool, _ = restricted(p1 + p2)
    st = S.from_pool(team_pool, jnp.arange(6, dtype=jnp.int32), jnp.arange(6, 12, dtype=jnp.int32),
                     jnp.stack([prng.seed_from_words(s) for s in seeds]))
    single = st
    vstep = jax.jit(jax.vmap(turn.step))
    for _ in range(12):
        mask = np.asarray(_mask(st))
        actions = jnp.asarray([[int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in row] for row in mask],
                              jnp.int32)
        st, single = _step(st, actions), vstep(single, actions)
        for a, b in zip(jax.tree_util.tree_leaves(st), jax.tree_util.tree_leaves(single)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
