"""`paritygym verify GameBoy-v0`: parity reports against PyBoy 2.8.1 and Blargg's ROMs.

Level 1: Blargg's CPU/timing ROMs pass (both profiles; halt_bug only on the hardware profile, and
         fails on the PyBoy profile exactly as PyBoy does).
Level 2: the timing probes (emurust/roms/probes) match PyBoy frame for frame.
Level 3: whole episodes of our games (random and scripted players, frame skips) match PyBoy frame
         for frame: screen on every step, cycles, registers and RAM at every frame boundary.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from paritygym.verify import ParityReport

ENV_ID = "GameBoy-v0"


def _blargg_dir() -> pathlib.Path:
    """Blargg's ROMs, shipped in the package (emurust/roms/blargg); EMURUST_TEST_ROMS overrides."""
    return pathlib.Path(os.environ.get("EMURUST_TEST_ROMS", pathlib.Path(__file__).resolve().parent / "roms" / "blargg"))


def _level1() -> list[ParityReport]:
    import emurust

    base = _blargg_dir()
    roms = ["cpu_instrs/cpu_instrs.gb", "instr_timing/instr_timing.gb", "mem_timing/mem_timing.gb", "mem_timing-2/mem_timing.gb"]
    reports = []
    for profile in ("pyboy", "hardware"):
        failures = []
        for rel in roms + (["halt_bug.gb"] if profile == "hardware" else []):
            gb = emurust.GameBoy((base / rel).read_bytes(), profile=profile)
            out, status = b"", "timeout"
            for _ in range(4000):
                gb.tick(1, False)
                out += gb.serial_output()
                ram = gb.cartridge_ram()
                if b"Passed" in out or (ram[1:4] == b"\xde\xb0\x61" and ram[0] == 0):
                    status = "passed"
                    break
                if b"Failed" in out or (ram[1:4] == b"\xde\xb0\x61" and ram[0] not in (0, 0x80)):
                    status = "failed"
                    break
            if status != "passed":
                failures.append(f"{rel}: {status}")
        reports.append(ParityReport(ENV_ID, 1, f"Blargg ROMs pass ({profile} profile)", not failures, episodes=len(roms),
                                    tolerance='"Passed" on serial / status 0 in cart RAM', failure="; ".join(failures) or None))
    return reports


def _compare(name: str, level: int, episodes: list[tuple]) -> ParityReport:
    from emurust.reference import compare_episode

    steps = 0
    for rom, kwargs in episodes:
        result = compare_episode(rom, **kwargs)
        steps += result.steps * kwargs.get("frames_per_step", 1)
        if not result.matched:
            return ParityReport(ENV_ID, level, name, False, len(episodes), steps, "exact (bit-identical)", failure=result.describe())
    return ParityReport(ENV_ID, level, name, True, len(episodes), steps, "exact (bit-identical)",
                        details={"frames": steps})


def verify(level: int, episodes: int, seed: int) -> list[ParityReport]:
    """Reports for `level` (1, 2 or 3); `episodes` and `seed` size and seed levels 2 and 3."""
    from emurust.reference import random_buttons
    from emurust.roms import rom_bytes

    rng = np.random.default_rng(seed)
    if level == 1:
        return _level1()
    if level == 2:
        probes = ["probe_halt_ei", "probe_lcd_onoff", "probe_stat_sample", "probe_timer", "probe_stat_irq", "probe_dma_joypad"]
        return [_compare(f"timing probe {p}", 2, [(rom_bytes(p), dict(buttons=random_buttons(rng, 600, (1, 10))))])
                for p in probes]
    if level == 3:
        catch = [(rom_bytes("catch"), dict(buttons=random_buttons(rng, 3000, (1, 30), [0, 8, 0x10, 0x20, 0x11, 0x21])))
                 for _ in range(episodes)]
        stress = [(rom_bytes("stress"), dict(buttons=random_buttons(rng, 3000, (1, 20)))) for _ in range(episodes)]
        skip = [(rom_bytes("catch"), dict(buttons=random_buttons(rng, 750, (1, 8), [0, 8, 0x10, 0x20]), frames_per_step=4,
                                          render_every=2)) for _ in range(episodes)]
        return [
            _compare("CATCH, random buttons, 3000 frames per episode", 3, catch),
            _compare("STRESS (MBC1), random buttons, 3000 frames per episode", 3, stress),
            _compare("CATCH, frame skip 4, screen every other step", 3, skip),
        ]
    raise ValueError(f"GameBoy-v0 has verification levels 1-3, got {level}")
