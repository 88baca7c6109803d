"""Timing probes (emurust/roms/probes/*.s) against PyBoy: HALT/EI cases, LCD on/off, STAT and LY
as the CPU samples them, timer overflow windows, STAT interrupt sources, OAM DMA, joypad, serial.
Every frame: cycles, registers, IE/IF, HRAM, OAM, hot work RAM, screen; full memory every 50."""

from __future__ import annotations

import pytest

from emurust.reference import compare_episode
from .parity import random_script

PROBES = ["probe_halt_ei", "probe_lcd_onoff", "probe_stat_sample", "probe_timer", "probe_stat_irq", "probe_dma_joypad"]


@pytest.mark.parametrize("name", PROBES)
def test_probe_matches_pyboy(roms, name):
    result = compare_episode(roms[name], random_script(PROBES.index(name), 600, hold=(1, 10)), snapshot_every=50)
    assert result.matched, f"{name}: {result.describe()}"
