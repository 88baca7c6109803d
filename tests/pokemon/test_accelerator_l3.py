"""L3 from recordings (benchmarks/accelerator_l3.py, the check a TPU machine runs without node): the
first recorded Showdown battles replayed by the batched engine in both step forms on the CPU are
identical to the recording, and a corrupted recording is reported."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from benchmarks import accelerator_l3 as l3

BATTLES = 4


@pytest.fixture(scope="module")
def recordings():
    return l3.load_pokemon(count=BATTLES)


@pytest.fixture(scope="module")
def cpu_report(recordings):
    return l3.replay_pokemon(recordings, "cpu")


def test_recordings_hold_enough_battles():
    meta, episodes = l3.read(l3.POKEMON_FILE)
    assert len(episodes) >= 24 and "Showdown" in meta["reference"]
    assert l3.POKEMON_FILE.stat().st_size < 2_000_000


# the accelerator form is compared with the CPU form over whole env steps by default
# (test_backend_forms.py); its replay of the recordings is in the slow suite
@pytest.mark.parametrize("form", ["cpu", pytest.param("accelerator", marks=pytest.mark.slow)])
def test_replay_is_identical_in_both_forms(form, recordings, cpu_report):
    report = cpu_report if form == "cpu" else l3.replay_pokemon(recordings, form)
    assert report.form == form
    assert report.identical, str(report)
    assert report.decisions == sum(len(r.actions) for r in recordings) > 0
    # every battle replayed to its recorded end (a winner or a tie)
    assert all(int(ours[-1]["winner"]) >= 0 for ours in report.ours)


def test_a_changed_hp_is_reported(recordings, cpu_report):
    corrupted = copy.deepcopy(recordings[1].records)
    corrupted[3]["hp"] = np.array(corrupted[3]["hp"])
    corrupted[3]["hp"][1, 2] += 1
    mismatch = l3.first_mismatch(cpu_report.ours, [recordings[0].records, corrupted] + [r.records for r in recordings[2:]])
    assert mismatch is not None and (mismatch.episode, mismatch.step, mismatch.field, mismatch.index) == (1, 3, "hp", (1, 2))
    assert mismatch.reference == mismatch.ours + 1
