"""The full PyBoy parity run (slow: `pytest -m slow tests/gameboy`): 104 episodes of at least 3,000
frames each, 330k+ frames compared in total, over our game (random and scripted players, frame skips),
the stress program (MBC1, MBC5, MBC3 with its clock), the timing probes, and Blargg's ROMs, with both boot ROMs."""

from __future__ import annotations

import pytest

from emurust.reference import compare_episode, pyboy_boot_rom
from .parity import CATCH_MASKS, catch_player, random_script

EPISODES = []
for i in range(20):
    EPISODES.append((f"catch-random-{i}", "catch", dict(buttons=("random", 100 + i, 3000, CATCH_MASKS, (1, 5 + 3 * i)))))
for i in range(12):
    EPISODES.append((f"catch-scripted-{i}", "catch", dict(policy=i, steps=3000, epsilon=0.02 * i)))
for i in range(6):
    EPISODES.append((f"catch-skip{2 + i}-{i}", "catch", dict(buttons=("random", 200 + i, 3000 // (2 + i) + 1, CATCH_MASKS, (1, 8)), frames_per_step=2 + i, render_every=1 + i % 3)))
for i in range(2):
    EPISODES.append((f"catch-pyboy-boot-{i}", "catch", dict(buttons=("random", 300 + i, 3000, CATCH_MASKS, (1, 20)), pyboy_boot=True)))
for i in range(28):
    EPISODES.append((f"stress-random-{i}", "stress", dict(buttons=("random", 400 + i, 3000, None, (1, 2 + 2 * i)))))
for i in range(8):
    EPISODES.append((f"stress-mbc5-{i}", "stress_mbc5", dict(buttons=("random", 500 + i, 3000, None, (1, 10 + i)))))
for i in range(4):
    EPISODES.append((f"stress-mbc3-rtc-{i}", "stress_mbc3", dict(buttons=("random", 550 + i, 3000, None, (1, 12 + i)))))
for i in range(4):
    EPISODES.append((f"stress-skip24-{i}", "stress", dict(buttons=("random", 600 + i, 126, None, (1, 3)), frames_per_step=24)))
for i in range(2):
    EPISODES.append((f"stress-pyboy-boot-{i}", "stress", dict(buttons=("random", 700 + i, 3000, None, (1, 30)), pyboy_boot=True)))
for name in ("probe_halt_ei", "probe_lcd_onoff", "probe_stat_sample", "probe_timer", "probe_stat_irq", "probe_dma_joypad"):
    for i in range(2):
        EPISODES.append((f"{name}-{i}", name, dict(buttons=("random", 800 + i, 3000, None, (1, 12)), pyboy_boot=bool(i))))
for path, boot in [("cpu_instrs/cpu_instrs.gb", False), ("cpu_instrs/cpu_instrs.gb", True), ("instr_timing/instr_timing.gb", False),
                   ("mem_timing/mem_timing.gb", True), ("mem_timing-2/mem_timing.gb", False), ("halt_bug.gb", True)]:
    EPISODES.append((f"blargg-{path.split('/')[-1]}-{'pyboyboot' if boot else 'ownboot'}", "blargg:" + path,
                     dict(buttons=("random", 900, 3400, None, (1, 30)), pyboy_boot=boot)))


@pytest.mark.slow
@pytest.mark.parametrize("episode", EPISODES, ids=[e[0] for e in EPISODES])
def test_full_episode_matches_pyboy(roms, blargg, episode):
    _, rom_name, spec = episode
    spec = dict(spec)
    rom = (blargg / rom_name[7:]).read_bytes() if rom_name.startswith("blargg:") else roms[rom_name]
    kwargs = dict(frames_per_step=spec.get("frames_per_step", 1), render_every=spec.get("render_every", 1))
    if spec.get("pyboy_boot"):
        kwargs["boot_rom"] = pyboy_boot_rom()
    if "policy" in spec:
        result = compare_episode(rom, policy=catch_player(spec["policy"], spec["epsilon"]), steps=spec["steps"], **kwargs)
    else:
        _, seed, steps, masks, hold = spec["buttons"]
        result = compare_episode(rom, random_script(seed, steps, masks, hold), **kwargs)
    assert result.steps * kwargs["frames_per_step"] >= 3000
    assert result.matched, result.describe()


def test_full_run_is_at_least_100_episodes_of_3000_frames():
    assert len(EPISODES) >= 100
