"""L1: stats, stages, critical hits and the damage formula against Showdown's own getDamage.

Each case is a random attacker/defender pair (any gen-1 species, level 1-100, random DVs and stat
experience), random stat stages, burn/paralysis, Reflect/Light Screen, Focus Energy, and a random
damaging move; both engines start their PRNG at the same seed, so the crit and damage-roll draws
are the same draws. Damage, crit flag, the stats and the PRNG state afterwards must be identical.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng
from pokejax.data import tables
from pokejax.game import engine, setup

TABLES = tables.load()
NUM_CASES = 2000
# Damaging moves whose damage does not depend on battle history (Counter and Bide do).
DAMAGING = [i for i in range(1, tables.STRUGGLE + 1)
            if (TABLES.move_power[i] > 0 or TABLES.move_fixed_damage[i] != 0 or TABLES.move_effect[i] in
                (tables.Effect.SUPER_FANG, tables.Effect.PSYWAVE, tables.Effect.OHKO))
            and TABLES.move_effect[i] not in (tables.Effect.COUNTER, tables.Effect.BIDE)]
STATUSES = ["", "", "", "brn", "par", "psn"]


def _random_set(rng: np.random.Generator) -> dict:
    species = TABLES.species_ids[int(rng.integers(1, 152))]
    dv = rng.integers(0, 16, 6) * 2
    ev = rng.integers(0, 256, 6)
    dv[4], ev[4] = dv[3], ev[3]  # one Special stat
    return {"species": species, "level": int(rng.integers(1, 101)), "moves": ["splash"],
            "ivs": dict(zip(["hp", "atk", "def", "spa", "spd", "spe"], map(int, dv))),
            "evs": dict(zip(["hp", "atk", "def", "spa", "spd", "spe"], map(int, ev)))}


def _packed(s: dict) -> str:
    iv = ",".join(str(s["ivs"][k]) for k in ["hp", "atk", "def", "spa", "spd", "spe"])
    ev = ",".join(str(s["evs"][k]) for k in ["hp", "atk", "def", "spa", "spd", "spe"])
    return f"{s['species']}|||NoAbility|splash||{ev}||{iv}||{s['level']}|"


def _random_case(rng: np.random.Generator) -> dict:
    boosts = [{k: int(v) for k, v in zip(["atk", "def", "spa", "spd", "spe"], rng.integers(-6, 7, 5)) if v}
              if rng.random() < 0.6 else {} for _ in range(2)]
    screens = [[], [v for v, p in (("reflect", 0.3), ("lightscreen", 0.3)) if rng.random() < p]]
    if rng.random() < 0.25:
        screens[0].append("focusenergy")
    return {"sets": [_random_set(rng), _random_set(rng)], "move": int(rng.choice(DAMAGING)),
            "status": [str(rng.choice(STATUSES)), str(rng.choice(STATUSES))], "boosts": boosts,
            "volatiles": screens, "seed": [int(x) for x in rng.integers(0, 65536, 4)]}


_STATUS_CODE = {"": 0, "brn": tables.BRN, "par": tables.PAR, "psn": tables.PSN}


@pytest.fixture(scope="module")
def our_damage():
    """(teams, statuses, boost deltas, volatile flags, rng, move) -> (damage kind, damage, crit, rng, stats)."""

    def one(teams, status, boosts, flags, rng, move):
        st = setup.initial_state(teams, rng)
        st = engine.begin_step(st)
        for i in (0, 1):
            st = engine.set_active(st, i, True, status=status[i])
            st = engine.apply_penalty_for_new_status(st, i, status[i], True)
            # Showdown's boostBy is called once per stat, in atk def spa spd spe order
            for k in range(5):
                st, _ = engine.boost_stats(st, i, jnp.zeros(7, jnp.int32).at[k].set(boosts[i, k]), True, False)
        st = engine.set_active(st, 1, True, reflect=flags[0], light_screen=flags[1])
        st = engine.set_active(st, 0, True, focus_energy=flags[2])
        st, kind, damage, crit = engine.get_damage(st, move, True)
        st = engine.end_step(st)
        return kind, damage, crit, st.rng, st.active.modified, st.team.stats[:, 0]

    return jax.jit(jax.vmap(one))


def test_damage_matches_showdown(showdown, our_damage):
    rng = np.random.default_rng(20240601)
    cases = [_random_case(rng) for _ in range(NUM_CASES)]
    ref = [showdown.damage(c["sets"][0], c["sets"][1], TABLES.move_ids[c["move"]], c["seed"],
                           setup={"status": c["status"], "boosts": c["boosts"], "volatiles": c["volatiles"]})
           for c in cases]
    teams = [setup.stack_teams(setup.from_packed(_packed(c["sets"][0])), setup.from_packed(_packed(c["sets"][1])))
             for c in cases]
    teams = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *teams)
    status = jnp.asarray([[_STATUS_CODE[s] for s in c["status"]] for c in cases], jnp.int32)
    boosts = jnp.asarray([[[b.get(k, 0) for k in ["atk", "def", "spa", "spd", "spe"]] for b in c["boosts"]]
                          for c in cases], jnp.int32)
    flags = jnp.asarray([["reflect" in c["volatiles"][1], "lightscreen" in c["volatiles"][1],
                          "focusenergy" in c["volatiles"][0]] for c in cases])
    seeds = jnp.stack([prng.seed_from_words(c["seed"]) for c in cases])
    moves = jnp.asarray([c["move"] for c in cases], jnp.int32)
    kind, damage, crit, rng_after, modified, stats = our_damage(teams, status, boosts, flags, seeds, moves)
    mismatches = []
    for n, (c, r) in enumerate(zip(cases, ref)):
        ours_damage = None if int(kind[n]) == engine.DMG_UNDEFINED else (False if int(kind[n]) == engine.DMG_FALSE
                                                                          else int(damage[n]))
        expected_stats = [[r["stats"][i]["modified"][k] for k in ["atk", "def", "spa", "spd", "spe"]] for i in (0, 1)]
        got = (ours_damage, bool(crit[n]), prng.to_showdown(rng_after[n]), np.asarray(modified[n]).tolist(),
               int(stats[n][0][0]), int(stats[n][1][0]))
        want = (r["damage"], r["crit"], r["seed"], expected_stats, r["stats"][0]["maxhp"], r["stats"][1]["maxhp"])
        if got != want:
            mismatches.append(f"case {n} {TABLES.move_ids[c['move']]} {c}: ours {got} showdown {want}")
    assert not mismatches, f"{len(mismatches)}/{len(cases)} differ; first: {mismatches[0]}"
