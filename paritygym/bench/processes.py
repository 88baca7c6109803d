"""Reference benchmarks on every core: one spawned process per share of the batch, all timing
from a shared barrier, so that the figure is the batch's throughput, not process start-up."""

from __future__ import annotations

import multiprocessing
from typing import Any, Callable, Sequence


def split_batch(batch_size: int, num_procs: int) -> list[int]:
    """Envs per process: `batch_size` spread as evenly as possible, empty shares dropped."""
    shares = [batch_size // num_procs + (1 if i < batch_size % num_procs else 0) for i in range(num_procs)]
    return [n for n in shares if n > 0]


def steps_per_second_in_processes(worker: Callable[[tuple], tuple[int, float]], jobs: Sequence[tuple[Any, ...]]) -> float:
    """Runs ``worker(job + (barrier,))`` for each job in its own spawned process; each worker waits
    on the barrier before it starts timing and returns (steps done, seconds). Returns all steps over
    the slowest process's time."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(len(jobs))
        with ctx.Pool(len(jobs)) as pool:
            results = pool.map(worker, [tuple(job) + (barrier,) for job in jobs])
    return sum(r[0] for r in results) / max(r[1] for r in results)
