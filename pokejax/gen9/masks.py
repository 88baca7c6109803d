"""The Gen 9 action space and its legal mask.

``Discrete(14)`` per side:

- 0-3: use move slot 0-3 of the active Pokémon;
- 4-7: the same move slot after Terastallizing (Showdown's ``move N terastallize``);
- 8-13: switch to team slot 0-5 (team order, which never changes; see ``state``).

Legal as Showdown's ``Side.choose`` accepts it, for what the state holds so far: a move slot needs a
move with PP left; Terastallizing also needs the side to be still able to (``can_tera``) and the
active not Terastallized already; a switch needs a Pokémon in that slot that is neither fainted nor
the active one. When no move has PP left Showdown's request offers Struggle alone: action 0 then
means Struggle and is the only legal move action; the Tera actions are illegal then, because Showdown
takes ``move 1 terastallize`` as a plain Struggle (its ``chooseMove`` returns before reading the Tera
flag), so they would be action 0 under another number. In a forced-switch request (``REQUEST_SWITCH``)
only the sides with ``switch_flag`` act, with switches only. A side that does not act gets an all-False
row (``must_act``), as in the Gen 1 engine (``pokejax.game.masks``). Disabling effects (Disable,
Taunt, Encore, Choice items, Assault Vest), locks, trapping and Revival Blessing's choice of a
fainted Pokémon come with the stages that add them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from pokejax.gen9.state import (
    REQUEST_MOVE,
    REQUEST_SWITCH,
    TEAM_SIZE,
    BattleState,
    select,
)

NUM_ACTIONS = 14
ACTION_TERA_BASE = 4
ACTION_SWITCH_BASE = 8


def must_act(state: BattleState) -> jax.Array:
    """bool[B, 2]: which sides choose an action at this decision."""
    request = jnp.asarray(state.request)[..., None]
    return (request == REQUEST_MOVE) | ((request == REQUEST_SWITCH) & state.switch_flag)


def legal_mask(state: BattleState) -> jax.Array:
    """bool[B, 2, NUM_ACTIONS]: each side's legal actions (see the module docstring); all False for a
    side that does not act."""
    moves, pp = state.active_of(state.moves), state.active_of(state.pp)       # [B, 2, 4]
    usable = (moves != 0) & (pp > 0)
    struggle = ~jnp.any(usable, axis=-1, keepdims=True)
    move_actions = jnp.where(struggle, jnp.arange(4) == 0, usable)
    tera_ok = state.can_tera & ~state.active_of(state.terastallized)           # [B, 2]
    tera_actions = usable & tera_ok[..., None]

    slots = jnp.arange(TEAM_SIZE)
    bench = ((slots < state.team_size[..., None]) & (state.hp > 0)
             & (slots != jnp.asarray(state.active)[..., None]))                 # [B, 2, 6]

    request = jnp.asarray(state.request)[..., None, None]
    move_request = request == REQUEST_MOVE
    switch_request = (request == REQUEST_SWITCH) & state.switch_flag[..., None]
    return jnp.concatenate([move_actions & move_request, tera_actions & move_request,
                            bench & (move_request | switch_request)], axis=-1)


def legal_or_first(state: BattleState, actions, mask: jax.Array | None = None) -> jax.Array:
    """int32[B, 2]: each side's action, an illegal or out-of-range one replaced by its lowest legal
    action (0 for a side that does not act), so that the engine only sees choices Showdown accepts.
    ``mask``: ``legal_mask(state)`` when the caller has it already."""
    actions = jnp.asarray(actions, jnp.int32)
    mask = legal_mask(state) if mask is None else mask
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    chosen = select(mask, jnp.clip(actions, 0, NUM_ACTIONS - 1))
    return jnp.where(in_range & chosen, actions, jnp.argmax(mask, axis=-1).astype(jnp.int32))
