"""L3 from recordings (benchmarks/accelerator_l3.py, the check a TPU machine runs without the Python
reference): the first recorded reference games replayed by the batched engine (`step_batch`) in both
step forms on the CPU are identical to the recording, and a corrupted recording is reported."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from benchmarks import accelerator_l3 as l3
from tcgjax.verify import reference_records

GAMES = 4


@pytest.fixture(scope="module")
def games():
    return l3.load_tcg(count=GAMES)


@pytest.fixture(scope="module")
def cpu_report(games):
    return l3.replay_tcg(games, "cpu")


def test_recordings_hold_enough_games():
    meta, episodes = l3.read(l3.TCG_FILE)
    assert len(episodes) >= 24 and "reference" in meta["reference"]
    assert l3.TCG_FILE.stat().st_size < 2_000_000


@pytest.mark.parametrize("form", ["cpu", "accelerator"])
def test_replay_is_identical_in_both_forms(form, games, cpu_report):
    report = cpu_report if form == "cpu" else l3.replay_tcg(games, form)
    assert report.form == form
    assert report.identical, str(report)
    assert report.decisions == sum(g.num_steps for g in games) > 0


def test_a_changed_damage_is_reported(games, cpu_report):
    recorded = [reference_records(g) for g in games]
    corrupted = copy.deepcopy(recorded)
    step = next(t for t, r in enumerate(corrupted[2]) if r["card"][0, 0] >= 0)  # an Active Pokémon in play
    corrupted[2][step]["damage"] = np.array(corrupted[2][step]["damage"])
    corrupted[2][step]["damage"][0, 0] += 10
    mismatch = l3.first_mismatch(cpu_report.ours, corrupted)
    assert mismatch is not None and (mismatch.episode, mismatch.step, mismatch.field, mismatch.index) == (2, step, "damage", (0, 0))
