"""Throughput of emurust against PyBoy 2.8.1, same ROM and same inputs, side by side.

`paritygym bench GameBoy-v0 --reference` uses `reference_bench` (PyBoy steps/s for the default
GameBoy-v0 configuration). `python -m emurust.bench` prints the table the docs quote: frames per
second for 1 emulator on 1 core and for N emulators on all cores (PyBoy one process per core,
emurust one process with its Rayon pool), at frame skips 1 and 24, with the screen observation
(gray, downscaled 2x: only the last frame of a skip is drawn) or RAM only (nothing drawn).

PyBoy runs headless (`window="null"`), sound off, with `tick(frame_skip, render)` where `render`
is on only when the observation needs the screen; its screen is read and downscaled like ours.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import os
import time
from typing import Any

import numpy as np

import emurust

#: CATCH's action table in GameBoy-v0 (nothing, left, right, left fast, right fast).
CATCH_ACTIONS = np.array([0x00, 0x20, 0x10, 0x21, 0x11], np.uint8)
#: Default GameBoy-v0 configuration benchmarked by `reference_bench`.
DEFAULT_FRAME_SKIP = 4


def _catch_start_state_pyboy(pb) -> bytes:
    """A PyBoy state just after CATCH starts (same start-up as GameBoy-v0 with no title wait)."""
    pb.tick(12, False)
    pb.button_press("start")
    pb.tick(2, False)
    pb.button_release("start")
    pb.tick(2, False)
    buf = io.BytesIO()
    pb.save_state(buf)
    return buf.getvalue()


def _pyboy_worker(args: tuple) -> tuple[int, float]:
    """Runs `num_envs` PyBoys round-robin for `num_steps` steps each; returns (frames, seconds)."""
    rom, num_envs, num_steps, frame_skip, screen, seed = args
    from pyboy import PyBoy

    from emurust.reference import PyBoyReference

    boots = [PyBoyReference(rom) for _ in range(num_envs)]
    start = _catch_start_state_pyboy(boots[0].pyboy)
    for r in boots:
        r.pyboy.load_state(io.BytesIO(start))
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, len(CATCH_ACTIONS), size=(num_steps, num_envs))
    held = [0] * num_envs
    names = emurust.BUTTON_NAMES
    t0 = time.perf_counter()
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
    elapsed = time.perf_counter() - t0
    for r in boots:
        r.close()
    del PyBoy
    return num_envs * num_steps * frame_skip, elapsed


def pyboy_frames_per_second(rom: bytes, num_envs: int, num_steps: int, frame_skip: int, screen: bool,
                            num_procs: int = 1) -> float:
    """PyBoy frames/s: `num_envs` emulators split over `num_procs` processes running at once."""
    per_proc = [num_envs // num_procs + (1 if i < num_envs % num_procs else 0) for i in range(num_procs)]
    jobs = [(rom, n, num_steps, frame_skip, screen, i) for i, n in enumerate(per_proc) if n > 0]
    if len(jobs) == 1:
        frames, seconds = _pyboy_worker(jobs[0])
        return frames / seconds
    with mp.get_context("spawn").Pool(len(jobs)) as pool:
        results = pool.map(_pyboy_worker, jobs)
    # The processes run concurrently: total frames over the slowest process's time.
    return sum(f for f, _ in results) / max(s for _, s in results)


def emurust_frames_per_second(rom: bytes, num_envs: int, num_steps: int, frame_skip: int, screen: bool,
                              num_threads: int = 0, seed: int = 0) -> float:
    """emurust frames/s through the Python API: one VecGameBoy step per batch step."""
    vec = emurust.VecGameBoy(rom, num_envs, frame_skip, screen="gray" if screen else None, downscale=2,
                             ram_addresses=[0xC0A0, 0xC0A1, 0xC0A3], num_threads=num_threads)
    gb = emurust.GameBoy(rom)
    gb.tick(12, False)
    gb.buttons = 0x08
    gb.tick(2, False)
    gb.buttons = 0
    gb.tick(2, False)
    vec.reset_state = gb.save_state()
    vec.reset()
    screen_out = np.empty(vec.screen_shape, np.uint8) if screen else None
    ram_out = np.empty(vec.ram_shape, np.uint8)
    actions = np.random.default_rng(seed).integers(0, len(CATCH_ACTIONS), size=(num_steps, num_envs))
    masks = CATCH_ACTIONS[actions]
    t0 = time.perf_counter()
    for step in range(num_steps):
        vec.step(masks[step], screen_out=screen_out, ram_out=ram_out)
        over = ram_out[:, 2] == 2
        if over.any():
            vec.reset(over)
    elapsed = time.perf_counter() - t0
    return num_envs * num_steps * frame_skip / elapsed


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """paritygym bench hook: PyBoy steps/s for GameBoy-v0's default configuration (CATCH, frame
    skip 4, gray screen downscaled 2x), `batch_size` emulators over `num_procs` processes."""
    from emurust.roms import rom_bytes

    steps = max(1, min(num_steps, 20_000 // max(1, batch_size)))
    fps = pyboy_frames_per_second(rom_bytes("catch"), batch_size, steps, DEFAULT_FRAME_SKIP, True, num_procs)
    return fps / DEFAULT_FRAME_SKIP


def run_table(num_envs_all_cores: int = 64, frames: int = 6000, cores: int | None = None) -> list[dict[str, Any]]:
    """The docs table: 1 emulator on 1 core and N on all cores, frame skips 1 and 24, screen or RAM."""
    from emurust.roms import rom_bytes

    rom = rom_bytes("catch")
    cores = cores or os.cpu_count() or 1
    rows = []
    for frame_skip in (1, 24):
        for screen in (True, False):
            steps1 = max(4, frames // frame_skip)
            ours1 = emurust_frames_per_second(rom, 1, steps1, frame_skip, screen, num_threads=1)
            ref1 = pyboy_frames_per_second(rom, 1, max(2, steps1 // 4), frame_skip, screen, 1)
            stepsn = max(4, frames // frame_skip // 4)
            oursn = emurust_frames_per_second(rom, num_envs_all_cores, stepsn, frame_skip, screen, num_threads=cores)
            refn = pyboy_frames_per_second(rom, cores, max(2, steps1 // 4), frame_skip, screen, cores)
            rows.append(dict(frame_skip=frame_skip, observation="screen (gray, 2x down)" if screen else "RAM only",
                             emurust_1core=ours1, pyboy_1core=ref1, ratio_1core=ours1 / ref1,
                             emurust_all_cores=oursn, pyboy_all_cores=refn, cores=cores, num_envs=num_envs_all_cores,
                             scaling=oursn / ours1))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=64, help="emulators in the all-cores emurust run")
    parser.add_argument("--frames", type=int, default=6000, help="frames per 1-core measurement")
    parser.add_argument("--json", type=str, default=None, help="write the rows to this file")
    args = parser.parse_args()
    rows = run_table(args.envs, args.frames)
    print(f"{'skip':>4}  {'observation':<22} {'emurust 1 core':>15} {'PyBoy 1 core':>13} {'ratio':>6}  "
          f"{'emurust all':>12} {'PyBoy all':>10} {'scaling':>8}")
    for r in rows:
        print(f"{r['frame_skip']:>4}  {r['observation']:<22} {r['emurust_1core']:>15,.0f} {r['pyboy_1core']:>13,.0f} "
              f"{r['ratio_1core']:>5.1f}x  {r['emurust_all_cores']:>12,.0f} {r['pyboy_all_cores']:>10,.0f} {r['scaling']:>7.2f}x")
    print(f"(frames/s; all cores = {rows[0]['cores']} cores: emurust {rows[0]['num_envs']} emulators on its Rayon pool, "
          f"PyBoy one process per core)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
