"""Gen 9 accuracy check of a single-target move, batched (stage 1).

Showdown's ``BattleActions.hitStepAccuracy`` (read from the pinned package): a move whose accuracy is
``true`` in its data never misses and makes no draw; otherwise the user's accuracy stage minus the
target's evasion stage (the evasion left out for ``ignoreEvasion`` moves), clamped to -6…+6, scales
the accuracy (``floor(a * (3 + s) / 3)`` or ``floor(a * 3 / (3 - s))``), and the move hits when
``randomChance(a, 100)`` (one ``random(100)`` draw, made even at 100 or more). Toxic used by a
Poison-type user (its current types: the Tera type once Terastallized, Stellar keeping the original
ones) and a status move targeting its user always hit, with no draw.

Elementwise over a leading batch shape, masks only. Out of scope until later stages: abilities and
items (Compound Eyes, No Guard, Wide Lens, Bright Powder, Blunder Policy...), semi-invulnerable
targets, Gravity, Micle Berry, moves whose accuracy Showdown changes in code (Thunder, Hurricane and
Blizzard in weather, Triple Axel's and Population Bomb's per-hit checks), OHKO moves (none in the format).
"""

from __future__ import annotations

import jax.numpy as jnp

from pokejax import prng
from pokejax.gen9.damage import STELLAR
from pokejax.gen9.data import tables


def _has_type(types, tera, type_index):
    """Showdown's ``hasType`` on the current types."""
    tera = jnp.asarray(tera)
    terastallized = (tera != tables.TYPE_NONE) & (tera != STELLAR)
    original = (jnp.asarray(types) == type_index).any(axis=-1)
    return jnp.where(terastallized, tera == type_index, original)


def hits(rng, move, atk_accuracy_boost, def_evasion_boost, atk_types, atk_tera, accuracy_override=None):
    """Whether each move hits, with the draw made only where the move can miss.

    rng: Showdown PRNG state ``uint32[..., 2]``; move: move index; atk_accuracy_boost /
    def_evasion_boost: the user's accuracy and the target's evasion stage; atk_types ``[..., 2]`` and
    atk_tera (``tables.TYPE_NONE`` when not Terastallized): the user's types; ``accuracy_override``: where >= 0, the
    accuracy an ``onModifyMove`` set instead of the data's (0: ``true``, Thunder's in rain). Returns ``(rng, hit)``."""
    t = tables.load()
    if jnp.shape(atk_types)[-1:] != (2,):
        raise ValueError(f"atk_types must have a last axis of 2, got shape {jnp.shape(atk_types)}")
    m = tables.move_table().at(move)   # one row gather for every column below
    accuracy = m.accuracy               # 0 = true (never misses)
    if accuracy_override is not None:
        accuracy = jnp.where(jnp.asarray(accuracy_override) >= 0, accuracy_override, accuracy)
    stage = jnp.clip(jnp.asarray(atk_accuracy_boost), -6, 6)
    stage = jnp.where(m.ignore_evasion, stage, jnp.clip(stage - jnp.asarray(def_evasion_boost), -6, 6))
    scaled = jnp.where(stage > 0, accuracy * (3 + stage) // 3,
                       jnp.where(stage < 0, accuracy * 3 // (3 - stage), accuracy))
    toxic = jnp.asarray(move) == t.move_index["toxic"]
    always = ((accuracy == 0) | m.self_status
              | (toxic & _has_type(atk_types, atk_tera, t.type_index["Poison"])))
    rng, hit = prng.random_chance(rng, scaled, 100, when=~always)
    return rng, always | hit


# Moves whose ``onModifyMove`` never touches the accuracy: Tera Blast's sets its category and a Stellar
# self-drop, Weather Ball's its power in weather, Curse's its target, Photon Geyser's its category.
MODIFY_MOVE_KEEPS_ACCURACY = ("terablast", "weatherball", "curse", "photongeyser")


def accuracy_moves() -> list[str]:
    """The moves of the format whose accuracy check this module computes: no code of their own in
    Showdown that can change it (``onModifyMove``, which sets Thunder's and Blizzard's accuracy in
    weather, ``onModifyAccuracy``, ``onAccuracy``; ``MODIFY_MOVE_KEEPS_ACCURACY`` aside), no per-hit
    accuracy (``multiaccuracy``), no OHKO."""
    t = tables.load()
    handlers = ("onModifyMove", "onModifyAccuracy", "onAccuracy")
    return [t.move_ids[i] for i in range(1, len(t.move_ids))
            if (t.move_ids[i] in MODIFY_MOVE_KEEPS_ACCURACY or not set(t.move_callbacks[i]) & set(handlers))
            and not t.data["moves"][i - 1].get("multiaccuracy") and not t.data["moves"][i - 1].get("ohko")]
