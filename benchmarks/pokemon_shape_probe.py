"""What would a different engine shape cost on XLA:CPU? ``python -m benchmarks.pokemon_shape_probe``.

Not the engine and not parity code: a probe for the next rewrite. It runs a toy of Gen 1's common
move path (sleep / freeze / full paralysis checks, accuracy, speed-based crit, the damage formula
with Reflect, STAB and a two-type chart, the random roll, HP and faint, one secondary status chance,
the speed-order draw) for both sides of every battle, with Showdown's generator
(``pokejax.prng``'s step and multiply-shift), in the shape the real engine does not have: one ``[B]`` array per
field (structure of arrays), straight-line batched code (no ``vmap`` of per-battle code, no packed
rows written by scatters, no ``while_loop``, no whole-state ``flip``: the acting order is a select of
the few fields the attack reads). Move data are random tables; a fainted Pokémon is refilled.

It prints CPU nanoseconds per battle step (both moves) and the compile time, to set against
``python -m benchmarks.pokemon_compile_report --programs throughput`` (the real env step: ~20 us of CPU per step
at batch 1,024, 2026-12-02). Measured 2026-12-02: ~0.3 us here at 1,024 battles, compile ~1.5-1.9 s;
``--extended`` (stat stages, PP, confusion and its self-hit, a substitute, two more
secondaries, multi-hit moves as a rare path on ``where_needed`` sub-batches) ~0.95 us, compile ~4.5 s.
Each side's fields are separate ``[B]`` arrays: carried stacked as ``[2, B]`` (``--stacked``) the toy
is 1.5x slower, and the extended toy without its rare path 9x slower (XLA's concatenate fusions of the
stack re-evaluate long chains), so keep the sides apart (docs/dev/progress-pokemon-env.md).
"""
from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.batching import where_needed
from pokejax import prng

I32 = jnp.int32
NUM_MOVES, NUM_TYPES = 165, 15


def _tables(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"power": jnp.asarray(rng.integers(0, 150, NUM_MOVES), I32),
            "accuracy": jnp.asarray(rng.integers(150, 256, NUM_MOVES), I32),
            "type": jnp.asarray(rng.integers(0, NUM_TYPES, NUM_MOVES), I32),
            "secondary": jnp.asarray(rng.integers(0, 30, NUM_MOVES), I32),
            "secondary_status": jnp.asarray(rng.integers(1, 6, NUM_MOVES), I32),
            "chart": jnp.asarray(rng.choice([0, 5, 10, 20], (NUM_TYPES, NUM_TYPES), p=[.05, .2, .6, .15]), I32),
            "stat_drop": jnp.asarray(rng.random(NUM_MOVES) < 0.1),       # secondary: the foe's attack -1
            "confuses": jnp.asarray(rng.random(NUM_MOVES) < 0.05),       # secondary: confusion
            "multi_hit": jnp.asarray(rng.random(NUM_MOVES) < 0.05),      # 2-5 hits (the rare path)
            "max_pp": jnp.asarray(rng.integers(5, 41, NUM_MOVES), I32),
            # Gen 1 stage multipliers as fractions, stage -6..6
            "stage_num": jnp.asarray([2, 2, 2, 2, 2, 2, 2, 3, 4, 5, 6, 7, 8], I32),
            "stage_den": jnp.asarray([8, 7, 6, 5, 4, 3, 2, 2, 2, 2, 2, 2, 2], I32)}


def _random_int(rng, n, when):
    """``prng.random_int`` on a generator state held as two [B] words (hi, lo) instead of one
    uint32[B, 2] array: with the [B, 2] array (``prng.random_int`` itself) the probe ran ~3x slower
    (1.6 vs 0.5 us per step at batch 1,024), every draw reading and writing interleaved columns."""
    hi, lo = rng
    new_hi, new_lo = prng.advance_words(hi, lo)
    return (jnp.where(when, new_hi, hi), jnp.where(when, new_lo, lo)), prng.scale(new_hi, n)


def _staged(T: dict, stat, stage):
    return stat * T["stage_num"][stage + 6] // T["stage_den"][stage + 6]


def _attack(T: dict, rng, a: dict, d: dict, on, extended: bool = False):
    """``a`` uses ``a["move"]`` on ``d`` where ``on``. Fields are [B] arrays; rng is (hi, lo) [B] words.
    ``extended`` adds stat stages, PP, confusion (with its self-hit), a substitute and two more
    secondaries."""
    asleep, frozen, paralyzed = a["status"] == 1, a["status"] == 2, a["status"] == 3
    sleep_left = jnp.where(asleep & on, a["sleep"] - 1, a["sleep"])
    woke = asleep & (sleep_left <= 0)
    rng, roll = _random_int(rng, 256, on & paralyzed)
    can_move = on & ~frozen & ~(asleep & ~woke) & ~(paralyzed & (roll < 63))
    a = {**a}
    d = {**d}
    if extended:
        confused = can_move & (a["confusion"] > 0)
        a["confusion"] = jnp.where(confused, a["confusion"] - 1, a["confusion"])
        rng, roll = _random_int(rng, 256, confused)
        self_hit = confused & (roll < 128)
        own = ((2 * a["level"] // 5 + 2) * 40 * _staged(T, a["atk"], a["stage_atk"])
               // jnp.maximum(_staged(T, a["def"], a["stage_def"]), 1)) // 50 + 2
        a["hp"] = jnp.where(self_hit, jnp.maximum(a["hp"] - own, 0), a["hp"])
        can_move = can_move & ~self_hit
        for k in range(4):   # PP of the slot used: one select per slot row
            a[f"pp{k}"] = jnp.where(can_move & (a["slot"] == k), jnp.maximum(a[f"pp{k}"] - 1, 0), a[f"pp{k}"])
    move = a["move"]
    rng, roll = _random_int(rng, 256, can_move)
    hit = can_move & (roll < T["accuracy"][move])
    rng, roll = _random_int(rng, 256, hit)
    crit = roll < a["base_speed"] // 2
    level = jnp.where(crit, a["level"] * 2, a["level"])
    special = T["type"][move] >= 8
    if extended:
        attack = jnp.where(special, _staged(T, a["spa"], a["stage_spa"]), _staged(T, a["atk"], a["stage_atk"]))
        defense = jnp.where(special, _staged(T, d["spd"], d["stage_spd"]), _staged(T, d["def"], d["stage_def"]))
    else:
        attack = jnp.where(special, a["spa"], a["atk"])
        defense = jnp.where(special, d["spd"], d["def"])
    defense = jnp.where(d["reflect"] & ~special & ~crit, defense * 2, defense)
    damage = ((2 * level // 5 + 2) * T["power"][move] * attack // jnp.maximum(defense, 1)) // 50 + 2
    move_type = T["type"][move]
    damage = jnp.where((move_type == a["type0"]) | (move_type == a["type1"]), damage + damage // 2, damage)
    damage = damage * T["chart"][move_type, d["type0"]] // 10 * T["chart"][move_type, d["type1"]] // 10
    rng, roll = _random_int(rng, 39, hit & (damage > 1))
    damage = jnp.where(damage > 1, damage * (217 + roll) // 255, damage)
    damage = jnp.where(hit & (T["power"][move] > 0), jnp.minimum(damage, d["hp"]), 0)
    if extended:   # a substitute takes the hit
        to_sub = d["sub_hp"] > 0
        d["sub_hp"] = jnp.where(to_sub, jnp.maximum(d["sub_hp"] - damage, 0), d["sub_hp"])
        damage = jnp.where(to_sub, 0, damage)
        rng, roll = _random_int(rng, 256, hit & T["stat_drop"][move])
        drop = hit & T["stat_drop"][move] & (roll < 85) & (d["stage_atk"] > -6)
        d["stage_atk"] = jnp.where(drop, d["stage_atk"] - 1, d["stage_atk"])
        rng, roll = _random_int(rng, 256, hit & T["confuses"][move])
        confuse = hit & T["confuses"][move] & (roll < 25) & (d["confusion"] == 0)
        rng, turns = _random_int(rng, 4, confuse)
        d["confusion"] = jnp.where(confuse, turns + 2, d["confusion"])
        a["last_damage"] = damage
    hp = d["hp"] - damage
    chance = T["secondary"][move]
    rng, roll = _random_int(rng, 256, hit & (chance > 0))
    inflicted = hit & (chance > 0) & (roll < 2 * chance) & (d["status"] == 0) & (hp > 0)
    new_status = T["secondary_status"][move]
    rng, roll = _random_int(rng, 7, inflicted & (new_status == 1))
    attacker = {**a, "status": jnp.where(woke, 0, a["status"]), "sleep": sleep_left}
    defender = {**d, "hp": hp, "status": jnp.where(inflicted, new_status, d["status"]),
                "sleep": jnp.where(inflicted & (new_status == 1), roll + 1, d["sleep"])}
    return rng, attacker, defender


_HITS = jnp.asarray([2, 2, 2, 3, 3, 3, 4, 5], I32)   # Gen 1's 2-5 hit distribution, one draw of 8


def _extra_hits(hi, lo, damage, hp, sub_hp):
    """The hits after the first of a multi-hit move, each dealing the first hit's damage (one battle)."""
    (hi, lo), roll = _random_int((hi, lo), 8, True)
    extra = damage * (_HITS[roll] - 1)
    to_sub = sub_hp > 0
    return (hi, lo, jnp.where(to_sub, hp, jnp.maximum(hp - extra, 0)),
            jnp.where(to_sub, jnp.maximum(sub_hp - extra, 0), sub_hp))


def _rare_multi_hit(T: dict, rng, a: dict, d: dict):
    """The rare path on a sub-batch (``where_needed``, chunks of B/8) of the battles that need it."""
    need = T["multi_hit"][a["move"]] & (a["last_damage"] > 0)
    chunk = max(1, need.shape[0] // 8)
    hi, lo, hp, sub_hp = where_needed(need, chunk, _extra_hits, (rng[0], rng[1], a["last_damage"], d["hp"], d["sub_hp"]),
                                      otherwise=(rng[0], rng[1], d["hp"], d["sub_hp"]))
    return (hi, lo), {**d, "hp": hp, "sub_hp": sub_hp}


def _turn(T: dict, carry, moves, extended: bool = False, stacked: bool = False):
    """Both sides' moves in speed order. ``carry`` = (sides, rng: (hi, lo) [B]), where sides is a pair
    of per-side dicts of [B] arrays, or with ``stacked`` one dict of [2, B] arrays (side 0 first)."""
    sides, rng = carry
    if stacked:
        sides = tuple({name: value[i] for name, value in sides.items()} for i in (0, 1))
    p1, p2 = ({**side, "move": moves[i]} for i, side in enumerate(sides))
    if extended:
        p1["slot"], p2["slot"] = moves[0] % 4, moves[1] % 4
    tie = p1["speed"] == p2["speed"]
    rng, roll = _random_int(rng, 2, tie)
    p1_first = (p1["speed"] > p2["speed"]) | (tie & (roll == 0))
    order = lambda x, y: {name: jnp.where(p1_first, x[name], y[name]) for name in x}
    first, second = order(p1, p2), order(p2, p1)
    rng, first, second = _attack(T, rng, first, second, (first["hp"] > 0) & (second["hp"] > 0), extended)
    if extended:
        rng, second = _rare_multi_hit(T, rng, first, second)
    rng, second, first = _attack(T, rng, second, first, (first["hp"] > 0) & (second["hp"] > 0), extended)
    if extended:
        rng, first = _rare_multi_hit(T, rng, second, first)
    out = []
    for side in (order(first, second), order(second, first)):
        side = {name: side[name] for name in sides[0]}
        out.append({**side, "hp": jnp.where(side["hp"] <= 0, side["max_hp"], side["hp"])})
    if stacked:
        return ({name: jnp.stack([out[0][name], out[1][name]]) for name in out[0]}, rng), None
    return (tuple(out), rng), None


def _initial(batch: int, extended: bool = False, seed: int = 1):
    rng = np.random.default_rng(seed)
    field = lambda low, high: jnp.asarray(rng.integers(low, high, (2, batch)), I32)
    sides = {"hp": field(200, 400), "status": jnp.zeros((2, batch), I32), "sleep": jnp.zeros((2, batch), I32),
             "atk": field(100, 400), "def": field(100, 400), "spa": field(100, 400), "spd": field(100, 400),
             "speed": field(100, 400), "base_speed": field(40, 150), "level": field(60, 100),
             "type0": field(0, NUM_TYPES), "type1": field(0, NUM_TYPES),
             "reflect": jnp.asarray(rng.random((2, batch)) < 0.1)}
    sides["max_hp"] = sides["hp"]
    if extended:
        zeros = jnp.zeros((2, batch), I32)
        sides.update({f"stage_{stat}": zeros for stat in ("atk", "def", "spa", "spd")})
        sides.update({f"pp{k}": field(5, 40) for k in range(4)})
        sides.update({"confusion": zeros, "last_damage": zeros,
                      "sub_hp": jnp.where(jnp.asarray(rng.random((2, batch)) < 0.1), 60, 0).astype(I32)})
    words = jnp.asarray(rng.integers(0, 2**32, (2, batch), dtype=np.uint64).astype(np.uint32))
    return tuple({name: value[i] for name, value in sides.items()} for i in (0, 1)), (words[0], words[1])


def measure(batch: int, steps: int = 64, repeats: int = 5, extended: bool = False,
            stacked: bool = False) -> tuple[float, float]:
    """(CPU ns per battle step, CPU s of the first call: compile + one run)."""
    T = _tables()
    run = jax.jit(lambda sides, rng, moves: jax.lax.scan(lambda c, m: _turn(T, c, m, extended, stacked),
                                                         (sides, rng), moves)[0])
    sides, rng = _initial(batch, extended)
    if stacked:
        sides = {name: jnp.stack([sides[0][name], sides[1][name]]) for name in sides[0]}
    moves = jnp.asarray(np.random.default_rng(2).integers(0, NUM_MOVES, (steps, 2, batch)), I32)
    start = time.process_time()
    jax.block_until_ready(run(sides, rng, moves))
    first = time.process_time() - start
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        jax.block_until_ready(run(sides, rng, moves))
        best = min(best, time.process_time() - start)
    return best / (steps * batch) * 1e9, first


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"batch must be a positive integer, got {text}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=_positive, nargs="+", default=[1024, 4096])
    parser.add_argument("--extended", action="store_true",
                        help="add stat stages, PP, confusion, a substitute, two secondaries, and multi-hit moves "
                             "as a rare path on where_needed sub-batches")
    parser.add_argument("--stacked", action="store_true",
                        help="carry both sides' fields stacked as [2, B] arrays instead of one [B] array per side")
    args = parser.parse_args()
    label = "".join(f" ({flag})" for flag in ("extended", "stacked") if getattr(args, flag))
    for batch in args.batch:
        ns, first = measure(batch, extended=args.extended, stacked=args.stacked)
        print(f"batch {batch}{label}: {ns:,.0f} CPU ns per battle step (both moves); compile + first call {first:.2f} CPU s")


if __name__ == "__main__":
    main()
