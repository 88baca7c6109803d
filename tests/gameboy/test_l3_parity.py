"""PyBoy 2.8.1 parity on whole episodes (default suite; the full 100 x 3000-frame run is in
test_l3_parity_full.py, marked slow). Same ROM, same buttons: after every step the cycle counter,
registers, IE/IF, HRAM, OAM and hot work RAM are identical, the screen is identical on every
rendered step, and all of WRAM, VRAM and cartridge RAM every 32 steps and at the end."""

from __future__ import annotations

import pytest

from emurust.reference import compare_episode, pyboy_boot_rom
from .parity import CATCH_MASKS, catch_player, random_script

CASES = [
    # id, rom, script, kwargs
    ("catch-random", "catch", lambda: random_script(1, 1500, CATCH_MASKS), {}),
    ("catch-random-all-buttons", "catch", lambda: random_script(2, 1200), {}),
    ("catch-scripted", "catch", None, dict(policy=catch_player(3), steps=1500)),
    ("catch-skip4-render-every-3", "catch", lambda: random_script(4, 400, CATCH_MASKS), dict(frames_per_step=4, render_every=3)),
    ("stress-random", "stress", lambda: random_script(5, 1500), {}),
    ("stress-random-short-holds", "stress", lambda: random_script(6, 1000, hold=(1, 4)), {}),
    ("stress-mbc5", "stress_mbc5", lambda: random_script(7, 1000), {}),
    ("stress-mbc3-rtc", "stress_mbc3", lambda: random_script(12, 1500), {}),
    ("stress-skip24", "stress", lambda: random_script(8, 100, hold=(1, 3)), dict(frames_per_step=24)),
    ("stress-render-every-7", "stress", lambda: random_script(9, 800), dict(render_every=7)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_episode_matches_pyboy(roms, case):
    _, rom, script, kwargs = case
    result = compare_episode(roms[rom], script() if script else None, **kwargs)
    assert result.matched, result.describe()


@pytest.mark.parametrize("rom_name", ["catch", "stress"])
def test_with_pyboys_own_boot_rom(roms, rom_name):
    # PyBoy's DMG boot ROM (read from the installed package at run time): LCD-off frames, logo, sound.
    result = compare_episode(roms[rom_name], random_script(10, 600), boot_rom=pyboy_boot_rom())
    assert result.matched, result.describe()


@pytest.mark.parametrize("path,frames,pyboy_boot", [
    ("cpu_instrs/individual/02-interrupts.gb", 120, True),
    ("cpu_instrs/individual/01-special.gb", 250, False),
    ("instr_timing/instr_timing.gb", 120, True),
    ("mem_timing-2/mem_timing.gb", 250, False),
    ("halt_bug.gb", 200, False),
])
def test_blargg_rom_matches_pyboy(blargg, path, frames, pyboy_boot):
    result = compare_episode((blargg / path).read_bytes(), random_script(11, frames), boot_rom=pyboy_boot_rom() if pyboy_boot else None)
    assert result.matched, result.describe()
