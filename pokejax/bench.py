"""`paritygym bench PokemonGen1Random-v0 --reference`: Showdown's own random-play speed.

Each node process runs whole gen1randombattle battles inside Showdown (``bridge.js``'s ``speed``
command: random teams, both players choosing uniformly among the legal choices, one
``commitChoices`` per decision), so the figure is Showdown's engine speed without any
process-boundary cost. A "turn" is one decision of both players (a move turn or a replacement
after a faint), the same unit as one step of the JAX env.
"""

from __future__ import annotations

import concurrent.futures

from pokejax.reference import ShowdownBridge

AVERAGE_TURNS_PER_BATTLE = 60   # measured on random play; sizes the work, not the result
WARMUP_BATTLES = 20             # lets V8 optimise the battle code before the timed run


def _turns_per_second(battles: int, seed: int) -> tuple[int, float]:
    with ShowdownBridge(timeout=600.0) as bridge:
        bridge.speed(WARMUP_BATTLES, seed=(seed, 1, 2, 3))
        reply = bridge.speed(battles, seed=(seed, 4, 5, 6))
    return int(reply["turns"]), float(reply["seconds"])


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """Showdown random-play turns/s over ``num_procs`` node processes run side by side.

    The reference has no batch: about ``batch_size * num_steps`` turns (at least 6,000, at most
    60,000) are split over the processes. Each process times only its own battles; the result is
    the total turns over the slowest process's time."""
    if num_procs < 1:
        raise ValueError(f"num_procs must be >= 1, got {num_procs}")
    total_turns = min(max(batch_size * num_steps, 6_000), 60_000)
    battles = max(1, total_turns // AVERAGE_TURNS_PER_BATTLE // num_procs)
    # threads suffice: each waits on its own node process
    with concurrent.futures.ThreadPoolExecutor(num_procs) as pool:
        results = list(pool.map(lambda k: _turns_per_second(battles, 100 + k), range(num_procs)))
    return sum(t for t, _ in results) / max(s for _, s in results)
