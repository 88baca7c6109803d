"""The Gen 9 turn, batched: ``step(state, actions) -> state`` for the battles stage 1 covers.

One call is one decision of Showdown's battle: ``REQUEST_START`` runs its start (the leads switch in),
``REQUEST_MOVE`` a whole turn, ``REQUEST_SWITCH`` the switch-ins after a faint; ``REQUEST_ENDED``
battles do not change. Every array keeps its leading batch axis ``[B]``; which part of the turn
happens is a mask, never a Python branch on values, so the program has no control flow (checked by
``tests/pokemon/gen9/test_design.py``).

What is covered (the "restricted" battles of ``tests/pokemon/gen9/test_l3_restricted.py``): no
abilities or items, moves whose whole effect is their damage (``restricted_moves()``), Terastallization
(but not Ogerpon's, Terapagos's or Morpeko's forme changes, nor Zacian's and Zamazenta's Crowned formes:
``restricted_species_ok``), switching, fainting, forced switches, the end of the battle, and
Struggle (a side with no PP left: typeless, no PP, recoil, so both actives can faint in one turn and
both switch at once). Not covered yet: statuses, volatiles, stat changes, everything of later stages.

Showdown's draws, read from its ``battle.js``, ``battle-queue.js`` and ``battle-actions.js`` and
counted with traced battles (``gen9.js`` ``play``): apart from accuracy, critical hit and damage roll,
every draw of these battles is a speed tie of two things sorted by ``speedSort`` (one ``random(0, 2)``,
or ``random(k, k + 2)``, the same step of the PRNG), made only when they tie:

- ``eachEvent`` sorts the non-fainted actives by their ``speed``: the ``BeforeTurn`` event, the
  ``Update`` after every action, after each hit and after the hit loop of a move, and after
  ``BeforeSwitchOut``; ``runSwitch`` sorts all actives the same way;
- the queue sort at the commit of the choices and, from Gen 8 on, again after every action whose
  successor is a move: two switches, two Terastallizations or two moves of one priority tie on speed;
  the moves' order is the parity of the draws of 1 (each one swaps them);
- at the start, inserting the second lead's ``runSwitch`` next to the first one's.
"""

from __future__ import annotations

import jax.numpy as jnp

from pokejax import prng
from pokejax.gen9 import accuracy, damage, order
from pokejax.gen9.data import tables
from pokejax.gen9.masks import ACTION_SWITCH_BASE, ACTION_TERA_BASE
from pokejax.gen9.state import (
    BRN, PAR, REQUEST_ENDED, REQUEST_MOVE, REQUEST_START, REQUEST_SWITCH, TEAM_SIZE, BattleState,
)

# Move fields whose effect goes beyond the damage (read from gen9.json's Showdown data).
_EFFECT_FIELDS = ("secondaries", "secondary", "self", "multihit", "recoil", "drain", "selfSwitch",
                  "volatileStatus", "forceSwitch", "selfBoost", "selfdestruct", "smartTarget", "thawsTarget")
# Species whose Terastallization or battle start changes their forme (not modelled yet).
EXCLUDED_SPECIES_PREFIXES = ("ogerpon", "terapagos", "morpeko", "zacian", "zamazenta")


def restricted_moves() -> list[str]:
    """The moves ``step`` runs completely: damaging moves of ``damage.kernel_moves()`` whose accuracy
    and priority ``accuracy`` and ``order`` cover, with no effect besides the damage (no secondary
    effect, self effect, recoil, drain, multiple hits, switching, no
    ``cantusetwice`` (Gigaton Hammer, Blood Moon: a disabling effect)."""
    t = tables.load()
    covered = set(damage.kernel_moves()) & set(accuracy.accuracy_moves()) & set(order.order_moves())
    return sorted(m["id"] for m in t.data["moves"]
                  if m["id"] in covered and not any(m.get(f) for f in _EFFECT_FIELDS)
                  and not m["flags"].get("cantusetwice"))


def restricted_species_ok(species_id: str) -> bool:
    """Whether a species may play in the restricted battles (no forme change on Terastallizing or at
    the start)."""
    return not species_id.startswith(EXCLUDED_SPECIES_PREFIXES)


# Moves given to a Pokémon with fewer than four restricted moves, after those of its own types.
_FILLER_MOVES = ("hypervoice", "quickattack", "earthquake", "surf")


def restricted_team(rows: list, max_moves: int = 4) -> list:
    """A pool team (``pool.json`` compact rows) restricted to what ``step`` covers, deterministically:
    no ability (Showdown's "No Ability") or item; its moves filtered to ``restricted_moves()``, then
    completed up to four with the strongest restricted moves of its own types and ``_FILLER_MOVES``;
    then cut to ``max_moves`` (fewer moves: Struggle sooner).
    Raises ValueError for a species ``restricted_species_ok`` refuses."""
    t = tables.load()
    allowed = restricted_moves()
    out = []
    for species, level, gender, _item, _ability, moves, tera, evs, ivs in rows:
        if not restricted_species_ok(species):
            raise ValueError(f"{species} changes forme on Terastallizing or at the start: not covered yet")
        kept = [m for m in moves if m in allowed]
        types = {int(x) for x in t.species_types[t.species_index[species]]}
        own = sorted((m for m in allowed if int(t.move_type[t.move_index[m]]) in types),
                     key=lambda m: (-int(t.move_power[t.move_index[m]]), m))
        for m in own + list(_FILLER_MOVES):
            if len(kept) >= 4:
                break
            if m not in kept:
                kept.append(m)
        out.append([species, level, gender, "", "noability", kept[:max_moves], tera, evs, ivs])
    return out


# ---------------------------------------------------------------------------------------------
# gathers and scatters over the side axis (side: int [B]) and the team axis


def _side(x, side):
    """``x[b, side[b], ...]`` for ``x`` ``[B, 2, ...]``."""
    idx = side.reshape(side.shape + (1,) * (x.ndim - side.ndim))
    return jnp.take_along_axis(x, idx, axis=side.ndim).squeeze(side.ndim)


def _set_side(x, side, value, when):
    """``x`` with ``x[b, side[b]] = value[b]`` where ``when[b]``."""
    hit = (jnp.arange(2) == side[..., None]) & when[..., None]      # [B, 2]
    hit = hit.reshape(hit.shape + (1,) * (x.ndim - hit.ndim))
    value = jnp.broadcast_to(jnp.asarray(value, x.dtype), side.shape + x.shape[side.ndim + 1:])
    return jnp.where(hit, jnp.expand_dims(value, side.ndim), x)


def _mon(x, side, slot):
    """``x[b, side[b], slot[b], ...]`` for a per-Pokémon field ``[B, 2, 6, ...]``."""
    return _side(_side(x, side), slot)


def _set_mon(x, side, slot, value, when):
    row = _side(x, side)                                             # [B, 6, ...]
    row = _set_side_n(row, slot, value, when, TEAM_SIZE)
    return _set_side(x, side, row, when)


def _set_side_n(x, index, value, when, n):
    hit = (jnp.arange(n) == index[..., None]) & when[..., None]
    hit = hit.reshape(hit.shape + (1,) * (x.ndim - hit.ndim))
    value = jnp.broadcast_to(jnp.asarray(value, x.dtype), index.shape + x.shape[index.ndim + 1:])
    return jnp.where(hit, jnp.expand_dims(value, index.ndim), x)


def _speeds(st: BattleState):
    """int32[B, 2]: each active's speed as Showdown's ``Pokemon.speed`` holds it."""
    spe = st.active_of(st.stats)[..., 4]
    return order.action_speed(spe, st.boosts[..., 4], st.active_of(st.status) == PAR)


def _up(st: BattleState):
    """bool[B]: both actives are on the field and not fainted (eachEvent sorts two Pokémon)."""
    return jnp.all(st.active_of(st.hp) > 0, axis=-1)


def _tie_draw(st: BattleState, when):
    """One speed-sort draw of the two actives where they tie on speed (and ``when``)."""
    s = _speeds(st)
    rng, _ = prng.random_range(st.rng, 0, 2, when=when & (s[..., 0] == s[..., 1]))
    return st.replace(rng=rng)


def _each_event(st: BattleState, when):
    """Showdown's ``eachEvent``: a draw where both actives are up and tie on speed."""
    return _tie_draw(st, when & _up(st))


# ---------------------------------------------------------------------------------------------


def _start(st: BattleState, on):
    """``Battle.start``: the leads switch in; on a speed tie, inserting the second lead's runSwitch, its
    speed sort and the Update after it draw once each."""
    for _ in range(3):
        st = _tie_draw(st, on)
    return st.replace(request=jnp.where(on, REQUEST_MOVE, st.request), turn=jnp.where(on, 1, st.turn))


def _switch_in(st: BattleState, side, slot, on, voluntary):
    """``switchIn`` of team ``slot`` for ``side`` and the runSwitch after it, with their draws."""
    # BeforeSwitchOut of a Pokémon still up is followed by an Update
    st = _each_event(st, on & voluntary)
    active = _set_side(st.active, side, slot, on)
    boosts = _set_side(st.boosts, side, jnp.zeros_like(st.boosts[..., 0, :]), on)
    st = st.replace(active=active, boosts=boosts, switch_flag=_set_side(st.switch_flag, side, False, on))
    st = _each_event(st, on)                      # the Update after the switch action
    st = _tie_draw(st, on)                        # runSwitch's speed sort of all actives
    return _each_event(st, on)                    # the Update after runSwitch


def _struggling(st: BattleState):
    """bool[B, 2]: the active has no move with PP left (its move action is Struggle)."""
    usable = (st.active_of(st.moves) != 0) & (st.active_of(st.pp) > 0)
    return ~usable.any(-1)


def _left(st: BattleState, side):
    """int32[B]: the Pokémon of ``side`` not fainted."""
    alive = (jnp.arange(TEAM_SIZE) < _side(st.team_size, side)[..., None]) & (_side(st.hp, side) > 0)
    return jnp.sum(alive, axis=-1)


def _use_move(st: BattleState, side, slot, on):
    """``side``'s active uses its move ``slot`` (Struggle when no move has PP) on the foe: PP, type
    immunity, accuracy, crit and roll, HP, Struggle's recoil, fainting and the end of the battle, with
    the draws between."""
    t = tables.load()
    foe = 1 - side
    me, them = _side(st.active, side), _side(st.active, foe)
    on = on & (_mon(st.hp, side, me) > 0)                     # a fainted Pokémon's move does not run
    struggle = _side(_struggling(st), side)
    moves = _mon(st.moves, side, me)
    move = jnp.take_along_axis(moves, slot[..., None], axis=-1)[..., 0]
    move = jnp.where(struggle, t.move_index["struggle"], move)
    pp = _mon(st.pp, side, me)
    pay = on & ~struggle                                       # Struggle costs no PP
    pp = jnp.where((jnp.arange(4) == slot[..., None]) & pay[..., None], pp - 1, pp)
    st = st.replace(pp=_set_mon(st.pp, side, me, pp, pay))
    # a foe fainted earlier in the turn (by Struggle's recoil): the move fails with no target, no draw
    on = on & (_mon(st.hp, foe, them) > 0)

    tera_of = lambda s, k: jnp.where(_mon(st.terastallized, s, k), _mon(st.tera_type, s, k), tables.TYPE_NONE)
    a_types, d_types = _mon(st.types, side, me), _mon(st.types, foe, them)
    a_tera, d_tera = tera_of(side, me), tera_of(foe, them)
    move_type = jnp.where(struggle, tables.TYPE_NONE, jnp.asarray(t.move_type)[move])   # Struggle: "???"
    immune, _ = damage.effectiveness(move_type, d_types, d_tera)
    immune = immune & ~jnp.asarray(t.move_ignore_immunity)[move]
    a_boosts, d_boosts = _side(st.boosts, side), _side(st.boosts, foe)
    rng, hit = accuracy.hits(st.rng, move, a_boosts[..., 5], d_boosts[..., 6], a_types, a_tera)
    rng = jnp.where((on & ~immune)[..., None], rng, st.rng)
    lands = on & ~immune & hit
    rng2, dmg, _ = damage.hit(rng, move, _mon(st.level, side, me), _mon(st.stats, side, me), a_boosts[..., :5],
                              a_types, a_tera, _mon(st.status, side, me) == BRN, _mon(st.stats, foe, them),
                              d_boosts[..., :5], d_types, d_tera, _mon(st.stellar, side, me), typeless=struggle)
    rng = jnp.where(lands[..., None], rng2, rng)
    st = st.replace(rng=rng, stellar=_set_mon(st.stellar, side, me, dmg.stellar, lands))
    dealt = lands & (dmg.kind == damage.KIND_DAMAGE)
    hp = _mon(st.hp, foe, them)
    st = st.replace(hp=_set_mon(st.hp, foe, them, jnp.maximum(hp - dmg.damage, 0), dealt))
    st = _tie_draw(st, dealt)                                  # the Update after the hit (not fainted yet)
    # the hit loop's faintMessages: the target faints (a fainted Pokémon is no longer Terastallized)
    fainted = dealt & (_mon(st.hp, foe, them) == 0)
    st = st.replace(terastallized=_set_mon(st.terastallized, foe, them, False, fainted))
    # Struggle's recoil, Math.round(base max HP / 4) and at least 1, as direct damage
    recoil = dealt & struggle
    mine = _mon(st.hp, side, me)
    cost = jnp.maximum((_mon(st.max_hp, side, me) + 2) // 4, 1)
    st = st.replace(hp=_set_mon(st.hp, side, me, jnp.maximum(mine - cost, 0), recoil))
    st = _tie_draw(st, dealt & ~fainted)                       # the Update after the hit loop (user not fainted yet)
    # runMove's faintMessages and checkWin: the user fainted by recoil; both sides out: the user's wins
    down = recoil & (_mon(st.hp, side, me) == 0)
    st = st.replace(terastallized=_set_mon(st.terastallized, side, me, False, down))
    foe_out, my_out = fainted & (_left(st, foe) == 0), down & (_left(st, side) == 0)
    won = foe_out | my_out
    st = st.replace(winner=jnp.where(won, jnp.where(foe_out, side, foe), st.winner),
                    request=jnp.where(won, REQUEST_ENDED, st.request))
    return _each_event(st, on & ~won)                          # the Update after the move action


def _turn(st: BattleState, actions, on):
    """A whole turn of a move request."""
    act = jnp.asarray(actions, jnp.int32)
    switching = on[..., None] & (act >= ACTION_SWITCH_BASE)                     # [B, 2]
    moving = on[..., None] & ~switching
    tera = moving & (act >= ACTION_TERA_BASE)
    slot = jnp.where(switching, 0, act % ACTION_TERA_BASE)
    move = jnp.take_along_axis(st.active_of(st.moves), slot[..., None], axis=-1)[..., 0]
    move = jnp.where(_struggling(st), tables.load().move_index["struggle"], move)
    priority = order.move_priority(move)
    speed = _speeds(st)
    same_speed = speed[..., 0] == speed[..., 1]
    move_tie = moving.all(-1) & (priority[..., 0] == priority[..., 1]) & same_speed

    # the commit's queue sort: two switches, two Terastallizations, two moves that tie
    rng, first_switch = prng.random_range(st.rng, 0, 2, when=switching.all(-1) & same_speed)
    rng, _ = prng.random_range(rng, 0, 2, when=tera.all(-1) & same_speed)
    rng, swap = prng.random_range(rng, 0, 2, when=move_tie)
    st = st.replace(rng=rng)
    # beforeTurn: its eachEvent, the Update, then a re-sort if a move comes next
    st = _each_event(st, on)
    st = _each_event(st, on)
    next_is_move = on & ~switching.any(-1) & ~tera.any(-1)
    rng, r = prng.random_range(st.rng, 0, 2, when=move_tie & next_is_move)
    st = st.replace(rng=rng)
    swap = swap ^ jnp.where(move_tie & next_is_move, r, 0)

    # switches, in the sorted order
    faster = jnp.where(same_speed, first_switch, (speed[..., 1] > speed[..., 0]).astype(jnp.int32))
    first = jnp.where(switching.all(-1), faster, jnp.where(switching[..., 0], 0, 1)).astype(jnp.int32)
    for k in range(2):
        s = first if k == 0 else 1 - first
        go = _side(switching, s)
        st = _switch_in(st, s, _side(act, s) - ACTION_SWITCH_BASE, go, jnp.ones_like(go))
    # Terastallizations (which one first changes nothing but the draws' count)
    for s in range(2):
        side = jnp.full(on.shape, s, jnp.int32)
        go = tera[..., s]
        k = st.active[..., s]
        st = st.replace(terastallized=_set_mon(st.terastallized, side, k, True, go),
                        can_tera=st.can_tera.at[..., s].set(jnp.where(go, False, st.can_tera[..., s])))
        st = _each_event(st, go)
        last = go & ((s == 1) | ~tera[..., 1])
        rng, r = prng.random_range(st.rng, 0, 2, when=move_tie & last)
        st = st.replace(rng=rng)
        swap = swap ^ jnp.where(move_tie & last, r, 0)

    # moves: priority, speed, the ties' draws
    speed = _speeds(st)   # the movers' speeds (a side that switched does not move)
    later = (priority[..., 1] > priority[..., 0]) | ((priority[..., 1] == priority[..., 0]) & (speed[..., 1] > speed[..., 0]))
    mover = jnp.where(move_tie, swap, later.astype(jnp.int32))
    mover = jnp.where(moving[..., 0] & moving[..., 1], mover, jnp.where(moving[..., 0], 0, 1)).astype(jnp.int32)
    for k in range(2):
        s = mover if k == 0 else 1 - mover
        st = _use_move(st, s, _side(slot, s), _side(moving, s) & (st.request != REQUEST_ENDED))

    # residual: the Update after it; then the faint request or the next turn
    live = on & (st.request != REQUEST_ENDED)
    st = _each_event(st, live)
    down = live[..., None] & (st.active_of(st.hp) == 0)                          # [B, 2]
    fainted = down.any(-1)
    return st.replace(switch_flag=jnp.where(live[..., None], down, st.switch_flag),
                      request=jnp.where(live, jnp.where(fainted, REQUEST_SWITCH, REQUEST_MOVE), st.request),
                      turn=jnp.where(live & ~fainted, st.turn + 1, st.turn))


def _forced_switch(st: BattleState, actions, on):
    """The switch-ins after faints, then the end of the turn. Two switches (both actives fainted) are
    sorted by the fainted Pokémon's speeds (a draw on a tie); the first one's switch-in sees a fainted
    foe, so only its runSwitch sort (of all actives, fainted included) can draw."""
    act = jnp.asarray(actions, jnp.int32)
    flag = st.switch_flag & on[..., None]
    both = flag.all(-1)
    speed = _speeds(st)
    tie = speed[..., 0] == speed[..., 1]
    rng, r = prng.random_range(st.rng, 0, 2, when=both & tie)
    st = st.replace(rng=rng)
    first = jnp.where(both, jnp.where(tie, r, (speed[..., 1] > speed[..., 0]).astype(jnp.int32)),
                      jnp.where(flag[..., 0], 0, 1)).astype(jnp.int32)
    for k in range(2):
        s = first if k == 0 else 1 - first
        go = flag.any(-1) if k == 0 else both
        st = _switch_in(st, s, _side(act, s) - ACTION_SWITCH_BASE, go, jnp.zeros_like(on))
    return st.replace(request=jnp.where(on, REQUEST_MOVE, st.request), turn=jnp.where(on, st.turn + 1, st.turn))


def step(state: BattleState, actions) -> BattleState:
    """One decision of each battle of the batch: ``actions`` int32 ``[B, 2]`` (``masks`` numbering;
    legal ones, e.g. through ``masks.legal_or_first``; ignored where a side does not act). Returns
    the state at the next decision (see the module docstring for what is covered)."""
    request = state.request
    st = _start(state, request == REQUEST_START)
    st = _turn(st, actions, request == REQUEST_MOVE)
    st = _forced_switch(st, actions, request == REQUEST_SWITCH)
    return st


__all__ = ["step", "restricted_moves", "restricted_team", "restricted_species_ok", "EXCLUDED_SPECIES_PREFIXES"]
