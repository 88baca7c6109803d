"""L3 of the moves that lock their user in (``turn.locked_moves()``: Outrage, Petal Dance), make it recharge
(``turn.recharge_moves()``: Giga Impact) or charge first (``turn.charge_moves()``: Meteor Beam, Solar Beam): Gen 9
battles of ``turn.step`` against Showdown, state and PRNG after
every decision (the comparison of ``test_l3_restricted.py``, whose records hold the ``lockedmove`` volatile's
duration, ``trueDuration`` and move, the ``mustrecharge`` volatile, the ``twoturnmove`` volatile's duration with the
charging move and its own volatile, and the move actions the request offers).

A hit starts the lock (``trueDuration`` drawn 2-3); while locked the request offers the locked move alone (no
switch, no Terastallization) and the move spends no PP; the lock ends after its last turn in confusion, or early
(a miss, a Protect, a Fairy-type target, sleep, full paralysis) with or without it (``onEnd`` reads
``trueDuration``). Restricted pool teams holding one of the moves against teams with status moves and Protect.

A Giga Impact that hits (a substitute too, the target fainted or not) adds ``mustrecharge``; the next request offers
the recharge alone, a move action of priority 0 (Sucker Punch fails against it) whose ``BeforeMove`` ends the
volatile before sleep, freeze, flinch, confusion and paralysis count or draw.

A two-turn move charges on its first use (Meteor Beam: +1 Sp. Atk; no accuracy draw, Protect not read), the next
request offers it alone and it hits with no PP spent; a move action stopped in ``BeforeMove`` (sleep, full
paralysis, flinch, confusion) loses the charge.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import turn
from pokejax.gen9 import state as S
from tests.pokemon.gen9.test_l3_restricted import (
    assert_identical,
    draw_battles,
    holders_leading,
    move_mask,
    play,
    teams_holding,
)

LOCKING = move_mask(turn.locked_moves())
DISRUPTING = move_mask(turn.status_moves() + turn.protect_moves())


def _seen(states) -> dict:
    """Counts over consecutive states: locks started, decisions made locked, locks ended with and without
    confusion, and locked turns that spent PP (none should)."""
    seen = dict(started=0, locked_decisions=0, ended_confused=0, ended_plain=0, pp_spent_locked=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            if a.request[i] != S.REQUEST_MOVE:
                continue
            for s in range(2):
                k = int(a.active[i, s])
                if b.active[i, s] != k or b.hp[i, s, k] == 0:
                    continue
                before, after = int(a.locked[i, s]), int(b.locked[i, s])
                seen["started"] += int(before == 0 and after > 0)
                if before > 0:
                    seen["locked_decisions"] += 1
                    slot = int(a.locked_slot[i, s])
                    seen["pp_spent_locked"] += int(b.pp[i, s, k, slot] < a.pp[i, s, k, slot])
                    if after == 0:
                        confused = b.confusion[i, s] > 0 and a.confusion[i, s] == 0
                        seen["ended_confused" if confused else "ended_plain"] += 1
    return seen


def test_locked_move_battles_match_showdown(showdown9):
    """48 battles of teams holding Outrage or Petal Dance (chosen half the time) against teams with status moves or
    Protect, then up to 32 whose p1 lead picks its locking move four turns running."""
    rng = np.random.default_rng(81)
    users = teams_holding(LOCKING)
    assert len(users) >= 40, len(users)
    foes = teams_holding(DISRUPTING)
    p1, p2, seeds = draw_battles(rng, users, 48, foes)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=LOCKING | DISRUPTING)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _seen(states)
    leads = holders_leading(turn.locked_moves(), rng.choice(users, min(32, len(users)), replace=False))
    p2, _, seeds = draw_battles(rng, foes, len(leads))
    scripted = [[[k, 0]] * 4 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=12)
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _seen(states).items():
        seen[key] += n
    assert seen["started"] >= 20 and seen["locked_decisions"] >= 30, seen
    assert seen["ended_confused"] >= 10 and seen["ended_plain"] >= 1, seen
    assert seen["pp_spent_locked"] == 0, seen


SLEEP_MOVES = ("spore", "sleeppowder", "hypnosis", "yawn")


def test_l2_sleep_takes_the_lock_without_confusion(showdown9):
    """Leads holding Outrage or Petal Dance use it every turn against leads putting them to sleep (Spore, Sleep
    Powder, Hypnosis: slower foes after the hit; Yawn: at the next residual, whose yawn handler comes before the
    lock's): the lock's residual handler deletes it from a sleeping holder, with no confusion."""
    rng = np.random.default_rng(82)
    assert set(SLEEP_MOVES) <= set(turn.restricted_moves())
    users = teams_holding(LOCKING)
    leads = holders_leading(turn.locked_moves(), rng.choice(users, 32, replace=False))
    sleepers = holders_leading(SLEEP_MOVES, teams_holding(move_mask(SLEEP_MOVES)))
    foes = [sleepers[int(n)] for n in rng.choice(len(sleepers), len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, j]] * 4 for (_, k), (_, j) in zip(leads, foes)]
    states, actions, sets = play([t for t, _ in leads], [t for t, _ in foes], seeds, rng, scripted, max_decisions=8)
    assert_identical(showdown9, states, actions, sets, seeds)
    slept = 0
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            k = int(a.active[i, 0])
            if a.request[i] == S.REQUEST_MOVE and b.active[i, 0] == k and b.hp[i, 0, k] > 0:
                # locked, and the lock gone with the holder asleep and not confused
                slept += int(a.locked[i, 0] > 0 and b.locked[i, 0] == 0 and b.status[i, 0, k] == S.SLP
                             and b.confusion[i, 0] == 0)
    assert slept >= 3, slept


RECHARGING = move_mask(turn.recharge_moves())
# the foes' leads' moves: blocking the hit (Protect, Substitute), reading the recharge (Sucker Punch), statuses
# whose BeforeMove handlers the recharge comes before (Spore, Thunder Wave), Yawn's sleep, U-turn's mid-turn switch
FOE_MOVES = ("protect", "substitute", "suckerpunch", "spore", "thunderwave", "yawn", "uturn")


def _recharges(states) -> dict:
    """Counts over consecutive move requests of p1: Giga Impact hits that left ``recharge``, recharges done (the
    volatile gone, the holder still in), and recharges of a sleeping or paralysed holder."""
    seen = dict(hits=0, recharged=0, recharged_with_status=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            k = int(a.active[i, 0])
            if a.request[i] != S.REQUEST_MOVE or b.active[i, 0] != k or b.hp[i, 0, k] == 0:
                continue
            seen["hits"] += int(not a.recharge[i, 0] and b.recharge[i, 0])
            if a.recharge[i, 0] and not b.recharge[i, 0]:
                seen["recharged"] += 1
                seen["recharged_with_status"] += int(a.status[i, 0, k] in (S.SLP, S.PAR))
    return seen


def _holders_against_foe_moves(bridge, moves, users, rng, copies: int, counts) -> dict:
    """Each team of ``users`` (``copies`` battles a team) leads with its holder of one of ``moves``, which uses it
    whenever it may, against leads using one of ``FOE_MOVES`` every turn (each move in turn); then 24 random battles of
    ``users`` choosing one of ``moves`` half the time. Both compared with Showdown; returns ``counts(states)`` summed."""
    leads = holders_leading(moves, users) * copies
    holders = {m: holders_leading((m,), teams_holding(move_mask((m,)))) for m in FOE_MOVES}
    foes = [holders[m][int(rng.integers(len(holders[m])))] for m in np.resize(FOE_MOVES, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, j]] * 8 for (_, k), (_, j) in zip(leads, foes)]
    states, actions, sets = play([t for t, _ in leads], [t for t, _ in foes], seeds, rng, scripted,
                                 max_decisions=10)
    assert_identical(bridge, states, actions, sets, seeds)
    seen = counts(states)
    p1, p2, seeds = draw_battles(rng, users, 24)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(moves))
    assert_identical(bridge, states, actions, sets, seeds)
    for key, n in counts(states).items():
        seen[key] += n
    return seen


def test_recharge_battles_match_showdown(showdown9):
    """Every team holding Giga Impact leads with its holder against each of ``FOE_MOVES`` in turn (two battles a
    team), then 24 random battles (``_holders_against_foe_moves``)."""
    rng = np.random.default_rng(83)
    users = teams_holding(RECHARGING)
    assert len(users) >= 20, len(users)
    seen = _holders_against_foe_moves(showdown9, turn.recharge_moves(), users, rng, 2, _recharges)
    assert seen["hits"] >= 20 and seen["recharged"] >= 15 and seen["recharged_with_status"] >= 2, seen


CHARGING = move_mask(turn.charge_moves())


def _charges(states) -> dict:
    """Counts over consecutive move requests of p1: charges started, charged moves fired (no PP spent), charges lost
    in ``BeforeMove``."""
    seen = dict(charged=0, fired=0, fired_pp_spent=0, lost=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            k = int(a.active[i, 0])
            if a.request[i] != S.REQUEST_MOVE or b.active[i, 0] != k or b.hp[i, 0, k] == 0:
                continue
            seen["charged"] += int(not a.charged[i, 0] and b.charged[i, 0])
            if a.charged[i, 0] and not b.charged[i, 0]:
                slot = int(a.charge_slot[i, 0])
                spent = int(b.pp[i, 0, k, slot] < a.pp[i, 0, k, slot])
                # fired: the move's own volatile removed with the twoturnmove left to its residual (gone now); lost: both
                # removed by MoveAborted, nothing used
                hit = int(b.last_move[i, 0] == slot and b.times_attacked[i, 1].sum() > a.times_attacked[i, 1].sum())
                seen["fired"] += hit
                seen["fired_pp_spent"] += hit * spent
                seen["lost"] += int(not hit and b.status[i, 0, k] in (S.SLP, S.PAR))
    return seen


def test_charge_battles_match_showdown(showdown9):
    """Every team holding Meteor Beam or Solar Beam leads with its holder against each of ``FOE_MOVES`` in turn, then
    24 random battles (``_holders_against_foe_moves``)."""
    rng = np.random.default_rng(84)
    users = teams_holding(CHARGING)
    assert len(users) >= 30, len(users)
    seen = _holders_against_foe_moves(showdown9, turn.charge_moves(), users, rng, 1, _charges)
    assert seen["charged"] >= 30 and seen["fired"] >= 15 and seen["lost"] >= 2, seen
    assert seen["fired_pp_spent"] == 0, seen
