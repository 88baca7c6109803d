"""Rules of the JAX engine that are not card effects: zones, damage, Knock Outs, winning, the turn
cycle, the Checkup and the end of an attack. Each function mirrors the method of the same name in
tcgjax.reference.core (the reference engine's `GameCore`) and names the same rule ids.

Conventions: `p` is a player seat (traced int32), `gate` a traced bool; a gated function returns the
state unchanged where the gate is False. `merge(gate, new, old)` selects only the fields a
computation actually replaced, so gating costs in proportion to what changed.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from paritygym import indexing
from tcgjax import spec
from tcgjax.game.state import EMPTY_SLOT, SLOT_INDEX, GameState, materialize
from tcgjax.game.tables import CardTables
from tcgjax.rng import stream_value_jax

I32 = jnp.int32
TRUE = jnp.bool_(True)


def merge(gate, new: GameState, old: GameState) -> GameState:
    """`new` where gate, else `old`; fields `new` did not replace are taken as they are."""
    gate = materialize(gate)

    def pick(n, o):
        return o if n is o else jnp.where(gate, n, o)
    return jax.tree_util.tree_map(pick, new, old)


# ---------------------------------------------------------------------------- random stream (RNG-1..3)

def value_at(state: GameState, offset):
    """Stream value at rng_counter + offset (not consumed)."""
    return stream_value_jax(state.seed, state.rng_counter + offset)


def coins_at(state: GameState, offset, count, max_count: int):
    """Number of heads among `count` coins at offsets offset .. offset+count-1 (count <= max_count)."""
    k = jnp.arange(max_count)
    values = stream_value_jax(state.seed, state.rng_counter + offset + k)
    return jnp.sum(((values & 1) == 1) & (k < count)).astype(I32)


def pick_at(state: GameState, offset, n):
    """RNG-2: value mod n (n >= 1) at rng_counter + offset."""
    return (value_at(state, offset) % jnp.maximum(n, 1).astype(jnp.uint32)).astype(I32)


def flip_until_tails_at(state: GameState, offset):
    """(heads before the first tails, values used) starting at rng_counter + offset (RNG-5)."""
    def cond(carry):
        _, last_heads = carry
        return last_heads

    def body(carry):
        used, _ = carry
        heads = (value_at(state, offset + used) & 1) == 1
        return used + 1, heads

    used, _ = jax.lax.while_loop(cond, body, (jnp.int32(0), TRUE))
    return used - 1, used


def advance(state: GameState, count, gate=TRUE) -> GameState:
    return state.replace(rng_counter=state.rng_counter + jnp.where(gate, count, 0).astype(I32))


def shuffled(seed, counter, row, n):
    """RNG-3 on the first n entries of `row`, values from stream position `counter` on; uses n-1."""
    length = row.shape[0]

    def body(t, row):
        i = length - 1 - t
        active = i <= n - 1
        v = stream_value_jax(seed, counter + (n - 1 - i))
        j = (v % jnp.uint32(i + 1)).astype(I32)
        a, b = indexing.read(row, i), indexing.read(row, j)
        swapped = indexing.write(indexing.write(row, i, b), j, a)
        return jnp.where(active, swapped, row)

    # an accelerator runs the unrolled swaps as a few fused kernels, not a loop of tiny ones
    return jax.lax.fori_loop(0, length - 1, body, row, unroll=indexing.accelerated())


# ---------------------------------------------------------------------------- rows (deck, hand)

def remove_at(row, k):
    """Row with entry k removed, the rest moved up, -1 at the end."""
    idx = jnp.arange(row.shape[0])
    shifted = jnp.concatenate([row[1:], jnp.full((1,), -1, row.dtype)])
    return jnp.where(idx >= k, shifted, row)


def drawn_count(deck_size, hand_size, count, max_count: int):
    """How many of `count` draws succeed (TURN-2 / draw effects; LIMIT-1, LIMIT-2): each stops at
    an empty deck or a hand of HAND_DRAW_LIMIT cards, so the draws that happen are a prefix."""
    room = jnp.minimum(deck_size, spec.HAND_DRAW_LIMIT - hand_size)
    return jnp.clip(jnp.minimum(count, room), 0, max_count).astype(I32)


def append_row(row, size, cards, count):
    """`row` with the first `count` entries of `cards` written from position `size` on."""
    idx = jnp.arange(row.shape[0])
    src = jnp.clip(idx - size, 0, cards.shape[0] - 1)
    return jnp.where((idx >= size) & (idx < size + count), indexing.lookup(cards, src), row)


def drop_row(row, first, count):
    """`row` without entries first .. first+count-1, the rest moved up, -1 at the end."""
    idx = jnp.arange(row.shape[0])
    src = jnp.where(idx >= first, idx + count, idx)
    return jnp.where(src < row.shape[0], indexing.lookup(row, jnp.minimum(src, row.shape[0] - 1)), -1)


def prefix_sum(values, axis: int = -1):
    """`jnp.cumsum(values, axis)` as int32 (bools count as 1), by a parallel scan (same integers):
    XLA:CPU runs `cumsum` as a reduce-window that adds the whole prefix for every entry; vmapped
    over 1,024 games it took ~150 us for [20] rows and ~600 us for [58] rows, the scan ~35 / ~45 us
    (CPU time per call, 2026-12-01)."""
    return jax.lax.associative_scan(jnp.add, jnp.asarray(values).astype(I32), axis=axis)


def kth_true(mask, k):
    """Index of the k-th (0-based) True entry of mask."""
    return jnp.argmax((prefix_sum(mask) == k + 1) & mask).astype(I32)


def draw(state: GameState, p, count, gate=TRUE, max_count: int = 1) -> GameState:
    """TURN-2, draw effects; LIMIT-1, LIMIT-2."""
    for i in range(max_count):
        ok = gate & (i < count) & (state.deck_size[p] > 0) & (state.hand_size[p] < spec.HAND_DRAW_LIMIT)
        top = indexing.read(state.deck, (p, 0))
        hs = indexing.read(state.hand_size, p)
        new = state.replace(
            deck=indexing.write(state.deck, p, remove_at(indexing.read(state.deck, p), 0)),
            deck_size=indexing.add(state.deck_size, p, -1),
            hand=indexing.write(state.hand, (p, jnp.minimum(hs, spec.HAND_CAPACITY - 1)), top),
            hand_size=indexing.add(state.hand_size, p, 1),
        )
        state = merge(ok, new, state)
    return state


def remove_from_hand(state: GameState, p, h) -> tuple[GameState, jnp.ndarray]:
    card = indexing.read(state.hand, (p, h))
    return state.replace(hand=indexing.write(state.hand, p, remove_at(indexing.read(state.hand, p), h)),
                         hand_size=indexing.add(state.hand_size, p, -1)), card


def append_to_hand(state: GameState, p, card, gate=TRUE) -> GameState:
    hs = state.hand_size[p]
    new = state.replace(hand=indexing.write(state.hand, (p, jnp.minimum(hs, spec.HAND_CAPACITY - 1)), card),
                        hand_size=indexing.add(state.hand_size, (p,), 1))
    return merge(gate & (card >= 0), new, state)


# ---------------------------------------------------------------------------- Pokémon in play

def occupied(state: GameState):
    return state.card >= 0


def bench_mask(state: GameState, p):
    return (state.card[p] >= 0) & (jnp.arange(spec.NUM_SLOTS) > 0)


def empty_bench_mask(state: GameState, p):
    return (state.card[p] < 0) & (jnp.arange(spec.NUM_SLOTS) > 0)


def first_empty_bench(state: GameState, p):
    return jnp.argmax(empty_bench_mask(state, p)).astype(I32)


def top_prop(table, state: GameState):
    """Property of the top card of every slot, [2, 4] (meaningless where empty)."""
    return table[jnp.maximum(state.card, 0)]


def total_energy(state: GameState):
    return jnp.sum(state.energy, axis=-1)


def is_turn(state: GameState, turn_field):
    return (turn_field != 0) & (turn_field == state.turn)


def new_slot_row(card, turn):
    """The slot of a card put into play on `turn` (BENCH-1/2), [15]."""
    row = indexing.write(indexing.write(jnp.asarray(EMPTY_SLOT), (SLOT_INDEX["stack"].start,), card), (SLOT_INDEX["card"],), card)
    return indexing.write(row, (SLOT_INDEX["turn_played"],), turn)


def put_into_play(state: GameState, p, slot, card, gate=TRUE) -> GameState:
    """BENCH-1/2."""
    row = new_slot_row(card, state.turn)
    return merge(gate, state.replace(slots=indexing.write(state.slots, (p, slot), row)), state)


def clear_active_effects(state: GameState, p, gate=TRUE) -> GameState:
    """STATUS-3, DMG-7."""
    return state.replace(active=indexing.write(state.active, (p,), jnp.where(gate, 0, state.active[p])))


def clear_slot(state: GameState, p, slot) -> GameState:
    return state.replace(slots=indexing.write(state.slots, (p, slot), jnp.asarray(EMPTY_SLOT)))


def permute_slots(state: GameState, p, order) -> GameState:
    """Player p's slots rearranged: new slot s holds old slot order[s]."""
    return state.replace(slots=indexing.write(state.slots, (p,), indexing.lookup(state.slots[p], order)))


def move_slot(state: GameState, p, source, target) -> GameState:
    """Copy slot `source` to `target` and empty `source` (promotion)."""
    slots = jnp.arange(spec.NUM_SLOTS)
    return clear_slot(permute_slots(state, p, jnp.where(slots == target, source, slots)), p, source)


def swap_active_with_bench(state: GameState, p, bench_slot, gate=TRUE) -> GameState:
    """RETREAT-5, KO-5."""
    slots = jnp.arange(spec.NUM_SLOTS)
    order = jnp.where(gate & (slots == 0), bench_slot, jnp.where(gate & (slots == bench_slot), 0, slots))
    return clear_active_effects(permute_slots(state, p, order), p, gate)


def discard_from_play(state: GameState, p: int, slot, gate=TRUE) -> GameState:
    """KO-1 and fossil discards: the slot's stack (bottom card first) goes to the discard pile."""
    gate, slot = materialize(gate), materialize(slot)
    cards = indexing.read(state.stack, (p, slot))
    count = jnp.sum(cards >= 0)
    block = jnp.where(gate & (jnp.arange(spec.NUM_SLOTS) == slot)[:, None], jnp.asarray(EMPTY_SLOT), state.slots[p])
    discard = jnp.where(gate, append_row(state.discard[p], state.discard_size[p], cards, count), state.discard[p])
    state = state.replace(slots=indexing.write(state.slots, (p,), block), discard=indexing.write(state.discard, (p,), discard),
                          discard_size=indexing.add(state.discard_size, (p,), jnp.where(gate, count, 0)))
    return clear_active_effects(state, p, gate & (slot == 0))


# ---------------------------------------------------------------------------- damage (DMG-1..6)

def incoming_reduction(tables: CardTables, state: GameState, p, slot):
    """DMG-1 step 5."""
    from tcgjax.game.tables import ABILITY_KIND
    top = jnp.maximum(indexing.read(state.card, (p, slot)), 0)
    ability = jnp.where(tables.ab_kind[top] == ABILITY_KIND["reduce_incoming"], tables.ab_amount[top], 0)
    barrier = jnp.where((slot == 0) & is_turn(state, state.reduce_damage_turn[p]), state.reduce_damage_amount[p], 0)
    return ability + barrier


def incoming_reductions(tables: CardTables, state: GameState, p):
    """incoming_reduction for each of p's slots, [4]."""
    from tcgjax.game.tables import ABILITY_KIND
    top = jnp.maximum(state.card[p], 0)
    ability = jnp.where(tables.ab_kind[top] == ABILITY_KIND["reduce_incoming"], tables.ab_amount[top], 0)
    barrier = jnp.where(is_turn(state, state.reduce_damage_turn[p]), state.reduce_damage_amount[p], 0)
    return ability + jnp.where(jnp.arange(spec.NUM_SLOTS) == 0, barrier, 0)


def attack_damage_to_active(tables: CardTables, state: GameState, p, base):
    """DMG-1, DMG-2, DMG-5."""
    o = 1 - p
    attacker, defender = state.card[p, 0], state.card[o, 0]
    stop = (defender < 0) | is_turn(state, state.protected_turn[o]) | (base <= 0)
    damage = base + state.attack_bonus[p]
    if tables.named_bonus_list >= 0:
        named = tables.name_lists[tables.named_bonus_list, tables.name[jnp.maximum(attacker, 0)]]
        damage = damage + jnp.where(named, state.named_attack_bonus[p], 0)
    damage = damage - jnp.where(is_turn(state, state.attack_minus_turn[p]), state.attack_minus_amount[p], 0)
    stop = stop | (damage <= 0)
    weak = tables.weakness[jnp.maximum(defender, 0)]
    damage = damage + jnp.where((weak >= 0) & (weak == tables.ptype[jnp.maximum(attacker, 0)]), spec.WEAKNESS_BONUS, 0)
    damage = damage - incoming_reduction(tables, state, o, 0)
    return jnp.where(stop, 0, jnp.maximum(damage, 0)).astype(I32)


def attack_damage_to_bench(tables: CardTables, state: GameState, target_p, slot, base):
    """DMG-3."""
    return jnp.where(base <= 0, 0, jnp.maximum(base - incoming_reduction(tables, state, target_p, slot), 0)).astype(I32)


def add_damage(state: GameState, p, slot, amount, gate=TRUE) -> GameState:
    return state.replace(damage=indexing.add(state.damage, (p, slot), jnp.where(gate, amount, 0)))


def heal(state: GameState, p, slot, amount, gate=TRUE) -> GameState:
    """DMG-6."""
    current = state.damage[p, slot]
    return state.replace(damage=indexing.write(state.damage, (p, slot), jnp.where(gate, jnp.maximum(current - amount, 0), current)))


# ---------------------------------------------------------------------------- Knock Outs, winning

def resolve_knockouts(tables: CardTables, state: GameState, gate=TRUE) -> GameState:
    """KO-1..3 then WIN-1/2 (where gate)."""
    occ = occupied(state)
    knocked = gate & occ & (state.damage >= top_prop(tables.hp, state))
    value = jnp.where(knocked, 1 + top_prop(tables.ex, state), 0).sum(axis=1)  # points lost per seat
    points = state.points + value[::-1]
    # the Knocked Out stacks go to the discard piles, slot by slot, bottom card first
    leaving = (knocked[:, :, None] & (state.stack >= 0)).reshape(2, -1)
    cards = state.stack.reshape(2, -1)
    position = state.discard_size[:, None] + prefix_sum(leaving, axis=1) - 1
    target = jnp.where(leaving, position, spec.DECK_SIZE)  # out of range: dropped
    discard = indexing.write_rows(state.discard, target, cards)
    new = state.replace(
        points=points, discard=discard, discard_size=state.discard_size + jnp.sum(leaving, axis=1),
        slots=jnp.where(knocked[:, :, None], jnp.asarray(EMPTY_SLOT), state.slots),
        active=jnp.where(knocked[:, 0, None], 0, state.active))
    return check_win(new, gate)


def check_win(state: GameState, gate=TRUE) -> GameState:
    """WIN-1, WIN-2 (where gate)."""
    in_play = jnp.any(occupied(state), axis=1)
    conditions = (state.points >= spec.POINTS_TO_WIN).astype(I32) + (~in_play[::-1]).astype(I32)
    ends = gate & ~state.game_over & (jnp.max(conditions) > 0)
    winner = jnp.where(conditions[0] == conditions[1], -1, (conditions[1] > conditions[0]).astype(I32))
    return state.replace(
        game_over=state.game_over | ends,
        phase=jnp.where(ends, spec.GAME_OVER, state.phase),
        winner=jnp.where(ends, winner, state.winner))


def needs_promotion(state: GameState, p):
    return (state.card[p, 0] < 0) & jnp.any(bench_mask(state, p))


# ---------------------------------------------------------------------------- turn flow

def roll_energy(state: GameState, p, offset):
    """ENERGY-2: the Energy rolled with the stream value at rng_counter + offset."""
    n = jnp.sum(indexing.read(state.energy_types, p) >= 0)
    return indexing.read(state.energy_types, (p, pick_at(state, offset, n)))


def start_turn(state: GameState, gate=TRUE) -> GameState:
    """TURN-1, TURN-2, TURN-3 (ENERGY-1), TURN-5."""
    turn = state.turn + 1
    p = jnp.where(turn == 1, state.first_player, 1 - state.turn_player)
    new = state.replace(
        turn=turn, turn_player=p, turn_ending=jnp.bool_(False), checkup_done=jnp.bool_(False),
        supporter_played=jnp.zeros(2, bool), retreated=jnp.zeros(2, bool), retreat_reduction=jnp.zeros(2, I32),
        attack_bonus=jnp.zeros(2, I32), named_attack_bonus=jnp.zeros(2, I32),
        ability_used=jnp.zeros_like(state.ability_used))
    new = draw(new, p, 1)
    roll = turn > 1
    rolled = roll_energy(new, p, 0)
    new = new.replace(
        energy_current=indexing.write(new.energy_current, p, jnp.where(roll, indexing.read(new.energy_next, p),
                                                                       indexing.read(new.energy_current, p))),
        energy_next=indexing.write(new.energy_next, p, jnp.where(roll, rolled, indexing.read(new.energy_next, p))),
        phase=jnp.int32(spec.MAIN), decider=p)
    new = advance(new, 1, roll)
    return merge(gate, new, state)


def end_turn(state: GameState, gate=TRUE) -> GameState:
    """TURN-4, TURN-5. In the turn player's frame (seat 0)."""
    p = 0
    new = state.replace(energy_current=indexing.write(state.energy_current, (p,), -1), turn_ending=jnp.bool_(True))
    return merge(gate, new, state)


def checkup(state: GameState, gate=TRUE) -> GameState:
    """CHECKUP-1..5 (the caller resolves Knock Outs). In the turn player's frame (seat 0)."""
    order = (0, 1)
    damage = state.damage
    for p in order:
        has = gate & (state.card[p, 0] >= 0)
        damage = indexing.add(damage, (p, 0), jnp.where(has & state.poisoned[p], spec.POISON_DAMAGE, 0))
    burned = state.burned
    used = jnp.int32(0)
    for p in order:
        hit = gate & (state.card[p, 0] >= 0) & burned[p]
        damage = indexing.add(damage, (p, 0), jnp.where(hit, spec.BURN_DAMAGE, 0))
        heads = (value_at(state, used) & 1) == 1
        burned = indexing.write(burned, (p,), jnp.where(hit & heads, False, burned[p]))
        used = used + hit.astype(I32)
    special = state.special
    for p in order:
        asleep = gate & (state.card[p, 0] >= 0) & (special[p] == spec.ASLEEP)
        heads = (value_at(state, used) & 1) == 1
        special = indexing.write(special, (p,), jnp.where(asleep & heads, spec.NO_SPECIAL, special[p]))
        used = used + asleep.astype(I32)
    paralyzed = gate & (state.card[0, 0] >= 0) & (special[0] == spec.PARALYZED)
    special = indexing.write(special, (0,), jnp.where(paralyzed, spec.NO_SPECIAL, special[0]))
    return advance(state.replace(damage=damage, burned=burned, special=special), used)


def finish_attack(state: GameState, gate) -> GameState:
    """Counterattack, then the turn ends. In the turn player's frame (seat 0)."""
    p = 0
    hit = state.counter_damage * (state.card[p, 0] >= 0)
    new = add_damage(state, p, 0, hit).replace(counter_damage=jnp.int32(0), in_attack=jnp.bool_(False))
    return merge(gate, end_turn(new), state)


def settle_has_work(tables: CardTables, state: GameState):
    """Whether `settle` may change more than who decides: an attack to finish, a turn to end, a
    Pokémon at or past its HP, an empty Active spot (a promotion, or a player without Pokémon in
    play), points enough to win. Where False, `settle` equals `settle_quiet`."""
    knocked = occupied(state) & (state.damage >= top_prop(tables.hp, state))
    return (state.in_attack | state.turn_ending | jnp.any(knocked) | jnp.any(state.card[:, 0] < 0)
            | jnp.any(state.points >= spec.POINTS_TO_WIN))


def settle_quiet(state: GameState, gate=TRUE) -> GameState:
    """`settle` where `settle_has_work` is False: the turn player (seat 0) decides next."""
    return merge(gate, state.replace(decider=state.turn_player), state)


def settle(tables: CardTables, state: GameState, max_turns, gate=TRUE) -> GameState:
    """Mirror of Game.settle: end of an attack, Knock Outs, end of turn (Checkup, turn limit),
    promotions, the next turn. Runs where `gate` (the phase is MAIN after the action). In the turn
    player's frame: the turn player is seat 0."""
    old = state
    state = finish_attack(state, state.in_attack)
    state = resolve_knockouts(tables, state)
    do_checkup = ~state.game_over & state.turn_ending & ~state.checkup_done
    state = checkup(state, do_checkup)
    state = state.replace(checkup_done=state.checkup_done | do_checkup)
    state = resolve_knockouts(tables, state, do_checkup)
    limit = do_checkup & ~state.game_over & (state.turn >= max_turns)  # WIN-3
    state = state.replace(game_over=state.game_over | limit, truncated=state.truncated | limit,
                          winner=jnp.where(limit, -1, state.winner),
                          phase=jnp.where(limit, spec.GAME_OVER, state.phase))
    live = ~state.game_over
    first, second = 1, 0  # KO-4: the player who plays next promotes first
    promote_first = live & needs_promotion(state, first)
    promote_second = live & ~promote_first & needs_promotion(state, second)
    promote = promote_first | promote_second
    state = state.replace(
        phase=jnp.where(promote, spec.PROMOTE, jnp.where(live, spec.MAIN, state.phase)),
        decider=jnp.where(promote_first, first, jnp.where(promote_second, second, jnp.where(live, state.turn_player, state.decider))))
    state = start_turn(state, live & ~promote & state.turn_ending)
    return merge(gate, state, old)
