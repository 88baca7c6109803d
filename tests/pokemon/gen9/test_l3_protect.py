"""L3 and L2 of Protect (``turn.protect_moves()``): Gen 9 battles of ``turn.step`` against Showdown,
state and PRNG after every decision (the comparison of ``test_l3_restricted.py``, which includes each
active's ``protect`` volatile and its ``stall`` counter).

Protect (priority +4) fails when no action is queued after it (``queue.willAct``: its user moves last,
or the foe switched) with no draw, else with its user's ``stall`` volatile up succeeds on
``randomChance(1, counter)`` (3, 9, ... 729); a success stops the foe's moves with the ``protect`` flag
(no accuracy, damage or secondary draw) until the residual, where the volatiles' handlers tie.

Teams are restricted pool teams each of whose Pokémon is given Protect as its first move; the players
pick it half the time. The other protecting moves (Detect, Spiky Shield, King's Shield, Baneful Bunker,
Silk Trap, Burning Bulwark, Obstruct) are not in the format's sets.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from pokejax.gen9.parity import play
from tests.pokemon.gen9.test_l3_restricted import (
    assert_identical,
    compare,
    holders_leading,
    move_mask,
    move_requests,
    pp_spent,
    teams_holding,
)

PROTECT = turn.protect_moves()
TABLES = tables.load()
PROTECT_INDEX = TABLES.move_index["protect"]


def _protects(states):
    """Over the decisions of move requests: Protects that succeeded, those that were the second (or later)
    in a row and failed, and successes that stopped a move of the foe (its PP spent, no HP lost)."""
    seen = dict(succeeded=0, failed_in_a_row=0, blocked=0, failed_last=0)
    for a, b, i in move_requests(states):
        for s in range(2):
            k, f = int(a.active[i, s]), int(a.active[i, 1 - s])
            if int(b.active[i, s]) != k or int(b.active[i, 1 - s]) != f:
                continue
            if not pp_spent(a, b, i, s, PROTECT_INDEX):
                continue
            if b.stall[i, s] > 0 or b.protect[i, s]:
                seen["succeeded"] += 1
                foe_spent = (b.pp[i, 1 - s, f] < a.pp[i, 1 - s, f]).any()
                seen["blocked"] += int(foe_spent and b.hp[i, s, k] == a.hp[i, s, k])
            elif a.stall[i, s] > 0:
                seen["failed_in_a_row"] += 1
            else:
                seen["failed_last"] += 1
    return seen


def test_moves_are_covered():
    assert PROTECT == ["protect"]
    assert set(PROTECT) <= set(turn.restricted_moves())


def test_protect_battles_match_showdown(showdown9):
    """32 battles of teams holding Protect on every Pokémon, chosen half the time, for up to 160 decisions
    (with Protect, Substitute and Rest in the teams few end within 100)."""
    states, actions, sets, seeds = _battles(PROTECT, 32, 91, max_decisions=160)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _protects(states)
    print(seen)
    assert seen["succeeded"] >= 60 and seen["blocked"] >= 30 and seen["failed_in_a_row"] >= 10, seen
    assert seen["failed_last"] >= 5, seen
    assert int((states[-1].request == S.REQUEST_ENDED).sum()) >= 6      # 12


PROTECTORS = ("garchomp", "tyranitar", "clefable", "scizor", "blissey", "dragonite")


def _guarded(states, i: int, n: int, side: int) -> bool:
    """Whether ``side``'s Protect succeeded in decision ``n`` of battle ``i`` (its ``stall`` counter up at the
    end of the turn)."""
    return bool(states[n + 1].stall[i, side] > 0)


def test_l2_protect_against_an_attack_and_a_status_move(showdown9):
    """Leads using Protect against leads using an attack (Earthquake, Knock Off) or a status move
    (Will-O-Wisp, Toxic, Thunder Wave, Spore): the first Protect always succeeds and the foe's move does
    nothing (no HP lost, no status, no accuracy or damage draw)."""
    count = 24
    users = [_row(s, ["protect"]) for s in PROTECTORS]
    foes = [_row(s, [m]) for s, m in (("hippowdon", "earthquake"), ("sableye", "willowisp"), ("toxapex", "toxic"),
                                      ("kingambit", "knockoff"), ("chansey", "thunderwave"), ("amoonguss", "spore"))]
    states, actions, sets, seeds = _led(users, foes, count, 92, [[0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[0], states[1]
    for i in range(count):
        assert _guarded(states, i, 0, 0) and b.stall[i, 0] == 3
        assert b.hp[i, 0, 0] == a.hp[i, 0, 0] and b.status[i, 0, 0] == 0
        assert b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0] - 1            # the foe's move was used


def test_l2_protect_twice_in_a_row(showdown9):
    """Protect every turn against an attacker: the first succeeds, each one after a success succeeds on
    randomChance(1, 3), then (1, 9)...; a failure deletes the stall volatile, so the next one succeeds
    again."""
    count = 32
    users = [_row(s, ["protect"]) for s in PROTECTORS]
    foes = [_row(s, ["earthquake"]) for s in ("hippowdon", "garchomp", "tyranitar")]
    states, actions, sets, seeds = _led(users, foes, count, 93, [[0, 0]] * 6)
    assert_identical(showdown9, states, actions, sets, seeds)
    second = failed = third = after_failure = 0
    for i in range(count):
        run = [_guarded(states, i, n, 0) for n in range(6) if states[n].request[i] == S.REQUEST_MOVE
               and states[n + 1].active[i, 0] == 0]
        assert run[0]
        for x, y in zip(run, run[1:]):
            if x:
                second += int(y)
                failed += int(not y)
            else:
                after_failure += int(y)
                assert y
        third += int(any(states[n].stall[i, 0] == 27 for n in range(7)))
    assert second >= 10 and failed >= 30 and after_failure >= 20, (second, failed, after_failure)
    assert third >= 1 or second >= 10


def test_l2_protect_moving_last_or_against_a_switch_fails(showdown9):
    """Mirror matches of Protect users: both use Protect (the one moving second fails: no action left in
    the queue, no draw), then one attacks while the other protects (the stall volatiles of both tie at the
    residual); Protect against a foe switching out fails too (the switch ran first)."""
    count = 24
    users = [_row(s, ["protect", "earthquake"]) for s in ("garchomp", "tyranitar", "hippowdon", "dragonite")]
    states, actions, sets, seeds = _led(users, None, count, 94, [[0, 0], [1, 0], [0, 1], [0, 0]])
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, problems[:2]
    for i in range(count):
        assert _guarded(states, i, 0, 0) != _guarded(states, i, 0, 1)     # one of the two
    # p1's stall volatile of turn 1 and p2's new one (and its protect volatile) at the residual of turn 2
    both = sum(int(_guarded(states, i, 0, 0) and _guarded(states, i, 1, 1)) for i in range(count))
    assert both >= 5, both
    switch = 8 + 1
    states, actions, sets, seeds = _led(users, [_row("blissey", ["softboiled"])], count, 95, [[0, switch]])
    assert_identical(showdown9, states, actions, sets, seeds)
    for i in range(count):
        assert not _guarded(states, i, 0, 0) and states[1].active[i, 1] == 1


def test_hyperspace_fury_battles_match_showdown(showdown9):
    """Hyperspace Fury (``turn.SPECIES_TRY_MOVES``: Hoopa-Unbound's; ``breaksProtect``, ``bypasssub``, -1 Defense to its
    user): every team holding it leads with its holder, which uses it whenever it may, against leads using Protect
    every turn and leads using Substitute every turn (two battles a team each): the Protect that succeeded ends and the
    hit lands (the foe's stall counter gone too), a substitute is hit through."""
    rng = np.random.default_rng(71)
    users = teams_holding(move_mask(list(turn.SPECIES_TRY_MOVES)))
    leads = holders_leading(list(turn.SPECIES_TRY_MOVES), users) * 2
    assert len(leads) >= 10, len(leads)
    guards = {m: holders_leading((m,), teams_holding(move_mask((m,)))) for m in ("protect", "substitute")}
    foes = [guards[m][int(rng.integers(len(guards[m])))] for m in ("protect", "substitute") for _ in leads]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in foes]
    scripted = [[[k, j]] * 6 for (_, k), (_, j) in zip(leads * 2, foes)]
    states, actions, sets = play([t for t, _ in leads * 2], [t for t, _ in foes], seeds, rng, scripted,
                                 max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    broken = through_sub = 0
    for n, (a, b) in enumerate(zip(states, states[1:])):
        for i in range(len(a.turn)):
            if a.request[i] != S.REQUEST_MOVE or n >= len(actions[i]):
                continue
            k, f = int(a.active[i, 0]), int(a.active[i, 1])
            fury = actions[i][n][0] in (0, 1, 2, 3, 4, 5, 6, 7) and TABLES.move_ids[
                int(a.moves[i, 0, k, actions[i][n][0] % 4])] == "hyperspacefury"
            hurt = b.active[i, 1] == f and b.hp[i, 1, f] < a.hp[i, 1, f]
            # a first Protect in a row (it moves first: it succeeds), its stall counter gone after the turn
            protected = pp_spent(a, b, i, 1, PROTECT_INDEX) and a.stall[i, 1] == 0 and b.stall[i, 1] == 0
            broken += int(fury and hurt and protected)
            through_sub += int(fury and hurt and a.sub_hp[i, 1] > 0)
    assert broken >= 5 and through_sub >= 3, (broken, through_sub)
