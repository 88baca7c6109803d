"""Gen 1 singles as Pokémon Showdown 0.11.11 runs it, as pure JAX functions on ``BattleState``.

The code follows Showdown's control flow closely enough that every PRNG draw happens in the same
order with the same range, including the draws Showdown's event system makes when it sorts tied
handlers (see the facts in docs/envs/pokemon.md). It is written branch-free: each step runs under
a boolean mask (``on``) and a draw only advances the generator when its mask is true.

Perspective: move code always runs with the acting Pokémon on side 0 and its foe on side 1;
``flip`` swaps the sides of the whole state so that either player can act through the same code.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from paritygym.lookup import take_rows
from pokejax import prng
from pokejax.data import tables
from pokejax.data.tables import Effect
from pokejax.game import mechanics
from pokejax.game.state import (REQUEST_ENDED, REQUEST_MOVE, REQUEST_START, REQUEST_SWITCH, WINNER_NONE, WINNER_P1,
                                WINNER_P2, WINNER_TIE, VOLATILE_START, Active, BattleState, Team)

_TABLES = tables.load()


def _col(a):
    return jnp.asarray(a, jnp.int32)


MOVE_TYPE = _col(_TABLES.move_type)
MOVE_CATEGORY = _col(_TABLES.move_category)
MOVE_POWER = _col(_TABLES.move_power)
MOVE_ACCURACY = _col(_TABLES.move_accuracy)
MOVE_PP = _col(_TABLES.move_pp)
MOVE_PRIORITY = _col(_TABLES.move_priority)
MOVE_HIGH_CRIT = _col(_TABLES.move_high_crit).astype(bool)
MOVE_SELF = _col(_TABLES.move_targets_self).astype(bool)
MOVE_IGNORE_IMMUNITY = _col(_TABLES.move_ignore_immunity).astype(bool)
MOVE_MULTIHIT = _col(_TABLES.move_multihit)
MOVE_RECOIL_NUM = _col(_TABLES.move_recoil_num)
MOVE_RECOIL_DEN = _col(_TABLES.move_recoil_den)
MOVE_DRAIN = _col(_TABLES.move_drain).astype(bool)
MOVE_FIXED = _col(_TABLES.move_fixed_damage)
MOVE_SELFDESTRUCT = _col(_TABLES.move_selfdestruct).astype(bool)
MOVE_STATUS = _col(_TABLES.move_status)
MOVE_CONFUSES = _col(_TABLES.move_primary_volatile) == tables.PRIMARY_VOLATILE_CONFUSION
MOVE_BOOSTS = _col(_TABLES.move_boosts)
MOVE_SEC_CHANCE = _col(_TABLES.move_secondary_chance)
MOVE_SEC_KIND = _col(_TABLES.move_secondary_kind)
MOVE_SEC_STATUS = _col(_TABLES.move_secondary_status)
MOVE_SEC_BOOSTS = _col(_TABLES.move_secondary_boosts)
MOVE_EFFECT = _col(_TABLES.move_effect)
MOVE_COUNTERABLE = _col(_TABLES.move_counterable).astype(bool)
METRONOME_LIST = _col(_TABLES.metronome_list)

_MOVE_BY_ID = _TABLES.move_by_id
MV_STRUGGLE, MV_NOMOVE, MV_CANNOTMOVE = tables.STRUGGLE, tables.NOMOVE, tables.CANNOTMOVE
MV_BIDE, MV_COUNTER, MV_METRONOME, MV_MIRROR_MOVE = (_MOVE_BY_ID["bide"], _MOVE_BY_ID["counter"],
                                                     _MOVE_BY_ID["metronome"], _MOVE_BY_ID["mirrormove"])
MV_RAGE, MV_DISABLE, MV_SWIFT, MV_TRANSFORM = (_MOVE_BY_ID["rage"], _MOVE_BY_ID["disable"], _MOVE_BY_ID["swift"],
                                               _MOVE_BY_ID["transform"])
# Showdown's TWO_TURN_MOVES (PP and lastMove bookkeeping differ for them)
_TWO_TURN = np.zeros(tables.NUM_MOVES, bool)
for _m in ("dig", "fly", "razorwind", "skullbash", "skyattack", "solarbeam"):
    _TWO_TURN[_MOVE_BY_ID[_m]] = True
MOVE_TWO_TURN = jnp.asarray(_TWO_TURN)
# Moves that do not zero battle.lastDamage when used (Showdown's SKIP_LASTDAMAGE)
_KEEP_LAST_DAMAGE = np.zeros(tables.NUM_MOVES, bool)
for _m in ("confuseray", "conversion", "counter", "focusenergy", "glare", "haze", "leechseed", "lightscreen",
           "mimic", "mist", "poisongas", "poisonpowder", "recover", "reflect", "rest", "softboiled", "splash",
           "stunspore", "substitute", "supersonic", "teleport", "thunderwave", "toxic", "transform"):
    _KEEP_LAST_DAMAGE[_MOVE_BY_ID[_m]] = True
MOVE_KEEPS_LAST_DAMAGE = jnp.asarray(_KEEP_LAST_DAMAGE)
MOVE_IS_REFLECT = jnp.arange(tables.NUM_MOVES) == _MOVE_BY_ID["reflect"]
# The volatile flag a self-targeting status move sets on its user: its column in the packed
# Active row (-1 = none), so that one table lookup and one write serve every such move.
_SELF_FLAG = np.full(tables.NUM_MOVES, -1, np.int32)
for _m in range(tables.NUM_MOVES):
    _e = _TABLES.move_effect[_m]
    _field = {Effect.SCREEN: "reflect" if _m == _MOVE_BY_ID["reflect"] else "light_screen", Effect.MIST: "mist",
              Effect.FOCUS_ENERGY: "focus_energy",
              Effect.SELF_VOLATILE_NOOP: "minimize" if _TABLES.move_boosts[_m][tables.EVA] != 0 else "defense_curl",
              }.get(_e)
    if _field is not None:
        _SELF_FLAG[_m] = Active.indices(_field)[0]
MOVE_SELF_FLAG = jnp.asarray(_SELF_FLAG)
MOVE_IS_LEECH_SEED = jnp.arange(tables.NUM_MOVES) == _MOVE_BY_ID["leechseed"]


def _check_shared_effect_paths() -> None:
    """Facts of the Gen 1 move table that let every move share one effect path (primary_hit,
    foe_effects): a regenerated table that breaks one must fail here, not change battles silently."""
    boosts = np.asarray(_TABLES.move_boosts) != 0
    primary = (boosts.any(axis=1) | (np.asarray(_TABLES.move_status) != 0)
               | (np.asarray(_TABLES.move_primary_volatile) == tables.PRIMARY_VOLATILE_CONFUSION))
    broken = {
        # foe_effects applies both kinds at the secondary's point of the move
        "primary foe effects and a secondary":
            primary & (np.asarray(_TABLES.move_secondary_kind) != tables.SECONDARY_NONE),
        # drain and recoil are applied one after the other, in either order
        "drain and recoil": (np.asarray(_TABLES.move_drain) != 0) & (np.asarray(_TABLES.move_recoil_num) != 0),
        # a stage-changing move's failure gates nothing else it does
        "stage changes and another effect": boosts.any(axis=1) & ~np.isin(
            np.asarray(_TABLES.move_effect), (Effect.NONE, Effect.SELF_VOLATILE_NOOP)),
    }
    for what, moves in broken.items():
        if moves.any():
            raise RuntimeError(f"move table: moves {np.nonzero(moves)[0].tolist()} have {what}; "
                               "the engine's shared effect path assumes no move does")


_check_shared_effect_paths()
_SECONDARY_STATUS_SKIP_SAME_TYPE = (tables.PAR, tables.BRN, tables.FRZ)
MULTIHIT_TABLE = jnp.asarray([2, 2, 2, 3, 3, 3, 4, 5], jnp.int32)

I32 = jnp.int32


# =============================================================================================
# state plumbing
# =============================================================================================

def flip(st: BattleState, do) -> BattleState:
    """Swap the two sides of every side-indexed array when ``do`` is true."""
    def swap(x):
        return jnp.where(do, x[::-1], x) if x.ndim >= 1 and x.shape[0] == 2 else x
    team = jax.tree_util.tree_map(swap, st.team)
    active = st.active.swapped(do)
    side = st.side.swapped(do)
    winner = jnp.where(do & (st.winner == WINNER_P1), WINNER_P2,
                       jnp.where(do & (st.winner == WINNER_P2), WINNER_P1, st.winner))
    return st.replace(team=team, active=active, side=side, winner=winner)


def set_active(st: BattleState, i: int, on, **fields) -> BattleState:
    return st.replace(active=st.active.with_fields(i, on, **fields))


def set_side(st: BattleState, i: int, on, **fields) -> BattleState:
    return st.replace(side=st.side.with_fields(i, on, **fields))


def draw(st: BattleState, low, high, on):
    """Showdown's ``random(low, high)`` (``random(n)`` is ``low=0``); no draw when ``on`` is false.

    Draws read the step's pre-computed pool of generator outputs in order."""
    k = jnp.minimum(st.draw_count, st.draw_pool.shape[0] - 1)
    low = jnp.asarray(low, I32)
    value = low + prng.scale(st.draw_pool[k], jnp.asarray(high, I32) - low)
    on = jnp.asarray(on, bool)
    if st.draw_log.shape[0]:  # tracing build: record (low, high, value) of every draw
        j = jnp.minimum(st.draw_count, st.draw_log.shape[0] - 1)
        row = jnp.stack([low, jnp.asarray(high, I32), value])
        st = st.replace(draw_log=st.draw_log.at[j].set(jnp.where(on, row, st.draw_log[j])))
    return st.replace(draw_count=st.draw_count + on.astype(I32)), value


def begin_step(st: BattleState) -> BattleState:
    return st.replace(draw_pool=prng.pool(st.rng), draw_count=jnp.zeros((), I32))


def end_step(st: BattleState) -> BattleState:
    """The generator advanced past the step's draws; the pool is scratch of the step, dropped (empty
    between steps, in every way of running a step, ``batched.move_step_batch`` included)."""
    return st.replace(rng=prng.advance_by(st.rng, st.draw_count), draw_pool=jnp.zeros(0, jnp.uint32))


def chance(st: BattleState, numerator, denominator, on):
    st, value = draw(st, 0, denominator, on)
    return st, value < numerator


def tie_draw(st: BattleState, on):
    """A 2-way speed-tie shuffle: ``random(0, 2)``; True means the pair is swapped."""
    st, value = draw(st, 0, 2, on)
    return st, on & (value == 1)


# =============================================================================================
# small pieces of Showdown's Pokemon/Battle methods
# =============================================================================================

def damage_hp(st: BattleState, i: int, amount, on, sets_last_damage):
    """``battle.damage`` to side i's active: at least 1 (unless 0), HP floor 0; returns dealt."""
    hp = st.active.hp[i]
    on = on & (hp > 0)
    amount = jnp.asarray(amount, I32)
    dealt = jnp.minimum(jnp.where(amount != 0, jnp.maximum(amount, 1), 0), hp)
    st = set_active(st, i, on, hp=hp - dealt)
    st = st.replace(last_damage=jnp.where(on & sets_last_damage, dealt_uncapped(amount), st.last_damage))
    return st, jnp.where(on, dealt, 0)


def dealt_uncapped(amount):
    # spreadDamage records lastDamage before target.damage() caps it at the remaining HP
    return jnp.where(amount != 0, jnp.maximum(amount, 1), 0)


def heal(st: BattleState, i: int, amount, on):
    """``battle.heal``: nothing at full HP or 0 HP; returns healed amount."""
    hp, max_hp = st.active.hp[i], max_hp_of(st, i)
    amount = jnp.asarray(amount, I32)
    on = on & (amount > 0) & (hp > 0) & (hp < max_hp)
    new_hp = jnp.minimum(hp + amount, max_hp)
    st = set_active(st, i, on, hp=new_hp)
    return st, jnp.where(on, new_hp - hp, 0)


def max_hp_of(st: BattleState, i: int):
    return st.team.wide().stats[i, st.active.slot[i], 0]


def own_stats_of(st: BattleState, i: int):
    """baseStoredStats (the set's own stats, ignoring Transform)."""
    stats, slot = st.team.wide().stats, st.active.slot[i]
    if accelerator_form():
        # a one-hot pick: the TPU runs a vmapped gather of this row window as a loop over battles
        return jnp.sum(jnp.where(jnp.arange(stats.shape[1])[:, None] == slot, stats[i], 0), axis=0)[1:]
    return stats[i, slot, 1:]


def level_of(st: BattleState, i: int):
    return st.team.wide().level[i, st.active.slot[i]]


def own_species_of(st: BattleState, i: int):
    return st.team.wide().species[i, st.active.slot[i]]


def has_type(st: BattleState, i: int, type_index):
    return jnp.any(st.active.types[i] == type_index)


def boost_stats(st: BattleState, i: int, deltas, on, from_foe_status_move):
    """Gen 1 ``battle.boost`` + ``boostBy`` on side i's active. Returns (st, success).

    ``from_foe_status_move``: the effect is a status move used by the foe (Mist blocks its drops).
    A stat already at 999 (raising) or 1 (lowering) nets one stage less and does not count as
    success, as in Showdown."""
    act = st.active
    on = on & (act.hp[i] > 0)
    deltas = jnp.asarray(deltas, I32)
    deltas = jnp.where(act.mist[i] & from_foe_status_move & (deltas < 0), 0, deltas)
    boosts = act.boosts[i]
    modified = act.modified[i]
    stored = act.stored[i]
    active_stat = deltas != 0
    blocked = ((deltas > 0) & (boosts >= 6)) | ((deltas < 0) & (boosts <= -6))
    raised = jnp.clip(boosts + deltas, -6, 6)
    is_stat = jnp.arange(7) < 5
    mod7 = jnp.concatenate([modified, jnp.zeros(2, I32)])
    at_cap = is_stat & (((deltas > 0) & (mod7 == 999)) | ((deltas < 0) & (mod7 == 1)))
    new_boosts = jnp.where(at_cap, raised - jnp.sign(deltas), raised)
    changed = active_stat & ~blocked & ~at_cap
    applied = active_stat & ~blocked
    boosts_out = jnp.where(applied, new_boosts, boosts)
    recomputed = mechanics.staged_stat(stored, boosts_out[:5])
    recomputed = jnp.where(deltas[:5] > 0, jnp.minimum(recomputed, 999), recomputed)
    modified_out = jnp.where(changed[:5], recomputed, modified)
    st = set_active(st, i, on, boosts=boosts_out, modified=modified_out)
    return st, on & jnp.any(changed)


def rage_builds(st: BattleState, i: int, on) -> BattleState:
    """Rage's +1 Attack (``battle.boost`` from the rage condition; callers check stage < 6)."""
    act = st.active
    on = on & (act.hp[i] > 0) & (act.boosts[i, tables.ATK] < 6)
    at_cap = act.modified[i, tables.ATK] == 999
    stage = jnp.minimum(act.boosts[i, tables.ATK] + 1, 6) - at_cap.astype(I32)
    attack = jnp.minimum(mechanics.staged_stat(act.stored[i, tables.ATK], stage), 999)
    boosts = act.boosts[i].at[tables.ATK].set(stage)
    modified = act.modified[i].at[tables.ATK].set(jnp.where(at_cap, act.modified[i, tables.ATK], attack))
    return set_active(st, i, on, boosts=boosts, modified=modified)


def stat_modification_error(st: BattleState, user: int, on):
    """After a move's successful stage change, the user's foe re-suffers its par/brn penalty."""
    foe = 1 - user
    status = st.active.status[foe]
    mod = st.active.modified[foe]
    spe = jnp.where(status == tables.PAR, jnp.maximum(mod[tables.SPE] // 4, 1), mod[tables.SPE])
    atk = jnp.where(status == tables.BRN, jnp.maximum(mod[tables.ATK] // 2, 1), mod[tables.ATK])
    return set_active(st, foe, on, modified=mod.at[tables.SPE].set(spe).at[tables.ATK].set(atk))


def sleep_clause_blocks(st: BattleState, target: int):
    """Sleep Clause Mod: a Pokémon on the target's side with HP is asleep from an opponent's move."""
    team_hp, team_status, team_foe = synced_fields(st, target)
    return jnp.any((team_hp > 0) & (team_status == tables.SLP) & team_foe)


def freeze_clause_blocks(st: BattleState, target: int):
    _, team_status, _ = synced_fields(st, target)
    return jnp.any(team_status == tables.FRZ)


def synced_fields(st: BattleState, i: int):
    """(hp, status, status_by_foe) of side i's team with the active's live values."""
    slot = st.active.slot[i]
    idx = jnp.arange(6) == slot
    team = st.team.wide()
    hp = jnp.where(idx, st.active.hp[i], team.hp[i])
    status = jnp.where(idx, st.active.status[i], team.status[i])
    by_foe = jnp.where(idx, st.active.status_by_foe[i], team.status_by_foe[i])
    return hp, status, by_foe


def set_status(st: BattleState, target: int, status, on, by_foe, ignore_immunity=False):
    """``pokemon.setStatus`` for a non-empty status. Returns (st, success).

    The SetStatus event shuffles the two clause handlers (one draw) whenever it runs; the
    clauses then may block. Sleep starts its counter with ``random(1, 8)``."""
    act = st.active
    on = on & (act.hp[target] > 0) & (act.status[target] != status)
    poison = (status == tables.PSN) | (status == tables.TOX)
    immune = poison & has_type(st, target, _TABLES.type_names.index("Poison"))
    if not ignore_immunity:
        on = on & ~immune
    st, _ = draw(st, 0, 2, on)  # Sleep Clause Mod / Freeze Clause Mod handler tie
    blocked = by_foe & (((status == tables.SLP) & sleep_clause_blocks(st, target)) |
                        ((status == tables.FRZ) & freeze_clause_blocks(st, target)))
    ok = on & ~blocked
    st, turns = draw(st, 1, 8, ok & (status == tables.SLP))
    st = set_active(st, target, ok, status=status, status_by_foe=by_foe,
                    sleep_turns=jnp.where(status == tables.SLP, turns, 0))
    # Toxic starts its counter volatile (residualdmg) at 0
    st = set_active(st, target, ok & (status == tables.TOX), has_toxic_counter=True, toxic_counter=0)
    return st, ok


def add_confusion(st: BattleState, target: int, on):
    """addVolatile('confusion'): nothing (and no draw) if already confused."""
    on = on & (st.active.hp[target] > 0) & (st.active.confusion[target] == 0)
    st, turns = draw(st, 2, 6, on)
    return set_active(st, target, on, confusion=turns), on


def reset_volatiles(st: BattleState, i: int, on) -> BattleState:
    """``clearVolatile``: back to the set's own species, stats, moves; every volatile removed.

    modifiedStats are the stored stats with the current par/brn penalty re-applied, and the
    cached ``speed`` is the stored Speed (``setSpecies``)."""
    slot = st.active.slot[i]
    team = st.team.wide()
    species = team.species[i, slot]
    own = own_stats_of(st, i)
    active = st.active.with_reset(
        i, on, VOLATILE_START, species=species, types=mechanics.SPECIES_TYPES[species], stored=own,
        modified=mechanics.apply_status_penalties(own, st.active.status[i]), speed=own[tables.SPE],
        moves=st.active.base_moves[i], pp=st.active.base_pp[i])
    return st.replace(active=active)


# =============================================================================================
# damage
# =============================================================================================

DMG_NUMBER, DMG_FALSE, DMG_UNDEFINED = 0, 1, 2


def get_damage(st: BattleState, move, on, fixed_override=None):
    """Showdown's gen-1 ``getDamage`` with side 0 attacking side 1.

    Returns (st, kind, damage, crit); ``kind`` is DMG_NUMBER, DMG_FALSE (immune / callback
    failed) or DMG_UNDEFINED (no base power). ``fixed_override`` (hits 2+ of a multi-hit move)
    makes it return that number, as Showdown does through ``move.damage``."""
    act, sd = st.active, st.side
    effect = MOVE_EFFECT[move]
    mtype = MOVE_TYPE[move]
    immune = ~MOVE_IGNORE_IMMUNITY[move] & mechanics.is_immune(mtype, act.types[1])
    level = level_of(st, 0)

    # damageCallback moves and fixed damage
    counter_ok = ((sd.last_enemy_selected_move[1] != MV_COUNTER) & MOVE_COUNTERABLE[sd.last_enemy_move[1]]
                  & (st.last_damage > 0))
    psywave_cap = (level * 3) // 2
    psywave_softlock = ((level + (level >> 1)) & 255) < 2
    st, psywave = draw(st, 1, psywave_cap, on & ~immune & (effect == Effect.PSYWAVE) & ~psywave_softlock)
    fixed = MOVE_FIXED[move]
    trap_continue = (act.trap_lock_move[0] != 0) & (act.trap_lock_target[0] == act.slot[1])
    ghost = _TABLES.type_names.index("Ghost")
    trap_vs_ghost = (effect == Effect.TRAP) & (mtype == _TABLES.type_names.index("Normal")) & has_type(st, 1, ghost)
    power = MOVE_POWER[move]

    kind = jnp.asarray(DMG_NUMBER, I32)
    value = jnp.asarray(0, I32)
    decided = immune
    kind = jnp.where(immune, DMG_FALSE, kind)

    def decide(cond, k, v, kind, value, decided):
        take = ~decided & cond
        return jnp.where(take, k, kind), jnp.where(take, v, value), decided | take

    kind, value, decided = decide(effect == Effect.OHKO, DMG_NUMBER, 65535, kind, value, decided)
    kind, value, decided = decide(effect == Effect.COUNTER, jnp.where(counter_ok, DMG_NUMBER, DMG_FALSE),
                                  2 * st.last_damage, kind, value, decided)
    kind, value, decided = decide(effect == Effect.SUPER_FANG, DMG_NUMBER, jnp.maximum(act.hp[1] // 2, 1),
                                  kind, value, decided)
    kind, value, decided = decide(effect == Effect.PSYWAVE, jnp.where(psywave_softlock, DMG_FALSE, DMG_NUMBER), psywave,
                                  kind, value, decided)
    kind, value, decided = decide(fixed == -1, DMG_NUMBER, level, kind, value, decided)
    if fixed_override is not None:
        kind, value, decided = decide(jnp.asarray(True), DMG_NUMBER, fixed_override, kind, value, decided)
    kind, value, decided = decide(fixed > 0, DMG_NUMBER, fixed, kind, value, decided)
    kind, value, decided = decide(trap_vs_ghost, DMG_NUMBER, 0, kind, value, decided)
    kind, value, decided = decide(trap_continue, DMG_NUMBER, act.trap_lock_damage[0], kind, value, decided)
    kind, value, decided = decide(power == 0, DMG_UNDEFINED, 0, kind, value, decided)

    # the base-power formula
    formula = on & ~decided
    threshold = mechanics.crit_threshold(mechanics.SPECIES_BASE[own_species_of(st, 0), 5], act.focus_energy[0],
                                 MOVE_HIGH_CRIT[move])
    st, crit = chance(st, threshold, 256, formula & (threshold > 0))
    crit = crit & formula & (threshold > 0)
    special = MOVE_CATEGORY[move] == tables.CATEGORY_SPECIAL
    atk_index = jnp.where(special, tables.SPA, tables.ATK)
    def_index = jnp.where(special, tables.SPD, tables.DEF)
    attack = act.modified[0][atk_index]
    defense = act.modified[1][def_index]
    screened = jnp.where(special, act.light_screen[1], act.reflect[1])
    defense = jnp.where(screened, defense * 2, defense)
    attack = jnp.where(crit, own_stats_of(st, 0)[atk_index], attack)
    defense = jnp.where(crit, own_stats_of(st, 1)[def_index], defense)
    d = mechanics.base_damage(level, power, attack, defense, crit, MOVE_SELFDESTRUCT[move] & ~special)
    d = mechanics.modify_by_type(d, mtype, act.types[0], act.types[1])
    st, roll = draw(st, 217, 256, formula & mechanics.needs_roll(d))
    d = mechanics.apply_roll(d, roll)
    value = jnp.where(formula, d, value)
    return st, kind, value, crit


def confusion_self_hit_damage(st: BattleState, i: int):
    level = level_of(st, i)
    atk = st.active.modified[i, tables.ATK]
    dfn = st.active.modified[i, tables.DEF]
    return ((level * 2 // 5 + 2) * atk * 40 // dfn) // 50 + 2


def direct_self_damage(st: BattleState, amount, on):
    """``directDamage`` of confusion / jump-kick crash to side 0: sets lastDamage; if the user has
    a substitute, the foe's substitute (if any) takes it instead and nobody loses HP."""
    on = on & (st.active.hp[0] > 0)
    amount = jnp.maximum(amount, 1)
    st = st.replace(last_damage=jnp.where(on, amount, st.last_damage))
    user_sub = st.active.sub_hp[0] > 0
    foe_sub = st.active.sub_hp[1] > 0
    to_foe_sub = on & user_sub & foe_sub
    new_sub = st.active.sub_hp[1] - amount
    st = set_active(st, 1, to_foe_sub, sub_hp=jnp.maximum(new_sub, 0),
                    sub_fainted=st.active.sub_fainted[1] | (new_sub <= 0))
    st, _ = damage_hp(st, 0, amount, on & ~user_sub, sets_last_damage=False)
    return st


def recoil(st: BattleState, move, dealt, on):
    num, den = MOVE_RECOIL_NUM[move], MOVE_RECOIL_DEN[move]
    amount = jnp.maximum(dealt * num // den, 1)  # gen 4's applyRecoilDamage (inherited): floor, at least 1
    st, _ = damage_hp(st, 0, amount, on & (num > 0) & (dealt > 0), sets_last_damage=False)
    return st


def drain(st: BattleState, move, dealt, on):
    amount = jnp.maximum(dealt // 2, 1)
    on = on & MOVE_DRAIN[move]
    st = st.replace(last_damage=jnp.where(on, amount, st.last_damage))
    st, _ = heal(st, 0, amount, on)
    return st


# =============================================================================================
# pieces of a move
# =============================================================================================

_GRASS = _TABLES.type_names.index("Grass")
_NORMAL = _TABLES.type_names.index("Normal")
_ALL_BOOSTS = jnp.eye(7, dtype=I32)


def faint_now(st: BattleState, i: int, on) -> BattleState:
    """``battle.faint``: HP to 0 (the faint itself is processed after the action)."""
    return set_active(st, i, on, hp=0)


def apply_penalty_for_new_status(st: BattleState, i: int, status, on) -> BattleState:
    mod = st.active.modified[i]
    mod = mod.at[tables.ATK].set(jnp.where(status == tables.BRN, jnp.maximum(mod[tables.ATK] // 2, 1), mod[tables.ATK]))
    mod = mod.at[tables.SPE].set(jnp.where(status == tables.PAR, jnp.maximum(mod[tables.SPE] // 4, 1), mod[tables.SPE]))
    return set_active(st, i, on, modified=mod)


def add_partially_trapped(st: BattleState, on) -> BattleState:
    """addVolatile('partiallytrapped') on the foe, source the user: restart sets duration 2."""
    on = on & (st.active.hp[1] > 0)
    fresh = on & (st.active.trapped[1] == 0)
    st = set_active(st, 1, fresh, trapped_source=st.active.slot[0], trapped_maybe_locked=False)
    return set_active(st, 1, on, trapped=2)


def transform_into_foe(st: BattleState, on) -> BattleState:
    act = st.active
    slot = act.slot[0]
    target_species = act.species[1]
    # setSpecies(target species) with the user's own set: only the cached speed survives the copy
    team = st.team.wide()
    own_speed = mechanics.calc_stats(mechanics.SPECIES_BASE[target_species], team.ivs[0, slot], team.evs[0, slot],
                             team.level[0, slot])[tables.SPE + 1]
    real = act.moves[1] != 0
    pp = jnp.where(real, jnp.minimum(5, MOVE_PP[act.moves[1]]), 0)
    return set_active(st, 0, on, species=target_species, types=act.types[1], stored=act.stored[1],
                      modified=act.modified[1], boosts=act.boosts[1], moves=act.moves[1], pp=pp,
                      virtual=real, transformed=True, speed=own_speed)


def mimic(st: BattleState, on) -> BattleState:
    act = st.active
    n = jnp.sum(act.moves[1] != 0)
    st, k = draw(st, 0, n, on)
    chosen = act.moves[1][jnp.clip(k, 0, 3)]
    slot = st.side.last_selected_slot[0]
    moves = act.moves[0].at[slot].set(chosen)
    virtual = act.virtual[0].at[slot].set(True)
    return set_active(st, 0, on, moves=moves, virtual=virtual)


def disable_foe(st: BattleState, on) -> BattleState:
    act = st.active
    usable = (act.pp[1] > 0) & (act.moves[1] != 0)
    on = on & (act.hp[1] > 0) & (act.disable_move[1] == 0)
    st, k = draw(st, 0, jnp.sum(usable), on)
    # the k-th usable slot
    rank = jnp.cumsum(usable) - 1
    slot = jnp.argmax(usable & (rank == k))
    st, turns = draw(st, 1, 9, on)
    return set_active(st, 1, on, disable_move=act.moves[1][slot], disable_slot=slot, disable_time=turns)


def haze(st: BattleState, on) -> BattleState:
    """Haze as Showdown's gen 1: both actives lose stages and the foe's status; the user's Toxic
    becomes poison (a SetStatus draw); screens, Mist, Focus Energy, Leech Seed, Disable,
    confusion and the Toxic counter end. A foe that was asleep/frozen and has yet to move does
    nothing this turn (its action becomes ``cannotmove``)."""
    act = st.active
    foe_sleeps = (act.status[1] == tables.SLP) | (act.status[1] == tables.FRZ)
    st = set_side(st, 1, on & foe_sleeps, last_selected_move=MV_CANNOTMOVE, last_enemy_selected_move=MV_CANNOTMOVE,
                  queued_move=jnp.where(st.side.queued_move[1] != 0, MV_CANNOTMOVE, 0))
    st = set_active(st, 1, on & (act.hp[1] > 0), status=0, sleep_turns=0)
    z, f = jnp.zeros((), I32), jnp.zeros((), bool)
    for i in (0, 1):
        a = st.active
        st = set_active(st, i, on, boosts=jnp.zeros(7, I32), modified=a.stored[i], speed=a.stored[i][tables.SPE],
                        disable_move=z, disable_time=z, disable_slot=z, confusion=z, mist=f, focus_energy=f,
                        leech_seed=f, light_screen=f, reflect=f, has_toxic_counter=f, toxic_counter=z)
    return st


def after_move_self(st: BattleState, on) -> BattleState:
    """``runEvent('AfterMoveSelf')`` on side 0: Toxic counter, waking up, poison/burn, Leech Seed."""
    act = st.active
    status = act.status[0]
    poisoned = (status == tables.BRN) | (status == tables.PSN) | (status == tables.TOX)
    counter = act.toxic_counter[0] + jnp.asarray(on & act.has_toxic_counter[0] & poisoned, I32)
    st = set_active(st, 0, on, toxic_counter=counter)
    # sleep ends when the counter has run out (the Pokémon still did nothing this turn)
    wake = on & (status == tables.SLP) & (act.sleep_turns[0] <= 0) & (act.hp[0] > 0)
    st = set_active(st, 0, wake, status=0)
    # poison / burn / toxic damage
    base = jnp.maximum(max_hp_of(st, 0) // 16, 1)
    mult = jnp.where(status == tables.TOX, counter, jnp.where(act.has_toxic_counter[0], counter, 1))
    st, _ = damage_hp(st, 0, base * mult, on & poisoned, sets_last_damage=False)
    # Leech Seed drains into whoever now stands on the seeder's side
    seeded = on & act.leech_seed[0] & (st.active.hp[1] > 0)
    counter2 = st.active.toxic_counter[0] + jnp.asarray(st.active.has_toxic_counter[0], I32)
    st = set_active(st, 0, seeded & st.active.has_toxic_counter[0], toxic_counter=counter2)
    mult2 = jnp.where(st.active.has_toxic_counter[0], counter2, 1)
    to_leech = jnp.maximum(max_hp_of(st, 0) // 16, 1) * mult2
    st, _ = damage_hp(st, 0, to_leech, seeded, sets_last_damage=False)
    st, _ = heal(st, 1, to_leech, seeded)
    return st


class PrimaryHit(NamedTuple):
    """What ``primary_hit`` hands on to the rest of the move."""
    failed: jnp.ndarray              # Showdown's ``return false`` of the hit (stage-change failure: foe_effects)
    dealt: jnp.ndarray               # HP damage (0 when a substitute took the hit)
    effects_on: jnp.ndarray          # the hit reached the Pokémon: a status move's effects apply
    secondary_on: jnp.ndarray        # the secondary may roll (last hit, not through a substitute)
    sub_confusion_roll: jnp.ndarray  # a confusing secondary rolls on a substitute that survived


def primary_hit(st: BattleState, move, on, is_last_hit):
    """``moveHit`` of a move aimed at the foe (not a secondary, not a self effect); the effects
    that a status move and a secondary share are ``foe_effects``. Returns (st, PrimaryHit)."""
    act = st.active
    effect = MOVE_EFFECT[move]
    category = MOVE_CATEGORY[move]
    is_status = category == tables.CATEGORY_STATUS
    had_sub = act.sub_hp[1] > 0

    # the move's own TryHit: Disable needs a move with PP
    disable_fail = on & (effect == Effect.DISABLE) & ~jnp.any((act.pp[1] > 0) & (act.moves[1] != 0))
    live = on & ~disable_fail
    # the substitute's TryHit
    mstatus = MOVE_STATUS[move]
    blocked_status = is_status & ((mstatus == tables.PSN) | (mstatus == tables.TOX) | jnp.any(MOVE_BOOSTS[move] != 0)
                                  | MOVE_CONFUSES[move])
    sub_block = live & had_sub & blocked_status
    via_sub = live & had_sub & ~is_status
    st, kind, dmg, _ = get_damage(st, move, live & ~sub_block)

    # --- into the substitute
    sub_null = via_sub & (kind != DMG_NUMBER)
    sub_hit = via_sub & (kind == DMG_NUMBER)
    st = st.replace(last_damage=jnp.where(sub_hit, dmg, st.last_damage))
    new_sub = act.sub_hp[1] - jnp.minimum(dmg, act.sub_hp[1])
    broke = sub_hit & (new_sub <= 0)
    st = set_active(st, 1, sub_hit, sub_hp=new_sub)
    st = set_active(st, 1, broke, sub_fainted=True)
    survived = sub_hit & ~broke
    # a confusing secondary still rolls through a substitute that survived (in foe_effects)
    sub_confusion_roll = survived & (MOVE_SEC_KIND[move] == tables.SECONDARY_CONFUSION)

    # --- straight at the Pokémon
    direct = live & ~sub_block & ~via_sub
    number = direct & (kind == DMG_NUMBER)
    capped = jnp.minimum(dmg, st.active.hp[1])
    st, dealt = damage_hp(st, 1, capped, number, sets_last_damage=True)
    # drain and recoil, of the damage to a substitute that survived or to the Pokémon (no move
    # has both, so their order does not matter; a drain into a substitute heals even for 0 damage)
    landed = jnp.where(survived, dmg, dealt)
    st = drain(st, move, landed, survived | (number & (dealt > 0)))
    st = recoil(st, move, landed, survived | number)
    go = direct & (kind != DMG_FALSE)
    failed = disable_fail | sub_block | sub_null | (direct & (kind == DMG_FALSE))

    # stage changes, primary status and confusion of foe-targeted status moves are applied by
    # foe_effects, together with a damaging move's secondary effect (no move has both)
    # volatile statuses on the foe
    seed = go & (effect == Effect.LEECH_SEED) & (st.active.hp[1] > 0)
    st = set_active(st, 1, seed, leech_seed=True)
    st = disable_foe(st, go & (effect == Effect.DISABLE))
    st = add_partially_trapped(st, go & (effect == Effect.TRAP))
    # onHit
    st = transform_into_foe(st, go & (effect == Effect.TRANSFORM))
    st = mimic(st, go & (effect == Effect.MIMIC))
    st = set_active(st, 0, go & (effect == Effect.CONVERSION), types=st.active.types[1])
    # runEvent('Hit') on the foe: Rage builds
    st = rage_builds(st, 1, go & st.active.rage[1] & ~is_status & ~MOVE_SELFDESTRUCT[move])

    # self effects (skipped when the hit broke a substitute, except the Wrap lock)
    reached = sub_hit | go
    do_self = ~had_sub | (st.active.sub_hp[1] > 0)
    user_alive = st.active.hp[0] > 0
    st = set_active(st, 0, reached & do_self & (effect == Effect.HYPER_BEAM) & user_alive, must_recharge=True)
    start_rage = reached & do_self & (effect == Effect.RAGE) & user_alive & ~st.active.rage[0]
    st = set_active(st, 0, start_rage, rage=True, rage_accuracy=255)
    lock = reached & (effect == Effect.TRAP) & user_alive & (st.active.trap_lock_move[0] == 0)
    st, k = draw(st, 0, 8, lock)
    duration = MULTIHIT_TABLE[k]
    st = set_active(st, 0, lock, trap_lock_move=move, trap_lock_duration=duration, trap_lock_total=duration,
                    trap_lock_damage=st.last_damage, trap_lock_target=st.active.slot[1])
    st = add_partially_trapped(st, lock)

    # the secondary effect comes next (see hit_foe): not through a substitute, and only on the
    # last hit of a multi-hit move
    return st, PrimaryHit(failed=failed, dealt=jnp.where(number, dealt, 0), effects_on=go,
                          secondary_on=go & is_last_hit, sub_confusion_roll=sub_confusion_roll)


def foe_effects(st: BattleState, move, hit: "PrimaryHit"):
    """What a move does to the foe besides damage, through one code path for every move: the
    stage changes, status and confusion of a foe-targeted status move (``hit.effects_on``) or the
    secondary effect of a damaging move (``hit.secondary_on``: its chance roll, then a stat drop,
    status, flinch or confusion). No move has both kinds, so the primary effects may wait until
    the secondary's point of the move (after every hit) without changing the order of draws.
    Returns (st, failed): a status move whose stage changes all failed."""
    is_status = MOVE_CATEGORY[move] == tables.CATEGORY_STATUS
    kind = MOVE_SEC_KIND[move]
    sstatus = MOVE_SEC_STATUS[move]
    same_type_skip = ((kind == tables.SECONDARY_STATUS)
                      & ((sstatus == tables.PAR) | (sstatus == tables.BRN) | (sstatus == tables.FRZ))
                      & has_type(st, 1, MOVE_TYPE[move]))
    roll = ((hit.secondary_on & (kind != tables.SECONDARY_NONE) & (st.active.hp[1] > 0) & ~same_type_skip)
            | hit.sub_confusion_roll)
    st, lucky = chance(st, MOVE_SEC_CHANCE[move], 256, roll)
    secondary_on = roll & lucky
    primary_on = hit.effects_on
    # stage changes (Mist blocks only a status move's drops)
    primary_boosts = MOVE_BOOSTS[move]
    boost_primary = primary_on & jnp.any(primary_boosts != 0)
    boost_on = (boost_primary | (secondary_on & (kind == tables.SECONDARY_BOOST))) & (st.active.hp[1] > 0)
    deltas = jnp.where(boost_primary, primary_boosts, MOVE_SEC_BOOSTS[move])
    st, boosted = boost_stats(st, 1, deltas, boost_on, from_foe_status_move=is_status)
    boost_fail = boost_on & boost_primary & ~boosted
    st = stat_modification_error(st, 0, boost_on & boosted)
    # status (a sleep move also lands on a Pokémon that must recharge, whatever its status)
    mstatus = MOVE_STATUS[move]
    status_primary = primary_on & (mstatus != 0)
    status = jnp.where(status_primary, mstatus, sstatus)
    sleep_recharge = status_primary & (mstatus == tables.SLP) & st.active.must_recharge[1]
    plain = ((status_primary & ~sleep_recharge) | (secondary_on & (kind == tables.SECONDARY_STATUS))) & (
        st.active.status[1] == 0)
    st, ok = set_status(st, 1, status, sleep_recharge | plain, by_foe=True)
    st = set_active(st, 1, sleep_recharge & ok, must_recharge=False)
    st = apply_penalty_for_new_status(st, 1, status, plain & ok)
    # flinch (also cancels a pending recharge)
    flinch = (secondary_on & (kind == tables.SECONDARY_FLINCH) & (st.active.hp[1] > 0)
              & (st.active.flinch[1] == 0))
    st = set_active(st, 1, flinch, flinch=1, must_recharge=False)
    confuse = (primary_on & MOVE_CONFUSES[move]) | (secondary_on & (kind == tables.SECONDARY_CONFUSION))
    st, _ = add_confusion(st, 1, confuse)
    return st, boost_fail


def extra_hit(st: BattleState, move, first_damage, on, is_last_hit):
    """Hits 2+ of a multi-hit move: hit 1's damage again, no new draws. Returns (st, sub_broke)."""
    act = st.active
    into_sub = on & (act.sub_hp[1] > 0)
    uncapped = st.last_damage
    new_sub = act.sub_hp[1] - jnp.minimum(uncapped, act.sub_hp[1])
    broke = into_sub & (new_sub <= 0)
    st = set_active(st, 1, into_sub, sub_hp=new_sub)
    st = set_active(st, 1, broke, sub_fainted=True)
    direct = on & ~into_sub
    capped = jnp.minimum(first_damage, st.active.hp[1])
    st, _ = damage_hp(st, 1, capped, direct, sets_last_damage=True)
    st = rage_builds(st, 1, direct & st.active.rage[1])
    return st, broke, direct & is_last_hit


def hit_foe(st: BattleState, move, on):
    """gen-1 ``tryMoveHit`` for a move aimed at the foe. Returns (st, move_failed)."""
    effect = MOVE_EFFECT[move]
    act = st.active
    # Thrash / Petal Dance: the lock's turn count, confusion on its last turn
    thrash = on & (effect == Effect.THRASH)
    continuing = thrash & (act.locked_move[0] != 0)
    new_time = act.locked_time[0] - 1
    st = set_active(st, 0, continuing, locked_time=new_time)
    last_turn = continuing & (new_time == 0)
    st = set_active(st, 0, last_turn, confusion=0)
    st, _ = add_confusion(st, 0, last_turn)
    starting = thrash & (act.locked_move[0] == 0)
    st, turns = draw(st, 2, 4, starting)
    st = set_active(st, 0, starting, locked_move=move, locked_time=turns, locked_accuracy=255)

    act = st.active
    invulnerable_miss = on & act.invulnerable[1] & (move != MV_SWIFT) & (move != MV_TRANSFORM)
    immune = on & ~invulnerable_miss & ~MOVE_IGNORE_IMMUNITY[move] & mechanics.is_immune(MOVE_TYPE[move], act.types[1])
    dream_fail = (effect == Effect.DREAM_EATER) & ~((act.status[1] == tables.SLP) & (act.sub_hp[1] == 0))
    seed_fail = (effect == Effect.LEECH_SEED) & has_type(st, 1, _GRASS)
    try_immunity_fail = on & ~invulnerable_miss & ~immune & (dream_fail | seed_fail)
    st = faint_now(st, 0, (invulnerable_miss | immune) & MOVE_SELFDESTRUCT[move])
    live = on & ~invulnerable_miss & ~immune & ~try_immunity_fail

    # accuracy
    never_miss = (MOVE_ACCURACY[move] < 0) | ((MOVE_STATUS[move] == tables.SLP) & act.must_recharge[1])
    ohko_fail = live & (effect == Effect.OHKO) & (act.modified[1, tables.SPE] > act.modified[0, tables.SPE])
    live = live & ~ohko_fail
    acc = MOVE_ACCURACY[move]
    acc = jnp.where(act.locked_move[0] != 0, act.locked_accuracy[0], acc)
    acc = jnp.where(act.rage[0], act.rage_accuracy[0], acc)
    acc = acc * mechanics.ACCURACY_TABLE[act.boosts[0, tables.ACC] + 6] // 100
    acc = acc * mechanics.ACCURACY_TABLE[-act.boosts[1, tables.EVA] + 6] // 100
    acc = jnp.clip(acc, 1, 255)
    store = live & ~never_miss
    st = set_active(st, 0, store & (act.locked_move[0] != 0), locked_accuracy=acc)
    st = set_active(st, 0, store & act.rage[0], rage_accuracy=acc)
    # Accuracy event on the foe: its trapper always hits it (gen 1's Minimize has no accuracy effect)
    trapped_by_user = (act.trapped[1] > 0) & (act.trapped_source[1] == act.slot[0])
    never_miss = never_miss | trapped_by_user
    st, hit = chance(st, acc, 256, live & ~never_miss)
    miss = live & ~never_miss & ~hit
    st = st.replace(last_damage=jnp.where(miss, 0, st.last_damage))
    live = live & ~miss

    # hit count, then the hits
    multihit = MOVE_MULTIHIT[move]
    st, k = draw(st, 0, 8, live & (multihit == 5))
    hits = jnp.where(multihit == 5, MULTIHIT_TABLE[k], jnp.where(multihit == 2, 2, 1))
    st, first = primary_hit(st, move, live, hits == 1)
    first_failed = first.failed
    multi = live & (multihit > 0)
    keep_going = multi & ~first_failed & ~st.active.sub_fainted[1]

    def more_hits(n, carry):
        st, keep_going, secondary_on = carry
        act = st.active
        on_n = keep_going & (n <= hits) & (act.hp[1] > 0) & (act.hp[0] > 0)
        st, broke, last = extra_hit(st, move, first.dealt, on_n, n == hits)
        return st, keep_going & ~broke, secondary_on | last

    st, _, secondary_on = jax.lax.fori_loop(2, 6, more_hits, (st, keep_going, first.secondary_on))
    st, boost_failed = foe_effects(st, move, first._replace(secondary_on=secondary_on))
    returned_early = multi & first_failed   # Showdown's `if (i === 0) return 1`

    selfdestruct = on & ~returned_early & MOVE_SELFDESTRUCT[move] & ~st.active.sub_fainted[1]
    st = faint_now(st, 0, selfdestruct & ~(invulnerable_miss | immune))
    move_failed = on & (invulnerable_miss | immune | try_immunity_fail | ohko_fail | miss | (~multi & first_failed)
                        | boost_failed)
    st = clear_trap_lock(st, 0, move_failed)
    # AfterMoveSecondary: a Fire move with a burn chance thaws a frozen foe
    thaw = (on & ~move_failed & ~returned_early & (st.active.status[1] == tables.FRZ) & (st.active.hp[1] > 0)
            & (MOVE_SEC_KIND[move] == tables.SECONDARY_STATUS) & (MOVE_SEC_STATUS[move] == tables.BRN))
    st = set_active(st, 1, thaw, status=0)
    return st, move_failed


def clear_trap_lock(st: BattleState, i: int, on) -> BattleState:
    z = jnp.zeros((), I32)
    return set_active(st, i, on, trap_lock_move=z, trap_lock_duration=z, trap_lock_total=z, trap_lock_damage=z,
                      trap_lock_target=z)


def hit_self(st: BattleState, move, on):
    """A move whose target is the user (status moves and Bide). Returns (st, failed, call)."""
    act = st.active
    effect = MOVE_EFFECT[move]
    hp, max_hp = act.hp[0], max_hp_of(st, 0)
    # the move's own TryHit
    sub_fail = (effect == Effect.SUBSTITUTE) & ((act.sub_hp[0] > 0) | (hp * 4 < max_hp))
    screen_fail = (effect == Effect.SCREEN) & jnp.where(MOVE_IS_REFLECT[move], act.reflect[0], act.light_screen[0])
    failed = on & (sub_fail | screen_fail)
    live = on & ~failed
    # stage changes on the user
    boosts = MOVE_BOOSTS[move]
    boost_on = live & jnp.any(boosts != 0) & (hp > 0)
    st, boosted = boost_stats(st, 0, boosts, boost_on, from_foe_status_move=False)
    boost_fail = boost_on & ~boosted
    st = stat_modification_error(st, 0, boost_on & boosted)
    failed = failed | boost_fail
    live = live & ~boost_fail
    # volatiles
    user_alive = st.active.hp[0] > 0
    new_sub = live & (effect == Effect.SUBSTITUTE) & user_alive
    st = set_active(st, 0, new_sub, sub_hp=max_hp // 4 + 1, trapped=0)
    # Reflect, Light Screen, Mist, Focus Energy, Minimize, Defense Curl: a flag (MOVE_SELF_FLAG)
    st = st.replace(active=st.active.with_flag(0, live & user_alive, MOVE_SELF_FLAG[move]))
    bide = live & (effect == Effect.BIDE) & user_alive & (st.active.bide_time[0] == 0)
    st, turns = draw(st, 2, 4, bide)
    st = set_active(st, 0, bide, bide_time=turns, bide_damage=0)
    # onHit
    act = st.active
    hp = act.hp[0]
    full = hp == max_hp
    heal_glitch = ((hp == max_hp - 255) | (hp == max_hp - 511)) & (hp % 256 != 0)
    recover = live & (effect == Effect.RECOVER)
    recover_fail = recover & (full | heal_glitch)
    rest = live & (effect == Effect.REST)
    rest_try = rest & ~full & ~heal_glitch
    haze_on = live & (effect == Effect.HAZE)
    st = haze(st, haze_on)
    # Rest's sleep, or Haze turning the user's Toxic into poison: one setStatus
    toxic_to_poison = haze_on & (act.status[0] == tables.TOX)
    st, set_ok = set_status(st, 0, jnp.where(rest, tables.SLP, tables.PSN), rest_try | toxic_to_poison,
                            by_foe=act.status_by_foe[0] & ~rest, ignore_immunity=True)
    slept = rest_try & set_ok
    st = set_active(st, 0, slept, sleep_turns=2)
    # Rest's full heal, or Recover's half (nothing in between touches a Recover user's HP)
    recovered = recover & ~recover_fail
    st, _ = heal(st, 0, jnp.where(recovered, max_hp // 2, max_hp), slept | recovered)
    rest_fail = rest & ~slept
    st, _ = damage_hp(st, 0, max_hp // 4, new_sub & (max_hp > 3), sets_last_damage=False)
    # calls
    metronome = live & (effect == Effect.METRONOME)
    st, k = draw(st, 0, METRONOME_LIST.shape[0], metronome)
    foe_last = st.active.last_move[1]
    mirror = live & (effect == Effect.MIRROR_MOVE)
    mirror_fail = mirror & ((foe_last == 0) | (foe_last == MV_MIRROR_MOVE))
    call = jnp.where(metronome, METRONOME_LIST[k], jnp.where(mirror & ~mirror_fail, foe_last, 0))
    st = set_side(st, 0, call != 0, last_selected_move=call, last_enemy_selected_move=call)
    failed = failed | recover_fail | rest_fail | mirror_fail
    st = clear_trap_lock(st, 0, failed)
    return st, failed, call


def after_move(st: BattleState, move, on) -> BattleState:
    """``runEvent('AfterMove')`` on side 0: recharge dropped after a KO, Thrash lock ends,
    the Wrap lock's bookkeeping."""
    act = st.active
    target_hp = jnp.where(MOVE_SELF[move], act.hp[0], act.hp[1])
    st = set_active(st, 0, on & act.must_recharge[0] & (target_hp <= 0), must_recharge=False)
    st = set_active(st, 0, on & (act.locked_move[0] != 0) & (act.locked_time[0] <= 0), locked_move=0, locked_time=0, locked_accuracy=0)
    lock = on & (act.trap_lock_move[0] != 0)
    st = clear_trap_lock(st, 0, lock & (target_hp <= 0))
    alive = lock & (target_hp > 0)
    ending = alive & (act.trap_lock_duration[0] == 1)
    fake = ending & (act.trap_lock_total[0] != 5)
    st = set_active(st, 0, fake & (act.fake_trapped[0] == 0) & (act.hp[0] > 0), fake_trapped=2)
    st = set_active(st, 0, fake, fake_trapped_counterpart=act.slot[1])
    st = set_active(st, 1, fake & (act.fake_trapped[1] == 0), fake_trapped=2)
    st = set_active(st, 1, fake, fake_trapped_counterpart=act.slot[0])
    refresh = alive & ~ending
    st = add_partially_trapped(st, refresh)
    st = set_active(st, 1, refresh & (act.trap_lock_total[0] - act.trap_lock_duration[0] > 0),
                    trapped_maybe_locked=True)
    return st


def bide_release(st: BattleState, amount, on) -> BattleState:
    """Bide's unleashed hit: fixed damage, no accuracy, no immunity; a substitute takes it whole."""
    act = st.active
    into_sub = on & (act.sub_hp[1] > 0)
    st = st.replace(last_damage=jnp.where(into_sub, amount, st.last_damage))
    new_sub = act.sub_hp[1] - jnp.minimum(amount, act.sub_hp[1])
    st = set_active(st, 1, into_sub, sub_hp=new_sub)
    st = set_active(st, 1, into_sub & (new_sub <= 0), sub_fainted=True)
    direct = on & ~into_sub
    st, _ = damage_hp(st, 1, jnp.minimum(amount, act.hp[1]), direct, sets_last_damage=True)
    return rage_builds(st, 1, direct & st.active.rage[1])


def use_move_once(st: BattleState, move, called, on):
    """Showdown's ``useMove`` + ``useMoveInner`` for side 0. Returns (st, called_move)."""
    act = st.active
    effect = MOVE_EFFECT[move]
    slot = st.side.last_selected_slot[0]
    # a move called by Metronome / Mirror Move gives back PP in two corner cases
    refund = called & on & MOVE_TWO_TURN[move] & (act.moves[0][slot] != 0)
    pp = (act.pp[0][slot] + 1) % 64
    st = set_active(st, 0, refund, pp=act.pp[0].at[slot].set(pp))
    # a slot that is not virtual *is* the base slot (Showdown shares the object); a Mimic slot
    # writes its PP through to the base slot
    st = set_active(st, 0, refund & ~(act.virtual[0][slot] & act.transformed[0]), base_pp=act.base_pp[0].at[slot].set(pp))
    act = st.active
    refund_t = called & on & act.transformed[0] & (act.base_moves[0][slot] != 0)
    st = set_active(st, 0, refund_t, base_pp=act.base_pp[0].at[slot].set((act.base_pp[0][slot] + 1) % 64))
    st = set_side(st, 0, on, last_move=move, last_enemy_move=move)
    # the opponent now knows this move of the set (not for calls or a Transform copy)
    seen = on & ~called & ~act.transformed[0] & (act.base_moves[0] == move)
    st = set_active(st, 0, jnp.any(seen), base_revealed=act.base_revealed[0] | seen)
    st = set_active(st, 0, on & (~MOVE_TWO_TURN[move] | (act.two_turn_move[0] != 0)), last_move=move)

    # TryMove: charging turn of a two-turn move; Wrap-family moves cancel the foe's recharge
    charge_move = on & ((effect == Effect.CHARGE) | (effect == Effect.CHARGE_INVULNERABLE))
    releasing = charge_move & (act.two_turn_move[0] != 0)
    st = set_active(st, 0, releasing, two_turn_move=0, invulnerable=False)
    charging = charge_move & ~releasing
    # only Dig/Fly add the invulnerability; other charges keep it (a Dig/Fly user fully paralysed
    # mid-charge stays invulnerable into its next charge: the Gen 1 quirk Showdown reproduces)
    st = set_active(st, 0, charging, two_turn_move=move,
                    invulnerable=(effect == Effect.CHARGE_INVULNERABLE) | act.invulnerable[0])
    go = on & ~charging
    st = set_active(st, 1, go & (effect == Effect.TRAP), must_recharge=False)
    st = st.replace(last_damage=jnp.where(go & ~MOVE_KEEPS_LAST_DAMAGE[move], 0, st.last_damage))

    targets_self = MOVE_SELF[move]
    st, _, call = hit_self(st, move, go & targets_self)
    st, failed = hit_foe(st, move, go & ~targets_self)
    st = rage_builds(st, 1, go & ~targets_self & (MOVE_SELFDESTRUCT[move] | (move == MV_DISABLE)) & st.active.rage[1])
    st = direct_self_damage(st, 1, go & ~targets_self & failed & (effect == Effect.CRASH))
    return st, call


MAX_CALL_CHAIN = 4


def run_move(st: BattleState, move, on) -> BattleState:
    """Showdown's gen-1 ``runMove`` for side 0 using ``move`` (the action's move)."""
    cannot = move == MV_CANNOTMOVE
    st = set_active(st, 1, on & ~cannot, sub_fainted=False)
    live = on & ~cannot
    act = st.active
    # BeforeMove, highest priority first; the first handler that stops the move ends the chain
    frozen = live & (act.status[0] == tables.FRZ)
    live = live & ~frozen
    asleep = live & (act.status[0] == tables.SLP)
    st = set_active(st, 0, asleep, sleep_turns=act.sleep_turns[0] - 1)
    st = set_active(st, 0, frozen | asleep, last_move=0)
    live = live & ~asleep
    live = live & ~(act.trapped[0] > 0)
    live = live & ~(act.flinch[0] > 0)
    recharging = live & act.must_recharge[0]
    st = set_active(st, 0, recharging, must_recharge=False)
    live = live & ~recharging
    disabled = live & (act.disable_move[0] != 0)
    disable_left = act.disable_time[0] - 1
    st = set_active(st, 0, disabled, disable_time=disable_left)
    disable_ends = disabled & (disable_left == 0)
    st = set_active(st, 0, disable_ends, disable_move=0, disable_slot=0)
    attempted = jnp.where(act.bide_time[0] > 0, MV_BIDE, move)
    blocked = disabled & ~disable_ends & (attempted == act.disable_move[0])
    st = set_active(st, 0, blocked, two_turn_move=0)
    live = live & ~blocked
    confused = live & (act.confusion[0] > 0)
    confusion_left = act.confusion[0] - 1
    st = set_active(st, 0, confused, confusion=confusion_left)
    roll = confused & (confusion_left > 0)
    st, keeps_control = chance(st, 128, 256, roll)
    self_hit = roll & ~keeps_control
    st = direct_self_damage(st, confusion_self_hit_damage(st, 0), self_hit)
    st = set_active(st, 0, self_hit, bide_time=0, bide_damage=0, two_turn_move=0, invulnerable=False,
                    locked_move=0, locked_time=0, locked_accuracy=0)
    st = clear_trap_lock(st, 0, self_hit)
    live = live & ~self_hit
    paralysed = live & (st.active.status[0] == tables.PAR)
    st, full = chance(st, 63, 256, paralysed)
    full = paralysed & full
    st = set_active(st, 0, full, bide_time=0, bide_damage=0, two_turn_move=0, locked_move=0, locked_time=0, locked_accuracy=0)
    st = clear_trap_lock(st, 0, full)
    live = live & ~full
    act = st.active
    st, _ = tie_draw(st, live & (act.bide_time[0] > 0) & (act.trap_lock_move[0] != 0))
    biding = live & (act.bide_time[0] > 0)
    stored = act.bide_damage[0] + st.last_damage
    bide_left = act.bide_time[0] - 1
    st = set_active(st, 0, biding, bide_damage=stored, bide_time=bide_left)
    unleash = biding & (bide_left == 0) & (stored > 0)
    st = bide_release(st, 2 * stored, unleash)
    st = set_active(st, 0, biding & (bide_left == 0), bide_time=0, bide_damage=0)
    live = live & ~biding
    act = st.active
    st = clear_trap_lock(st, 0, live & (act.trap_lock_move[0] != 0) & (act.trap_lock_target[0] != act.slot[1]))
    aborted = on & ~live   # abortMove: only AfterMoveSelf (run by the first loop iteration below)

    # PP
    act = st.active
    locked = act.must_recharge[0] | (act.locked_move[0] != 0) | (act.two_turn_move[0] != 0) | act.rage[0]
    semi_locked = (act.bide_time[0] > 0) | (act.trap_lock_move[0] != 0)
    slot = st.side.last_selected_slot[0]
    deduct = (live & (move != MV_STRUGGLE) & (act.moves[0][slot] != 0)
              & ((~locked & ~semi_locked & ~MOVE_TWO_TURN[move]) | (act.two_turn_move[0] != 0)))
    pp = (act.pp[0][slot] - 1) % 64
    st = set_active(st, 0, deduct, pp=act.pp[0].at[slot].set(pp))
    st = set_active(st, 0, deduct & ~(act.virtual[0][slot] & act.transformed[0]), base_pp=act.base_pp[0].at[slot].set(pp))

    # useMove, following Metronome / Mirror Move calls
    def cond(carry):
        _, _, _, go, depth, aborted = carry
        return (go | aborted) & (depth < MAX_CALL_CHAIN)

    def body(carry):
        st, cur, called, go, depth, aborted = carry
        st, call = use_move_once(st, cur, called, go)
        tail = go & (cur != MV_METRONOME) & ~((cur == MV_MIRROR_MOVE) & (call != 0))
        st = after_move(st, cur, tail)
        target_alive = jnp.where(MOVE_SELF[cur], st.active.hp[0], st.active.hp[1]) > 0
        st = after_move_self(st, (tail & target_alive) | aborted)
        go = go & (call != 0)
        return st, jnp.where(go, call, cur), jnp.asarray(True), go, depth + 1, jnp.asarray(False)

    st, _, _, _, _, _ = jax.lax.while_loop(
        cond, body, (st, jnp.asarray(move, I32), jnp.asarray(False), live, jnp.asarray(0, I32), aborted))
    return st


# =============================================================================================
# switching, fainting, the turn
# =============================================================================================

def update_speeds(st: BattleState, on) -> BattleState:
    """``battle.updateSpeed()``: cached speed := current modified Speed for unfainted actives."""
    act = st.active
    new = jnp.where(on & ~act.fainted, act.modified[:, tables.SPE], act.speed)
    return st.replace(active=act.with_column("speed", new))


def speed_tie_event(st: BattleState, on) -> BattleState:
    """``eachEvent('Update')`` / ``eachEvent('BeforeTurn')``: sorting the two unfainted actives
    by cached speed shuffles them (one draw) when the speeds are equal."""
    act = st.active
    tie = on & ~act.fainted[0] & ~act.fainted[1] & (act.speed[0] == act.speed[1])
    st, _ = draw(st, 0, 2, tie)
    return st


def has_bench(st: BattleState, i: int):
    slots = jnp.arange(6)
    team = st.team.wide()
    return jnp.any((slots < team.size[i]) & ~team.fainted[i] & (slots != st.active.slot[i]))


def process_faints(st: BattleState, on):
    """``faintMessages`` + ``checkWin`` + ``checkFainted``. Returns (st, any_faint)."""
    any_faint = jnp.asarray(False)
    for i in (0, 1):
        newly = on & (st.active.hp[i] <= 0) & ~st.active.fainted[i]
        st = reset_volatiles(st, i, newly)
        st = set_active(st, i, newly, fainted=True, status=0, sleep_turns=0)
        st = set_side(st, i, newly, pokemon_left=jnp.maximum(st.side.pokemon_left[i] - 1, 0), fainted_this_turn=True)
        any_faint = any_faint | newly
    left = st.side.pokemon_left
    winner = jnp.where((left[0] == 0) & (left[1] == 0), WINNER_TIE,
                jnp.where(left[1] == 0, WINNER_P1, jnp.where(left[0] == 0, WINNER_P2, WINNER_NONE)))
    ended = any_faint & (winner != WINNER_NONE)
    st = st.replace(winner=jnp.where(ended, winner, st.winner), request=jnp.where(ended, REQUEST_ENDED, st.request))
    for i in (0, 1):
        flag = any_faint & ~ended & st.active.fainted[i] & has_bench(st, i)
        st = set_side(st, i, flag, switch_flag=True)
    need = any_faint & ~ended & jnp.any(st.side.switch_flag)
    st = st.replace(request=jnp.where(need, REQUEST_SWITCH, st.request))
    return st, any_faint


def action_tail(st: BattleState, on):
    """End of ``runAction``: faints (which clear the rest of the turn in gen 1), then Update.
    Returns (st, turn_over)."""
    st, fainted = process_faints(st, on)
    st = speed_tie_event(st, on & ~fainted)
    return st, on & fainted


def switch_in(st: BattleState, new_slot, on) -> BattleState:
    """Side 0 sends in team slot ``new_slot`` (the runSwitch part is ``run_switch``)."""
    act = st.active
    old = act.slot[0]
    st = reset_volatiles(st, 0, on & ~act.fainted[0])
    act = st.active
    team = st.team.wide()
    put = lambda arr, v: arr.at[0, old].set(jnp.where(on, v, arr[0, old]))
    team = team.replace(hp=put(team.hp, act.hp[0]), status=put(team.status, act.status[0]),
                        sleep_turns=put(team.sleep_turns, act.sleep_turns[0]),
                        status_by_foe=put(team.status_by_foe, act.status_by_foe[0]),
                        fainted=put(team.fainted, act.fainted[0]), pp=team.pp.at[0, old].set(
                            jnp.where(on, act.base_pp[0], team.pp[0, old])),
                        revealed_moves=team.revealed_moves.at[0, old].set(
                            jnp.where(on, act.base_revealed[0], team.revealed_moves[0, old])))
    team = team.replace(revealed=team.revealed.at[0, new_slot].set(team.revealed[0, new_slot] | on))
    st = st.replace(team=team.narrow())
    st = set_active(st, 0, on, slot=new_slot, hp=team.hp[0, new_slot], status=team.status[0, new_slot],
                    sleep_turns=team.sleep_turns[0, new_slot], status_by_foe=team.status_by_foe[0, new_slot],
                    fainted=False, base_moves=team.moves[0, new_slot], base_pp=team.pp[0, new_slot],
                    base_revealed=team.revealed_moves[0, new_slot])
    st = reset_volatiles(st, 0, on)
    # insertChoice(runSwitch) refreshes the incoming Pokémon's cached speed
    return set_active(st, 0, on, speed=st.active.modified[0, tables.SPE])


def run_switch(st: BattleState, on) -> BattleState:
    """gen-1 ``runSwitch`` of side 0's new active."""
    act = st.active
    st = set_active(st, 0, on & (act.status[0] == tables.TOX), status=tables.PSN)
    for i in (0, 1):
        st = set_active(st, i, on & ~st.active.fainted[i], last_move=0)
    st = set_side(st, 0, on, last_selected_slot=0)
    # a foe locked into a Wrap-family move called by Metronome keeps calling Metronome
    act = st.active
    foe_slot_move = act.moves[1][st.side.last_selected_slot[1]]
    metronome_lock = on & (act.trap_lock_move[1] != 0) & (foe_slot_move == MV_METRONOME)
    st = set_side(st, 1, metronome_lock, last_selected_move=MV_METRONOME, last_enemy_selected_move=MV_METRONOME)
    requeue = metronome_lock & (st.side.queued_move[1] != 0)
    st = set_side(st, 1, requeue, queued_move=MV_METRONOME)
    st = set_active(st, 1, requeue, speed=act.modified[1, tables.SPE])
    # entry damage of a poisoned/burned Pokémon (not when its side lost a Pokémon this turn)
    status = st.active.status[0]
    hurt = on & ~st.side.fainted_this_turn[0] & ((status == tables.PSN) | (status == tables.BRN))
    st, _ = damage_hp(st, 0, jnp.maximum(max_hp_of(st, 0) // 16, 1), hurt, sets_last_damage=False)
    return st


def _shuffle_draws(st: BattleState, start, size, on, max_size: int = 8):
    """Draws of Showdown's Fisher-Yates shuffle of ``size`` tied items at list position ``start``:
    ``random(k, start + size)`` for k = start ... start + size - 2 (the results only reorder
    handlers whose order does not matter here)."""
    for k in range(max_size - 1):
        st, _ = draw(st, start + k, start + size, on & (size >= k + 2))
    return st


def residual(st: BattleState, on) -> BattleState:
    """The ``residual`` action: updateSpeed, then duration countdowns (flinch and the Wrap family),
    whose handlers Showdown sorts by holder speed, shuffling ties."""
    st = update_speeds(st, on)
    act = st.active
    counts = ((act.flinch > 0).astype(I32) + (act.trap_lock_move != 0).astype(I32) + (act.trapped > 0).astype(I32)
              + (act.fake_trapped > 0).astype(I32))
    counts = jnp.where(act.fainted, 0, counts)
    tie = act.speed[0] == act.speed[1]
    fast = jnp.where(act.speed[0] >= act.speed[1], 0, 1)
    st = _shuffle_draws(st, 0, counts[0] + counts[1], on & tie)
    st = _shuffle_draws(st, 0, counts[fast], on & ~tie, max_size=4)
    st = _shuffle_draws(st, counts[fast], counts[1 - fast], on & ~tie, max_size=4)
    act = st.active
    live = on & ~act.fainted
    dec = lambda x: jnp.where(live & (x > 0), x - 1, x)
    lock_left = dec(act.trap_lock_duration)
    act = (act.with_column("flinch", dec(act.flinch)).with_column("trapped", dec(act.trapped))
           .with_column("fake_trapped", dec(act.fake_trapped)).with_column("trap_lock_duration", lock_left))
    st = st.replace(active=act)
    for i in (0, 1):
        st = clear_trap_lock(st, i, live[i] & (st.active.trap_lock_move[i] != 0) & (lock_left[i] == 0))
    return st


def end_turn(st: BattleState, on) -> BattleState:
    st = st.replace(turn=st.turn + jnp.asarray(on, I32))
    # gen-1 partial-trapping bookkeeping, p1 then p2
    for i in (0, 1):
        j = 1 - i
        a = st.active
        keep = (a.slot[j] == a.trap_lock_target[i]) & (a.hp[j] > 0) & (a.trapped[j] > 0)
        st = clear_trap_lock(st, i, on & (a.trap_lock_move[i] != 0) & ~keep)
        a = st.active
        keep = (a.slot[j] == a.trapped_source[i]) & (a.hp[j] > 0) & (a.trap_lock_move[j] != 0)
        st = set_active(st, i, on & (a.trapped[i] > 0) & ~keep, trapped=0, trapped_maybe_locked=False)
        a = st.active
        keep = (a.slot[j] == a.fake_trapped_counterpart[i]) & (a.hp[j] > 0) & (a.fake_trapped[j] > 0)
        st = set_active(st, i, on & (a.fake_trapped[i] > 0) & ~keep, fake_trapped=0)
    # DisableMove: handlers sorted by priority; tied ones are shuffled
    for i in (0, 1):
        a = st.active
        alive = on & ~a.fainted[i]
        high = (a.trapped[i] > 0).astype(I32) + (a.fake_trapped[i] > 0).astype(I32)
        has_status = ((a.status[i] == tables.SLP) | (a.status[i] == tables.FRZ)).astype(I32)
        low = ((a.disable_move[i] != 0).astype(I32) + (a.trap_lock_move[i] != 0).astype(I32)
               + (a.bide_time[i] > 0).astype(I32))
        st = _shuffle_draws(st, 0, high, alive, max_size=2)
        st = _shuffle_draws(st, high + has_status, low, alive, max_size=3)
        a = st.active
        maybe = (a.trapped[i] > 0) & a.trapped_maybe_locked[i] | (a.fake_trapped[i] > 0)
        maybe = maybe & ~(has_status == 1)
        maybe = maybe | ((a.trap_lock_move[i] != 0) & (a.trap_lock_total[i] - a.trap_lock_duration[i] > 1))
        maybe = maybe & ~(a.bide_time[i] > 0)
        st = set_active(st, i, on, maybe_locked=maybe)
    st = st.replace(side=st.side.with_column("fainted_this_turn", jnp.where(on, False, st.side.fainted_this_turn)))
    # Endless Battle Clause (gen 1): no progress possible, or turn 1000 reached
    stuck = no_progress_possible(st)
    tie = on & (stuck | (st.turn > 1000))
    st = st.replace(winner=jnp.where(tie, WINNER_TIE, st.winner),
                    request=jnp.where(tie, REQUEST_ENDED, jnp.where(on, REQUEST_MOVE, st.request)))
    return st


def synced_team(st: BattleState) -> Team:
    """The team arrays (int32) with the actives' live hp/status/pp overlaid."""
    team = st.team.wide()
    act = st.active
    idx = (jnp.arange(6)[None, :] == act.slot[:, None])
    over = lambda arr, v: jnp.where(idx, v[:, None], arr)
    return team.replace(hp=over(team.hp, act.hp), status=over(team.status, act.status),
                        sleep_turns=over(team.sleep_turns, act.sleep_turns),
                        status_by_foe=over(team.status_by_foe, act.status_by_foe),
                        fainted=over(team.fainted, act.fainted),
                        pp=jnp.where(idx[..., None], act.base_pp[:, None, :], team.pp),
                        revealed_moves=jnp.where(idx[..., None], act.base_revealed[:, None, :], team.revealed_moves))


def no_progress_possible(st: BattleState):
    team = synced_team(st)
    act = st.active
    idx = (jnp.arange(6)[None, :] == act.slot[:, None])
    exists = jnp.arange(6)[None, :] < team.size[:, None]
    out = team.fainted | ~exists
    moves = jnp.where(idx[..., None], act.moves[:, None, :], team.moves)
    pp = jnp.where(idx[..., None], act.pp[:, None, :], team.pp)
    real = moves != 0
    all_transform = jnp.all(~real | (moves == MV_TRANSFORM), axis=-1)
    all_pp0 = jnp.all(~real | (pp == 0), axis=-1)
    ghost_type = _TABLES.type_names.index("Ghost")
    species_ghost = np.any(_TABLES.species_types == ghost_type, axis=1)
    ghost = jnp.where(idx, jnp.any(act.types == ghost_type, axis=-1)[:, None], take_rows(species_ghost, team.species))
    side_all_transform = jnp.all(out | all_transform, axis=-1)
    side_all_ghost = jnp.all(out | ghost, axis=-1)
    foe_transform = side_all_transform[::-1]
    foe_ghost = side_all_ghost[::-1]
    stuck_mon = (out | (team.status == tables.FRZ) | (all_transform & foe_transform[:, None])
                 | (all_pp0 & foe_ghost[:, None]))
    return jnp.all(stuck_mon)


# =============================================================================================
# choices and the two kinds of turn
# =============================================================================================

NUM_ACTIONS = 10  # 0-3 move slots, 4-9 switch to team slot 0-5
ACTION_SWITCH_BASE = 4


def _lock_state(st: BattleState, i: int):
    a = st.active
    hard = a.must_recharge[i] | (a.locked_move[i] != 0) | (a.two_turn_move[i] != 0) | a.rage[i]
    semi = (a.bide_time[i] > 0) | (a.trap_lock_move[i] != 0)
    return hard, semi


def usable_moves(st: BattleState, i: int):
    a = st.active
    slots = jnp.arange(4)
    disabled = (a.disable_move[i] != 0) & (slots == a.disable_slot[i])
    return (a.moves[i] != 0) & (a.pp[i] > 0) & ~disabled


def legal_actions(st: BattleState, i: int):
    """bool[10]: the choices Showdown's request offers side i (all False when it need not act).

    A forced move (recharge, a lock, "Fight" while asleep/frozen/trapped, Struggle) is action 0."""
    a = st.active
    slots = jnp.arange(6)
    team = synced_team(st)
    bench = (slots < team.size[i]) & ~team.fainted[i] & (slots != a.slot[i])
    hard, semi = _lock_state(st, i)
    semi = semi & ~a.maybe_locked[i]
    status = a.status[i]
    fight = (status == tables.SLP) | (status == tables.FRZ) | ((a.trapped[i] > 0) & ~a.maybe_locked[i])
    usable = usable_moves(st, i)
    forced = hard | semi | fight | ~jnp.any(usable)
    moves = jnp.where(forced, jnp.arange(4) == 0, usable)
    move_request = st.request == REQUEST_MOVE
    switch_request = (st.request == REQUEST_SWITCH) & st.side.switch_flag[i]
    moves = moves & move_request
    switches = bench & ((move_request & ~hard) | switch_request)
    return jnp.concatenate([moves, switches])


def commit_move_choice(st: BattleState, i: int, action, on):
    """gen-1 ``Side.commitChoices`` for a move choice. Returns (st, action move)."""
    a, sd = st.active, st.side
    hard, semi = _lock_state(st, i)
    status = a.status[i]
    sleep_or_freeze = (status == tables.SLP) | (status == tables.FRZ)
    trapped = a.trapped[i] > 0
    struggle = ~jnp.any(usable_moves(st, i))
    locked = on & (hard | semi)
    fight = on & ~locked & (sleep_or_freeze | trapped)
    forced_struggle = on & ~locked & ~fight & struggle
    normal = on & ~locked & ~fight & ~struggle
    slot_move = a.moves[i][sd.last_selected_slot[i]]
    st = set_side(st, i, locked | (fight & sleep_or_freeze), last_enemy_selected_move=slot_move)
    st = set_side(st, i, fight & ~sleep_or_freeze, last_selected_move=MV_CANNOTMOVE,
                  last_enemy_selected_move=MV_CANNOTMOVE)
    st = set_side(st, i, forced_struggle, last_selected_move=MV_STRUGGLE, last_enemy_selected_move=MV_STRUGGLE)
    chosen_slot = jnp.clip(action, 0, 3)
    chosen = a.moves[i][chosen_slot]
    # a Struggle in a real move slot is committed like the forced Struggle (no slot recorded)
    chose_struggle = normal & (chosen == MV_STRUGGLE)
    st = set_side(st, i, chose_struggle, last_selected_move=MV_STRUGGLE, last_enemy_selected_move=MV_STRUGGLE)
    normal = normal & ~chose_struggle
    st = set_side(st, i, normal, last_selected_move=chosen, last_selected_slot=chosen_slot, last_move=chosen,
                  last_enemy_selected_move=chosen)
    return st, st.side.last_selected_move[i]


def run_action(st: BattleState, side, is_move, switch_slot, on):
    """One queued action (a switch with its runSwitch, or a move) of ``side`` plus runAction's
    epilogue after each part. Returns (st, turn_over)."""
    flipped = side == 1
    st = flip(st, flipped)
    is_switch = on & ~is_move
    st = switch_in(st, switch_slot, is_switch)
    st = speed_tie_event(st, is_switch)   # epilogue of the switch (nothing can faint)
    st = run_switch(st, is_switch)
    moving = on & is_move
    move = st.side.queued_move[0]
    st = set_side(st, 0, moving, queued_move=0)
    st = run_move(st, move, moving)
    st, over = action_tail(st, on)        # epilogue of the runSwitch or of the move
    st = flip(st, flipped)
    return st, over


def _order_two(st: BattleState, first_wins, tie, on):
    """Index of the side that acts first; a tie costs one draw (1 = p2 first)."""
    st, swapped = tie_draw(st, on & tie)
    return st, jnp.where(tie, jnp.where(swapped, 1, 0), jnp.where(first_wins, 0, 1))


def move_turn(st: BattleState, actions, on):
    """A turn answering a move request: choices, sort, beforeTurn, two actions, residual (``step``
    runs the endTurn). Returns (st, whether the turn reached its end: no faint stopped it)."""
    st = update_speeds(st, on)
    is_move = []
    for i in (0, 1):
        is_switch = actions[i] >= ACTION_SWITCH_BASE
        st, move = commit_move_choice(st, i, actions[i], on & ~is_switch)
        st = set_side(st, i, on, queued_move=jnp.where(is_switch, 0, move))
        is_move.append(~is_switch)
    is_move = jnp.stack(is_move)
    order = jnp.where(is_move, 200, 103)
    priority = jnp.where(is_move, MOVE_PRIORITY[st.side.queued_move], 0)
    speed = st.active.modified[:, tables.SPE]
    key = order * 1_000_000 - priority * 10_000 - speed   # ascending = acts first
    st, first = _order_two(st, key[0] < key[1], key[0] == key[1], on)
    # beforeTurn action (eachEvent BeforeTurn), then its epilogue's Update
    st = speed_tie_event(st, on)
    st = speed_tie_event(st, on)
    going = on
    sides = jnp.stack([first, 1 - first])
    switch_slots = actions - ACTION_SWITCH_BASE

    def body(k, carry):
        st, going = carry
        s = sides[k]
        st, over = run_action(st, s, is_move[s], switch_slots[s], going)
        return st, going & ~over

    st, going = jax.lax.fori_loop(0, 2, body, (st, going))
    st = residual(st, going)
    st = speed_tie_event(st, going)   # residual damages nothing in gen 1: only the Update
    return st, going


def runswitch_order(st: BattleState, first, on):
    """The second of two switch-ins queues its runSwitch relative to the first one's: faster goes
    first, a speed tie costs one draw (0 = the second one goes first). Returns (st, second_first)."""
    a = st.active
    second = 1 - first
    faster = a.speed[second] > a.speed[first]
    tie = a.speed[second] == a.speed[first]
    st, value = draw(st, 0, 2, on & tie)
    return st, on & (faster | (tie & (value == 0)))


def run_switches(st: BattleState, first, has_second, second_first, on) -> BattleState:
    """The queued runSwitch actions, each followed by runAction's epilogue."""
    run_first = jnp.where(second_first, 1 - first, first)

    def one(k, st):
        s = jnp.where(k == 0, run_first, 1 - run_first)
        this_on = on & ((s == first) | has_second)
        flipped = s == 1
        st = flip(st, flipped)
        st = run_switch(st, this_on)
        st = speed_tie_event(st, this_on)
        return flip(st, flipped)

    return jax.lax.fori_loop(0, 2, one, st)


def _switch_in_side(st: BattleState, s, slot, on) -> BattleState:
    flipped = s == 1
    st = flip(st, flipped)
    st = switch_in(st, slot, on)
    st = flip(st, flipped)
    return st.replace(side=st.side.with_column(
        "switch_flag", jnp.where(on & (jnp.arange(2) == s), False, st.side.switch_flag)))


def switch_turn(st: BattleState, actions, on, start=False) -> BattleState:
    """A turn answering a switch request (replacing fainted Pokémon), or, where ``start``, Showdown's
    ``start`` action: both leads (team slot 0) switch in, p1 then p2 (no order draw), runSwitches
    (``step`` runs the endTurn that makes it turn 1). The start is this turn with both sides switching, so that it needs no code of its own
    (``step`` starts a battle in request REQUEST_START through the same program)."""
    start = jnp.asarray(start, bool)
    st = update_speeds(st, on)
    need = (st.side.switch_flag | start) & on
    speed = st.active.modified[:, tables.SPE]
    both = need[0] & need[1]
    st, first_both = _order_two(st, speed[0] > speed[1], speed[0] == speed[1], on & both & ~start)
    first = jnp.where(start, 0, jnp.where(both, first_both, jnp.where(need[0], 0, 1)))
    slots = jnp.where(start, 0, actions - ACTION_SWITCH_BASE)

    def switch_one(k, st):
        s = jnp.where(k == 0, first, 1 - first)
        this_on = jnp.where(k == 0, on & need[first], both)
        st = _switch_in_side(st, s, slots[s], this_on)
        # with a second instaswitch still queued, runAction returns before its Update
        return speed_tie_event(st, this_on & ~both)

    st = jax.lax.fori_loop(0, 2, switch_one, st)
    st, second_first = runswitch_order(st, first, both)
    st = speed_tie_event(st, both)
    return run_switches(st, first, both, second_first, on)


def switch_step(st: BattleState, actions) -> BattleState:
    """``step`` for a state in a switch request or REQUEST_START (any other state is returned with
    nothing changed), in a program without the move turn: the cheap second step of an RL env step
    (a lone replacement, or the next battle's start)."""
    actions = jnp.asarray(actions, I32)
    st = begin_step(st)
    start = st.request == REQUEST_START
    on = (st.request == REQUEST_SWITCH) | start
    st = switch_turn(st, actions, on, start)
    return end_step(end_turn(st, on))


def start_battle(st: BattleState) -> BattleState:
    """Showdown's ``start`` action on a state in request REQUEST_START."""
    return switch_step(st, jnp.zeros(2, I32))


def move_step(st: BattleState, actions) -> BattleState:
    """``step`` for a state in a move request, in a program without the switch turn (any other
    state comes back with nothing changed but the step's empty draw pool: ``step`` of a switch
    request equals ``switch_step`` of it). A batched caller runs this for every battle and
    ``switch_step`` only for the few in a switch request (the RL env's ``step_batch``)."""
    actions = jnp.asarray(actions, I32)
    st = begin_step(st)
    st, move_turn_ended = move_turn(st, actions, st.request == REQUEST_MOVE)
    return end_step(end_turn(st, move_turn_ended))


def step(st: BattleState, actions) -> BattleState:
    """Advance the battle by one decision: both players' actions (int32[2], see legal_actions).
    In request REQUEST_START it starts the battle (the actions are ignored)."""
    actions = jnp.asarray(actions, I32)
    st = begin_step(st)
    move_request = st.request == REQUEST_MOVE
    start = st.request == REQUEST_START
    switch_request = (st.request == REQUEST_SWITCH) | start
    st, move_turn_ended = move_turn(st, actions, move_request)
    st = switch_turn(st, actions, switch_request, start)
    return end_step(end_turn(st, move_turn_ended | switch_request))
