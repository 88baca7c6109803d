"""The max-damage heuristic opponent: the single-agent env's opponent 1 (``params.opponent``) and the
two-player game's ``heuristic_action``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.twoplayer import random_legal_action
from pokejax.data import tables
from pokejax.data.tables import Effect
from pokejax.game import engine, mechanics
from pokejax.game.masks import legal_mask
from pokejax.game.state import BattleState
from pokejax.rows import MoveTable


# the columns the heuristic reads, one row per move (``take_rows``: one read per move slot, a one-hot
# product in the accelerator form) with the move type's line of the type chart
_MOVES = MoveTable({
    "type": engine.MOVE_TYPE, "category": engine.MOVE_CATEGORY, "power": engine.MOVE_POWER,
    "accuracy": engine.MOVE_ACCURACY, "fixed": engine.MOVE_FIXED, "effect": engine.MOVE_EFFECT,
    "selfdestruct": engine.MOVE_SELFDESTRUCT, "ignore_immunity": engine.MOVE_IGNORE_IMMUNITY,
    "chart": np.asarray(mechanics.TYPE_CHART)[np.asarray(engine.MOVE_TYPE)],
})


def expected_damage(st: BattleState, player) -> jax.Array:
    """float[4]: expected damage of each of ``player``'s active move slots on the foe's active
    (average roll, no crit, times accuracy); 0 for moves that deal no direct damage."""
    me = st.active.of_side(player)
    foe = st.active.of_side(1 - player)
    level = st.team.wide().level[player, me.slot]
    moves = me.moves
    mv = _MOVES.at(moves)
    mtype = mv.type
    special = mv.category == tables.CATEGORY_SPECIAL
    attack = jnp.where(special, me.modified[tables.SPA], me.modified[tables.ATK])
    defense = jnp.where(special, foe.modified[tables.SPD], foe.modified[tables.DEF])
    defense = jnp.where(jnp.where(special, foe.light_screen, foe.reflect), defense * 2, defense)
    selfdestruct = mv.selfdestruct & ~special
    foe_types = jnp.broadcast_to(foe.types, (4, 2))
    # mechanics.effectiveness from the row's chart line: the foe's two types picked by comparison
    eff = jnp.sum(jnp.where(foe_types[..., None] == jnp.arange(mv.chart.shape[-1]), mv.chart[:, None, :], 0), axis=-1)
    d = mechanics.base_damage(level, mv.power, attack, defense, False, selfdestruct)
    d = mechanics.modify_by_type(d, mtype, jnp.broadcast_to(me.types, (4, 2)), foe_types, eff)
    d = jnp.where(d > 1, d * 236.0 / 255.0, d.astype(jnp.float32))
    fixed = mv.fixed
    d = jnp.where(fixed == -1, level.astype(jnp.float32), jnp.where(fixed > 0, fixed.astype(jnp.float32), d))
    d = jnp.where(mv.effect == Effect.SUPER_FANG, jnp.maximum(foe.hp // 2, 1).astype(jnp.float32), d)
    immune = ~mv.ignore_immunity & jnp.any(eff == 3, axis=-1)
    damaging = (mv.power > 0) | (fixed != 0) | (mv.effect == Effect.SUPER_FANG)
    damaging = damaging & (mv.effect != Effect.COUNTER) & (mv.effect != Effect.OHKO)
    acc = mv.accuracy
    hit = jnp.where(acc < 0, 1.0, acc / 256.0)
    return jnp.where(damaging & ~immune & (moves != 0), d * hit, 0.0)


def max_damage_action(key, st: BattleState, player, mask: jax.Array | None = None) -> jax.Array:
    """The heuristic opponent: the legal move with the highest expected damage; a random legal
    action when no legal move deals damage (including forced switches). ``mask``:
    ``legal_mask(st, player)`` when the caller has it already."""
    mask = legal_mask(st, player) if mask is None else mask
    dmg = jnp.where(mask[:4], expected_damage(st, player), -1.0)
    best = jnp.argmax(dmg).astype(jnp.int32)
    return jnp.where(jnp.max(dmg) > 0, best, random_legal_action(key, mask))   # max: dmg[best], not gathered
