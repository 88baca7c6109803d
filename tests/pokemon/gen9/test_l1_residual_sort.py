"""L1 of the residual handlers' order against Showdown's own ``Battle.speedSort``.

``fieldEvent('Residual')`` collects each side's handlers in turn, its active's status first, then its listed
volatiles in the order they were added, then its slot's wish, and sorts them with ``speedSort``: a selection
sort that swaps each pass's handlers into place, then shuffles a tie. The swaps of the wish handlers' passes
(order 4, the first) can carry p1's status handler past p2's, so a tie of the two statuses (the same order and
speed) puts p2 first with the draw's 0 (``turn._statuses_swapped``). Here Showdown sorts handler records laid out
that way (random volatiles between, none or either or both wishes, the same speed on both sides) and the side
whose status comes first is compared with the engine's reading of the same draw."""

from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np

from pokejax.gen9 import turn

# the listed volatiles' residual orders (flinch, protect, stall: none; taunt, encore, healblock, throatchop, roost)
VOLATILE_ORDERS = [None, None, None, 15, 16, 20, 22, 25]
SPEED = 100


def _handlers(side: str, status_order: int, volatiles: list, wish: bool) -> list[dict]:
    """One side's handlers as fieldEvent collects them (subOrder: a status 0, a volatile 2, a slot condition 3)."""
    out = [{"id": f"{side}status", "order": status_order, "priority": 0, "speed": SPEED, "subOrder": 0}]
    out += [{"id": f"{side}v{k}", "order": order, "priority": 0, "speed": SPEED, "subOrder": 2}
            for k, order in enumerate(volatiles)]
    if wish:
        out.append({"id": f"{side}wish", "order": 4, "priority": 0, "speed": SPEED, "subOrder": 3})
    return out


def test_a_statuses_tie_after_the_wishes_is_read_as_showdown_sorts_it(showdown9):
    rng = np.random.default_rng(9)
    cases, layouts = [], []
    for n1, n2, w1, w2 in itertools.product(range(4), range(4), (False, True), (False, True)):
        for _ in range(3):
            status_order = int(rng.choice([9, 10]))          # psn / tox, or brn: the same on both sides (a tie)
            volatiles = [[VOLATILE_ORDERS[k] for k in rng.permutation(len(VOLATILE_ORDERS))[:n]] for n in (n1, n2)]
            cases.append({"seed": [int(x) for x in rng.integers(0, 65536, 4)],
                          "handlers": _handlers("p1", status_order, volatiles[0], w1)
                          + _handlers("p2", status_order, volatiles[1], w2)})
            layouts.append((n1, n2, w1, w2))
    results = showdown9.speed_sort(cases)
    count = len(cases)
    swapped = np.asarray(turn._statuses_swapped(
        jnp.ones((count, 2), bool), jnp.asarray([[n1, n2] for n1, n2, _, _ in layouts], jnp.int32),
        jnp.asarray([[w1, w2] for _, _, w1, w2 in layouts]), jnp.full((count, 2), SPEED, jnp.int32)))
    for (n1, n2, w1, w2), result, swap_read in zip(layouts, results, swapped):
        ids = result["ids"]
        # the statuses' shuffle: random(sorted, sorted + 2) with the wishes sorted before them
        low, high, drawn = next(d for d in result["draws"] if d[0] == w1 + w2)
        assert high == low + 2 and ids[low:high] in (["p1status", "p2status"], ["p2status", "p1status"]), (ids, result)
        p2_first = bool((drawn - low) ^ int(swap_read))
        assert (ids[low] == "p2status") == p2_first, ((n1, n2, w1, w2), ids, result["draws"])
    # both readings came up: p2's wish (and both wishes with nothing listed before p1's) swap them, the rest do not
    assert swapped.any() and not swapped.all()
    assert all(swapped[k] for k, (n1, n2, w1, w2) in enumerate(layouts) if w2 and not w1)
