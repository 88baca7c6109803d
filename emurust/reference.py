"""PyBoy 2.8.1 as the reference for emurust, and the records both sides are compared on.

PyBoy is used only as the installed package (it is LGPL; nothing of it is copied here). Settings follow
the Game Boy facts notes (section 0): the ROM is passed as a file object (so no `.ram`/`.rtc`
files are read or written), DMG mode, sound off, null window, and `stop(save=False)`.

Both sides boot the same boot program: emurust's own (`emurust.DEFAULT_BOOT_ROM`, given to PyBoy
through `bootrom=`), or PyBoy's DMG boot ROM read at run time from the installed package
(`pyboy_boot_rom()`) and given to emurust.

A frame is one PyBoy `tick()` (see docs/envs/gameboy.md). Each step applies a button mask and runs
`frames_per_step` frames (only the last one rendered, like `tick(n)`), then returns a record, a dict of
numpy arrays with the same names on both sides:

    cycles      T-cycles since power-on                  registers  A F B C D E H L SP PC
    ie_if       IE, IF                                   hram       FF80-FFFE
    oam         FE00-FE9F (0xFF while OAM DMA runs)      wram_hot   C000-C3FF and DE00-DFFF
    screen      144x160 intensities 255/153/85/0 (PyBoy's default palette), when rendered

`get_state()` adds the full memory: wram (C000-DFFF), vram (8000-9FFF), cart_ram (bank 0).
PyBoy's memory API costs about 1 ms per 8 KiB, so full memory is compared every `snapshot_every`
frames and at the end of each episode, and the hot work-RAM windows (where the test programs keep
their variables and stack) on every frame.
"""

from __future__ import annotations

import dataclasses
import io
import multiprocessing as mp
import os
import pathlib
import tempfile
import time
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

import emurust

if TYPE_CHECKING:
    from paritygym.verify import TrajectoryComparison

Record = dict[str, np.ndarray]

#: Fields of every per-step record.
FRAME_FIELDS = ("cycles", "registers", "ie_if", "hram", "oam", "wram_hot")
#: Fields added by `get_state()`.
SNAPSHOT_FIELDS = ("wram", "vram", "cart_ram")
#: Work-RAM windows compared on every frame.
HOT_WRAM = ((0xC000, 0xC400), (0xDE00, 0xE000))

#: PyBoy's button names in emurust's bit order.
PYBOY_BUTTONS = tuple(emurust.BUTTON_NAMES)


def pyboy_boot_rom() -> bytes:
    """PyBoy's own DMG boot ROM, read from the installed package (never stored in this repository)."""
    import pyboy

    path = pathlib.Path(pyboy.__file__).parent / "core" / "bootrom_dmg.bin"
    data = path.read_bytes()
    if len(data) != 256:
        raise RuntimeError(f"unexpected PyBoy DMG boot ROM size {len(data)} at {path}")
    return data


class _Runner:
    """Shared stepping logic; subclasses provide the machine access."""

    def __init__(self, frames_per_step: int, render: bool) -> None:
        if frames_per_step < 1:
            raise ValueError("frames_per_step must be at least 1")
        self.frames_per_step = frames_per_step
        self.render = render

    def reset(self, seed: int = 0) -> Record:
        """Powers on afresh. The emulators are deterministic, so `seed` is unused."""
        self._power_on()
        return self._record(screen=False)

    def step(self, buttons: int) -> Record:
        """Holds `buttons` (emurust bitmask) and runs `frames_per_step` frames."""
        self._set_buttons(int(buttons))
        self._tick(self.frames_per_step, self.render)
        return self._record(screen=self.render)

    def get_state(self) -> Record:
        rec = self._record(screen=False)
        rec.update(self._snapshot())
        return rec

    def set_state(self, state: Record) -> None:
        raise NotImplementedError("PyBoy states cannot be injected from records")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class PyBoyReference(_Runner):
    """PyBoy 2.8.1 driven frame by frame with button masks."""

    def __init__(self, rom: bytes, boot_rom: bytes | None = None, frames_per_step: int = 1, render: bool = True) -> None:
        super().__init__(frames_per_step, render)
        self._rom = bytes(rom)
        fd, name = tempfile.mkstemp(suffix=".bin", prefix="emurust-boot-")
        with os.fdopen(fd, "wb") as f:
            f.write(emurust.DEFAULT_BOOT_ROM if boot_rom is None else boot_rom)
        self._boot_file = name  # PyBoy takes the boot ROM by path only
        self.pyboy = None
        self._buttons = 0
        self._power_on()

    def _power_on(self) -> None:
        from pyboy import PyBoy

        if self.pyboy is not None:
            self.pyboy.stop(save=False)
        self.pyboy = PyBoy(
            io.BytesIO(self._rom), window="null", sound_emulated=False, cgb=False, log_level="ERROR", bootrom=self._boot_file
        )
        self.pyboy.set_emulation_speed(0)
        self._buttons = 0

    def _set_buttons(self, mask: int) -> None:
        changed = mask ^ self._buttons
        for bit, name in enumerate(PYBOY_BUTTONS):
            if changed >> bit & 1:
                if mask >> bit & 1:
                    self.pyboy.button_press(name)
                else:
                    self.pyboy.button_release(name)
        self._buttons = mask

    def _tick(self, frames: int, render: bool) -> None:
        self.pyboy.tick(frames, render, False)

    def serial_output(self) -> bytes:
        return self.pyboy._serial().encode("latin-1")

    def _record(self, screen: bool) -> Record:
        pb = self.pyboy
        mem = pb.memory
        r = pb.register_file
        rec = {
            "cycles": np.array(pb._cycles(), dtype=np.int64),
            "registers": np.array([r.A, r.F, r.B, r.C, r.D, r.E, r.HL >> 8, r.HL & 0xFF, r.SP, r.PC], dtype=np.uint16),
            "ie_if": np.array([mem[0xFFFF], mem[0xFF0F] | 0xE0], dtype=np.uint8),
            "hram": np.array(mem[0xFF80:0xFFFF], dtype=np.uint8),
            "oam": np.array(mem[0xFE00:0xFEA0], dtype=np.uint8),
            "wram_hot": np.array([b for lo, hi in HOT_WRAM for b in mem[lo:hi]], dtype=np.uint8),
        }
        if screen:
            rec["screen"] = np.array(pb.screen.ndarray[:, :, 0], dtype=np.uint8)
        return rec

    def _snapshot(self) -> Record:
        mem = self.pyboy.memory
        return {
            "wram": np.array(mem[0xC000:0xE000], dtype=np.uint8),
            "vram": np.array(mem[0x8000:0xA000], dtype=np.uint8),
            # PyBoy's banked slices must end inside the bank: read the last byte on its own.
            "cart_ram": np.array(list(mem[0, 0xA000:0xBFFF]) + [mem[0, 0xBFFF]], dtype=np.uint8),
        }

    def close(self) -> None:
        if self.pyboy is not None:
            self.pyboy.stop(save=False)
            self.pyboy = None
        if self._boot_file:
            try:
                os.unlink(self._boot_file)
            except OSError:
                pass
            self._boot_file = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class EmurustRunner(_Runner):
    """emurust.GameBoy behind the same interface as `PyBoyReference`."""

    def __init__(self, rom: bytes, boot_rom: bytes | None = None, frames_per_step: int = 1, render: bool = True,
                 profile: str = "pyboy") -> None:
        super().__init__(frames_per_step, render)
        self._args = (bytes(rom), boot_rom, profile)
        self._power_on()

    def _power_on(self) -> None:
        rom, boot, profile = self._args
        self.gb = emurust.GameBoy(rom, boot_rom=boot, profile=profile)

    def _set_buttons(self, mask: int) -> None:
        self.gb.buttons = mask

    def _tick(self, frames: int, render: bool) -> None:
        self.gb.tick(frames, render)

    def serial_output(self) -> bytes:
        return self.gb.serial_output()

    def _record(self, screen: bool) -> Record:
        gb = self.gb
        r = gb.registers()
        peek = lambda lo, hi: np.frombuffer(gb.peek_range(lo, hi), dtype=np.uint8).copy()  # noqa: E731
        rec = {
            "cycles": np.array(gb.cycles, dtype=np.int64),
            "registers": np.array([r[k] for k in ("a", "f", "b", "c", "d", "e", "h", "l", "sp", "pc")], dtype=np.uint16),
            "ie_if": np.frombuffer(gb.peek_bytes([0xFFFF, 0xFF0F]), dtype=np.uint8).copy(),
            "hram": peek(0xFF80, 0xFFFF),
            "oam": peek(0xFE00, 0xFEA0),
            "wram_hot": np.concatenate([peek(lo, hi) for lo, hi in HOT_WRAM]),
        }
        if screen:
            rec["screen"] = gb.screen("gray")
        return rec

    def _snapshot(self) -> Record:
        ram = self.gb.cartridge_ram()[:0x2000]
        return {
            "wram": np.frombuffer(self.gb.peek_range(0xC000, 0xE000), dtype=np.uint8).copy(),
            "vram": np.frombuffer(self.gb.peek_range(0x8000, 0xA000), dtype=np.uint8).copy(),
            "cart_ram": np.frombuffer(ram, dtype=np.uint8).copy(),
        }

    def close(self) -> None:
        pass


def random_buttons(rng: np.random.Generator, steps: int, hold: tuple[int, int] = (1, 30),
                   allowed: Sequence[int] | None = None) -> np.ndarray:
    """A random button script: masks held for a random number of steps (within `hold`)."""
    out = np.zeros(steps, dtype=np.uint8)
    t = 0
    while t < steps:
        n = int(rng.integers(hold[0], hold[1] + 1))
        mask = int(rng.choice(allowed)) if allowed is not None else int(rng.integers(0, 256))
        out[t:t + n] = mask
        t += n
    return out


@dataclasses.dataclass
class EpisodeComparison:
    """Per-step comparison of one episode (see `compare_episode`)."""

    steps: int
    frames: "TrajectoryComparison"
    screens: "TrajectoryComparison"
    snapshots: "TrajectoryComparison"
    screen_steps: list[int]
    snapshot_steps: list[int]

    @property
    def matched(self) -> bool:
        return self.frames.matched and self.screens.matched and self.snapshots.matched

    def describe(self) -> str:
        problems = []
        for name, comp, index in (("state", self.frames, None), ("screen", self.screens, self.screen_steps),
                                  ("memory", self.snapshots, self.snapshot_steps)):
            if not comp.matched:
                d = comp.first_divergence
                if d is not None and index is not None:
                    problems.append(f"{name}: first difference at step {index[d.step]} ({d})")
                else:
                    problems.append(f"{name}: {comp.describe()}")
        return "; ".join(problems) if problems else f"{self.steps} steps identical"


def compare_episode(
    rom: bytes,
    buttons: Sequence[int] | None = None,
    *,
    steps: int | None = None,
    policy: Callable[[int, "emurust.GameBoy"], int] | None = None,
    boot_rom: bytes | None = None,
    frames_per_step: int = 1,
    render_every: int = 1,
    snapshot_every: int = 32,
) -> EpisodeComparison:
    """Runs emurust and PyBoy side by side and compares every step.

    Buttons come from `buttons` (one mask per step) or from `policy(step, gameboy) -> mask`, a
    scripted controller reading our emulator's memory (a divergence is caught at that step anyway).
    Registers, cycles and the hot memory are compared after every step; screens on steps where
    `step % render_every == 0` and on the last step (other steps run with rendering off, as frame
    skipping does); full memory every `snapshot_every` steps and on the last step.
    """
    from paritygym.verify import compare_trajectories

    if buttons is None and (policy is None or steps is None):
        raise ValueError("give `buttons`, or `policy` and `steps`")
    n = len(buttons) if buttons is not None else int(steps)
    ref = PyBoyReference(rom, boot_rom, frames_per_step)
    ours = EmurustRunner(rom, boot_rom, frames_per_step)
    frames_ours, frames_ref, snaps_ours, snaps_ref, screens_ours, screens_ref = [], [], [], [], [], []
    screen_steps, snapshot_steps = [], []
    try:
        for t in range(n):
            mask = int(buttons[t]) if buttons is not None else int(policy(t, ours.gb))
            render = t % render_every == 0 or t == n - 1
            ref.render = ours.render = render
            a, b = ours.step(mask), ref.step(mask)
            if render:
                screens_ours.append({"screen": a.pop("screen")})
                screens_ref.append({"screen": b.pop("screen")})
                screen_steps.append(t)
            frames_ours.append(a)
            frames_ref.append(b)
            if t % snapshot_every == snapshot_every - 1 or t == n - 1:
                snaps_ours.append(ours._snapshot())
                snaps_ref.append(ref._snapshot())
                snapshot_steps.append(t)
    finally:
        ref.close()
    return EpisodeComparison(
        steps=n,
        frames=compare_trajectories(frames_ours, frames_ref),
        screens=compare_trajectories(screens_ours, screens_ref),
        snapshots=compare_trajectories(snaps_ours, snaps_ref),
        screen_steps=screen_steps,
        snapshot_steps=snapshot_steps,
    )


# =============================================================================================
# `paritygym bench GameBoy-v0 --reference`: PyBoy's speed on CATCH, GameBoy-v0's default game
# =============================================================================================
#
# PyBoy runs headless (`window="null"`), sound off, with `tick(frame_skip, render)` where `render`
# is on only when the observation needs the screen; its screen is read and downscaled like ours.

#: CATCH's action table in GameBoy-v0 (nothing, left, right, left fast, right fast).
CATCH_ACTIONS = np.array([0x00, 0x20, 0x10, 0x21, 0x11], np.uint8)
#: Default GameBoy-v0 configuration benchmarked by `reference_bench`.
DEFAULT_FRAME_SKIP = 4


def catch_start_state_pyboy(pb) -> bytes:
    """A PyBoy state just after CATCH starts (same start-up as GameBoy-v0 with no title wait)."""
    pb.tick(12, False)
    pb.button_press("start")
    pb.tick(2, False)
    pb.button_release("start")
    pb.tick(2, False)
    buf = io.BytesIO()
    pb.save_state(buf)
    return buf.getvalue()


def pyboy_loop(args: tuple) -> tuple[int, float, float]:
    """Runs `num_envs` PyBoys round-robin for `num_steps` steps each; returns (frames, wall s, CPU s)."""
    rom, num_envs, num_steps, frame_skip, screen, seed = args
    from pyboy import PyBoy

    boots = [PyBoyReference(rom) for _ in range(num_envs)]
    start = catch_start_state_pyboy(boots[0].pyboy)
    for r in boots:
        r.pyboy.load_state(io.BytesIO(start))
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, len(CATCH_ACTIONS), size=(num_steps, num_envs))
    held = [0] * num_envs
    names = emurust.BUTTON_NAMES
    t0, c0 = time.perf_counter(), time.process_time()
    for step in range(num_steps):
        for i, r in enumerate(boots):
            pb = r.pyboy
            mask = int(CATCH_ACTIONS[actions[step, i]])
            changed = mask ^ held[i]
            for bit in range(8):
                if changed >> bit & 1:
                    (pb.button_press if mask >> bit & 1 else pb.button_release)(names[bit])
            held[i] = mask
            pb.tick(frame_skip, screen, False)
            if screen:
                # The observation: gray, 2x2 block mean (what GameBoy-v0 returns by default).
                s = pb.screen.ndarray[:, :, 0].reshape(72, 2, 80, 2).mean(axis=(1, 3))
            if pb.memory[0xC0A3] == 2:  # game over: next episode
                pb.load_state(io.BytesIO(start))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    for r in boots:
        r.close()
    del PyBoy
    return num_envs * num_steps * frame_skip, elapsed, cpu


def pyboy_frames_per_second(rom: bytes, num_envs: int, num_steps: int, frame_skip: int, screen: bool,
                            num_procs: int = 1, cpu_time: bool = False) -> float:
    """PyBoy frames/s (per wall second, or per CPU second with `cpu_time`): `num_envs` emulators
    split over `num_procs` processes running at once."""
    per_proc = [num_envs // num_procs + (1 if i < num_envs % num_procs else 0) for i in range(num_procs)]
    jobs = [(rom, n, num_steps, frame_skip, screen, i) for i, n in enumerate(per_proc) if n > 0]
    if len(jobs) == 1:
        results = [pyboy_loop(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(len(jobs)) as pool:
            results = pool.map(pyboy_loop, jobs)
    frames = sum(f for f, _, _ in results)
    if cpu_time:
        return frames / sum(c for _, _, c in results)
    # The processes run concurrently: total frames over the slowest process's time.
    return frames / max(w for _, w, _ in results)


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """paritygym bench hook: PyBoy steps/s for GameBoy-v0's default configuration (CATCH, frame
    skip 4, gray screen downscaled 2x), `batch_size` emulators over `num_procs` processes."""
    from emurust.roms import rom_bytes

    steps = max(1, min(num_steps, 20_000 // max(1, batch_size)))
    fps = pyboy_frames_per_second(rom_bytes("catch"), batch_size, steps, DEFAULT_FRAME_SKIP, True, num_procs)
    return fps / DEFAULT_FRAME_SKIP
