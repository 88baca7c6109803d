"""L3 and L2 of the moves restricting their target's choices (``turn.lock_moves()``: Taunt, Encore, Throat Chop,
Psychic Noise): Gen 9 battles of
``turn.step`` against Showdown, state and PRNG after every decision (the comparison of
``test_l3_restricted.py``, which includes each active's ``taunt`` duration and, at every decision, the move
actions of ``masks.legal_mask`` against the moves Showdown's request offers: disabled ones, Struggle alone).

Taunt as ``moves.js`` runs it: its ``taunt`` volatile, added after the accuracy check (Protect stops it;
a target taunted already makes it fail, with no ``Update``), lasts 3 turns, 4 where its ``onStart`` finds
the target's move action already run this turn and the target not switched in this turn
(``activeTurns`` and not ``queue.willMove``); its ``onDisableMove`` disables the target's status moves in
the requests (Struggle when no move is left); its ``onBeforeMove`` (priority 5: after sleep's, freeze's and
flinch's, before confusion's and paralysis's) stops a status move chosen before it landed (``cant``, no
PP spent, no confusion or paralysis draw); its residual handler (order 15: after the statuses', before
Roost's; the two actives' tie on speed, a draw) counts it down, ending it at 0; switching out and fainting
clear it.

Encore as ``moves.js`` runs it: its ``encore`` volatile takes the target's ``lastMove`` (set by
``moveUsed``: a move action past ``BeforeMove`` and its PP; cleared on switching out and fainting) and
fails with none, one in no move slot (Struggle), a ``failencore`` one (Encore) or one out of PP, and on a
target encored already; 3 turns, 4 where the target's move action has run this turn; every other move is
disabled in the requests, and a move chosen before it landed becomes the encored one (``OverrideAction``,
before ``BeforeMove``; not Struggle); its residual handler (order 16) counts it down, ending it early when
the encored move has no PP left. A Pokémon holding a taunt and an encore draws once at ``nextTurn`` (the
two ``DisableMove`` handlers tie).

Throat Chop and Psychic Noise: a damaging move's secondary (chance 100, its ``random(100)`` drawn) adds
``throatchop`` or ``healblock`` for 2 turns to a target up that does not hold it; its sound moves, or its
moves with the ``heal`` flag, are disabled in the requests and stopped at ``BeforeMove`` (priority 6) when
chosen before; residual orders 22 and 20. On one Pokémon their ``BeforeMove`` and ``ModifyMove`` handlers
tie (a draw each), and at ``nextTurn`` k of the four volatiles' ``DisableMove`` handlers draw k - 1 times.

Teams are restricted pool teams each of whose Pokémon is given one of the moves under test as its first
move; the players pick it half the time.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import TABLES, assert_identical, compare, move_decisions

LOCK = turn.lock_moves()
TAUNT_INDEX = TABLES.move_index["taunt"]
STATUS = TABLES.move_category == 2
SOUND = np.asarray([False] + [bool(m["flags"].get("sound")) for m in TABLES.data["moves"]])
HEAL = np.asarray([False] + [bool(m["flags"].get("heal")) for m in TABLES.data["moves"]])


def _taunts(states, actions):
    """Over the move actions: Taunts that landed (3 or 4 turns), those that failed on a taunted target,
    status moves stopped by a taunt (no PP spent) and decisions where a taunt disabled a move the active
    has PP for (or left Struggle alone)."""
    seen = dict(landed=0, four=0, failed=0, stopped=0, disabled=0, struggle=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        slot = act % 4
        spent = b.pp[i, s, k, slot] < a.pp[i, s, k, slot]
        if move == "taunt" and spent and b.active[i, 1 - s] == f and a.taunt[i, 1 - s] == 0 and b.taunt[i, 1 - s] > 0:
            seen["landed"] += 1
            seen["four"] += int(b.taunt[i, 1 - s] == 3)        # 4, counted down once at the residual
        if move == "taunt" and spent and a.taunt[i, 1 - s] > 1 and b.active[i, 1 - s] == f:
            seen["failed"] += 1
        if STATUS[TABLES.move_index[move]] and not spent and b.taunt[i, s] > 0 and a.taunt[i, s] == 0 and b.hp[i, s, k] > 0:
            seen["stopped"] += 1
    for st in states:
        live = (st.request == S.REQUEST_MOVE)[:, None] & (st.taunt > 0)
        moves = np.take_along_axis(st.moves, st.active[..., None, None], axis=2)[:, :, 0]      # [B, 2, 4]
        pp = np.take_along_axis(st.pp, st.active[..., None, None], axis=2)[:, :, 0]
        has = (moves != 0) & (pp > 0)
        status = STATUS[moves] & has
        seen["disabled"] += int((live & status.any(-1)).sum())
        seen["struggle"] += int((live & has.any(-1) & ~(has & ~status).any(-1)).sum())
    return seen


def _encores(states, actions):
    """Over the move actions: Encores that landed (3 or 4 turns), those that failed (the target up: no
    last move, Encore's, out of PP, encored already), choices overridden by an encore (another slot chosen,
    the encored one's PP spent) and decisions where an encore left one move."""
    seen = dict(landed=0, four=0, failed=0, overridden=0, locked=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        slot = act % 4
        spent = b.pp[i, s, k] < a.pp[i, s, k]
        if move == "encore" and spent[slot] and b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] > 0:
            landed = a.encore[i, 1 - s] == 0 and b.encore[i, 1 - s] > 0
            seen["landed"] += int(landed)
            seen["four"] += int(landed and b.encore[i, 1 - s] == 3)
            seen["failed"] += int(not landed)
        e = int(b.encore_slot[i, s])
        if b.encore[i, s] > 0 and e != slot and spent[e] and not spent[slot]:
            seen["overridden"] += 1
    for st in states:
        seen["locked"] += int(((st.request == S.REQUEST_MOVE)[:, None] & (st.encore > 0)).sum())
    return seen


def test_moves_are_covered():
    assert LOCK == ["encore", "psychicnoise", "taunt", "throatchop"]
    assert set(LOCK) <= set(turn.restricted_moves())


def test_taunt_battles_match_showdown(showdown9):
    """32 battles of teams holding Taunt on every Pokémon, chosen half the time: requests with status
    moves disabled, status moves stopped, Taunts of 3 and 4 turns, Taunts failing on a taunted target."""
    states, actions, sets, seeds = _battles(["taunt"], 32, 111)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _taunts(states, actions)
    print(seen)
    assert seen["landed"] >= 60 and seen["four"] >= 20 and seen["stopped"] >= 10, seen
    assert seen["disabled"] >= 100 and seen["failed"] >= 3, seen


STATUS_LEADS = [_row("blissey", ["softboiled", "thunderwave", "toxic", "protect"]),
                _row("toxapex", ["recover", "toxic", "haze", "protect"]),
                _row("clefable", ["moonlight", "calmmind", "thunderwave", "protect"])]
TAUNTERS = [_row(s, ["taunt", "knockoff"]) for s in ("weavile", "sableye", "grimmsnarl", "kingambit", "meowscarada")]


def test_l2_taunt_leaves_struggle_alone(showdown9):
    """Leads whose four moves are status moves against leads using Taunt on turn 1, then attacking: the
    status move chosen before a faster Taunt is stopped (``cant``), one used before a slower Taunt runs
    and that Taunt lasts 4 turns; while taunted the request offers Struggle alone (the masks are compared
    with it), and the taunt ends after its turns."""
    count = 30
    states, actions, sets, seeds = _led(STATUS_LEADS, TAUNTERS, count, 112, [[1, 0]] + [[0, 1]] * 5)
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[0], states[1]
    stopped = long = 0
    for i in range(count):
        if b.active[i, 0] != 0 or b.hp[i, 0, 0] == 0 or b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0]:
            continue                                  # p1's lead fainted, or p2's did not use Taunt
        assert b.taunt[i, 0] in (2, 3), (i, b.taunt[i], b.status[i, :, 0], b.pp[i, :, 0])
        spent = b.pp[i, 0, 0, 1] < a.pp[i, 0, 0, 1]
        stopped += int(not spent)
        long += int(b.taunt[i, 0] == 3)
        assert spent == (b.taunt[i, 0] == 3)
    assert stopped >= 5 and long >= 5, (stopped, long)
    # Struggle alone while taunted, the four moves back after
    struggled = back = 0
    for n, st in enumerate(states[1:9], start=1):
        for i in range(count):
            if st.request[i] == S.REQUEST_MOVE and st.active[i, 0] == 0:
                struggled += int(st.taunt[i, 0] > 0)
                back += int(st.taunt[i, 0] == 0 and states[n - 1].taunt[i, 0] > 0)
    assert struggled >= 30 and back >= 5, (struggled, back)


def test_l2_taunt_mirror_and_protect(showdown9):
    """Both leads use Taunt on turn 1 (the faster one's lands for 3 turns, the slower one's Taunt, a
    status move, is stopped), then Taunt again (it fails on the taunted foe; its Protect is disabled);
    against Protect (p2's lead protecting on turn 1) a Taunt does nothing."""
    count = 24
    users = [_row(s, ["taunt", "protect", "earthquake"]) for s in ("garchomp", "hippowdon", "kingambit", "weavile")]
    states, actions, sets, seeds = _led(users, None, count, 113, [[0, 0], [0, 2], [2, 0]])
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, problems[:2]
    one = sum(int((states[1].taunt[i] > 0).sum() == 1) for i in range(count) if (states[1].hp[i, :, 0] > 0).all())
    assert one >= 10, one
    states, actions, sets, seeds = _led(users, None, count, 114, [[0, 1], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    guarded = sum(int(states[1].stall[i, 1] > 0 and states[1].taunt[i, 1] == 0) for i in range(count))
    assert guarded >= 10, guarded


def test_encore_battles_match_showdown(showdown9):
    """32 battles of teams holding Encore on every Pokémon, chosen half the time: Encores of 3 and 4
    turns, failing ones (no last move, Encore's own, encored already), choices overridden, requests
    offering the encored move alone."""
    states, actions, sets, seeds = _battles(["encore"], 32, 121)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _encores(states, actions)
    print(seen)
    assert seen["landed"] >= 60 and seen["four"] >= 20 and seen["failed"] >= 20, seen
    assert seen["overridden"] >= 10 and seen["locked"] >= 100, seen


def test_lock_battles_match_showdown(showdown9):
    """32 battles of teams holding Taunt or Encore on every Pokémon, chosen 80 % of the time: both
    volatiles on one Pokémon (an encored status move under Taunt: Struggle), their residual handlers
    together (rare: chosen half the time, 2 decisions in 48 battles once the teams also held Substitute)."""
    states, actions, sets, seeds = _battles(LOCK, 32, 122, prefer=0.8)
    assert_identical(showdown9, states, actions, sets, seeds)
    both = sum(int(((st.taunt > 0) & (st.encore > 0)).sum()) for st in states)
    assert both >= 2, both   # 3 since the teams hold Curse, Trick and Switcheroo


def test_l2_encore_overrides_the_choice(showdown9):
    """p1's lead attacks on turn 1 while p2's (slower) lead uses Encore: it lasts 4 turns; on turn 2 p1 picks
    its second move (illegal: the request offers the first alone, so ``play`` picks a legal action); then a
    faster Encore (p2's lead faster) on turn 2 turns p1's choice of another move into the encored one."""
    count = 24
    fast = [_row(s, ["knockoff", "swordsdance"]) for s in ("weavile", "meowscarada", "garchomp")]
    slow = [_row(s, ["encore", "earthquake"]) for s in ("hippowdon", "toxapex", "clefable")]
    states, actions, sets, seeds = _led(fast, slow, count, 123, [[0, 0], [1, 1], [1, 1]])
    problems, _ = compare(showdown9, states, actions, sets, seeds)
    assert not problems, problems[:2]
    four = sum(int(states[1].encore[i, 0] == 3 and states[1].encore_slot[i, 0] == 0) for i in range(count))
    assert four >= 10, four
    # the scripted second move was not offered: ``play`` picked the first move or a switch instead
    assert all(actions[i][1][0] in (0, 4) or actions[i][1][0] >= 8 for i in range(count)
               if states[1].encore[i, 0] > 0 and states[1].request[i] == S.REQUEST_MOVE)
    # a faster Encore: p1's slow lead attacks on turn 1, picks its second move on turn 2, when p2's fast lead
    # encores it first (3 turns): it attacks again
    slow_users = [_row(s, ["earthquake", "slackoff"]) for s in ("hippowdon", "clodsire", "quagsire")]
    fast_users = [_row(s, ["encore", "knockoff"]) for s in ("weavile", "meowscarada", "kingambit")]
    states, actions, sets, seeds = _led(slow_users, fast_users, count, 124, [[0, 1], [1, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[1], states[2]
    turned = sum(int(b.encore[i, 0] == 2 and b.pp[i, 0, 0, 0] == a.pp[i, 0, 0, 0] - 1 and b.pp[i, 0, 0, 1] == a.pp[i, 0, 0, 1])
                 for i in range(count) if actions[i][1][0] == 1)
    assert turned >= 10, turned


def _chops(states, actions):
    """Over the move actions: Throat Chops and Psychic Noises that added their volatile, sound and heal
    moves stopped by them (chosen before, no PP spent), decisions with a move disabled by them, and
    turns where a Pokémon held both."""
    seen = dict(chopped=0, blocked=0, stopped=0, disabled=0, both=0)
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        slot = act % 4
        spent = b.pp[i, s, k, slot] < a.pp[i, s, k, slot]
        foe_up = b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] > 0
        seen["chopped"] += int(move == "throatchop" and foe_up and a.throat_chop[i, 1 - s] == 0 and b.throat_chop[i, 1 - s] > 0)
        seen["blocked"] += int(move == "psychicnoise" and foe_up and a.heal_block[i, 1 - s] == 0 and b.heal_block[i, 1 - s] > 0)
        index = TABLES.move_index[move]
        held = (SOUND[index] and b.throat_chop[i, s] > 0) or (HEAL[index] and b.heal_block[i, s] > 0)
        seen["stopped"] += int(held and not spent and b.hp[i, s, k] > 0 and a.encore[i, s] == 0)
    for st in states:
        moves = np.take_along_axis(st.moves, st.active[..., None, None], axis=2)[:, :, 0]      # [B, 2, 4]
        live = (st.request == S.REQUEST_MOVE)[:, None]
        seen["disabled"] += int((live & (((st.throat_chop > 0)[..., None] & SOUND[moves])
                                         | ((st.heal_block > 0)[..., None] & HEAL[moves])).any(-1)).sum())
    # a throatchop (its last turn) and a healblock that landed on top of it (its handlers tie until the residual)
    for a, b in zip(states, states[1:]):
        same = (a.active == b.active) & (a.request == S.REQUEST_MOVE)[:, None]
        seen["both"] += int((same & (a.throat_chop > 0) & (a.heal_block == 0) & (b.heal_block > 0)).sum())
    return seen


def test_throat_chop_and_psychic_noise_battles_match_showdown(showdown9):
    """32 battles of teams holding Throat Chop or Psychic Noise on every Pokémon, chosen half the time:
    their volatiles landing, sound and heal moves disabled in the requests and stopped when chosen before
    (Pokémon holding both, the tie draws of their BeforeMove, ModifyMove and DisableMove handlers, are rare
    here since the forcing moves joined the teams: the L2 below reaches them)."""
    states, actions, sets, seeds = _battles(["throatchop", "psychicnoise"], 32, 131)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _chops(states, actions)
    print(seen)
    assert seen["chopped"] >= 60 and seen["blocked"] >= 60 and seen["disabled"] >= 40, seen
    assert seen["stopped"] >= 3, seen


def test_l2_throat_chop_and_psychic_noise_stop_and_disable(showdown9):
    """Fast leads using Throat Chop, then Psychic Noise, then attacking, against slow leads using Hyper
    Voice (sound), Recover (heal), Hyper Voice: the turn-1 Hyper Voice is stopped, the Recover of turn 2
    too (the first Throat Chop still up: both volatiles, their ties), then both are disabled in the
    requests until their 2 turns end."""
    count = 24
    fast = [_row(s, ["throatchop", "psychicnoise", "knockoff"]) for s in ("weavile", "meowscarada", "kingambit")]
    slow = [_row(s, ["hypervoice", "recover", "earthquake"]) for s in ("hippowdon", "toxapex", "clodsire")]
    states, actions, sets, seeds = _led(fast, slow, count, 132, [[0, 0], [1, 1], [2, 2], [2, 2]])
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _chops(states, actions)
    assert seen["stopped"] >= 10 and seen["both"] >= 5, seen
