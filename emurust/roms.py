"""Builds emurust's own Game Boy test ROMs from source, on demand.

Sources live in `emurust/roms/` (C for sdcc's `-msm83` port, plus our start-up file `lib/crt0.s`);
build outputs go to `emurust/roms/build/` (ignored by git) and are rebuilt whenever a source, the
build recipe or the toolchain version changes. Needs Debian's `sdcc` (`scripts/install_system_deps.sh`).

    from emurust.roms import rom_bytes
    rom = rom_bytes("catch")
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

from paritygym.references import PROGRAMS, MissingReference

ROM_DIR = pathlib.Path(__file__).resolve().parent / "roms"
BUILD_DIR = pathlib.Path(os.environ.get("EMURUST_ROM_BUILD_DIR", ROM_DIR / "build"))
LIB_SOURCES = ("lib/gb.c", "lib/font.c")


@dataclasses.dataclass(frozen=True)
class RomSpec:
    """How one ROM is built.

    Attributes:
        sources: C files relative to `emurust/roms/` (the runtime in lib/ is always added).
        title: header title (up to 11 characters).
        cart_type: header byte 0x147 (0x00 ROM only, 0x03 MBC1+RAM+battery, 0x1B MBC5+RAM+battery...).
        rom_banks: total 16 KiB banks; banks past the program are filled by `fill_bank`.
        ram_code: header byte 0x149.
    """

    sources: tuple[str, ...]
    title: str
    cart_type: int = 0x00
    rom_banks: int = 2
    ram_code: int = 0


#: Every ROM the tests, examples and benchmarks use.
ROMS: dict[str, RomSpec] = {
    # A real little game with a score in RAM: the RL task and benchmark workload.
    "catch": RomSpec(("catch/main.c", "catch/tiles.c"), "CATCH"),
    # Raster effects, STAT/timer/serial/joypad interrupts, sprites, window, LCD off/on, MBC1 banking.
    "stress": RomSpec(("stress/main.c",), "STRESS", cart_type=0x03, rom_banks=8, ram_code=0x03),
    # The same program on an MBC5 cartridge, and on an MBC3 with its real-time clock.
    "stress_mbc5": RomSpec(("stress/main.c",), "STRESS5", cart_type=0x1B, rom_banks=8, ram_code=0x03),
    "stress_mbc3": RomSpec(("stress/main.c",), "STRESS3", cart_type=0x10, rom_banks=8, ram_code=0x03),
    # Timing probes in assembly (roms/probes/): corner cases recorded in work RAM.
    "probe_halt_ei": RomSpec(("probes/halt_ei.s",), "HALTEI"),
    "probe_lcd_onoff": RomSpec(("probes/lcd_onoff.s",), "LCDONOFF"),
    "probe_stat_sample": RomSpec(("probes/stat_sample.s",), "STATSAMPLE"),
    "probe_timer": RomSpec(("probes/timer.s",), "TIMER"),
    "probe_stat_irq": RomSpec(("probes/stat_irq.s",), "STATIRQ"),
    "probe_dma_joypad": RomSpec(("probes/dma_joypad.s",), "DMAJOYPAD"),
}


#: ROMs shipped prebuilt in `emurust/roms/prebuilt/` (the bundled games of `GameBoy-v0`), so that an installed
#: wheel runs them without sdcc. `python -m emurust.roms --prebuilt` rewrites them from their sources; a
#: default-suite test (tests/gameboy/test_prebuilt_roms.py) fails when a copy differs from a fresh build.
PREBUILT: tuple[str, ...] = ("catch",)
PREBUILT_DIR = ROM_DIR / "prebuilt"


class RomBuildError(RuntimeError):
    """The toolchain is missing or a build step failed."""


class MissingToolchain(RomBuildError, MissingReference):
    """sdcc, which builds the test ROMs from source, is not installed."""


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise MissingToolchain(
            f"{name!r} was not found on PATH; it is needed to build emurust's test ROMs from source "
            f"(the bundled games ship prebuilt). To get it: {PROGRAMS['sdcc']}"
        )
    return path


def _run(cmd: list[str], cwd: pathlib.Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RomBuildError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")


def fill_bank(bank: int) -> bytes:
    """Contents of an extra ROM bank: every byte encodes its bank and offset (checked by the stress ROM)."""
    return bytes(((bank * 37) + (i >> 8) + i) & 0xFF for i in range(0x4000))


def _is_assembly(spec: RomSpec) -> bool:
    return all(src.endswith(".s") for src in spec.sources)


def _fingerprint(spec: RomSpec) -> str:
    h = hashlib.sha256()
    h.update(repr(spec).encode())
    deps = ("probes/common.inc",) if _is_assembly(spec) else ("lib/crt0.s", "lib/gb.h", *LIB_SOURCES)
    for rel in (*deps, *spec.sources):
        h.update(rel.encode())
        h.update((ROM_DIR / rel).read_bytes())
    h.update(pathlib.Path(__file__).read_bytes())
    sdcc = subprocess.run([_tool("sdcc"), "--version"], capture_output=True, text=True).stdout
    h.update(sdcc.encode())
    return h.hexdigest()[:16]


def _finish_header(rom: bytearray, spec: RomSpec) -> None:
    """Pads to the bank count, sets type/size bytes and recomputes both checksums."""
    program = len(rom)
    if program > spec.rom_banks * 0x4000:
        raise RomBuildError(f"program is {program} bytes, more than {spec.rom_banks} banks")
    for bank in range(program // 0x4000, spec.rom_banks):
        if bank * 0x4000 >= program:
            rom.extend(fill_bank(bank))
    rom.extend(b"\xff" * (spec.rom_banks * 0x4000 - len(rom)))
    rom[0x147] = spec.cart_type
    rom[0x148] = (spec.rom_banks // 2).bit_length() - 1
    rom[0x149] = spec.ram_code
    rom[0x14D] = (-sum(b + 1 for b in rom[0x134:0x14D])) & 0xFF
    total = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E], rom[0x14F] = total >> 8, total & 0xFF


def build(name: str, force: bool = False) -> pathlib.Path:
    """Builds ROM `name` if needed and returns the path of the .gb file."""
    try:
        spec = ROMS[name]
    except KeyError:
        raise ValueError(f"unknown ROM {name!r}; known: {sorted(ROMS)}") from None
    if spec.rom_banks & (spec.rom_banks - 1) or spec.rom_banks < 2:
        raise ValueError("rom_banks must be a power of two >= 2")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    out = BUILD_DIR / f"{name}.gb"
    stamp = BUILD_DIR / f"{name}.stamp"
    fingerprint = _fingerprint(spec)
    if not force and out.exists() and stamp.exists() and stamp.read_text() == fingerprint:
        return out
    sdcc, sdasgb, makebin = _tool("sdcc"), _tool("sdasgb"), _tool("makebin")
    with tempfile.TemporaryDirectory(prefix=f"emurust-rom-{name}-") as tmp:
        work = pathlib.Path(tmp)
        if _is_assembly(spec):
            ihx = _assemble(spec, work, sdasgb)
        else:
            ihx = _compile_c(spec, work, sdcc, sdasgb)
        gb = work / f"{name}.gb"
        _run([makebin, "-Z", "-yn", spec.title[:11], str(ihx), str(gb)], work)
        rom = bytearray(gb.read_bytes())
        _finish_header(rom, spec)
        # A temporary file of this process's own, renamed into place: a test process building the
        # same ROM at the same time (pytest-xdist) never reads a half-written one.
        descriptor, partial = tempfile.mkstemp(dir=BUILD_DIR, prefix=f".{name}.", suffix=".partial")
        os.fchmod(descriptor, 0o644)  # mkstemp makes 0o600
        with os.fdopen(descriptor, "wb") as file:
            file.write(bytes(rom))
        os.replace(partial, out)
    stamp.write_text(fingerprint)
    return out


def _assemble(spec: RomSpec, work: pathlib.Path, sdasgb: str) -> pathlib.Path:
    """Standalone assembly programs (absolute layout, `.include "common.inc"`)."""
    sdldgb = _tool("sdldgb")
    objects = []
    for i, rel in enumerate(spec.sources):
        obj = work / f"unit{i}.rel"
        _run([sdasgb, "-I" + str(ROM_DIR / "probes"), "-o", str(obj), str(ROM_DIR / rel)], work)
        objects.append(str(obj))
    ihx = work / "program.ihx"
    _run([sdldgb, "-i", str(ihx), *objects], work)
    return ihx


def _compile_c(spec: RomSpec, work: pathlib.Path, sdcc: str, sdasgb: str) -> pathlib.Path:
    """C programs on our start-up file and runtime."""
    _run([sdasgb, "-o", str(work / "crt0.rel"), str(ROM_DIR / "lib/crt0.s")], work)
    objects = [str(work / "crt0.rel")]
    for i, rel in enumerate((*spec.sources, *LIB_SOURCES)):
        obj = work / f"unit{i}.rel"
        _run([sdcc, "-msm83", "--std-c11", "-I", str(ROM_DIR / "lib"), "-c", str(ROM_DIR / rel), "-o", str(obj)], work)
        objects.append(str(obj))
    ihx = work / "program.ihx"
    # Code from 0x0200 (after the vectors and header). RAM: 0xC000 shadow OAM, 0xC0A0-0xC0FF the
    # game's public variables (fixed addresses), C variables from 0xC100.
    _run([sdcc, "-msm83", "--no-std-crt0", "--code-loc", "0x0200", "--data-loc", "0xC100", "-o", str(ihx), *objects], work)
    return ihx


def rom_bytes(name: str) -> bytes:
    """The bytes of ROM `name`: the shipped copy for the `PREBUILT` games (no toolchain needed), the
    others built from source if needed (sdcc)."""
    if name in PREBUILT:
        return (PREBUILT_DIR / f"{name}.gb").read_bytes()
    return build(name).read_bytes()


def write_prebuilt() -> list[pathlib.Path]:
    """Rebuilds every `PREBUILT` ROM from source and copies it into `emurust/roms/prebuilt/`."""
    PREBUILT_DIR.mkdir(exist_ok=True)
    written = []
    for name in PREBUILT:
        target = PREBUILT_DIR / f"{name}.gb"
        target.write_bytes(build(name, force=True).read_bytes())
        written.append(target)
    return written


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--prebuilt"]:
        for path in write_prebuilt():
            print(path)
    else:
        for n in sys.argv[1:] or sorted(ROMS):
            print(build(n, force=True))
