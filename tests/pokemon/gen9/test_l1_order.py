"""L1: the Gen 9 turn order of two moves against Showdown's own action queue.

Each case: two sets (a species of the format's sets, level, EVs, IVs; half the cases the same set on
both sides, so that speeds tie), Speed stages, paralysis now and then, a move each from
``pokejax.gen9.order.order_moves()`` (every one of them, every priority bracket of the format) and a battle seed.
Showdown queues both move actions and sorts them (``gen9.js`` ``order``); pokejax computes the
action speeds, the priorities and the first mover with its PRNG at the same seed. The first mover,
both speeds and the PRNG state after the sort must be identical.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from pokejax import prng
from pokejax.gen9 import order
from pokejax.gen9.data import tables
from pokejax.gen9.pool import compute_stats
from tests.pokemon.gen9.markers import covers

TABLES = tables.load()
STATS = tables.STATS
NUM_CASES = 1500
SPECIES = sorted(tables.load_sets())


def _set(rng: np.random.Generator, move: str) -> dict:
    return {"species": str(rng.choice(SPECIES)), "level": int(rng.integers(1, 101)), "ability": "No Ability",
            "item": "", "moves": [move], "evs": dict(zip(STATS, map(int, rng.integers(0, 253, 6)))),
            "ivs": dict(zip(STATS, map(int, rng.integers(0, 32, 6))))}


def _cases() -> list[dict]:
    rng = np.random.default_rng(7)
    moves = order.order_moves()
    # moves of every priority the format has, then random ones
    by_priority = {}
    for m in moves:
        by_priority.setdefault(int(TABLES.move_priority[TABLES.move_index[m]]), []).append(m)
    brackets = sorted(by_priority)
    cases = []
    for n in range(NUM_CASES):
        pair = [moves[n % len(moves)], str(rng.choice(moves))]   # every move at least once
        if n < 4 * len(brackets):   # each bracket on each side twice
            pair[n % 2] = str(rng.choice(by_priority[brackets[n // 4]]))
        if rng.random() < 0.4:   # same priority, so that speed decides
            pair[1] = pair[0]
        sets = [_set(rng, pair[0]), _set(rng, pair[1])]
        if rng.random() < 0.5:   # same Pokémon: a speed tie unless stages or paralysis differ
            sets[1] = dict(sets[0], moves=[pair[1]])
        boosts = [{"spe": int(rng.integers(-6, 7))} if rng.random() < 0.3 else {} for _ in range(2)]
        status = ["par" if rng.random() < 0.15 else "" for _ in range(2)]
        cases.append({"sets": sets, "moves": pair, "boosts": boosts, "status": status,
                      "seed": [int(x) for x in rng.integers(0, 65536, 4)]})
    return cases


def _ids(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


@covers("turn-order-moves")
def test_turn_order_matches_showdown(showdown9):
    cases = _cases()
    assert {m for c in cases for m in c["moves"]} == set(order.order_moves())
    reference = []
    for start in range(0, len(cases), 250):
        reference += showdown9.order(cases[start:start + 250])
    species = np.asarray([[TABLES.species_index[_ids(s["species"])] for s in c["sets"]] for c in cases])
    level = np.asarray([[s["level"] for s in c["sets"]] for c in cases])
    evs = np.asarray([[[s["evs"][k] for k in STATS] for s in c["sets"]] for c in cases])
    ivs = np.asarray([[[s["ivs"][k] for k in STATS] for s in c["sets"]] for c in cases])
    stats = compute_stats(TABLES.base_stats[species], level, evs, ivs)
    spe_boost = np.asarray([[b.get("spe", 0) for b in c["boosts"]] for c in cases], np.int32)
    par = np.asarray([[s == "par" for s in c["status"]] for c in cases])
    moves = np.asarray([[TABLES.move_index[m] for m in c["moves"]] for c in cases], np.int32)
    seeds = jnp.stack([prng.seed_from_words(c["seed"]) for c in cases])

    @jax.jit
    def run(spe, boost, par, moves, seeds):
        speed = order.action_speed(spe, boost, par)
        rng, first = order.first_mover(seeds, order.move_priority(moves), speed)
        return speed, first, rng

    speed, first, rng = run(jnp.asarray(stats[..., 5]), jnp.asarray(spe_boost), jnp.asarray(par), jnp.asarray(moves), seeds)
    mismatches = []
    for n, (c, r) in enumerate(zip(cases, reference)):
        got = (int(first[n]), np.asarray(speed[n]).tolist(), prng.to_showdown(rng[n]))
        want = (r["first"], r["speeds"], r["seed"])
        if got != want:
            mismatches.append(f"case {n} {c}: ours {got} showdown {want}")
    assert not mismatches, f"{len(mismatches)}/{len(cases)} differ; first: {mismatches[:3]}"
    ties = sum(1 for r in reference if r["draws"])
    priorities = {p for r in reference for _, p in r["priorities"]}
    assert ties >= 100 and len(priorities) >= 5, (ties, priorities)   # the cases reach ties and the brackets
    assert {r["first"] for r in reference if r["draws"]} == {0, 1}


def test_first_mover_under_vmap_is_the_batched_result():
    rng = np.random.default_rng(3)
    priority = jnp.asarray(rng.integers(-1, 2, (64, 2)), jnp.int32)
    speed = jnp.asarray(rng.integers(99, 102, (64, 2)), jnp.int32)
    seeds = jnp.stack([prng.seed_from_words([int(x) for x in rng.integers(0, 65536, 4)]) for _ in range(64)])
    batched = order.first_mover(seeds, priority, speed)
    single = jax.vmap(order.first_mover)(seeds, priority, speed)
    np.testing.assert_array_equal(np.asarray(batched[1]), np.asarray(single[1]))
    np.testing.assert_array_equal(np.asarray(batched[0]), np.asarray(single[0]))


def test_first_mover_refuses_arrays_without_two_sides():
    import pytest
    with pytest.raises(ValueError, match="last axis of 2"):
        order.first_mover(prng.seed_from_words([1, 2, 3, 4]), jnp.zeros(3, jnp.int32), jnp.zeros(3, jnp.int32))
