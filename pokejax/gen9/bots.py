"""The max-damage heuristic opponent of Gen 9: the single-agent env's opponent 1 (``params.opponent``)
and the two-player game's ``heuristic_action``.

It picks the legal move whose expected damage on the foe's active is the largest, estimated with the
engine's damage formula (``damage.damage``: types, Tera STAB of a Terastallized user, stat stages,
burn; the middle damage roll, no critical hit) times the move's accuracy, and for a multi-hit move its
expected hits (``hit_weights``). It never Terastallizes and
never switches by choice; when no legal move deals damage (a forced switch, only status moves, every
move immune) it plays a random legal action. Moves whose power depends on the battle count at their
listed power.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.twoplayer import random_legal_action
from pokejax.gen9 import damage, turn
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables

MIDDLE_ROLL = 7   # of Showdown's random(16): the damage at roll r is (100 - r) % of the top roll


@functools.lru_cache(maxsize=1)
def hit_weights() -> np.ndarray:
    """float32[M]: per move index, what the damage of one hit at the move's listed power is multiplied by
    in the expectation: its chance to hit (accuracy / 100; 1 for a move that cannot miss), times the
    expected hits of a multi-hit move of ``turn.multihit_moves()`` (its fixed count; 3.1 for a count
    drawn from ``turn.SAMPLED_HITS``; a ``multiaccuracy`` move's hit k lands with chance ``a ** k`` and,
    for Triple Axel, at k times its power). Accuracy and evasion stages are not counted."""
    t = tables.load()
    columns = turn._multihit_columns()
    weights = np.zeros(len(t.move_ids), np.float32)
    for i in range(1, len(t.move_ids)):
        accuracy = t.data["moves"][i - 1]["accuracy"]
        a = 1.0 if accuracy is True else accuracy / 100.0
        hits = int(columns["hits"][i])
        if columns["hits_sampled"][i]:
            weights[i] = a * float(np.mean(turn.SAMPLED_HITS))
        elif columns["multiacc"][i]:
            growth = lambda k: k if columns["power_per_hit"][i] else 1   # noqa: E731
            weights[i] = sum(growth(k) * a ** k for k in range(1, hits + 1))
        else:
            weights[i] = a * hits
    return weights


def expected_damage(battle: S.BattleState, player) -> jax.Array:
    """float32[4]: the expected damage of each move slot of ``player``'s active on the other side's
    active in one battle (no batch axis); 0 for an empty slot and for moves that deal no damage."""
    player = jnp.asarray(player, jnp.int32)
    foe = 1 - player

    # a side at a traced index through ``state.select`` (selects on an accelerator), as the observation reads it
    def side(field, s):
        return S.select(field, s)

    def active(field, s):
        return side(battle.active_of(field), s)

    def tera(s):
        return jnp.where(active(battle.terastallized, s), active(battle.tera_type, s), tables.TYPE_NONE)

    moves = active(battle.moves, player)                                   # [4]
    four = lambda x: jnp.broadcast_to(x, (4,) + jnp.shape(x))             # noqa: E731
    hit = damage.damage(
        moves, four(active(battle.level, player)),
        four(active(battle.stats, player)), four(side(battle.boosts, player)[:5]),
        four(active(battle.types, player)), four(tera(player)), four(active(battle.status, player) == S.BRN),
        four(active(battle.stats, foe)), four(side(battle.boosts, foe)[:5]),
        four(active(battle.types, foe)), four(tera(foe)),
        crit=jnp.zeros(4, bool), roll=jnp.full(4, MIDDLE_ROLL, jnp.int32),
        atk_stellar=four(active(battle.stellar, player)))
    weight = jnp.asarray(hit_weights())[moves]
    return jnp.where((moves != 0) & (hit.kind == damage.KIND_DAMAGE), hit.damage * weight, 0.0).astype(jnp.float32)


def max_damage_action(key, battle: S.BattleState, player, mask: jax.Array) -> jax.Array:
    """The heuristic's action for ``player`` in one battle: the legal move slot (actions 0-3) with the
    highest expected damage (the lowest slot on a tie); a random legal action when none deals damage.
    ``mask``: the player's legal mask bool[NUM_ACTIONS]."""
    dmg = jnp.where(mask[:4], expected_damage(battle, player), -1.0)
    best = jnp.argmax(dmg).astype(jnp.int32)
    return jnp.where(dmg[best] > 0, best, random_legal_action(key, mask))
