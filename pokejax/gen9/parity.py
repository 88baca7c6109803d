"""L3 records of Gen 9 battles: the comparable state of a pokejax battle and of a Showdown one in one form,
and random play of restricted battles (the teams of ``pool.json`` through ``turn.restricted_team``). The
L3 tests (tests/pokemon/gen9) and the recordings replayed on an accelerator (``benchmarks.accelerator_l3``)
use them. Only tests and tools import this.

A record, after the start and after every decision: every Pokémon's HP, status, PP, Tera state, Stellar
mask, hits taken (``timesAttacked``), place in ``side.pokemon`` (``position``) and species, each side's
active slot, stages, switch flag and Tera right, the turn, the request (and whether a switch request is a
self-switch's in the middle of the turn, with each side's move action still queued), each active's volatiles (protect, stall, substitute HP, taunt, encore and its move, throatchop,
healblock, leechseed, yawn, lockedmove with its two durations and move, mustrecharge, twoturnmove with its duration, the charging move's
volatile and the move, noretreat, saltcure, trapped, their order), whether its move failed this turn and last turn
(``moveThisTurnResult``/``moveLastTurnResult === false``) and whether its stages rose or fell this turn, the wish, the move
actions and the switches (team slots) the request offers, the winner and the PRNG seed.
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np

from pokejax import prng
from pokejax.gen9 import masks, pool, turn
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables

TABLES = tables.load()
DOCUMENT = json.loads(pool.POOL_FILE.read_text())
REQUESTS = {"move": S.REQUEST_MOVE, "switch": S.REQUEST_SWITCH, "ended": S.REQUEST_ENDED}
MAX_DECISIONS = 100
BATCH = 48          # play() pads its batches to a multiple of this (one compilation of step)


def usable_teams() -> list[int]:
    """The pool's teams (their indices in ``pool.json``) that the restricted battles may play: no species
    ``turn.restricted_species_ok`` leaves out."""
    return [n for n, team in enumerate(DOCUMENT["teams"]) if all(turn.restricted_species_ok(m[0]) for m in team)]


def restricted(teams: list[list], max_moves: int = 4) -> tuple[pool.Pool, list[list[dict]]]:
    """The restricted rows as a pokejax pool and as Showdown sets."""
    rows = [turn.restricted_team(t, max_moves) for t in teams]
    return pool.pack({"teams": rows}), [pool.showdown_sets(r) for r in rows]


_step = jax.jit(turn.step)
_mask = jax.jit(masks.legal_mask)


BOOST_MOVES = np.zeros(len(TABLES.move_ids), bool)
BOOST_MOVES[[TABLES.move_index[m] for m in turn.boost_moves()]] = True


def play(p1_rows: list[list], p2_rows: list[list], seeds: list[list[int]], rng: np.random.Generator,
         scripted: list[list[list[int]]] | None = None, max_moves: int = 4, attack: float = 0.0,
         boost: float = 0.0, prefer: np.ndarray | None = None, max_decisions: int = MAX_DECISIONS):
    """Plays ``[B]`` battles with random legal actions (or ``scripted`` ones while they last, where legal; -1: a
    random one; with
    probability ``attack`` the first move slot, or Struggle, where legal; with probability ``boost`` a
    legal slot of a move of ``turn.boost_moves()``, or of the moves ``prefer`` marks, bool ``[M]``), for
    at most ``max_decisions`` decisions.
    Returns the pokejax states after the start and each decision (host copies), the actions of each
    battle and the Showdown sets."""
    b = len(seeds)
    team_pool, sets = restricted(p1_rows + p2_rows, max_moves)
    # the batch is padded (with copies of battle 0) to a multiple of BATCH, so that every test runs the
    # one compiled ``step``; the states returned are cut back to the b battles
    padded = -(-b // BATCH) * BATCH
    rows = np.concatenate([np.arange(b), np.zeros(padded - b, int)]).astype(np.int32)
    st = S.from_pool(team_pool, jnp.asarray(rows), jnp.asarray(rows + b),
                     jnp.stack([prng.seed_from_words(seeds[k]) for k in rows]))
    cut = lambda x: jax.tree_util.tree_map(lambda a: a[:b], jax.device_get(x))
    st = _step(st, jnp.zeros((padded, 2), jnp.int32))
    states, actions = [cut(st)], [[] for _ in range(b)]
    for n in range(max_decisions):
        mask = np.asarray(_mask(st))[:b]
        stopped = states[-1].request == S.REQUEST_ENDED
        if stopped.all():
            break
        chosen = np.zeros((b, 2), np.int32)
        for i in range(b):
            for side in range(2):
                legal = np.flatnonzero(mask[i, side])
                if legal.size:
                    pick = int(rng.choice(legal))
                    if mask[i, side, 0] and rng.random() < attack:
                        pick = 0
                    last = states[-1]
                    moves = last.moves[i, side, last.active[i, side]]
                    preferred = BOOST_MOVES if prefer is None else prefer
                    boosting = [k for k in range(4) if mask[i, side, k] and preferred[moves[k]]]
                    if boost and boosting and rng.random() < boost:
                        pick = int(rng.choice(boosting))
                    if (scripted and n < len(scripted[i]) and scripted[i][n][side] >= 0
                            and mask[i, side, scripted[i][n][side]]):
                        pick = scripted[i][n][side]
                    chosen[i, side] = pick
        for i in range(b):
            if not stopped[i]:
                actions[i].append([int(chosen[i, s]) if mask[i, s].any() else -1 for s in range(2)])
        st = _step(st, jnp.asarray(np.concatenate([chosen, chosen[rows[b:]]])))
        states.append(cut(st))
    return states, actions, sets


def volatile_order(st, i: int, side: int) -> list[str]:
    """The listed volatiles the active holds, in ``volatile_order``'s order (roost's is not kept between decisions);
    a held one with no place or two with the same read as such (Showdown's list never has them)."""
    k = int(st.active[i, side])
    fields = {"flinch": st.flinch, "protect": st.protect, "stall": st.stall, "taunt": st.taunt, "encore": st.encore,
              "throatchop": st.throat_chop, "healblock": st.heal_block, "leechseed": st.seeded, "yawn": st.yawn,
              "lockedmove": st.locked, "mustrecharge": st.recharge, "twoturnmove": st.charge,
              "saltcure": st.salt_cure}
    if st.hp[i, side, k] == 0:
        return []
    places = {name: int(st.volatile_order[i, side, S.LISTED_VOLATILES.index(name)])
              for name, field in fields.items() if field[i, side]}
    if 0 in places.values() or len(set(places.values())) < len(places):
        return [f"no order: {places}"]
    return sorted(places, key=places.get)


def ours_record(st, i: int, legal: np.ndarray) -> dict:
    """The comparable state of battle ``i`` (host arrays of a batched ``BattleState``); ``legal``: ``masks.legal_mask`` of ``st`` (its move actions are
    compared with the request's)."""
    sides = []
    for side in range(2):
        size = int(st.team_size[i, side])
        active = int(st.active[i, side])
        sides.append({
            "active": active, "switchFlag": bool(st.switch_flag[i, side]) and int(st.request[i]) == S.REQUEST_SWITCH,
            "boosts": st.boosts[i, side].tolist(), "canTerastallize": bool(st.can_tera[i, side]),
            "flinch": bool(st.flinch[i, side]), "confusion": int(st.confusion[i, side]), "moved": bool(st.moved[i, side]),
            "hazards": st.hazards[i, side].tolist(), "hazardOrder": st.hazard_order[i, side].tolist(),
            "queued": int(st.queued[i, side]), "protect": bool(st.protect[i, side]), "stall": int(st.stall[i, side]), "sub": int(st.sub_hp[i, side]),
            "taunt": int(st.taunt[i, side]), "lastMove": int(st.last_move[i, side]), "encore": int(st.encore[i, side]),
            "encoreSlot": int(st.encore_slot[i, side]) if st.encore[i, side] > 0 else -1,
            "locked": ([int(st.locked[i, side]), int(st.locked_turns[i, side]), int(st.locked_slot[i, side])]
                       if st.locked[i, side] > 0 else [0, 0, -1]),
            "recharge": bool(st.recharge[i, side]),
            "charge": [int(st.charge[i, side]), bool(st.charged[i, side]),
                       int(st.charge_slot[i, side]) if st.charge[i, side] > 0 or st.charged[i, side] else -1],
            "throatChop": int(st.throat_chop[i, side]), "healBlock": int(st.heal_block[i, side]), "legal": [bool(x) for x in legal[i, side, :4]],
            "switches": [bool(x) for x in legal[i, side, 8:]], "noRetreat": bool(st.no_retreat[i, side]),
            "saltCure": bool(st.salt_cure[i, side]), "shackled": bool(st.shackled[i, side]),
            "glaive": bool(st.glaive[i, side]) and bool(st.hp[i, side, active] > 0),
            "failed": ([bool(st.move_failed_last[i, side]), bool(st.move_failed[i, side])]
                       if st.hp[i, side, active] > 0 else [False, False]),
            "seeded": bool(st.seeded[i, side]), "yawn": int(st.yawn[i, side]),
            "raised": bool(st.raised[i, side]), "lowered": bool(st.lowered[i, side]),
            "volatileOrder": volatile_order(st, i, side),
            "screens": st.screens[i, side].tolist(),
            "wishHp": int(st.wish_hp[i, side]), "wishTurn": int(st.wish_turn[i, side]) if st.wish_hp[i, side] else -1,
            "pokemon": [{"hp": int(st.hp[i, side, k]), "status": int(st.status[i, side, k]),
                         "count": int(st.status_count[i, side, k]) if st.status[i, side, k] in (S.TOX, S.SLP) else 0,
                         "selfSleep": bool(st.self_sleep[i, side, k]) and int(st.status[i, side, k]) == S.SLP,
                         "pp": [int(x) for x, m in zip(st.pp[i, side, k], st.moves[i, side, k]) if m],
                         "terastallized": bool(st.terastallized[i, side, k]), "stellar": int(st.stellar[i, side, k]),
                         "timesAttacked": int(st.times_attacked[i, side, k]),
                         "position": int(st.position[i, side, k]),
                         "species": TABLES.species_ids[int(st.species[i, side, k])]}
                        for k in range(size)]})
    return {"seed": prng.to_showdown(st.rng[i]), "turn": int(st.turn[i]), "request": int(st.request[i]),
            "winner": int(st.winner[i]), "midTurn": bool(st.mid_turn[i]),
            "weather": [S.WEATHERS[int(st.weather[i])], int(st.weather_turns[i])], "sides": sides}


def showdown_record(snap: dict) -> dict:
    """A state of ``Gen9Bridge.play`` (``gen9.js``) in ``ours_record``'s form."""
    sides = []
    for s in snap["sides"]:
        sides.append({
            "active": s["active"], "switchFlag": s["switchFlag"] and snap["request"] == "switch",
            "boosts": [s["boosts"][k] for k in tables.BOOSTS], "canTerastallize": s["canTerastallize"],
            "flinch": s["flinch"], "confusion": s["confusion"], "moved": s["moved"],
            "hazards": s["hazards"], "hazardOrder": s["hazardOrder"], "queued": s["queued"],
            "protect": s["protect"], "stall": s["stall"], "sub": s["sub"], "taunt": s["taunt"], "lastMove": s["lastMove"],
            "encore": s["encore"], "encoreSlot": s["encoreSlot"], "locked": s["locked"], "recharge": s["recharge"], "charge": s["charge"], "throatChop": s["throatChop"],
            "healBlock": s["healBlock"], "legal": s["legal"], "switches": s["switches"], "noRetreat": s["noRetreat"],
            "saltCure": s["saltCure"], "shackled": s["shackled"], "glaive": s["glaive"],
            "failed": s["failed"],
            "seeded": s["seeded"], "yawn": s["yawn"], "raised": s["raised"], "lowered": s["lowered"],
            "volatileOrder": s["volatileOrder"], "screens": s["screens"], "wishHp": s["wishHp"], "wishTurn": s["wishTurn"],
            "pokemon": [{"hp": p["hp"], "status": 0 if p["status"] in ("", "fnt") else S.STATUSES.index(p["status"]),
                         "count": p["statusCount"],
                         "selfSleep": p["selfSleep"],
                         "pp": p["pp"], "terastallized": p["terastallized"] is not None,
                         "stellar": sum(1 << TABLES.type_index[t] for t in p["stellar"]),
                         "timesAttacked": p["timesAttacked"], "position": p["position"], "species": p["species"]}
                        for p in s["pokemon"]]})
    winner = S.WINNER_NONE if snap["winner"] is None else snap["winner"]
    return {"seed": snap["seed"], "turn": snap["turn"], "request": REQUESTS[snap["request"]], "winner": winner,
            "midTurn": snap["midTurn"], "weather": snap["weather"], "sides": sides}


def differences(ours: dict, theirs: dict) -> dict:
    """``{field: (ours, theirs)}`` of two records' differing fields (a side's as ``side0.hp``...); empty: identical."""
    diff = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k] and k != "sides"}
    for side in range(2):
        a, b = ours["sides"][side], theirs["sides"][side]
        for k in a:
            if a[k] != b[k]:
                diff[f"side{side}.{k}"] = (a[k], b[k])
    return diff


__all__ = ["BATCH", "MAX_DECISIONS", "differences", "ours_record", "play", "restricted", "showdown_record", "usable_teams", "volatile_order"]
