"""Gen 9 turn order of two moves, batched (stage 1).

Showdown sorts a turn's actions with ``Battle.comparePriority`` (order, then priority, then speed)
and breaks a full tie with its PRNG (``speedSort`` shuffles the tied run: for two actions one
``random(0, 2)``, the second side first when it is 1). The speed is ``Pokemon.getActionSpeed``: the
Speed stat with its stage (``floor(s * (2 + b) / 2)`` or ``floor(s * 2 / (2 - b))``), halved (floored)
under paralysis, capped at 10000, then truncated to 13 bits as Showdown does (the cap and the
truncation are kept for fidelity; no Speed of this format reaches them yet: the highest, a +6 level-100
base-200 Pokémon, is under 2,000).

Every function is elementwise over a leading batch shape, masks only. Out of scope until later
stages: abilities, items (Choice Scarf, Quick Claw's fractional priority...), Trick Room, Tailwind,
moves whose priority Showdown computes in code (Grassy Glide) or that add actions of their own
(Focus Punch's ``beforeTurnCallback``, ``priorityChargeCallback``), switches.
"""

from __future__ import annotations

import jax.numpy as jnp

from pokejax import prng
from pokejax.gen9.damage import boosted_stat
from pokejax.gen9.data import tables

# Move handlers that change a move's priority or add actions to the queue: not modelled here yet.
PRIORITY_HANDLERS = ("onModifyPriority", "beforeTurnCallback", "priorityChargeCallback")


def action_speed(speed, boost, paralyzed):
    """``Pokemon.getActionSpeed`` with no abilities, items or field effects: stored Speed, its stage,
    paralysis."""
    s = boosted_stat(jnp.asarray(speed), jnp.asarray(boost))
    s = jnp.where(jnp.asarray(paralyzed), s // 2, s)
    s = jnp.minimum(s, 10000)
    return (s & 0x1FFF).astype(jnp.int32)


def move_priority(move):
    """The priority of each move index from the table."""
    return tables.move_table().at(move).priority


def first_mover(rng, priority, speed):
    """Which side's move runs first: ``priority`` and ``speed`` are ``[..., 2]`` (side 0, side 1);
    ``rng`` the Showdown PRNG state ``uint32[..., 2]`` (``pokejax.prng``), advanced by one draw only
    where the two actions tie. Returns ``(rng, first)`` with ``first`` 0 or 1."""
    priority, speed = jnp.asarray(priority), jnp.asarray(speed)
    if priority.shape[-1:] != (2,) or speed.shape[-1:] != (2,):
        raise ValueError(f"priority and speed need a last axis of 2 (one per side), got {priority.shape} and {speed.shape}")
    p0, p1, s0, s1 = priority[..., 0], priority[..., 1], speed[..., 0], speed[..., 1]
    tie = (p0 == p1) & (s0 == s1)
    rng, draw = prng.random_range(rng, 0, 2, when=tie)
    side1 = (p1 > p0) | ((p1 == p0) & (s1 > s0)) | (tie & (draw == 1))
    return rng, side1.astype(jnp.int32)


def order_moves() -> list[str]:
    """Damaging or status moves of the format whose place in the turn order this module computes
    (no priority handlers of their own)."""
    t = tables.load()
    return [t.move_ids[i] for i in range(1, len(t.move_ids))
            if not any(cb in PRIORITY_HANDLERS for cb in t.move_callbacks[i])]
