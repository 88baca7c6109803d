"""L1: the Gen 9 accuracy check against Showdown's own ``BattleActions.hitStepAccuracy``.

Each case: two sets (a species of the format's sets, no ability, no item), accuracy and evasion stages
(often, and high evasion against the moves that ignore it), the user Terastallized now and then (Poison among the Tera types, for
Toxic), a move of ``pokejax.gen9.accuracy.accuracy_moves()`` (every one of them several times) and a
battle seed. Showdown runs the check with its PRNG at that seed; pokejax computes the whole batch with
``accuracy.hits`` at the same seeds. Hit or miss and the PRNG state after must be identical.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng
from pokejax.gen9 import accuracy
from pokejax.gen9.data import tables
from tests.pokemon.gen9.markers import covers

TABLES = tables.load()
REPEATS = 5
SPECIES = sorted(s for s in tables.load_sets() if not s.startswith(("ogerpon", "terapagos")))
POISON = sorted(s for s in SPECIES if "Poison" in TABLES.data["species"][TABLES.species_index[s] - 1]["types"])


def _ids(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _set(rng: np.random.Generator, move: str, species_pool: list[str]) -> dict:
    return {"species": str(rng.choice(species_pool)), "level": int(rng.integers(1, 101)), "ability": "No Ability",
            "item": "", "moves": [move]}


def _cases() -> list[dict]:
    rng = np.random.default_rng(11)
    ignore_evasion = [m for m in accuracy.accuracy_moves() if TABLES.move_ignore_evasion[TABLES.move_index[m]]]
    assert ignore_evasion   # Sacred Sword
    moves = accuracy.accuracy_moves() * REPEATS + ["toxic"] * 60 + ignore_evasion * 40
    cases = []
    for move in moves:
        boosts = [{}, {}]
        if rng.random() < 0.7:
            boosts[0]["accuracy"] = int(rng.integers(-6, 7))
        if rng.random() < 0.7 or move in ignore_evasion:
            boosts[1]["evasion"] = int(rng.integers(1, 7)) if move in ignore_evasion else int(rng.integers(-6, 7))
        tera = [str(rng.choice(TABLES.type_names)) if rng.random() < 0.3 else None, None]
        if move == "toxic" and tera[0] and rng.random() < 0.5:
            tera[0] = "Poison"
        attacker = _set(rng, move, POISON if move == "toxic" and rng.random() < 0.5 else SPECIES)
        cases.append({"attacker": attacker, "defender": _set(rng, "splash", SPECIES), "move": move,
                      "boosts": boosts, "tera": tera, "rng": [int(x) for x in rng.integers(0, 65536, 4)]})
    return cases


@covers("accuracy-moves")
def test_accuracy_matches_showdown(showdown9):
    cases = _cases()
    assert {c["move"] for c in cases} == set(accuracy.accuracy_moves())
    reference = []
    for start in range(0, len(cases), 250):
        reference += showdown9.accuracy(cases[start:start + 250])
    species = np.asarray([TABLES.species_index[_ids(c["attacker"]["species"])] for c in cases])
    args = dict(
        move=jnp.asarray([TABLES.move_index[c["move"]] for c in cases], jnp.int32),
        atk_accuracy_boost=jnp.asarray([c["boosts"][0].get("accuracy", 0) for c in cases], jnp.int32),
        def_evasion_boost=jnp.asarray([c["boosts"][1].get("evasion", 0) for c in cases], jnp.int32),
        atk_types=jnp.asarray(TABLES.species_types[species]),
        atk_tera=jnp.asarray([TABLES.type_index[c["tera"][0]] if c["tera"][0] else tables.TYPE_NONE for c in cases],
                             jnp.int32))
    seeds = jnp.stack([prng.seed_from_words(c["rng"]) for c in cases])
    rng_after, hit = jax.jit(accuracy.hits)(seeds, **args)
    mismatches = []
    for n, (c, r) in enumerate(zip(cases, reference)):
        got, want = (bool(hit[n]), prng.to_showdown(rng_after[n])), (r["hit"], r["seed"])
        if got != want:
            mismatches.append(f"case {n} {c}: ours {got} showdown {want}")
    assert not mismatches, f"{len(mismatches)}/{len(cases)} differ; first: {mismatches[:3]}"
    # the cases reach misses, draw-free hits, and Toxic's Poison rule both ways
    assert any(not r["hit"] for r in reference) and any(not r["draws"] for r in reference)
    toxic = [r for c, r in zip(cases, reference) if c["move"] == "toxic"]
    assert any(not r["draws"] for r in toxic) and any(r["draws"] for r in toxic)

    single = jax.vmap(accuracy.hits)(seeds, **args)
    np.testing.assert_array_equal(np.asarray(single[1]), np.asarray(hit))
    np.testing.assert_array_equal(np.asarray(single[0]), np.asarray(rng_after))


def test_accuracy_refuses_types_without_two_columns():
    with pytest.raises(ValueError, match="last axis of 2"):
        accuracy.hits(prng.seed_from_words([1, 2, 3, 4]), jnp.int32(1), 0, 0, jnp.zeros(3, jnp.int32), tables.TYPE_NONE)
