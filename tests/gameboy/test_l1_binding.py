"""The Python binding: errors are Python exceptions, batches equal single emulators, save/load, determinism."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import emurust
from .romkit import ILLEGAL, LOOP, make_rom

BUTTON_SCRIPT = np.array([0, 0, 8, 8, 0, 0x10, 0x10, 0x20, 0x21, 0x11, 0, 0x40, 0x80, 1, 2, 4] * 8, dtype=np.uint8)


def random_masks(seed: int, n: int, num_envs: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Hold each mask a few frames so the games react.
    masks = rng.choice([0, 0x08, 0x10, 0x20, 0x11, 0x21, 0x01, 0x02], size=(n // 4 + 1, num_envs))
    return np.repeat(masks, 4, axis=0)[:n].astype(np.uint8)


# ---- ROM and boot ROM errors --------------------------------------------------------------------

@pytest.mark.parametrize("rom,message", [
    (b"", "too small"),
    (bytes(0x100), "too small"),
    (make_rom(LOOP, size=0x4000), "too small"),
    (make_rom(LOOP, fix_checksum=False)[:0x14D] + b"\x00" + make_rom(LOOP)[0x14E:], "checksum"),
    (make_rom(LOOP, cart_type=0x22), "unsupported cartridge type 0x22"),
    (make_rom(LOOP, cart_type=0xFC), "unsupported cartridge type 0xFC"),
    (make_rom(LOOP, cart_type=0x01, rom_code=2, size=0x8000), "truncated"),
    (make_rom(LOOP, rom_code=9), "ROM size code"),
    (make_rom(LOOP, ram_code=7), "RAM size code"),
])
def test_bad_roms_raise_clear_errors(rom, message):
    with pytest.raises(emurust.RomLoadError, match=message):
        emurust.GameBoy(rom)
    with pytest.raises(emurust.RomLoadError, match=message):
        emurust.VecGameBoy(rom, 2)
    assert issubclass(emurust.RomLoadError, ValueError)


def test_bad_boot_rom_and_profile():
    with pytest.raises(emurust.RomLoadError, match="256 bytes"):
        emurust.GameBoy(make_rom(LOOP), boot_rom=bytes(100))
    with pytest.raises(ValueError, match="profile"):
        emurust.GameBoy(make_rom(LOOP), profile="gbc")


def test_wrong_argument_types_raise_type_errors():
    with pytest.raises(TypeError):
        emurust.GameBoy("not bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="frames"):
        emurust.GameBoy(make_rom(LOOP)).tick(frames=-1)
    with pytest.raises(TypeError):
        emurust.GameBoy(make_rom(LOOP)).tick(frames="1")  # type: ignore[arg-type]


def _bytes_likes(data: bytes) -> list:
    """The same bytes as every bytes-like kind a user may hold them in."""
    return [bytearray(data), memoryview(data), np.frombuffer(data, np.uint8), np.frombuffer(data, np.uint8).copy(),
            np.repeat(np.frombuffer(data, np.uint8), 2)[::2]]  # a strided (non-contiguous) view


def test_roms_and_states_are_accepted_as_any_bytes_like(roms):
    rom = roms["catch"]
    ref = emurust.GameBoy(rom)
    ref.tick(30)
    state = ref.save_state()
    for rom_like, state_like in zip(_bytes_likes(rom), _bytes_likes(state)):
        gb = emurust.GameBoy(rom_like, boot_rom=bytearray(emurust.DEFAULT_BOOT_ROM))
        gb.tick(30)
        assert gb.save_state() == state
        gb.load_state(state_like)
        assert gb.save_state() == state
        vec = emurust.VecGameBoy(rom_like, 2, boot_rom=memoryview(emurust.DEFAULT_BOOT_ROM))
        vec.load_state(1, state_like)
        vec.reset_state = state_like
        assert vec.save_state(1) == state and vec.reset_state == state


@pytest.mark.parametrize("bad", ["not bytes", [0] * 0x8000, 0x8000, np.zeros(0x8000, np.int8), np.zeros(0x8000, np.float32)])
def test_non_bytes_roms_and_states_are_type_errors(roms, bad):
    with pytest.raises(TypeError, match="bytes-like"):
        emurust.GameBoy(bad)
    with pytest.raises(TypeError, match="bytes-like"):
        emurust.VecGameBoy(bad, 2)
    with pytest.raises(TypeError, match="bytes-like"):
        emurust.GameBoy(roms["catch"]).load_state(bad)


# ---- CPU lock-up ----------------------------------------------------------------------------------

def test_illegal_opcode_is_an_error_state_not_a_crash():
    gb = emurust.GameBoy(make_rom(ILLEGAL))
    with pytest.raises(emurust.EmulatorFault, match="illegal opcode 0xD3 at PC=0x0152"):
        gb.tick(5)
    assert gb.fault is not None and "0xD3" in gb.fault
    assert gb.registers()["pc"] == 0x152 and gb.registers()["a"] == 5
    with pytest.raises(emurust.EmulatorFault):
        gb.tick()
    # The faulted state saves and loads like any other.
    state = gb.save_state()
    other = emurust.GameBoy(make_rom(ILLEGAL))
    other.load_state(state)
    assert other.fault == gb.fault


def test_illegal_opcode_in_a_batch_names_the_emulator():
    vec = emurust.VecGameBoy(make_rom(ILLEGAL), 3, 5, screen=None)
    with pytest.raises(emurust.EmulatorFault, match="emulator 0"):
        vec.step(np.zeros(3, np.uint8))
    assert all(f is not None for f in vec.faults())


# ---- determinism, save and load --------------------------------------------------------------------

def test_same_inputs_same_frames_bit_for_bit(roms):
    a, b = emurust.GameBoy(roms["stress"]), emurust.GameBoy(roms["stress"])
    for mask in np.tile(BUTTON_SCRIPT, 3):
        a.buttons = b.buttons = int(mask)
        a.tick()
        b.tick()
        assert np.array_equal(a.screen("shades"), b.screen("shades"))
    assert a.save_state() == b.save_state()
    assert a.cycles == b.cycles and a.frame_count == b.frame_count == len(BUTTON_SCRIPT) * 3


def test_save_load_round_trip_continues_identically(roms):
    gb = emurust.GameBoy(roms["catch"])
    gb.tick(40)
    gb.buttons = 0x08
    gb.tick(3)
    state = gb.save_state()
    future = []
    for mask in BUTTON_SCRIPT:
        gb.buttons = int(mask)
        gb.tick()
        future.append((gb.screen("shades"), gb.peek_range(0xC000, 0xE000), gb.cycles))
    for target in (gb, emurust.GameBoy(roms["catch"])):
        target.load_state(state)
        assert target.save_state() == state
        for mask, (screen, wram, cycles) in zip(BUTTON_SCRIPT, future):
            target.buttons = int(mask)
            target.tick()
            assert np.array_equal(target.screen("shades"), screen)
            assert target.peek_range(0xC000, 0xE000) == wram and target.cycles == cycles


def test_bad_states_are_refused_and_change_nothing(roms):
    gb = emurust.GameBoy(roms["catch"])
    gb.tick(10)
    before = gb.save_state()
    other_rom_state = emurust.GameBoy(roms["stress"]).save_state()
    hardware_state = emurust.GameBoy(roms["catch"], profile="hardware").save_state()
    for bad, message in [
        (b"", "truncated"),
        (before[:100], "truncated"),
        (b"X" + before[1:], "not an emurust save state"),
        (before + b"\x00", "trailing"),
        (other_rom_state, "different ROM"),
        (hardware_state, "profile"),
    ]:
        with pytest.raises(emurust.StateLoadError, match=message):
            gb.load_state(bad)
        assert gb.save_state() == before


# ---- single-emulator API ---------------------------------------------------------------------------

def test_buttons_api(roms):
    gb = emurust.GameBoy(roms["catch"])
    gb.press("start")
    gb.press("A")
    assert gb.buttons == 0x09
    gb.release("start")
    assert gb.buttons == 0x01
    with pytest.raises(ValueError, match="unknown button"):
        gb.press("turbo")
    with pytest.raises(ValueError, match="0-255"):
        gb.buttons = 256
    assert emurust.BUTTON_NAMES == ["a", "b", "select", "start", "right", "left", "up", "down"]


def test_screen_formats_agree(roms):
    gb = emurust.GameBoy(roms["stress"])
    gb.tick(30)
    shades = gb.screen("shades")
    assert shades.shape == (144, 160) and shades.dtype == np.uint8 and shades.max() <= 3
    gray = gb.screen("gray")
    rgb = gb.screen("rgb")
    assert np.array_equal(gray, np.array([255, 153, 85, 0], np.uint8)[shades])
    assert rgb.shape == (144, 160, 3) and np.array_equal(rgb[..., 1], gray)
    assert np.array_equal(emurust.observe_screen(gb, "gray", 1), gray)
    with pytest.raises(ValueError):
        gb.screen("rgba")


def test_memory_access(roms):
    gb = emurust.GameBoy(roms["catch"])
    gb.tick(20)
    assert gb.peek_range(0xC000, 0xC100) == gb.read_range(0xC000, 0xC100)
    gb.write(0xC0F0, 0x5A)
    assert gb.read(0xC0F0) == 0x5A and gb.peek_bytes([0xC0F0, 0xE0F0]) == b"\x5a\x5a"  # echo RAM
    with pytest.raises(IndexError):
        gb.read(0x10000)
    with pytest.raises(IndexError):
        gb.peek_range(0xFF00, 0x10001)
    with pytest.raises(ValueError):
        gb.write(0xC000, 300)
    assert gb.title == "CATCH"


# ---- VecGameBoy ---------------------------------------------------------------------------------

def singles_trajectory(rom, masks, frame_skip, screen, downscale, ram_addresses):
    """What a VecGameBoy must produce, computed with independent single emulators."""
    out_screens, out_ram = [], []
    gbs = [emurust.GameBoy(rom) for _ in range(masks.shape[1])]
    for step in masks:
        screens, rams = [], []
        for gb, m in zip(gbs, step):
            gb.buttons = int(m)
            gb.tick(frame_skip, screen is not None)
            if screen is not None:
                screens.append(emurust.observe_screen(gb, screen, downscale))
            rams.append(np.frombuffer(gb.peek_bytes(ram_addresses), np.uint8))
        out_screens.append(np.stack(screens) if screens else None)
        out_ram.append(np.stack(rams))
    return out_screens, out_ram, [gb.save_state() for gb in gbs]


@pytest.mark.parametrize("frame_skip,screen,downscale", [(1, "gray", 1), (3, "rgb", 2), (4, None, 1), (2, "gray", 4)])
def test_batch_of_n_equals_n_single_emulators(roms, frame_skip, screen, downscale):
    n, steps = 5, 40
    addresses = [0xC0A0, 0xC0A2, 0xC0A4, 0xFF44, 0xFF41, 0xFFFF]
    masks = random_masks(frame_skip, steps, n)
    exp_screens, exp_ram, exp_states = singles_trajectory(roms["catch"], masks, frame_skip, screen, downscale, addresses)
    vec = emurust.VecGameBoy(roms["catch"], n, frame_skip, screen=screen, downscale=downscale, ram_addresses=addresses, num_threads=2)
    screen_out = np.empty(vec.screen_shape, np.uint8) if screen else None
    ram_out = np.empty(vec.ram_shape, np.uint8)
    for t in range(steps):
        vec.step(masks[t], screen_out=screen_out, ram_out=ram_out)
        if screen:
            assert np.array_equal(screen_out, exp_screens[t]), f"step {t}"
        assert np.array_equal(ram_out, exp_ram[t]), f"step {t}"
    assert [vec.save_state(i) for i in range(n)] == exp_states


def test_action_table_and_thread_counts_agree(roms):
    table = [0, 0x08, 0x10, 0x20, 0x11, 0x21]
    actions = np.random.default_rng(3).integers(0, len(table), size=(60, 4))
    results = []
    for threads in (1, 2, 4):
        vec = emurust.VecGameBoy(roms["catch"], 4, 2, screen="gray", downscale=2, action_table=table, num_threads=threads)
        out = np.empty(vec.screen_shape, np.uint8)
        for a in actions:
            vec.step(a.astype(np.int64), screen_out=out)
        results.append((out.copy(), [vec.save_state(i) for i in range(4)]))
    # Same as masks given directly.
    vec = emurust.VecGameBoy(roms["catch"], 4, 2, screen="gray", downscale=2)
    out = np.empty(vec.screen_shape, np.uint8)
    for a in actions:
        vec.step(np.array(table, np.uint8)[a], screen_out=out)
    results.append((out.copy(), [vec.save_state(i) for i in range(4)]))
    for other in results[1:]:
        assert np.array_equal(other[0], results[0][0]) and other[1] == results[0][1]


@pytest.mark.parametrize("screen,downscale", [("gray", 1), ("gray", 2), ("rgb", 2), ("gray", 4), ("rgb", 8), ("gray", 16)])
def test_downscaled_screen_is_the_block_mean(roms, screen, downscale):
    # CATCH's title screen (text, tiles, sprites): many different blocks.
    vec = emurust.VecGameBoy(roms["catch"], 2, 1, screen=screen, downscale=downscale)
    gb = emurust.GameBoy(roms["catch"])
    out = np.empty(vec.screen_shape, np.uint8)
    d, area = downscale, downscale * downscale
    for frame in range(40):
        vec.step(np.zeros(2, np.uint8), screen_out=out)
        gb.tick()
        if frame % 8 == 7:
            full = gb.screen("gray").astype(np.int64).reshape(144 // d, d, 160 // d, d).sum(axis=(1, 3))
            expected = ((full + area // 2) // area).astype(np.uint8)
            if screen == "rgb":
                expected = np.repeat(expected[:, :, None], 3, axis=2)
            assert np.array_equal(out[0], expected) and np.array_equal(out[1], expected)
    assert len(np.unique(out[0])) > 1, "the test screen must not be blank"


def test_per_env_save_load_and_reset(roms):
    vec = emurust.VecGameBoy(roms["catch"], 3, 1, screen=None, ram_addresses=[0xC0A7])
    ram = np.empty(vec.ram_shape, np.uint8)
    power_on = vec.save_state(0)
    for _ in range(30):
        vec.step(np.array([0, 8, 0x10], np.uint8), ram_out=ram)
    saved = vec.save_state(1)
    vec.load_state(2, saved)
    assert vec.save_state(2) == saved
    # reset with a mask returns only the chosen envs to the reset state (power-on by default).
    vec.reset(np.array([True, False, False]))
    assert vec.save_state(0) == power_on and vec.save_state(1) == saved
    vec.reset_state = saved
    vec.reset()
    assert all(vec.save_state(i) == saved for i in range(3))
    with pytest.raises(emurust.StateLoadError):
        vec.reset_state = b"garbage"
    with pytest.raises(IndexError):
        vec.save_state(3)
    with pytest.raises(TypeError):
        vec.reset(np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="shape"):
        vec.reset(np.array([True, False]))


def test_output_validation(roms):
    vec = emurust.VecGameBoy(roms["catch"], 4, 1, screen="gray", downscale=2, ram_addresses=[0xC0A0, 0xC0A2])
    actions = np.zeros(4, np.uint8)
    good_screen = np.empty((4, 72, 80), np.uint8)
    good_ram = np.empty((4, 2), np.uint8)
    cases = [
        (dict(screen_out=good_screen.astype(np.float32), ram_out=good_ram), TypeError, "uint8"),
        (dict(screen_out=np.empty((4, 72, 81), np.uint8), ram_out=good_ram), ValueError, "shape"),
        (dict(screen_out=np.empty((4, 72, 160), np.uint8)[:, :, ::2], ram_out=good_ram), ValueError, "C-contiguous"),
        (dict(screen_out=np.asfortranarray(np.empty((4, 72, 80), np.uint8)), ram_out=good_ram), ValueError, "C-contiguous"),
        (dict(screen_out=None, ram_out=good_ram), ValueError, "screen_out is required"),
        (dict(screen_out=good_screen, ram_out=None), ValueError, "ram_out is required"),
        (dict(screen_out=good_screen, ram_out=np.empty((4, 3), np.uint8)), ValueError, "shape"),
        (dict(screen_out=good_screen.tolist(), ram_out=good_ram), TypeError, "uint8"),
    ]
    readonly = good_screen.copy()
    readonly.setflags(write=False)
    cases.append((dict(screen_out=readonly, ram_out=good_ram), ValueError, "writeable"))
    before = [vec.save_state(i) for i in range(4)]
    for kwargs, exc, message in cases:
        with pytest.raises(exc, match=message):
            vec.step(actions, **kwargs)
    assert [vec.save_state(i) for i in range(4)] == before, "a refused call must not step"
    for bad_actions, exc, message in [
        (np.zeros(3, np.uint8), ValueError, "shape"),
        (np.zeros((4, 1), np.uint8), ValueError, "shape"),
        (np.zeros(4, np.float32), TypeError, "uint8, int32 or int64"),
        (np.array([0, 0, 0, 300]), ValueError, "outside 0-255"),
    ]:
        with pytest.raises(exc, match=message):
            vec.step(bad_actions, screen_out=good_screen, ram_out=good_ram)
    vec.step(actions, screen_out=good_screen, ram_out=good_ram)

    no_screen = emurust.VecGameBoy(roms["catch"], 2, screen=None)
    with pytest.raises(ValueError, match="screen=None"):
        no_screen.step(np.zeros(2, np.uint8), screen_out=np.empty((2, 144, 160), np.uint8))
    table = emurust.VecGameBoy(roms["catch"], 2, screen=None, action_table=[0, 8])
    with pytest.raises(ValueError, match="action table"):
        table.step(np.array([0, 2]))


@pytest.mark.parametrize("kwargs,message", [
    (dict(num_envs=0), "num_envs"),
    (dict(frame_skip=0), "frame_skip"),
    (dict(screen="rgba"), "screen"),
    (dict(downscale=3), "downscale"),
    (dict(ram_addresses=[0x10000]), "outside"),
    (dict(action_table=[]), "action_table"),
    (dict(action_table=[256]), "button mask"),
])
def test_constructor_validation(roms, kwargs, message):
    args = dict(num_envs=2, frame_skip=1)
    args.update(kwargs)
    with pytest.raises((ValueError, IndexError), match=message):
        emurust.VecGameBoy(roms["catch"], **args)


def test_step_releases_the_gil(roms):
    vec = emurust.VecGameBoy(roms["stress"], 2, 120, screen=None, num_threads=1)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0)

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.01)
    start = len(ticks)
    vec.step(np.zeros(2, np.uint8))
    during = len(ticks) - start
    stop.set()
    thread.join()
    assert during > 10, "another Python thread should run while the batch steps"


_FORK_CHECK = """
import os, sys, time
import numpy as np
import emurust
from emurust.roms import rom_bytes

rng = np.random.default_rng(7)
masks = np.repeat(rng.choice([0, 0x08, 0x10, 0x20, 0x11, 0x21, 0x01, 0x02], size=(6, 6)), 4, axis=0)[:20].astype(np.uint8)
vec = emurust.VecGameBoy(rom_bytes("catch"), 6, 2, screen="gray", downscale=2, num_threads=2)
out = np.empty(vec.screen_shape, np.uint8)
vec.step(masks[0], screen_out=out)
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:  # child: step, send the screens, exit without running the parent's cleanup
    try:
        for m in masks[1:]:
            vec.step(m, screen_out=out)
        os.write(write_end, out.tobytes())
    finally:
        os._exit(0)
os.close(write_end)
for m in masks[1:]:
    vec.step(m, screen_out=out)
deadline = time.monotonic() + 60
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.monotonic() > deadline:
        os.kill(pid, 9)
        sys.exit("the forked child hung stepping the batch")
    time.sleep(0.01)
with os.fdopen(read_end, "rb") as f:
    child_screens = f.read()
sys.exit(0 if child_screens == out.tobytes() else "the child's screens differ from the parent's")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_steps_a_batch_made_before_the_fork():
    # The child has none of the parent's worker threads: the batch must step on the child's one
    # thread (same results) instead of waiting for workers forever. Run in a fresh interpreter:
    # this test process has JAX's threads, and forking it is unsafe whatever emurust does.
    run = subprocess.run([sys.executable, "-c", _FORK_CHECK], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
