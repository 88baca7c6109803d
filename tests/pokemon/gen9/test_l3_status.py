"""L3 and L2 of the major statuses: Gen 9 battles of ``turn.step`` against Showdown, state and PRNG
after every decision (the comparison of ``test_l3_restricted.py``, which includes every Pokémon's status
and its counter: tox's stage, slp's turns left).

Teams are restricted pool teams (``turn.restricted_team``) holding at least three moves of
``turn.status_moves()`` (status moves whose whole effect is a major status on the target, damaging
moves with one status secondary); the players pick one of them half the time: burns (the halved
physical damage, 1/16 residual), paralysis (the halved speed, full paralysis), poison (1/8), toxic
(n/16, its stage reset on switching in), sleep (its 2-4 turns, the Sleep Clause), freeze (the thaw
draw, Fire moves, defrost and thawsTarget moves), the immunities by type (Tera included) and powder,
the residual order with its ties, fainting from the residual and the forced switch after it.

L2 scenarios: full paralysis, a sleeper waking, toxic's stage across switches, burn and toxic KOs in
the residual and the forced switch, freezes and thaws.
"""

from __future__ import annotations

import numpy as np
import pytest

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    play,
    preferring_battles,
)

STATUS_MOVES = np.zeros(len(TABLES.move_ids), bool)
STATUS_MOVES[[TABLES.move_index[m] for m in turn.status_moves()]] = True


def _status_teams() -> list[int]:
    """Usable teams with at least three status-inflicting moves once restricted."""
    out = []
    for n in _usable_teams():
        rows = turn.restricted_team(DOCUMENT["teams"][n])
        if sum(STATUS_MOVES[TABLES.move_index[m]] for r in rows for m in r[5]) >= 3:
            out.append(n)
    return out


def _status_run(bridge, count: int, seed: int):
    states, _ = preferring_battles(bridge, _status_teams(), count, seed, STATUS_MOVES)
    seen = {name: 0 for name in S.STATUSES[1:]}
    for st in states:
        live = (st.request != S.REQUEST_ENDED)[:, None, None] & (st.hp > 0)
        for k, name in enumerate(S.STATUSES[1:], start=1):
            seen[name] += int(((st.status == k) & live).sum())
    return seen


def test_status_battles_match_showdown(showdown9):
    """24 battles of status-rich teams: every status but freeze (10% secondaries only) reached."""
    seen = _status_run(showdown9, 24, 21)
    assert all(seen[s] >= 5 for s in ("brn", "par", "psn", "tox", "slp")), seen


@pytest.mark.slow
def test_status_battles_match_showdown_many(showdown9):
    total = {}
    for seed in range(22, 30):
        for k, v in _status_run(showdown9, 32, seed).items():
            total[k] = total.get(k, 0) + v
    assert total["frz"] >= 1, total


def _leads_with(statuses: tuple[str, ...], count: int, category: str | None = None) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose restricted lead has a move of ``turn.status_moves()``
    inflicting one of ``statuses`` (of that category: "Status" or "damaging", if given)."""
    primary, secondary = turn._status_tables()[:2]
    found = []
    for n in _usable_teams():
        moves = turn.restricted_team(DOCUMENT["teams"][n])[0][5]
        for k, m in enumerate(moves):
            i = TABLES.move_index[m]
            status = S.STATUSES[max(primary[i], secondary[i])]
            kind = "Status" if primary[i] else "damaging"
            if STATUS_MOVES[i] and status in statuses and category in (None, kind):
                found.append((n, k))
                break
        if len(found) == count:
            break
    return found


def _scripted(leads, turns, seed: int, p2_teams=None):
    """Plays p1 = the leads' teams against random usable teams with ``turns(slot)`` scripted actions."""
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    p1 = [DOCUMENT["teams"][n] for n, _ in leads]
    p2 = p2_teams or [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [turns(k) for _, k in leads]
    return play(p1, p2, seeds, rng, scripted), seeds


def _check(bridge, played):
    (states, actions, sets), seeds = played
    assert_identical(bridge, states, actions, sets, seeds)
    return states, actions


def test_l2_full_paralysis(showdown9):
    """p1's lead paralyses p2's (Thunder Wave, Glare, Stun Spore, Nuzzle...), then both attack: a
    paralysed Pokémon choosing a move sometimes does not move (its PP unchanged, still up)."""
    leads = _leads_with(("par",), 32)
    assert len(leads) == 32
    states, actions = _check(showdown9, _scripted(leads, lambda k: [[k, 0]] + [[0, 0]] * 8, 31))
    stuck = 0
    for n in range(len(states) - 1):
        a, b = states[n], states[n + 1]
        for i in range(len(leads)):
            if n >= len(actions[i]) or a.request[i] != S.REQUEST_MOVE or not 0 <= actions[i][n][1] < 8:
                continue
            k, slot = a.active[i, 1], actions[i][n][1] % 4
            if (a.status[i, 1, k] == S.PAR and b.active[i, 1] == k and b.hp[i, 1, k] > 0
                    and a.pp[i, 1, k].sum() > 0 and b.pp[i, 1, k, slot] == a.pp[i, 1, k, slot]):
                stuck += 1
    assert stuck >= 2, stuck


def _held_and_cured(states, battles: int, status: int) -> tuple[int, int]:
    """Over p2's active in the first ``battles``: the move requests it met with ``status``, and the
    decisions after which it lost that status and had not fainted."""
    held = cured = 0
    for a, b in zip(states, states[1:]):
        for i in range(battles):
            k = a.active[i, 1]
            held += int(a.status[i, 1, k] == status and a.request[i] == S.REQUEST_MOVE)
            cured += int(a.status[i, 1, k] == status and b.status[i, 1, k] == 0 and b.hp[i, 1, k] > 0)
    return held, cured


def test_l2_sleep_and_waking(showdown9):
    """p1's lead puts p2's to sleep (Spore, Sleep Powder, Hypnosis), then both attack: the sleeper's
    turns count down (its drawn 2-4) and it wakes; the Sleep Clause stops a second sleeper."""
    leads = _leads_with(("slp",), 24)
    assert len(leads) >= 12
    states, actions = _check(showdown9, _scripted(leads, lambda k: [[k, 0]] + [[0, 0]] * 6, 32))
    slept, woke = _held_and_cured(states, len(leads), S.SLP)
    assert slept >= 10 and woke >= 3, (slept, woke)


def test_l2_toxic_stage_across_switches(showdown9):
    """p1's lead badly poisons p2's (Toxic), p2 stays in two turns (stage 1, 2, 3...), switches out (the
    benched Pokémon keeps its stage) and back in (the stage starts again: 1 after that turn)."""
    leads = _leads_with(("tox",), 24, "Status")
    assert len(leads) >= 12
    turns = lambda k: [[k, 0], [0, 0], [0, 0], [0, 9], [0, 8], [0, 0]]
    states, actions = _check(showdown9, _scripted(leads, turns, 33))
    reset = 0
    for i in range(len(leads)):
        counts = [int(st.status_count[i, 1, 0]) if st.status[i, 1, 0] == S.TOX else 0 for st in states[:7]]
        active = [int(st.active[i, 1]) for st in states[:7]]
        if counts[3] >= 3 and active[4] == 1 and counts[4] == counts[3] and active[5] == 0 and counts[5] == 1:
            reset += 1
    assert reset >= 3, reset


def test_l2_residual_ko_and_forced_switch(showdown9):
    """p1's lead burns or badly poisons p2's (Will-O-Wisp, Toxic), then p1 switches back and forth while
    p2 attacks: p2's lead faints in the residual, and p2 alone switches in the forced switch."""
    leads = _leads_with(("brn", "tox"), 32, "Status")
    assert len(leads) >= 16
    turns = lambda k: [[k, 0]] + [[9, 0], [10, 0]] * 12
    states, actions = _check(showdown9, _scripted(leads, turns, 34))
    ko = 0
    for n in range(1, len(states) - 1):
        a, b = states[n], states[n + 1]
        for i in range(len(leads)):
            if n >= len(actions[i]) or a.request[i] != S.REQUEST_MOVE or actions[i][n][0] < 8:
                continue
            k = a.active[i, 1]
            if (a.status[i, 1, k] in (S.BRN, S.TOX) and b.hp[i, 1, k] == 0 and b.request[i] == S.REQUEST_SWITCH
                    and b.switch_flag[i, 1] and not b.switch_flag[i, 0]):
                ko += 1
    assert ko >= 3, ko


def test_l2_freeze_and_thaw(showdown9):
    """p1's lead uses a move that may freeze (Ice Beam, Ice Punch, Freezing Glare) every turn while p2
    attacks: freezes, the frozen Pokémon not moving, and thaws (its 20% draw, Fire moves)."""
    leads = _leads_with(("frz",), 48)
    assert len(leads) >= 24
    states, actions = _check(showdown9, _scripted(leads, lambda k: [[k, 0]] * 10, 35))
    frozen, thawed = _held_and_cured(states, len(leads), S.FRZ)
    assert frozen >= 3 and thawed >= 1, (frozen, thawed)


def test_l2_residual_tie_in_a_mirror(showdown9):
    """The same team on both sides, both leads burning, poisoning or paralysing the other on turns 1
    and 2 (the second use fails: already statused), then attacking: the two residual handlers of one
    order tie on speed every turn (one draw), as do the paralysed leads' moves and events."""
    leads = _leads_with(("brn", "psn", "tox", "par"), 16, "Status")
    assert len(leads) == 16
    seeds = [[5, 6, 7, k] for k in range(len(leads))]
    teams = [DOCUMENT["teams"][n] for n, _ in leads]
    scripted = [[[k, k], [k, k]] + [[0, 0]] * 4 for _, k in leads]
    states, actions, sets = play(teams, teams, seeds, np.random.default_rng(6), scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    ties = 0
    for st in states[2:6]:
        status = st.status[np.arange(len(leads))[:, None], np.arange(2), st.active]
        up = (st.hp[np.arange(len(leads))[:, None], np.arange(2), st.active] > 0).all(-1)
        ties += int((up & (status[:, 0] == status[:, 1]) & np.isin(status[:, 0], (S.BRN, S.PSN, S.TOX))).sum())
    assert ties >= 3, ties
