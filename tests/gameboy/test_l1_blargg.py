"""Blargg's DMG test ROMs through the Python binding, in both emulation profiles.

(`cargo test` in emurust/ runs the same ROMs on the Rust core; these make sure the CI build passes too.)
cpu_instrs, instr_timing and mem_timing report on the serial port; mem_timing-2 and halt_bug in
cartridge RAM (signature DE B0 61 at A001, status at A000: 0x80 running, 0 passed).
"""

from __future__ import annotations

import pytest

import emurust

ROMS = [
    ("cpu_instrs/cpu_instrs.gb", 3300),
    *[(f"cpu_instrs/individual/{n}.gb", 1200) for n in (
        "01-special", "02-interrupts", "03-op sp,hl", "04-op r,imm", "05-op rp", "06-ld r,r",
        "07-jr,jp,call,ret,rst", "08-misc instrs", "09-op r,r", "10-bit ops", "11-op a,(hl)")],
    ("instr_timing/instr_timing.gb", 200),
    ("mem_timing/mem_timing.gb", 300),
    *[(f"mem_timing/individual/{n}.gb", 200) for n in ("01-read_timing", "02-write_timing", "03-modify_timing")],
    ("mem_timing-2/mem_timing.gb", 300),
    *[(f"mem_timing-2/rom_singles/{n}.gb", 200) for n in ("01-read_timing", "02-write_timing", "03-modify_timing")],
]


def run_blargg(rom: bytes, profile: str, max_frames: int) -> tuple[str, str]:
    """Returns ("passed" | "failed" | "timeout", details)."""
    gb = emurust.GameBoy(rom, profile=profile)
    serial = b""
    for _ in range(max_frames):
        gb.tick(1, False)
        serial += gb.serial_output()
        if b"Passed" in serial:
            return "passed", serial.decode("latin-1")
        if b"Failed" in serial:
            gb.tick(30, False)
            return "failed", (serial + gb.serial_output()).decode("latin-1")
        ram = gb.cartridge_ram()
        if ram[1:4] == b"\xde\xb0\x61" and ram[0] != 0x80:
            text = ram[4:ram.index(0, 4)].decode("latin-1")
            return ("passed" if ram[0] == 0 else "failed"), f"status {ram[0]}: {text}"
    return "timeout", serial.decode("latin-1")


@pytest.mark.parametrize("profile", ["pyboy", "hardware"])
@pytest.mark.parametrize("path,frames", ROMS, ids=[p for p, _ in ROMS])
def test_blargg_passes(blargg, path, frames, profile):
    result, details = run_blargg((blargg / path).read_bytes(), profile, frames)
    assert result == "passed", f"{path} ({profile}): {result}: {details}"


def test_halt_bug_passes_on_hardware_profile(blargg):
    result, details = run_blargg((blargg / "halt_bug.gb").read_bytes(), "hardware", 300)
    assert result == "passed", details


def test_halt_bug_fails_on_pyboy_profile_like_pyboy(blargg):
    # PyBoy 2.8.1 does not emulate the HALT bug: it reports failure code 1, and so must we.
    result, details = run_blargg((blargg / "halt_bug.gb").read_bytes(), "pyboy", 300)
    assert result == "failed" and details.startswith("status 1"), details
