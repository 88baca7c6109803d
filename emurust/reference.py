"""PyBoy 2.8.1 as the reference for emurust, and the per-frame records both sides are compared on.

PyBoy is used only as the installed package (it is LGPL; nothing of it is copied here). Settings follow
`/work/shared/gameboy-facts.md` section 0: the ROM is passed as a file object (so no `.ram`/`.rtc`
files are read or written), DMG mode, sound off, null window, and `stop(save=False)`.

Both sides boot the same boot program: emurust's own (`emurust.DEFAULT_BOOT_ROM`, given to PyBoy
through `bootrom=`), or PyBoy's DMG boot ROM read at run time from the installed package
(`pyboy_boot_rom()`) and given to emurust.

A record is a dict of numpy arrays, identical names on both sides:
    cycles (T-cycles since power-on), registers (A F B C D E H L SP PC as uint16),
    wram (C000-DFFF), hram (FF80-FFFE), vram, oam, ie_if (IE, IF), cart_ram (bank 0),
    screen (144x160 intensities 255/153/85/0, PyBoy's default "Grey" palette).
"""

from __future__ import annotations

import io
import os
import pathlib
import tempfile
from typing import Iterable, Sequence

import numpy as np

import emurust

#: Fields of a frame record, in comparison order.
RECORD_FIELDS = ("cycles", "registers", "ie_if", "wram", "hram", "vram", "oam", "cart_ram", "screen")
#: The fields compared when the screen is not rendered.
STATE_FIELDS = tuple(f for f in RECORD_FIELDS if f != "screen")

#: PyBoy's button names in emurust's bit order.
PYBOY_BUTTONS = ("a", "b", "select", "start", "right", "left", "up", "down")


def pyboy_boot_rom() -> bytes:
    """PyBoy's own DMG boot ROM, read from the installed package (never stored in this repository)."""
    import pyboy

    path = pathlib.Path(pyboy.__file__).parent / "core" / "bootrom_dmg.bin"
    data = path.read_bytes()
    if len(data) != 256:
        raise RuntimeError(f"unexpected PyBoy DMG boot ROM size {len(data)} at {path}")
    return data


class PyBoyReference:
    """Drives PyBoy 2.8.1 frame by frame with button masks, and reads records."""

    def __init__(self, rom: bytes, boot_rom: bytes | None = None) -> None:
        from pyboy import PyBoy

        self._boot_file = None
        boot = emurust.DEFAULT_BOOT_ROM if boot_rom is None else boot_rom
        # PyBoy takes the boot ROM by path only.
        fd, name = tempfile.mkstemp(suffix=".bin", prefix="emurust-boot-")
        with os.fdopen(fd, "wb") as f:
            f.write(boot)
        self._boot_file = name
        self.pyboy = PyBoy(
            io.BytesIO(rom),
            window="null",
            sound_emulated=False,
            cgb=False,
            log_level="ERROR",
            bootrom=name,
        )
        self.pyboy.set_emulation_speed(0)
        self._buttons = 0

    def set_buttons(self, mask: int) -> None:
        """Holds exactly the buttons in `mask` from the next frame on (emurust's bit order)."""
        changed = mask ^ self._buttons
        for bit, name in enumerate(PYBOY_BUTTONS):
            if changed >> bit & 1:
                if mask >> bit & 1:
                    self.pyboy.button_press(name)
                else:
                    self.pyboy.button_release(name)
        self._buttons = mask

    def tick(self, frames: int = 1, render: bool = True) -> None:
        self.pyboy.tick(frames, render, False)

    def serial_output(self) -> bytes:
        return self.pyboy._serial().encode("latin-1")

    def record(self, screen: bool = True) -> dict[str, np.ndarray]:
        pb = self.pyboy
        mem = pb.memory
        r = pb.register_file
        rec = {
            "cycles": np.array(pb._cycles(), dtype=np.int64),
            "registers": np.array([r.A, r.F, r.B, r.C, r.D, r.E, r.HL >> 8, r.HL & 0xFF, r.SP, r.PC], dtype=np.uint16),
            "ie_if": np.array([mem[0xFFFF], mem[0xFF0F] | 0xE0], dtype=np.uint8),
            "wram": np.array(mem[0xC000:0xE000], dtype=np.uint8),
            "hram": np.array(mem[0xFF80:0xFFFF], dtype=np.uint8),
            "vram": np.array(mem[0x8000:0xA000], dtype=np.uint8),
            "oam": np.array(mem[0xFE00:0xFEA0], dtype=np.uint8),
            "cart_ram": self._cart_ram_bank0(),
        }
        if screen:
            rec["screen"] = np.array(pb.screen.ndarray[:, :, 0], dtype=np.uint8)
        return rec

    def _cart_ram_bank0(self) -> np.ndarray:
        mem = self.pyboy.memory
        # PyBoy's banked slices must end inside the bank: read the last byte on its own.
        return np.array(list(mem[0, 0xA000:0xBFFF]) + [mem[0, 0xBFFF]], dtype=np.uint8)

    def close(self) -> None:
        if getattr(self, "pyboy", None) is not None:
            self.pyboy.stop(save=False)
            self.pyboy = None
        if self._boot_file:
            try:
                os.unlink(self._boot_file)
            except OSError:
                pass
            self._boot_file = None

    def __enter__(self) -> "PyBoyReference":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class EmurustRunner:
    """emurust.GameBoy behind the same interface as `PyBoyReference`."""

    def __init__(self, rom: bytes, boot_rom: bytes | None = None, profile: str = "pyboy") -> None:
        self.gb = emurust.GameBoy(rom, boot_rom=boot_rom, profile=profile)

    def set_buttons(self, mask: int) -> None:
        self.gb.buttons = mask

    def tick(self, frames: int = 1, render: bool = True) -> None:
        self.gb.tick(frames, render)

    def serial_output(self) -> bytes:
        return self.gb.serial_output()

    def record(self, screen: bool = True) -> dict[str, np.ndarray]:
        gb = self.gb
        r = gb.registers()
        ram = gb.cartridge_ram()
        rec = {
            "cycles": np.array(gb.cycles, dtype=np.int64),
            "registers": np.array([r[k] for k in ("a", "f", "b", "c", "d", "e", "h", "l", "sp", "pc")], dtype=np.uint16),
            "ie_if": np.frombuffer(gb.peek_bytes([0xFFFF, 0xFF0F]), dtype=np.uint8).copy(),
            "wram": np.frombuffer(gb.peek_range(0xC000, 0xE000), dtype=np.uint8).copy(),
            "hram": np.frombuffer(gb.peek_range(0xFF80, 0xFFFF), dtype=np.uint8).copy(),
            "vram": np.frombuffer(gb.peek_range(0x8000, 0xA000), dtype=np.uint8).copy(),
            "oam": np.frombuffer(gb.peek_range(0xFE00, 0xFEA0), dtype=np.uint8).copy(),
            "cart_ram": np.frombuffer(ram[:0x2000], dtype=np.uint8).copy() if ram else np.zeros(0x2000, np.uint8),
        }
        if screen:
            rec["screen"] = gb.screen("gray")
        return rec

    def close(self) -> None:
        pass


def run_episode(
    runner,
    buttons: Iterable[int],
    render: bool = True,
    frames_per_step: int = 1,
) -> list[dict[str, np.ndarray]]:
    """Applies one button mask per step (`frames_per_step` frames each) and records after every step."""
    records = []
    for mask in buttons:
        runner.set_buttons(int(mask))
        runner.tick(frames_per_step, render)
        records.append(runner.record(screen=render))
    return records


def random_buttons(rng: np.random.Generator, frames: int, hold: tuple[int, int] = (1, 30),
                   allowed: Sequence[int] | None = None) -> np.ndarray:
    """A random button script: masks held for a random number of frames (in `hold`)."""
    out = np.zeros(frames, dtype=np.uint8)
    t = 0
    while t < frames:
        n = int(rng.integers(hold[0], hold[1] + 1))
        mask = int(rng.choice(allowed)) if allowed is not None else int(rng.integers(0, 256))
        out[t:t + n] = mask
        t += n
    return out
