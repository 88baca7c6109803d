"""Gen 1 formulas as Showdown computes them: stats, stages, critical-hit chance, damage.

Pure integer functions on (broadcastable) JAX arrays; no battle state, no randomness (callers
draw the crit and damage rolls and pass them in).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from pokejax.data import tables
from pokejax.rows import small_lookup

_TABLES = tables.load()
TYPE_CHART = jnp.asarray(_TABLES.type_chart)          # [16,16] 0 neutral 1 super 2 resisted 3 immune
SPECIES_BASE = jnp.asarray(_TABLES.species_base)      # [152,6]
SPECIES_TYPES = jnp.asarray(_TABLES.species_types)    # [152,2]

# Positive stages multiply by (2+s)/2; negative by Showdown's [100,66,50,40,33,28,25]/100.
_POS_NUM = jnp.asarray([2, 3, 4, 5, 6, 7, 8], jnp.int32)
_NEG_NUM = jnp.asarray([100, 66, 50, 40, 33, 28, 25], jnp.int32)
# Accuracy/evasion stage table (percent), index stage + 6.
ACCURACY_TABLE = jnp.asarray([25, 28, 33, 40, 50, 66, 100, 150, 200, 250, 300, 350, 400], jnp.int32)


def calc_stats(base: jnp.ndarray, ivs: jnp.ndarray, evs: jnp.ndarray, level: jnp.ndarray) -> jnp.ndarray:
    """Stored stats [..., 6] (hp first) from base stats, Showdown IVs (0-30, even), EVs, level."""
    core = 2 * base + ivs + evs // 4
    lvl = level[..., None]
    others = core * lvl // 100 + 5
    hp = (core[..., 0] + 100) * level // 100 + 10
    return jnp.where(jnp.arange(6) == 0, hp[..., None], others)   # not .at[..., 0]: a scatter under vmap


def _stage_lookup(values, index):
    """``values[index]`` for a stage table: selects in the accelerator form (no per-battle gather)."""
    return small_lookup(np.asarray(values), index) if accelerator_form() else values[index]


def staged_stat(stored: jnp.ndarray, stage: jnp.ndarray) -> jnp.ndarray:
    """modifiedStats after a stage change: the stored stat scaled, floor, at least 1 (cap elsewhere)."""
    up = stored * _stage_lookup(_POS_NUM, jnp.clip(stage, 0, 6)) // 2
    down = stored * _stage_lookup(_NEG_NUM, jnp.clip(-stage, 0, 6)) // 100
    return jnp.maximum(jnp.where(stage >= 0, up, down), 1)


def apply_status_penalties(modified: jnp.ndarray, status: jnp.ndarray) -> jnp.ndarray:
    """Paralysis quarters Speed, burn halves Attack (floor, at least 1), on [..., 5] stats."""
    spe = jnp.where(status == tables.PAR, jnp.maximum(modified[..., tables.SPE] // 4, 1), modified[..., tables.SPE])
    atk = jnp.where(status == tables.BRN, jnp.maximum(modified[..., tables.ATK] // 2, 1), modified[..., tables.ATK])
    return modified.at[..., tables.SPE].set(spe).at[..., tables.ATK].set(atk)


def effectiveness(move_type: jnp.ndarray, defender_types: jnp.ndarray) -> jnp.ndarray:
    """Per defending type ([..., 2]): 0 neutral, 1 super, 2 resisted, 3 immune (TYPE_NONE is neutral)."""
    return TYPE_CHART[move_type[..., None], defender_types]


def is_immune(move_type: jnp.ndarray, defender_types: jnp.ndarray) -> jnp.ndarray:
    return jnp.any(effectiveness(move_type, defender_types) == 3, axis=-1)


def crit_threshold(own_base_speed: jnp.ndarray, focus_energy: jnp.ndarray, high_crit: jnp.ndarray) -> jnp.ndarray:
    """Numerator out of 256 (a draw happens only when it is > 0).

    Uses the base Speed of the Pokémon's *own* species (Transform does not change it); Focus
    Energy quarters instead of doubling (the cartridge bug Showdown keeps)."""
    b = own_base_speed // 2
    c = jnp.where(focus_energy, b // 2, jnp.clip(b * 2, 1, 255))
    return jnp.where(high_crit, jnp.clip(c * 4, 1, 255), c // 2)


def base_damage(level, power, attack, defense, crit, selfdestruct_physical):
    """Damage before STAB, type effectiveness and the random roll (Showdown's gen-1 getDamage).

    ``attack``/``defense`` are already chosen (modified or, on a crit, unmodified stats, screens
    applied). Returns the value after ``+2``."""
    level = jnp.where(crit, level * 2, level) % 256
    big = (attack >= 256) | (defense >= 256)
    attack = jnp.where(big, jnp.maximum((attack // 4) % 256, 1), attack)
    defense = jnp.where(big, (defense // 4) % 256, defense)
    defense = jnp.where(big & (defense == 0), 1, defense)
    defense = jnp.where(selfdestruct_physical, jnp.maximum(defense // 2, 1), defense)
    d = (level * 2 // 5 + 2) * power * attack // defense
    return jnp.clip(d // 50, 0, 997) + 2


def modify_by_type(damage, move_type, attacker_types, defender_types, eff=None):
    """STAB then each defending type in order (x20/10 or x5/10 with floors); ``eff``: the move's
    ``effectiveness`` on ``defender_types`` when the caller has it."""
    stab = (move_type != tables.TYPE_NONE) & jnp.any(attacker_types == move_type[..., None], axis=-1)
    damage = jnp.where(stab, damage + damage // 2, damage)
    eff = effectiveness(move_type, defender_types) if eff is None else eff
    for k in range(2):
        damage = jnp.where(eff[..., k] == 1, damage * 20 // 10, damage)
        damage = jnp.where(eff[..., k] == 2, damage * 5 // 10, damage)
    return damage


def apply_roll(damage, roll):
    """``roll`` in [217, 255]; Showdown draws it only when damage > 1."""
    return jnp.where(damage > 1, damage * roll // 255, damage)


def needs_roll(damage) -> jnp.ndarray:
    return damage > 1


def numpy_type_chart() -> np.ndarray:
    return np.asarray(_TABLES.type_chart)
