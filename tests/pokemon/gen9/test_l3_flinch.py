"""L3 and L2 of flinching: Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every
decision (the comparison of ``test_l3_restricted.py``, which includes each active's ``flinch`` volatile).

Teams are restricted pool teams (``turn.restricted_team``) holding a move of ``turn.flinch_moves()``
(Iron Head, Air Slash, Rock Slide...); the players pick one of them half the time: the secondary's
draw, the flinched target not moving (no PP spent, no full-paralysis draw), the volatile ending at the
residual.

L2 scenarios: a faster Pokémon's flinch move makes the slower target flinch; a slower Pokémon's
flinch move (the target has moved already) changes nothing.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from pokejax.gen9 import order, turn
from pokejax.gen9 import state as S
from tests.pokemon.gen9.test_l3_restricted import (
    DOCUMENT,
    TABLES,
    _usable_teams,
    assert_identical,
    play,
    teams_holding,
)

FLINCH_MOVES = np.zeros(len(TABLES.move_ids), bool)
FLINCH_MOVES[[TABLES.move_index[m] for m in turn.flinch_moves()]] = True


def _flinch_leads(count: int) -> list[tuple[int, int]]:
    """(team, move slot) of usable teams whose restricted lead has a move of ``turn.flinch_moves()``."""
    found = []
    for n in _usable_teams():
        moves = turn.restricted_team(DOCUMENT["teams"][n])[0][5]
        for k, m in enumerate(moves):
            if FLINCH_MOVES[TABLES.move_index[m]]:
                found.append((n, k))
                break
        if len(found) == count:
            break
    return found


def _flinch_teams() -> list[int]:
    """Usable teams with at least one flinch move once restricted."""
    return teams_holding(FLINCH_MOVES)


def test_flinch_battles_match_showdown(showdown9):
    """24 battles of teams with flinch moves, chosen half the time."""
    rng = np.random.default_rng(41)
    usable = _flinch_teams()
    assert len(usable) >= 50, len(usable)
    p1 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, 24)]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, 24)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(24)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=FLINCH_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)


def _scripted_lead_turns(seed: int):
    """p1 = teams whose lead has a flinch move, using it every turn; p2 attacks with its first move."""
    leads = _flinch_leads(48)
    assert len(leads) >= 24
    rng = np.random.default_rng(seed)
    usable = _usable_teams()
    p1 = [DOCUMENT["teams"][n] for n, _ in leads]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(usable, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, 0]] * 8 for _, k in leads]
    states, actions, sets = play(p1, p2, seeds, rng, scripted)
    return leads, states, actions, sets, seeds


def _turns(leads, states, actions):
    """Per move turn of the first leads against each other, both choosing moves: (battle, p1 faster
    on the same priority, p2 did not move with no status of its own, p1 used its flinch move)."""
    out = []
    for n in range(len(states) - 1):
        a, b = states[n], states[n + 1]
        speed = np.asarray(turn._speeds(a))
        for i, (_, k) in enumerate(leads):
            if n >= len(actions[i]) or a.request[i] != S.REQUEST_MOVE or actions[i][n] != [k, 0]:
                continue
            if a.active[i, 0] != 0 or a.active[i, 1] != 0 or b.active[i, 1] != 0:
                continue
            moves = [int(a.moves[i, 0, 0, k]), int(a.moves[i, 1, 0, 0])]
            prio = np.asarray(order.move_priority(jnp.asarray(moves)))
            if prio[0] != prio[1] or speed[i, 0] == speed[i, 1] or a.pp[i, 1, 0, 0] == 0 or a.pp[i, 0, 0, k] == 0:
                continue
            if a.status[i, 1, 0] != 0 or a.status[i, 0, 0] != 0 or b.hp[i, 1, 0] == 0 or b.hp[i, 0, 0] == 0:
                continue
            still = b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0]
            out.append((i, bool(speed[i, 0] > speed[i, 1]), bool(still)))
    return out


def test_l2_faster_flinch_stops_the_target(showdown9):
    """p1's lead uses its flinch move every turn, p2's attacks: where p1 is faster, p2 sometimes
    flinches (its move does not run, no PP spent), as in Showdown."""
    leads, states, actions, sets, seeds = _scripted_lead_turns(42)
    assert_identical(showdown9, states, actions, sets, seeds)
    turns = _turns(leads, states, actions)
    flinched = sum(still for _, faster, still in turns if faster)
    assert flinched >= 3, (flinched, len(turns))


def test_l2_slower_flinch_does_nothing(showdown9):
    """Where p1's lead is slower, p2 has moved before the flinch lands: p2 always spends its PP, and
    the volatile is gone at the next decision (the state comparison checks it)."""
    leads, states, actions, sets, seeds = _scripted_lead_turns(43)
    assert_identical(showdown9, states, actions, sets, seeds)
    turns = _turns(leads, states, actions)
    slower = [still for _, faster, still in turns if not faster]
    assert len(slower) >= 10 and not any(slower), (len(slower), sum(slower))
    assert not any(st.flinch[st.request != S.REQUEST_ENDED].any() for st in states)


def test_l2_a_flinched_paralysed_pokemon_draws_no_full_paralysis(showdown9):
    """Leads with a paralysing status move and a flinch move (Thunder Wave and Iron Head...) paralyse
    p2's lead, then use the flinch move every turn: flinch's BeforeMove (priority 8) stops the
    paralysed target before paralysis's (priority 1) draws its random(4), so the PRNG stays in step."""
    primary = turn._status_tables()[0]
    leads = []
    for n in _usable_teams():
        idx = [TABLES.move_index[m] for m in turn.restricted_team(DOCUMENT["teams"][n])[0][5]]
        par = [k for k, i in enumerate(idx) if primary[i] == S.PAR]
        flinch = [k for k, i in enumerate(idx) if FLINCH_MOVES[i]]
        if par and flinch:
            leads.append((n, par[0], flinch[0]))
    assert len(leads) >= 4, leads
    rng = np.random.default_rng(44)
    battles = [leads[j % len(leads)] for j in range(48)]
    p1 = [DOCUMENT["teams"][n] for n, _, _ in battles]
    p2 = [DOCUMENT["teams"][int(n)] for n in rng.choice(_usable_teams(), len(battles))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in battles]
    scripted = [[[p, 0]] + [[f, 0]] * 8 for _, p, f in battles]
    states, actions, sets = play(p1, p2, seeds, rng, scripted)
    assert_identical(showdown9, states, actions, sets, seeds)
    stopped = 0
    for a, b in zip(states[1:], states[2:]):
        for i in range(len(battles)):
            stopped += int(a.request[i] == S.REQUEST_MOVE and a.active[i, 1] == 0 and b.active[i, 1] == 0
                           and a.status[i, 1, 0] == S.PAR and b.hp[i, 1, 0] > 0 and a.pp[i, 1, 0, 0] > 0
                           and b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0])
    assert stopped >= 5, stopped   # flinched or fully paralysed, no PP spent
