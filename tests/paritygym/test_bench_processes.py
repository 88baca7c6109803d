"""paritygym.bench.processes: the batch split and the multi-process timing the reference benches share."""

import pytest

from paritygym.bench.processes import split_batch, steps_per_second_in_processes


@pytest.mark.parametrize("batch,procs,expected", [(10, 3, [4, 3, 3]), (2, 4, [1, 1]), (8, 1, [8]), (0, 2, [])])
def test_split_batch_spreads_evenly_and_drops_empty_shares(batch, procs, expected):
    assert split_batch(batch, procs) == expected
    assert sum(split_batch(batch, procs)) == batch


def _fixed_worker(args):
    steps, seconds, barrier = args
    barrier.wait()  # every job gets the shared barrier as its last argument
    return steps, seconds


def test_rate_is_all_steps_over_the_slowest_process():
    assert steps_per_second_in_processes(_fixed_worker, [(100, 2.0), (300, 4.0)]) == pytest.approx(100.0)
