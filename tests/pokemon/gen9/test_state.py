"""L1: the Gen 9 battle state built from pool teams, and the legal mask, against Showdown.

``from_pool`` must hold what Showdown's own ``Battle`` of the same two pool teams holds (the bridge's
``battle`` builds it: every Pokémon's species, level, types, HP and max HP, stats, moves, PP and max
PP, ability, item, Tera type, the PRNG seed...). ``legal_mask`` must accept exactly the choices
Showdown's ``Side.choose`` accepts in started battles edited as the state is (actives switched,
Pokémon fainted, PP spent, Terastallized, forced switches), and hold its properties on random
states, batched, jitted and vmapped.
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng
from pokejax.gen9 import masks, pool
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables

TABLES = tables.load()
POOL = pool.load_pool()
DOCUMENT = json.loads(pool.POOL_FILE.read_text())
NUM_PAIRS = 64


def _pairs(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray, list[list[int]]]:
    p1 = rng.integers(0, len(POOL), count)
    p2 = rng.integers(0, len(POOL), count)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    return p1, p2, seeds


def _build(p1, p2, seeds) -> S.BattleState:
    seed = jnp.stack([prng.seed_from_words(s) for s in seeds])
    return jax.jit(lambda a, b, s: S.from_pool(POOL, a, b, s))(jnp.asarray(p1), jnp.asarray(p2), seed)


def _case(p1: int, p2: int, seed: list[int], **extra) -> dict:
    return dict(teams=[pool.showdown_sets(DOCUMENT["teams"][p1]), pool.showdown_sets(DOCUMENT["teams"][p2])],
                seed=seed, **extra)


def _type_pair(names: list[str]) -> list[int]:
    return [TABLES.type_index[n] for n in names] + [tables.TYPE_NONE] * (2 - len(names))


def _teams_with(test) -> list[int]:
    return [n for n, team in enumerate(DOCUMENT["teams"]) if any(test(m) for m in team)]


def test_from_pool_is_showdowns_battle_of_the_same_teams(showdown9):
    p1, p2, seeds = _pairs(np.random.default_rng(11), NUM_PAIRS)
    # besides random teams: Revival Blessing (noPPBoosts: max PP 1) and Pokémon with empty move slots
    p1[:4] = _teams_with(lambda m: "revivalblessing" in m[5])[:4]
    p2[:4] = _teams_with(lambda m: len(m[5]) < 4)[:4]
    st = jax.device_get(_build(p1, p2, seeds))
    reference = showdown9.battle([_case(int(a), int(b), s) for a, b, s in zip(p1, p2, seeds)])
    mismatches = []
    for n, r in enumerate(reference):
        created = r["created"]
        for side in range(2):
            mons = created["sides"][side]["pokemon"]
            if st.team_size[n, side] != len(mons):
                mismatches.append(f"battle {n} side {side}: team size {st.team_size[n, side]} vs {len(mons)}")
            for k, m in enumerate(mons):
                moves = [TABLES.move_index[i] for i in m["moves"]]
                want = {
                    "slot": m["slot"], "species": TABLES.species_index[m["species"]], "level": m["level"],
                    "types": _type_pair(m["types"]), "max_hp": m["maxhp"], "hp": m["hp"],
                    "stats": [m["stats"][s] for s in tables.STATS[1:]], "status": S.STATUSES.index(m["status"]),
                    "moves": moves + [0] * (4 - len(moves)), "pp": m["pp"] + [0] * (4 - len(moves)),
                    "max_pp": m["maxpp"] + [0] * (4 - len(moves)), "ability": TABLES.ability_index[m["ability"]],
                    "item": TABLES.item_index[m["item"]] if m["item"] else 0,
                    "tera_type": TABLES.type_index[m["teraType"]], "terastallized": m["terastallized"] is not None,
                    "stellar": sum(1 << TABLES.type_index[t] for t in m["stellar"]),
                    "can_tera": m["canTerastallize"] == m["teraType"],
                }
                got = {"slot": k, "can_tera": bool(st.can_tera[n, side])}
                for field in want:
                    if field not in got:
                        value = np.asarray(getattr(st, field)[n, side, k])
                        got[field] = value.tolist()
                if got != want:
                    diff = {f: (got[f], want[f]) for f in want if got[f] != want[f]}
                    mismatches.append(f"battle {n} (teams {p1[n]}, {p2[n]}) side {side} slot {k}: {diff}")
            boosts = mons[0]["boosts"]
            if st.boosts[n, side].tolist() != [boosts[b] for b in tables.BOOSTS]:
                mismatches.append(f"battle {n} side {side}: boosts")
        # before the start: the battle seed untouched, turn 0, no request yet; the leads are slot 0
        if created["seed"] != prng.to_showdown(st.rng[n]) or created["turn"] != st.turn[n]:
            mismatches.append(f"battle {n}: seed/turn {created['seed']} {created['turn']} vs "
                              f"{prng.to_showdown(st.rng[n])} {st.turn[n]}")
        started = r["started"]
        if [s["active"] for s in started["sides"]] != st.active[n].tolist() or started["requestState"] != "move":
            mismatches.append(f"battle {n}: Showdown's start sent out {[s['active'] for s in started['sides']]}")
    assert not mismatches, f"{len(mismatches)} differ; first: {mismatches[:5]}"
    assert (st.request == S.REQUEST_START).all() and (st.winner == S.WINNER_NONE).all()
    # the cases reach a move without PP Ups, empty move slots and the usual max PP
    assert {0, 1, 8, 16, 24, 32} <= {int(x) for x in st.max_pp.ravel()}


# Effects of later stages that change what Showdown accepts at the first request (trapping abilities,
# Assault Vest disabling status moves) or the active's moves (Imposter transforms on switching in).
_LATER = {"abilities": ("shadowtag", "magnetpull", "arenatrap", "imposter"), "items": ("assaultvest",)}


def _plain(team: int) -> bool:
    rows = DOCUMENT["teams"][team]
    return not any(m[4] in _LATER["abilities"] or m[3] in _LATER["items"] for m in rows)


def _edits(rng: np.random.Generator, forced_switch: bool) -> list[dict]:
    """Random edits of both sides of a started battle (the same are applied to the state)."""
    edits = []
    for side in range(2):
        active = int(rng.integers(0, 6)) if rng.random() < 0.5 else 0
        bench = [k for k in range(6) if k != active]
        faint = sorted(int(k) for k in rng.choice(bench, int(rng.integers(0, 5)), replace=False))
        which = rng.random()
        spent = [0, 1, 2, 3] if which < 0.3 else [int(k) for k in np.flatnonzero(rng.random(4) < 0.4)]
        edit = {"active": active, "faint": faint, "pp": [[k, 0] for k in spent],
                "terastallized": bool(rng.random() < 0.25), "canTerastallize": bool(rng.random() >= 0.15)}
        edit["faintActive"] = forced_switch and (side == 0 or rng.random() < 0.5)
        edits.append(edit)
    return edits


def _apply(st: S.BattleState, n: int, edits: list[dict], forced_switch: bool) -> dict[str, np.ndarray]:
    """The fields of battle ``n`` of ``st`` after the edits, as numpy arrays."""
    f = {k: np.array(getattr(st, k)[n]) for k in ("hp", "pp", "terastallized", "can_tera", "active", "switch_flag")}
    for side, e in enumerate(edits):
        f["active"][side] = e["active"]
        f["hp"][side, e["faint"]] = 0
        for slot, pp in e["pp"]:
            f["pp"][side, e["active"], slot] = pp
        if e["terastallized"]:
            f["terastallized"][side, e["active"]] = True
            f["can_tera"][side] = False
        if not e["canTerastallize"]:
            f["can_tera"][side] = False
        if e["faintActive"]:
            f["hp"][side, e["active"]] = 0
            f["switch_flag"][side] = True
    f["request"] = np.int32(S.REQUEST_SWITCH if forced_switch else S.REQUEST_MOVE)
    return f


def test_legal_mask_is_what_showdown_accepts(showdown9):
    rng = np.random.default_rng(5)
    plain = [n for n in range(len(POOL)) if _plain(n)]
    count = 120
    p1, p2 = rng.choice(plain, count), rng.choice(plain, count)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    forced = [n % 4 == 3 for n in range(count)]
    edits = [_edits(rng, f) for f in forced]
    st = jax.device_get(_build(p1, p2, seeds))
    fields = [_apply(st, n, e, f) for n, (e, f) in enumerate(zip(edits, forced))]
    edited = st.replace(**{k: jnp.asarray(np.stack([f[k] for f in fields])) for k in fields[0]})
    mask = np.asarray(jax.jit(masks.legal_mask)(edited))
    reference = showdown9.choices([_case(int(a), int(b), s, sides=e, request="switch" if f else "move")
                                   for a, b, s, e, f in zip(p1, p2, seeds, edits, forced)])
    mismatches, struggles = [], 0
    for n, r in enumerate(reference):
        assert r["request"] == ("switch" if forced[n] else "move")
        for side in range(2):
            want = np.asarray(r["accepted"][side])
            if not forced[n] and len(edits[n][side]["pp"]) == 4:
                # Struggle: Showdown takes 'move 1 terastallize' as a plain Struggle (see masks.py)
                struggles += 1
                assert want[0] and not want[1:4].any() and not want[5:8].any()
                want[4] = False
            if not np.array_equal(mask[n, side], want):
                mismatches.append(f"case {n} side {side} {edits[n][side]}: ours {mask[n, side].astype(int).tolist()} "
                                  f"showdown {want.astype(int).tolist()}")
    assert not mismatches, f"{len(mismatches)} differ; first: {mismatches[:4]}"
    # the cases reach every kind of action, legal and not
    assert struggles >= 10 and sum(forced) >= 20
    assert mask[..., :4].any() and mask[..., 4:8].any() and mask[..., 8:].any() and not mask[..., 4:8].all()


REQUESTS = [S.REQUEST_MOVE] * 3 + [S.REQUEST_SWITCH] * 2 + [S.REQUEST_ENDED, S.REQUEST_START]


def _random_states(seed: int, count: int = 512) -> S.BattleState:
    """Random states of every request kind: actives, faints, spent PP, Tera, team sizes."""
    rng = np.random.default_rng(seed)
    p1, p2, seeds = _pairs(rng, count)
    st = jax.device_get(_build(p1, p2, seeds))
    size = np.where(rng.random((count, 2)) < 0.2, rng.integers(1, 7, (count, 2)), 6).astype(np.int32)
    active = (rng.integers(0, 6, (count, 2)) % size).astype(np.int32)
    hp = np.where(rng.random((count, 2, 6)) < 0.3, 0, st.hp)
    pp = np.where(rng.random((count, 2, 6, 4)) < 0.3, 0, st.pp)
    pp = np.where((rng.random((count, 2)) < 0.2)[..., None, None], 0, pp)   # all spent: Struggle
    return st.replace(
        team_size=jnp.asarray(size), active=jnp.asarray(active), hp=jnp.asarray(hp), pp=jnp.asarray(pp),
        terastallized=jnp.asarray(rng.random((count, 2, 6)) < 0.2), can_tera=jnp.asarray(rng.random((count, 2)) < 0.7),
        switch_flag=jnp.asarray(rng.random((count, 2)) < 0.5),
        request=jnp.asarray(rng.choice(REQUESTS, count).astype(np.int32)))


def _reference_mask(st) -> np.ndarray:
    """The rules of masks.py written out as loops over one side of one battle at a time."""
    st = jax.device_get(st)
    out = np.zeros((st.request.shape[0], 2, masks.NUM_ACTIONS), bool)
    for n in range(out.shape[0]):
        for side in range(2):
            request, a = int(st.request[n]), int(st.active[n, side])
            acts = request == S.REQUEST_MOVE or (request == S.REQUEST_SWITCH and st.switch_flag[n, side])
            if not acts:
                continue
            if request == S.REQUEST_MOVE:
                usable = [st.moves[n, side, a, k] != 0 and st.pp[n, side, a, k] > 0 for k in range(4)]
                if not any(usable):
                    out[n, side, 0] = True   # Struggle
                else:
                    for k in range(4):
                        out[n, side, k] = usable[k]
                        out[n, side, 4 + k] = usable[k] and st.can_tera[n, side] and not st.terastallized[n, side, a]
            for k in range(6):
                out[n, side, 8 + k] = k < st.team_size[n, side] and st.hp[n, side, k] > 0 and k != a
    return out


def test_legal_mask_properties_on_random_states():
    st = _random_states(1)
    mask = np.asarray(jax.jit(masks.legal_mask)(st))
    np.testing.assert_array_equal(mask, _reference_mask(st))
    moves, pp, hp = np.asarray(st.moves), np.asarray(st.pp), np.asarray(st.hp)
    active, request = np.asarray(st.active), np.asarray(st.request)
    for n in range(mask.shape[0]):
        for side in range(2):
            row, a = mask[n, side], active[n, side]
            switches = np.flatnonzero(row[8:])
            # a fainted, active or missing Pokémon is never a legal switch
            assert a not in switches and all(hp[n, side, k] > 0 and k < st.team_size[n, side] for k in switches)
            # Tera: only with the move, never once Terastallized or when the side can no longer
            assert not (row[4:8] & ~row[:4]).any()
            if st.terastallized[n, side, a] or not st.can_tera[n, side]:
                assert not row[4:8].any()
            idle = request[n] == S.REQUEST_SWITCH and not st.switch_flag[n, side]
            if request[n] in (S.REQUEST_ENDED, S.REQUEST_START) or idle:
                assert not row.any()
            elif request[n] == S.REQUEST_SWITCH:
                assert not row[:8].any()
            elif not (pp[n, side, a] > 0).any():
                assert row[:8].tolist() == [True] + [False] * 7   # Struggle, and nothing else of the moves
            else:
                assert all(pp[n, side, a, k] > 0 and moves[n, side, a, k] for k in np.flatnonzero(row[:4]))
    # the random states reach each case
    assert mask[..., 0].any() and mask[..., 4:8].any() and mask[..., 8:].any() and (~mask.any(-1)).any()


def test_legal_mask_under_vmap_and_legal_or_first():
    st = _random_states(2, 128)
    batched = masks.legal_mask(st)
    single = jax.vmap(masks.legal_mask)(st)
    np.testing.assert_array_equal(np.asarray(batched), np.asarray(single))
    actions = jnp.asarray(np.random.default_rng(0).integers(-2, 16, (128, 2)), jnp.int32)
    chosen = np.asarray(jax.jit(masks.legal_or_first)(st, actions))
    m = np.asarray(batched)
    for n in range(128):
        for side in range(2):
            if m[n, side].any():
                assert m[n, side, chosen[n, side]]
                if 0 <= actions[n, side] < masks.NUM_ACTIONS and m[n, side, actions[n, side]]:
                    assert chosen[n, side] == actions[n, side]


def test_from_pool_shapes_and_refusals():
    st = _build([0, 1, 2], [3, 4, 5], [[1, 2, 3, 4]] * 3)
    B = 3
    assert st.species.shape == (B, 2, 6) and st.types.shape == (B, 2, 6, 2) and st.stats.shape == (B, 2, 6, 5)
    assert st.moves.shape == st.pp.shape == st.max_pp.shape == (B, 2, 6, 4)
    assert st.boosts.shape == (B, 2, 7) and st.rng.shape == (B, 2) and st.turn.shape == (B,)
    for leaf in jax.tree_util.tree_leaves(st):
        assert leaf.shape[0] == B
    np.testing.assert_array_equal(np.asarray(st.species[:, 0]), POOL.species[[0, 1, 2]])
    np.testing.assert_array_equal(np.asarray(st.active_of(st.hp)), np.asarray(st.max_hp[:, :, 0]))
    seed = jnp.zeros((B, 2), jnp.uint32)
    with pytest.raises(ValueError, match="one shape"):
        S.from_pool(POOL, jnp.zeros(B, jnp.int32), jnp.zeros(B + 1, jnp.int32), seed)
    with pytest.raises(ValueError, match="seed must be uint32"):
        S.from_pool(POOL, jnp.zeros(B, jnp.int32), jnp.zeros(B, jnp.int32), jnp.zeros((B, 4), jnp.int32))
    with pytest.raises(TypeError, match="integers"):
        S.from_pool(POOL, jnp.zeros(B), jnp.zeros(B), seed)
