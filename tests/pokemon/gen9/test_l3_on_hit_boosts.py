"""L3 of the status moves raising their user's stages from an ``onHit`` with a condition or a cost
(``turn.ON_HIT_BOOSTS``): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision (the
comparison of ``test_l3_restricted.py``).

Belly Drum fails at half its user's max HP or less, at +6 Attack or with 1 max HP; else its user loses
``floor(maxhp / 2)`` HP and goes to +6 Attack. Take Heart raises Special Attack and Special Defense by 1, then cures
its user's status; it fails only when neither happened. Restricted pool teams holding one of them, chosen half the
time, against teams holding a status move of ``turn.status_moves()`` (statuses for Take Heart to cure). The pool's
Belly Drum users (Eiscue, Cetitan, Azumarill) have even max HP, so the floor of an odd half is not exercised here.
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
    move_decisions,
    move_mask,
    play,
    teams_holding,
)

ON_HIT = move_mask(tuple(turn.ON_HIT_BOOSTS))
STATUS_MOVES = move_mask(turn.status_moves())


def _seen(states, actions) -> dict:
    seen = dict(bellydrum=0, drummed=0, drum_failed=0, takeheart=0, cured=0, raised=0, heart_failed=0)
    for a, b, i, s, k, _, act, move in move_decisions(states, actions):
        if move not in seen or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or a.hp[i, s, k] == 0:
            continue
        seen[move] += 1
        if move == "bellydrum":
            drummed = b.boosts[i, s, 0] == 6 and a.boosts[i, s, 0] < 6 and b.hp[i, s, k] < a.hp[i, s, k]
            seen["drummed" if drummed else "drum_failed"] += 1
        else:
            cured = a.status[i, s, k] != 0 and b.status[i, s, k] == 0
            raised = b.boosts[i, s, 2] > a.boosts[i, s, 2]
            seen["cured"] += int(cured)
            seen["raised"] += int(raised)
            seen["heart_failed"] += int(not (cured or raised))
    return seen


def test_belly_drum_and_take_heart_battles_match_showdown(showdown9):
    """48 battles of teams with Belly Drum or Take Heart against teams with status moves, and up to 32 whose p1 lead uses
    its move four turns running (Belly Drum: +6 then failures; Take Heart to +6, its cures)."""
    rng = np.random.default_rng(72)
    users = teams_holding(ON_HIT)
    assert len(users) >= 20, len(users)
    count = 48
    p1, p2, seeds = draw_battles(rng, users, count, teams_holding(STATUS_MOVES))
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=ON_HIT | STATUS_MOVES)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _seen(states, actions)
    # leads using it four turns running against status-move teams
    leads = holders_leading(turn.ON_HIT_BOOSTS, rng.choice(users, min(32, len(users)), replace=False))
    foes, _, seeds = draw_battles(rng, teams_holding(STATUS_MOVES), len(leads))
    scripted = [[[k, 0]] * 4 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], foes, seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _seen(states, actions).items():
        seen[key] += n
    assert seen["drummed"] >= 8 and seen["drum_failed"] >= 8, seen
    assert seen["takeheart"] >= 10 and seen["cured"] >= 2 and seen["raised"] >= 5 and seen["heart_failed"] >= 1, seen


def test_l2_clear_smog(showdown9):
    """Clear Smog leads (its holders moved to the lead) use it three turns running against leads raising their own
    stages on the first turn and attacking on the next two: the stages cleared by the hit (not through a substitute,
    a target the hit fainted too)."""
    rng = np.random.default_rng(73)
    raisers = set(m for m in turn.boost_moves() if _raises_own_stages(m))
    leads, foes = holders_leading(turn.clear_boost_moves()), []
    for n in teams_holding(move_mask(tuple(raisers))):
        team = DOCUMENT["teams"][n]
        lead = turn.restricted_team(team)[0]
        slot = next((k for k, m in enumerate(lead[5]) if m in raisers), -1)
        attack = next((k for k, m in enumerate(lead[5]) if TABLES.move_category[TABLES.move_index[m]] != tables.STATUS), -1)
        if slot >= 0 and attack >= 0:
            foes.append((team, slot, attack))
    assert len(leads) >= 4 and len(foes) >= 20, (len(leads), len(foes))
    picks = [leads[int(k)] for k in rng.choice(len(leads), 32)]
    against = [foes[int(k)] for k in rng.choice(len(foes), 32, replace=False)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in picks]
    scripted = [[[k, g], [k, h], [k, h]] for (_, k), (_, g, h) in zip(picks, against)]
    states, actions, sets = play([t for t, _ in picks], [t for t, _, _ in against], seeds, rng, scripted, max_decisions=8)
    assert_identical(showdown9, states, actions, sets, seeds)
    cleared = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move == "clearsmog" and b.pp[i, s, k, act % 4] < a.pp[i, s, k, act % 4] and b.active[i, 1 - s] == f:
            # stages it had, or raised this turn before the hit (the foe's raising move spent PP), all gone after
            g = against[i][1]
            raised_now = f == 0 and b.pp[i, 1 - s, 0, g] < a.pp[i, 1 - s, 0, g]
            cleared += int(((a.boosts[i, 1 - s] != 0).any() or raised_now) and not (b.boosts[i, 1 - s] != 0).any()
                           and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f] and a.sub_hp[i, 1 - s] == 0)
    assert cleared >= 8, cleared


def _raises_own_stages(move: str) -> bool:
    """A status move of ``turn.boost_moves()`` raising its user's stages (Swords Dance, Calm Mind...)."""
    t = tables.load()
    m = t.data["moves"][t.move_index[move] - 1]
    return m["category"] == "Status" and any(v > 0 for v in (m.get("boosts") or {}).values()) and m["target"] == "self"


def test_diamond_storm_battles_match_showdown(showdown9):
    """32 battles of teams holding Diamond Storm (``self`` +2 Defense with a chance of 50: selfDrops' random(100)
    against it; then its empty secondary's draw), chosen half the time: raised about half the time it hits."""
    assert "diamondstorm" in turn.boost_moves()
    rng = np.random.default_rng(74)
    users = teams_holding(move_mask(("diamondstorm",)))
    assert len(users) >= 8, len(users)
    p1, p2, seeds = draw_battles(rng, users, 32)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.6, prefer=move_mask(("diamondstorm",)))
    assert_identical(showdown9, states, actions, sets, seeds)
    raised = kept = 0
    for a, b, i, s, k, f, act, move in move_decisions(states, actions):
        if move != "diamondstorm" or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or b.hp[i, s, k] == 0:
            continue
        if b.active[i, 1 - s] == f and b.hp[i, 1 - s, f] < a.hp[i, 1 - s, f] and a.boosts[i, s, 1] < 6:
            raised += int(b.boosts[i, s, 1] > a.boosts[i, s, 1])
            kept += int(b.boosts[i, s, 1] == a.boosts[i, s, 1])
    assert raised >= 6 and kept >= 6, (raised, kept)


# the foes' moves: Roar and Whirlwind drag a trapped Pokémon out all the same; U-turn's switch; Spore and Thunder Wave
NO_RETREAT_FOES = ("roar", "whirlwind", "uturn", "spore", "thunderwave")


def test_no_retreat_battles_match_showdown(showdown9):
    """No Retreat (``turn.NO_RETREAT_MOVES``): every team holding it leads with its holder, which uses it on the first
    three turns (the second and third fail: its ``onTry``), then plays randomly, against leads using one of
    ``NO_RETREAT_FOES`` every turn (three battles a team); then 24 random battles of those teams choosing it half the
    time. The records hold the switches each request offers, so a trapped holder's request (none while it holds the
    volatile) is compared too. (No Ghost holds it in the pool: the Ghost's exemption from trapping is not exercised.)"""
    rng = np.random.default_rng(59)
    users = teams_holding(move_mask(turn.NO_RETREAT_MOVES))
    assert len(users) >= 10, len(users)
    leads = holders_leading(turn.NO_RETREAT_MOVES, users) * 3
    holders = {m: holders_leading((m,), teams_holding(move_mask((m,)))) for m in NO_RETREAT_FOES}
    foes = [holders[m][int(rng.integers(len(holders[m])))] for m in np.resize(NO_RETREAT_FOES, len(leads))]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in leads]
    scripted = [[[k, j]] * 3 + [[-1, j]] * 5 for (_, k), (_, j) in zip(leads, foes)]
    states, actions, sets = play([t for t, _ in leads], [t for t, _ in foes], seeds, rng, scripted, max_decisions=10)
    assert_identical(showdown9, states, actions, sets, seeds)
    all_states = [states]
    p1, p2, seeds = draw_battles(rng, users, 24)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(turn.NO_RETREAT_MOVES))
    assert_identical(showdown9, states, actions, sets, seeds)
    all_states.append(states)
    seen = dict(started=0, failed=0, trapped_requests=0, dragged=0)
    for states in all_states:
        for a, b in zip(states, states[1:]):
            for i in range(len(a.turn)):
                k = int(a.active[i, 0])
                seen["started"] += int(not a.no_retreat[i, 0] and b.no_retreat[i, 0] and b.active[i, 0] == k)
                # the move used again: PP spent, the volatile kept, no stage moved
                seen["failed"] += int(a.no_retreat[i, 0] and b.active[i, 0] == k and b.hp[i, 0, k] > 0
                                      and (b.pp[i, 0, k] < a.pp[i, 0, k]).any() and (b.boosts[i, 0] == a.boosts[i, 0]).all()
                                      and b.last_move[i, 0] >= 0
                                      and a.moves[i, 0, k, int(b.last_move[i, 0]) % 4] == TABLES.move_index["noretreat"])
                bench = (np.arange(6) < a.team_size[i, 0]) & (a.hp[i, 0] > 0) & (np.arange(6) != k)
                seen["trapped_requests"] += int(a.no_retreat[i, 0] and a.request[i] == S.REQUEST_MOVE and bench.any())
                seen["dragged"] += int(a.no_retreat[i, 0] and b.active[i, 0] != k and a.hp[i, 0, k] > 0)
    assert seen["started"] >= 20 and seen["failed"] >= 10 and seen["trapped_requests"] >= 30, seen
    assert seen["dragged"] >= 1, seen


def test_spirit_shackle_battles_match_showdown(showdown9):
    """Spirit Shackle (``turn.SHACKLE_MOVES``): every team holding it leads with its holder, which uses it whenever it
    may, against any usable teams (four battles a team); then 24 random battles of those teams choosing it half the
    time. Its ``trapped`` volatile (``BattleState.shackled``, in every record) takes the foe's switches from its
    requests (compared with Showdown's) until the holder or the trapped Pokémon leaves the field."""
    runs = holder_runs(showdown9, turn.SHACKLE_MOVES, np.random.default_rng(61), copies=4, min_leads=12, turns=8,
                       max_decisions=12)
    seen = dict(trapped=0, trapped_requests=0, released=0)
    for states, *_ in runs:
        for a, b in zip(states, states[1:]):
            for i in range(len(a.turn)):
                for s in range(2):
                    k = int(a.active[i, s])
                    seen["trapped"] += int(not a.shackled[i, s] and b.shackled[i, s])
                    bench = (np.arange(6) < a.team_size[i, s]) & (a.hp[i, s] > 0) & (np.arange(6) != k)
                    seen["trapped_requests"] += int(a.shackled[i, s] and a.request[i] == S.REQUEST_MOVE and bench.any())
                    # released: the trapper left the field (switched or fainted), the trapped one still in
                    seen["released"] += int(a.shackled[i, s] and not b.shackled[i, s] and b.active[i, s] == k
                                            and b.hp[i, s, k] > 0)
    assert seen["trapped"] >= 20 and seen["trapped_requests"] >= 20 and seen["released"] >= 2, seen


def test_clangorous_soul_and_fillet_away_battles_match_showdown(showdown9):
    """Clangorous Soul and Fillet Away (``turn.SOUL_MOVES``): every team holding one leads with its holder, which uses
    it on four turns running (Clangorous Soul's fourth fails, its user at a third of its max HP or less; Fillet
    Away's second) against random teams (three battles a team); then 24 random battles of those teams choosing it
    half the time."""
    rng = np.random.default_rng(60)
    users = teams_holding(move_mask(turn.SOUL_MOVES))
    assert len(users) >= 10, len(users)
    leads = holders_leading(turn.SOUL_MOVES, users) * 3
    p2, _, seeds = draw_battles(rng, _usable_teams(), len(leads))
    scripted = [[[k, -1]] * 4 for _, k in leads]
    states, actions, sets = play([t for t, _ in leads], p2, seeds, rng, scripted, max_decisions=8)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _souls(states, actions)
    p1, p2, seeds = draw_battles(rng, users, 24)
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.5, prefer=move_mask(turn.SOUL_MOVES))
    assert_identical(showdown9, states, actions, sets, seeds)
    for key, n in _souls(states, actions).items():
        seen[key] += n
    assert seen["paid"] >= 30 and seen["failed"] >= 5 and seen["paid_half"] >= 5, seen


def _souls(states, actions) -> dict:
    """The uses of ``turn.SOUL_MOVES``: ``paid`` (the cost taken before any other change of the turn could be told
    apart: the HP fell by at least the cost and every stage the move raises rose or was at +6), ``paid_half`` (those
    of Fillet Away), ``failed`` (PP spent, no stage moved)."""
    seen = dict(paid=0, paid_half=0, failed=0)
    for a, b, i, s, k, _, act, move in move_decisions(states, actions):
        if move not in turn.SOUL_MOVES or b.pp[i, s, k, act % 4] == a.pp[i, s, k, act % 4] or b.active[i, s] != k:
            continue
        cost = turn.SOUL_MOVES[move] * int(a.max_hp[i, s, k]) // 100
        boosts = next(m for m in TABLES.data["moves"] if m["id"] == move)["boosts"]
        raises = [tables.BOOSTS.index(stat) for stat in boosts]
        rose = (b.boosts[i, s, raises] > a.boosts[i, s, raises]) | (a.boosts[i, s, raises] == 6)
        paid = bool(rose.all() and a.hp[i, s, k] - b.hp[i, s, k] >= cost)
        seen["paid"] += int(paid)
        seen["paid_half"] += int(paid and move == "filletaway")
        seen["failed"] += int((b.boosts[i, s] == a.boosts[i, s]).all())
    return seen
