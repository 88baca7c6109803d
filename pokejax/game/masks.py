"""Which players act in a battle state, and their legal actions: the masks the env step, the
observation and the bots read."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from paritygym.twoplayer import legal_or_first_action
from pokejax.game import engine
from pokejax.game.state import REQUEST_ENDED, REQUEST_MOVE, REQUEST_SWITCH, BattleState, entry

NUM_ACTIONS = engine.NUM_ACTIONS


def must_act(st: BattleState) -> jax.Array:
    """bool[2]: which players choose an action in the next step."""
    live = st.request != REQUEST_ENDED
    return live & ((st.request == REQUEST_MOVE) | ((st.request == REQUEST_SWITCH) & st.side.switch_flag))


@jax.jit   # traced once for its five calls in an env step (less tracing, same program)
def legal_masks(st: BattleState) -> jax.Array:
    """bool[2, NUM_ACTIONS]: both players' legal actions (a row is all False when that player does
    not act this step). The env step computes it once per state it needs masks of and passes it on."""
    masks = jnp.stack([engine.legal_actions(st, 0), engine.legal_actions(st, 1)])
    return masks & must_act(st)[:, None]


def legal_mask(st: BattleState, player) -> jax.Array:
    """bool[NUM_ACTIONS]: ``player``'s legal actions (all False when it does not act this step)."""
    return entry(legal_masks(st), player)


def legal_or_first(st: BattleState, actions, masks: jax.Array | None = None) -> jax.Array:
    """int32[2]: each player's action, an illegal (or out-of-range) one replaced by its lowest
    legal action, so that the engine only ever sees choices Showdown would accept. ``masks``:
    ``legal_masks(st)`` when the caller has it already."""
    actions = jnp.asarray(actions, jnp.int32)
    masks = legal_masks(st) if masks is None else masks
    return legal_or_first_action(masks, actions)[0]
