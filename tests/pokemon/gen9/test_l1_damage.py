"""L1: the Gen 9 damage function against Showdown's own ``BattleActions.getDamage``.

Each case is a random attacker/defender pair (a species of the format's sets, level 1-100, random EVs
and IVs, no ability, no item), random stat stages, a burn on the attacker now and then, either side
Terastallized now and then (any Tera type, the move's type
or Stellar more often; a Stellar attacker with some types already boosted), the attacker of the move's type half the time, a forced critical hit or not, a forced damage
roll 0-15, and a move of ``pokejax.gen9.damage.kernel_moves()`` (every one of them several times). Showdown
computes the hit in a battle of the two sets (``gen9.js`` ``damage``: the move's ``willCrit`` set, the
randomizer's one ``random(16)`` answered with the roll); pokejax computes the whole batch at once with
``damage.damage`` under ``jax.jit``, and again one case at a time under ``jax.vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax.gen9 import damage as dmg
from pokejax.gen9.data import tables
from pokejax.gen9.pool import compute_stats
from tests.pokemon.gen9.markers import covers

TABLES = tables.load()
REPEATS = 6          # each kernel move at least this often
EXTRA_CASES = 400    # then moves at random
STATS = tables.STATS
# Ogerpon and Terapagos change forme when they Terastallize (later stages).
SPECIES = sorted(s for s in tables.load_sets() if not s.startswith(("ogerpon", "terapagos")))
TERA_TYPES = list(TABLES.type_names)                       # Stellar included
PLAIN_TYPES = [n for n in TABLES.type_names if n != "Stellar"]


# Species by type, to give half the attackers a type of their move (STAB)
BY_TYPE = {n: [s for s in SPECIES if n in tables.load().data["species"][TABLES.species_index[s] - 1]["types"]]
           for n in TABLES.type_names}


def _random_set(rng: np.random.Generator, move: str, stab: bool = False) -> dict:
    move_type = TABLES.type_names[TABLES.move_type[TABLES.move_index[move]]] if move != "splash" else ""
    pool = BY_TYPE.get(move_type) if stab else None
    return {"species": str(rng.choice(pool or SPECIES)), "level": int(rng.integers(1, 101)), "ability": "No Ability",
            "item": "", "moves": [move],
            "evs": dict(zip(STATS, map(int, rng.integers(0, 253, 6)))),
            "ivs": dict(zip(STATS, map(int, rng.integers(0, 32, 6))))}


def _random_case(rng: np.random.Generator, move: str) -> dict:
    boosts = [{k: int(v) for k, v in zip(STATS[1:], rng.integers(-6, 7, 5)) if v} if rng.random() < 0.6 else {}
              for _ in range(2)]
    move_type = TABLES.type_names[TABLES.move_type[TABLES.move_index[move]]]
    tera = [str(rng.choice(TERA_TYPES)) if rng.random() < 0.4 else None for _ in range(2)]
    pick = rng.random()
    if tera[0] and pick < 0.4:
        tera[0] = move_type   # Tera STAB
    elif tera[0] and pick < 0.6:
        tera[0] = "Stellar"
    stellar = []              # types the Stellar attacker has already had its boost for
    if tera[0] == "Stellar" and rng.random() < 0.5:
        stellar = sorted({str(x) for x in rng.choice(PLAIN_TYPES, 3)} | ({move_type} if rng.random() < 0.5 else set()))
    return {"attacker": _random_set(rng, move, stab=bool(rng.random() < 0.5)), "defender": _random_set(rng, "splash"),
            "move": move, "crit": bool(rng.random() < 0.3), "roll": int(rng.integers(0, 16)), "boosts": boosts,
            "status": ["brn" if rng.random() < 0.2 else "", ""], "tera": tera, "stellar": [stellar, []]}


# Status moves reach getDamage's early returns only (immunity, no base power).
STATUS_MOVES = [m for m in TABLES.move_ids[1:] if TABLES.move_category[TABLES.move_index[m]] == tables.STATUS and not
                {"basePowerCallback", "damageCallback"} & set(TABLES.move_callbacks[TABLES.move_index[m]])]


def _cases() -> list[dict]:
    rng = np.random.default_rng(20251205)
    moves = (dmg.kernel_moves() * REPEATS + [str(m) for m in rng.choice(dmg.kernel_moves(), EXTRA_CASES)]
             + STATUS_MOVES * 2)
    return [_random_case(rng, m) for m in moves]


def _arrays(cases: list[dict]) -> dict[str, jnp.ndarray]:
    def side(key: str):
        sets = [c[key] for c in cases]
        species = np.asarray([TABLES.species_index[tables_id(s["species"])] for s in sets])
        stats = compute_stats(TABLES.base_stats[species], np.asarray([s["level"] for s in sets]),
                              np.asarray([[s["evs"][k] for k in STATS] for s in sets]),
                              np.asarray([[s["ivs"][k] for k in STATS] for s in sets]))
        return species, stats, np.asarray([s["level"] for s in sets])

    a_species, a_stats, a_level = side("attacker")
    d_species, d_stats, _ = side("defender")
    boosts = lambda i: np.asarray([[c["boosts"][i].get(k, 0) for k in STATS[1:]] for c in cases], np.int32)
    tera = lambda i: np.asarray([TABLES.type_index[c["tera"][i]] if c["tera"][i] else tables.TYPE_NONE for c in cases],
                                np.int32)
    return {k: jnp.asarray(v) for k, v in dict(
        move=np.asarray([TABLES.move_index[c["move"]] for c in cases], np.int32), level=a_level.astype(np.int32),
        atk_stats=a_stats[:, 1:], atk_boosts=boosts(0), atk_types=TABLES.species_types[a_species], atk_tera=tera(0),
        atk_burned=np.asarray([c["status"][0] == "brn" for c in cases]),
        def_stats=d_stats[:, 1:], def_boosts=boosts(1), def_types=TABLES.species_types[d_species], def_tera=tera(1),
        crit=np.asarray([c["crit"] for c in cases]), roll=np.asarray([c["roll"] for c in cases], np.int32),
        atk_stellar=np.asarray([stellar_mask(c["stellar"][0]) for c in cases], np.int32)).items()}


def stellar_mask(types: list[str]) -> int:
    return sum(1 << TABLES.type_index[name] for name in set(types))


def tables_id(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


@pytest.fixture(scope="module")
def cases_and_reference(showdown9):
    cases = _cases()
    reference = []
    for start in range(0, len(cases), 200):
        reference += showdown9.damage(cases[start:start + 200])
    return cases, reference


def _showdown_outcome(r: dict) -> tuple:
    if r["damage"] is False:
        return ("immune", None, None)
    if r["damage"] is None:
        return ("none", None, None)
    return ("damage", r["damage"], r["typeMod"])


def _our_outcome(kind: int, value: int, type_mod: int, fixed: bool) -> tuple:
    if kind == dmg.KIND_IMMUNE:
        return ("immune", None, None)
    if kind == dmg.KIND_NONE:
        return ("none", None, None)
    return ("damage", value, None if fixed else type_mod)


@covers("damage-kernel-moves")
def test_damage_matches_showdown_batched(cases_and_reference):
    cases, reference = cases_and_reference
    exercised = {c["move"] for c in cases}
    assert exercised == set(dmg.kernel_moves()) | set(STATUS_MOVES)
    out = jax.jit(dmg.damage)(**_arrays(cases))
    mismatches = []
    for n, (c, r) in enumerate(zip(cases, reference)):
        fixed = bool(TABLES.move_fixed_damage[TABLES.move_index[c["move"]]])
        want = _showdown_outcome(r)
        if fixed and want[0] == "damage":
            want = (want[0], want[1], None)   # Showdown returns before the type modifier is recorded
        got = (_our_outcome(int(out.kind[n]), int(out.damage[n]), int(out.type_mod[n]), fixed), int(out.stellar[n]))
        if got != (want, stellar_mask(r["stellar"])):
            mismatches.append(f"case {n} {c}: ours {got} showdown {(want, stellar_mask(r['stellar']))}")
        assert r["draws"] == ([] if want[0] != "damage" or fixed else [[16, None]]), r
    assert not mismatches, f"{len(mismatches)}/{len(cases)} differ; first: {mismatches[:3]}"
    kinds = {w[0] for w in map(_showdown_outcome, reference)}
    assert kinds == {"damage", "immune", "none"}, kinds   # the cases reach every outcome


@covers("damage-kernel-moves")
def test_hit_with_showdowns_own_crit_and_roll_draws(showdown9):
    """No forcing: both PRNGs start at the same seed; the crit draw (1 in 24, 1 in 8 at crit ratio 2,
    none for Wicked Blow and the like), the roll draw, the damage and the PRNG state after are identical."""
    from pokejax import prng
    rng = np.random.default_rng(99)
    moves = dmg.kernel_moves() * 3 + STATUS_MOVES
    cases = [dict(_random_case(rng, m), rng=[int(x) for x in rng.integers(0, 65536, 4)]) for m in moves]
    reference = []
    for start in range(0, len(cases), 200):
        reference += showdown9.damage(cases[start:start + 200])
    arrays = _arrays(cases)
    arrays.pop("crit"), arrays.pop("roll")
    seeds = jnp.stack([prng.seed_from_words(c["rng"]) for c in cases])
    rng_after, out, crit = jax.jit(dmg.hit)(seeds, **arrays)
    mismatches = []
    for n, (c, r) in enumerate(zip(cases, reference)):
        fixed = bool(TABLES.move_fixed_damage[TABLES.move_index[c["move"]]])
        want = _showdown_outcome(r)
        if fixed and want[0] == "damage":
            want = (want[0], want[1], None)
        got = (_our_outcome(int(out.kind[n]), int(out.damage[n]), int(out.type_mod[n]), fixed), bool(crit[n]),
               prng.to_showdown(rng_after[n]))
        if got != (want, r["crit"], r["seed"]):
            mismatches.append(f"case {n} {c}: ours {got} showdown {(want, r['crit'], r['seed'])}")
    assert not mismatches, f"{len(mismatches)}/{len(cases)} differ; first: {mismatches[:3]}"
    crits = [r["crit"] for r in reference]
    high = [r["crit"] for c, r in zip(cases, reference) if TABLES.move_crit_ratio[TABLES.move_index[c["move"]]] == 2]
    assert 10 <= sum(crits) and any(high)   # crits happen, at both ratios


def test_damage_is_the_same_one_case_at_a_time_under_vmap(cases_and_reference):
    cases, _ = cases_and_reference
    arrays = _arrays(cases[:300])
    batched = jax.jit(dmg.damage)(**arrays)
    single = jax.jit(jax.vmap(lambda a: dmg.damage(**a)))(arrays)
    for field in ("damage", "kind", "type_mod"):
        np.testing.assert_array_equal(np.asarray(getattr(single, field)), np.asarray(getattr(batched, field)))


def test_the_cases_reach_the_rules_they_test(cases_and_reference):
    """Crits, every roll, Tera STAB both ways (2x and 1.5x), the Tera 60 floor, burns, both stage signs."""
    cases, _ = cases_and_reference
    a = _arrays(cases)
    move = np.asarray(a["move"])
    mtype, power = TABLES.move_type[move], TABLES.move_power[move]
    tera = np.asarray(a["atk_tera"])
    original = (np.asarray(a["atk_types"]) == mtype[:, None]).any(axis=1)
    assert np.asarray(a["crit"]).any() and set(np.asarray(a["roll"]).tolist()) == set(range(16))
    assert ((tera == mtype) & original).sum() >= 5      # Tera STAB 2x
    assert ((tera == mtype) & ~original).sum() >= 5     # Tera STAB 1.5x
    assert ((tera == mtype) & (power < 60) & (power > 0)).sum() >= 3
    assert np.asarray(a["atk_burned"]).sum() >= 50
    stellar = tera == TABLES.type_index["Stellar"]
    fresh = (np.asarray(a["atk_stellar"]) >> mtype) & 1 == 0
    assert (stellar & fresh & original).sum() >= 5 and (stellar & fresh & ~original).sum() >= 5
    assert (stellar & ~fresh).sum() >= 5 and (stellar & fresh & (power < 60) & (power > 0)).sum() >= 1
    assert (np.asarray(a["atk_boosts"]) < 0).any() and (np.asarray(a["def_boosts"]) > 0).any()


def test_arrays_of_the_wrong_shape_or_type_are_a_clear_error():
    a = _arrays(_cases()[:4])
    with pytest.raises(ValueError, match="atk_stats must have a last axis of 5"):
        dmg.damage(**{**a, "atk_stats": a["atk_stats"][:, :4]})
    with pytest.raises(ValueError, match="def_types must have a last axis of 2"):
        dmg.damage(**{**a, "def_types": a["def_types"][:, 0]})
    with pytest.raises(TypeError, match="integer move indices"):
        dmg.damage(**{**a, "move": a["move"].astype(jnp.float32)})
