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
row (``must_act``), as in the Gen 1 engine (``pokejax.game.masks``). A move disabled by a volatile
(``disabled``: Taunt's ``onDisableMove``, the status moves; Encore's, all but the encored move; Throat
Chop's, the sound moves; Heal Block's, the ``heal`` ones; a ``cantusetwice`` move used last) is illegal like one out
of PP, and with no move left Struggle is offered (``getMoves`` returns none). An active locked into a move
(``locked``: Outrage, Petal Dance) has that move's slot as its only legal action, PP or not (Showdown's request offers the
locked move alone and ``trapped``: no switch, no Terastallization; the choice ``move 1`` names it); one that
must recharge (``recharge``: Giga Impact hit last turn) has action 0 alone, the recharge (``move 1``); one charging a
two-turn move (``charge``: Meteor Beam, Solar Beam) has that move's slot alone. One holding the ``noretreat``
volatile (``no_retreat``: No Retreat) or the ``trapped`` one (``shackled``: Spirit Shackle) may not switch unless it is
a Ghost by its current types (``tryTrap``'s immunity; a Tera type counts, a Stellar one keeps the original types);
a switch request (a faint, a self-switch) ignores locks and traps. Other
disabling effects (Disable, Choice items, Assault Vest), other trapping and Revival Blessing's choice of a
fainted Pokémon come with the stages that add them.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from pokejax.gen9 import damage
from pokejax.gen9.data import tables
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


def disabled(state: BattleState) -> jax.Array:
    """bool[B, 2, 4]: the active's move slots its volatiles disable at this decision (Showdown's
    ``DisableMove`` event of the request): under Taunt (``taunt``) its status moves, under Encore
    (``encore``) every move but the encored one, under Throat Chop's volatile (``throat_chop``) its sound
    moves, under Heal Block's (``heal_block``) its moves with the ``heal`` flag; and a ``cantusetwice`` move
    (Gigaton Hammer, Blood Moon) that was its last move (``last_move``; ``nextTurn``'s own check)."""
    row = _disable_table().at(state.active_of(state.moves))                    # [B, 2, 4]
    others = jnp.arange(4) != jnp.asarray(state.encore_slot)[..., None]
    under = lambda x: (jnp.asarray(x) > 0)[..., None]
    again = jnp.arange(4) == jnp.asarray(state.last_move)[..., None]
    return ((row.status & under(state.taunt)) | (others & under(state.encore)) | (row.sound & under(state.throat_chop))
            | (row.heal & under(state.heal_block)) | (row.twice & again))


@functools.lru_cache(maxsize=1)
def _disable_table() -> tables.MoveTable:
    """Per move index, what the disabling volatiles read: ``status`` (a status move: Taunt), the ``sound``
    (Throat Chop) and ``heal`` (Heal Block) flags, and the ``cantusetwice`` flag (``twice``)."""
    t = tables.load()
    flag = lambda name: np.asarray([False] + [bool(m["flags"].get(name)) for m in t.data["moves"]])
    return tables.MoveTable({"status": t.move_category == tables.STATUS, "sound": flag("sound"), "heal": flag("heal"),
                             "twice": flag("cantusetwice")})


def usable(state: BattleState) -> jax.Array:
    """bool[B, 2, 4]: the active's move slots it may choose (a move, PP left, not ``disabled``); none:
    Struggle."""
    moves, pp = state.active_of(state.moves), state.active_of(state.pp)       # [B, 2, 4]
    return (moves != 0) & (pp > 0) & ~disabled(state)


def benched(state: BattleState) -> jax.Array:
    """bool[B, 2, 6]: the Pokémon of each side that could come in (in the team, not fainted, not active)."""
    slots = jnp.arange(TEAM_SIZE)
    return (slots < state.team_size[..., None]) & (state.hp > 0) & (slots != jnp.asarray(state.active)[..., None])


def active_types(state: BattleState) -> tuple[jax.Array, jax.Array]:
    """Each active's current types ``(first, second)`` int32[B, 2] (``damage.current_types``: its Tera type alone once
    Terastallized, a Stellar one keeping the original types)."""
    tera = jnp.where(state.active_of(state.terastallized), state.active_of(state.tera_type), tables.TYPE_NONE)
    return damage.current_types(state.active_of(state.types), tera)


def _trapped(state: BattleState) -> jax.Array:
    """bool[B, 2]: the active is trapped by its ``noretreat`` or ``trapped`` volatile (not a Ghost by its current types)."""
    ghost = tables.load().type_index["Ghost"]
    first, second = active_types(state)
    return (jnp.asarray(state.no_retreat) | jnp.asarray(state.shackled)) & (first != ghost) & (second != ghost)


def legal_mask(state: BattleState) -> jax.Array:
    """bool[B, 2, NUM_ACTIONS]: each side's legal actions (see the module docstring); all False for a
    side that does not act."""
    ok = usable(state)
    struggle = ~jnp.any(ok, axis=-1, keepdims=True)
    move_actions = jnp.where(struggle, jnp.arange(4) == 0, ok)
    recharge = jnp.asarray(state.recharge)[..., None]                         # [B, 2, 1]
    charging = jnp.asarray(state.charge) > 0                                   # [B, 2]
    locked = (jnp.asarray(state.locked) > 0)[..., None] | recharge | charging[..., None]
    slot = jnp.where(recharge[..., 0], 0, jnp.where(charging, jnp.asarray(state.charge_slot),
                                                    jnp.asarray(state.locked_slot)))
    move_actions = jnp.where(locked, jnp.arange(4) == slot[..., None], move_actions)
    tera_ok = state.can_tera & ~state.active_of(state.terastallized) & ~locked[..., 0]   # [B, 2]
    tera_actions = ok & tera_ok[..., None]
    # a lock or a trap holds the active in a move request; a switch request (a faint, a self-switch) ignores both
    free = ~locked & ~_trapped(state)[..., None]

    request = jnp.asarray(state.request)[..., None, None]
    move_request = request == REQUEST_MOVE
    switch_request = (request == REQUEST_SWITCH) & state.switch_flag[..., None]
    return jnp.concatenate([move_actions & move_request, tera_actions & move_request,
                            benched(state) & ((move_request & free) | switch_request)], axis=-1)


def legal_or_first(state: BattleState, actions, mask: jax.Array | None = None) -> jax.Array:
    """int32[B, 2]: each side's action, an illegal or out-of-range one replaced by its lowest legal
    action (0 for a side that does not act), so that the engine only sees choices Showdown accepts.
    ``mask``: ``legal_mask(state)`` when the caller has it already."""
    actions = jnp.asarray(actions, jnp.int32)
    mask = legal_mask(state) if mask is None else mask
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    chosen = select(mask, jnp.clip(actions, 0, NUM_ACTIONS - 1))
    return jnp.where(in_range & chosen, actions, jnp.argmax(mask, axis=-1).astype(jnp.int32))
