"""L1 of the residual handlers' order against Showdown's own ``Battle.speedSort``.

``fieldEvent('Residual')`` collects each side's handlers in turn, its active's status first, then its listed
volatiles in the order they were added, then its slot's wish, and sorts them with ``speedSort``: a selection
sort that swaps each pass's handlers into place, then shuffles a tie. The swaps of the earlier passes move the
later handlers around, so which side a tie's draw puts first (the leechseed volatiles', the statuses', the yawn
and saltcure volatiles') depends on where every handler stood. Here Showdown sorts handler records laid out that way (random
statuses, random volatiles in a random order, none or either or both wishes, the same speed on both sides) and the
side each tie puts first is compared with ``turn._later_first``'s reading of the same draw."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from pokejax.gen9 import turn
from pokejax.gen9.data import tables

SPEED = 100
READ = ("leechseed", "status", "yawn", "saltcure")          # _later_first's columns


def _handlers(side: str, status_order: int, volatiles: list[int], wish: bool) -> list[dict]:
    """One side's handlers as fieldEvent collects them (subOrder: a status 0, a volatile 2, a slot condition 3);
    ``volatiles``: indices into ``turn.LISTED_VOLATILES`` in the order they were added."""
    out = [{"id": f"{side}status", "order": status_order, "priority": 0, "speed": SPEED, "subOrder": 0}] \
        if status_order else []
    out += [{"id": side + turn.LISTED_VOLATILES[k], "order": turn.LISTED_ORDERS[k], "priority": 0, "speed": SPEED,
             "subOrder": 2} for k in volatiles]
    if wish:
        out.append({"id": f"{side}wish", "order": 4, "priority": 0, "speed": SPEED, "subOrder": 3})
    return out


def _layouts(rng: np.random.Generator, count: int):
    """Random handler lists, the kinds ``_later_first`` reads held on both sides more often than not."""
    n = len(turn.LISTED_VOLATILES)
    for _ in range(count):
        orders = [int(x) for x in rng.choice([0, 9, 9, 10], 2)]
        if rng.random() < 0.5:
            orders[1] = orders[0]
        chosen = []
        for _ in range(2):
            mask = rng.random(n) < 0.45
            read = [turn.LISTED_VOLATILES.index(k) for k in ("leechseed", "yawn", "saltcure")]
            mask[read] |= rng.random(len(read)) < 0.5
            chosen.append([int(k) for k in rng.permutation(np.flatnonzero(mask))])
        yield orders, chosen, [bool(x) for x in rng.random(2) < 0.5]


def test_the_ties_of_the_residual_are_read_as_showdown_sorts_them(showdown9):
    rng = np.random.default_rng(9)
    layouts = list(_layouts(rng, 600))
    cases = [{"seed": [int(x) for x in rng.integers(0, 65536, 4)],
              "handlers": _handlers("p1", orders[0], chosen[0], wishes[0]) + _handlers("p2", orders[1], chosen[1], wishes[1])}
             for orders, chosen, wishes in layouts]
    results = showdown9.speed_sort(cases)
    count, n = len(cases), len(turn.LISTED_VOLATILES)
    present, stamps = np.zeros((count, 2, n), bool), np.zeros((count, 2, n), np.int32)
    for i, (_, chosen, _) in enumerate(layouts):
        for s in range(2):
            present[i, s, chosen[s]] = True
            stamps[i, s, chosen[s]] = 3 * np.arange(1, len(chosen[s]) + 1)     # order-preserving, not dense
    read = np.asarray(turn._later_first(jnp.asarray([o for o, _, _ in layouts], jnp.int32), jnp.asarray(present),
                                        jnp.asarray(stamps), jnp.asarray([w for _, _, w in layouts])))
    checked = {kind: [] for kind in READ}
    for i, ((orders, chosen, wishes), result) in enumerate(zip(layouts, results)):
        ids = result["ids"]
        for column, kind in enumerate(READ):
            if kind == "status":
                tie = orders[0] == orders[1] != 0
            else:
                tie = all(turn.LISTED_VOLATILES.index(kind) in c for c in chosen)
            if not tie:
                continue
            low = min(ids.index(f"p1{kind}"), ids.index(f"p2{kind}"))
            assert {ids[low], ids[low + 1]} == {f"p1{kind}", f"p2{kind}"}, (ids, result)
            drawn = next(r for m, high, r in result["draws"] if m == low and high == low + 2)
            p2_first = bool((drawn - low) ^ int(read[i, column]))
            assert (ids[low] == f"p2{kind}") == p2_first, (kind, orders, chosen, wishes, ids, result["draws"])
            checked[kind].append(bool(read[i, column]))
    # every tie came up often, read both ways (a list's earlier passes swap p2's handler ahead, or do not)
    for kind, seen in checked.items():
        assert len(seen) > 60 and 0 < sum(seen) < len(seen), (kind, len(seen), sum(seen))


def test_the_listed_orders_are_the_datas():
    """``turn.LISTED_ORDERS`` (the orders the sort above is laid out with) against the generated tables: each listed
    volatile that is a move of the tables has its condition's ``onResidualOrder`` (none where it has none). Heal
    Block (Psychic Noise's secondary) and flinch, stall are not moves of the format; their orders are Showdown's
    condition data."""
    moves = {m["id"]: m for m in tables.load().data["moves"]}
    checked = 0
    for name, order in zip(turn.LISTED_VOLATILES, turn.LISTED_ORDERS):
        if name in moves:
            assert (moves[name].get("condition") or {}).get("onResidualOrder") == order, name
            checked += 1
    assert checked == 8, checked
