"""L3 from recordings for Gen 9 (benchmarks/accelerator_l3.py, the check a TPU machine runs without node):
the first recorded Showdown battles replayed by ``turn.step`` in both step forms on the CPU are identical
to the recording, and a changed record is reported."""

from __future__ import annotations

import copy

import pytest

from benchmarks import accelerator_l3 as l3

BATTLES = 4


@pytest.fixture(scope="module")
def episodes():
    return l3.load_gen9(count=BATTLES)


@pytest.fixture(scope="module")
def cpu_report(episodes):
    return l3.replay_gen9(episodes, "cpu")


def test_recordings_hold_enough_battles():
    meta, episodes = l3.read(l3.GEN9_FILE)
    assert len(episodes) >= 20 and "Showdown" in meta["reference"]
    assert sum(len(e["actions"]) for e in episodes) > 1000
    assert l3.GEN9_FILE.stat().st_size < 1_000_000


# the accelerator form is compared with the CPU form by tests/pokemon/gen9/test_design.py; its replay of the
# recordings is in the slow suite
@pytest.mark.parametrize("form", ["cpu", pytest.param("accelerator", marks=pytest.mark.slow)])
def test_replay_is_identical_in_both_forms(form, episodes, cpu_report):
    report = cpu_report if form == "cpu" else l3.replay_gen9(episodes, form)
    assert report.form == form
    assert report.identical, str(report)
    assert report.decisions == sum(len(e["actions"]) for e in episodes) > 0
    # the battles replayed to their recorded ends: won, or cut at the recorder's most decisions
    assert all(ours[-1]["winner"] in (0, 1) or len(ours) == l3.GEN9_MAX_DECISIONS + 1 for ours in report.ours)
    assert sum(ours[-1]["winner"] in (0, 1) for ours in report.ours) >= BATTLES - 1


def test_a_changed_hp_is_reported(episodes, cpu_report):
    reference = [e["records"] for e in episodes]
    corrupted = copy.deepcopy(reference[1])
    corrupted[3]["sides"][1]["pokemon"][0]["hp"] += 1
    mismatch = l3.first_gen9_mismatch(cpu_report.ours, [reference[0], corrupted] + reference[2:])
    assert mismatch is not None and (mismatch.episode, mismatch.step, mismatch.field) == (1, 3, "side1.pokemon")
    assert l3.first_gen9_mismatch(cpu_report.ours, reference) is None
