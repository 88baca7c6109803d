"""Type stub for the Rust extension module `emurust._emurust` (see emurust/src/python.rs)."""

from typing import Literal, Sequence

import numpy as np
import numpy.typing as npt

__version__: str
#: Button names in bitmask order: bit 0 "a", 1 "b", 2 "select", 3 "start", 4 "right", 5 "left", 6 "up", 7 "down".
BUTTON_NAMES: list[str]
#: emurust's own 256-byte DMG boot program (the default boot ROM).
DEFAULT_BOOT_ROM: bytes
#: (144, 160)
SCREEN_SHAPE: tuple[int, int]

Profile = Literal["pyboy", "hardware"]
#: ROMs, boot ROMs and save states: any bytes-like object of unsigned bytes (a uint8 numpy array included).
BytesLike = bytes | bytearray | memoryview | npt.NDArray[np.uint8]

class RomLoadError(ValueError):
    """The ROM (or boot ROM) image was refused: too small, bad header checksum, unsupported mapper..."""

class StateLoadError(ValueError):
    """A save state could not be loaded (truncated, another ROM or profile, corrupt)."""

class EmulatorFault(RuntimeError):
    """The emulated CPU locked up (illegal opcode); the emulator stays in that state."""

class GameBoy:
    """One Game Boy (DMG)."""

    def __init__(self, rom: BytesLike, *, boot_rom: BytesLike | None = None, profile: Profile = "pyboy") -> None: ...
    def tick(self, frames: int = 1, render: bool = True) -> None:
        """Advances `frames` frames (PyBoy's tick); only the last is drawn when `render`.
        Raises EmulatorFault if the CPU has locked up. Releases the GIL."""
    buttons: int
    """Buttons held from the next frame on, as a bitmask (see BUTTON_NAMES)."""
    def press(self, button: str) -> None: ...
    def release(self, button: str) -> None: ...
    def screen(self, format: Literal["rgb", "gray", "shades"] = "rgb") -> npt.NDArray[np.uint8]:
        """A new array: (144, 160, 3) RGB, (144, 160) gray intensities, or (144, 160) shades 0-3."""
    def read(self, addr: int) -> int:
        """Reads a byte as the CPU would now (I/O registers caught up; 0xFFFF is IE)."""
    def read_range(self, start: int, end: int) -> bytes: ...
    def peek_bytes(self, addresses: Sequence[int]) -> bytes:
        """Reads bytes without side effects (no device catch-up, no locks)."""
    def peek_range(self, start: int, end: int) -> bytes: ...
    def write(self, addr: int, value: int) -> None: ...
    def registers(self) -> dict[str, int | bool]:
        """a f b c d e h l sp pc, ime, halted."""
    @property
    def cycles(self) -> int:
        """T-cycles since power-on."""
    @property
    def frame_count(self) -> int: ...
    @property
    def profile(self) -> Profile: ...
    @property
    def title(self) -> str: ...
    @property
    def fault(self) -> str | None: ...
    def serial_output(self) -> bytes:
        """Bytes written to the serial port (SB) since the last call."""
    def cartridge_ram(self) -> bytes:
        """Cartridge RAM, all banks."""
    def save_state(self) -> bytes: ...
    def load_state(self, state: BytesLike) -> None:
        """Restores a state of the same ROM and profile; raises StateLoadError and changes nothing otherwise."""

class VecGameBoy:
    """N emulators of one ROM stepped together by the calling thread and `num_threads - 1` persistent
    workers (0 = one thread per core), the GIL released."""

    def __init__(
        self,
        rom: BytesLike,
        num_envs: int,
        frame_skip: int = 1,
        *,
        screen: Literal["gray", "rgb"] | None = "gray",
        downscale: int = 1,
        ram_addresses: Sequence[int] = (),
        action_table: Sequence[int] | None = None,
        boot_rom: BytesLike | None = None,
        profile: Profile = "pyboy",
        num_threads: int = 0,
    ) -> None: ...
    def step(
        self,
        actions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | npt.NDArray[np.int64],
        screen_out: npt.NDArray[np.uint8] | None = None,
        ram_out: npt.NDArray[np.uint8] | None = None,
    ) -> None:
        """Advances every emulator `frame_skip` frames holding `actions` (button masks, or indices into
        `action_table`) and writes observations into the caller's arrays: `screen_out` of
        `screen_shape` and `ram_out` of `ram_shape`, uint8, C-contiguous, writeable."""
    def observe(self, screen_out: npt.NDArray[np.uint8] | None = None, ram_out: npt.NDArray[np.uint8] | None = None) -> None:
        """Writes the current observations without stepping."""
    def faults(self) -> list[str | None]: ...
    def save_state(self, index: int) -> bytes: ...
    def load_state(self, index: int, state: BytesLike) -> None: ...
    reset_state: bytes | None
    """The state `reset` restores (None: power-on)."""
    def reset(self, mask: npt.NDArray[np.bool_] | None = None) -> None:
        """Puts the emulators where `mask` is true (all if None) back to `reset_state`."""
    @property
    def num_envs(self) -> int: ...
    @property
    def frame_skip(self) -> int: ...
    @property
    def num_threads(self) -> int: ...
    @property
    def screen_shape(self) -> list[int] | None: ...
    @property
    def ram_shape(self) -> list[int]: ...
    @property
    def ram_addresses(self) -> list[int]: ...
    @property
    def action_table(self) -> list[int] | None: ...
    def __len__(self) -> int: ...

def observe_screen(gameboy: GameBoy, screen: Literal["gray", "rgb"] = "gray", downscale: int = 1) -> npt.NDArray[np.uint8]:
    """A GameBoy's screen converted exactly as VecGameBoy's screen observation."""
