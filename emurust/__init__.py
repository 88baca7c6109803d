"""emurust: a Game Boy (DMG) emulator in Rust for reinforcement learning.

    gb = emurust.GameBoy(open("game.gb", "rb").read())
    gb.tick(60)
    vec = emurust.VecGameBoy(rom, num_envs=64, frame_skip=4, screen="gray", downscale=2)

See docs/envs/gameboy.md.
"""

from emurust._emurust import (
    BUTTON_NAMES,
    DEFAULT_BOOT_ROM,
    SCREEN_SHAPE,
    EmulatorFault,
    GameBoy,
    RomLoadError,
    StateLoadError,
    VecGameBoy,
    __version__,
    observe_screen,
)

__all__ = [
    "BUTTON_NAMES",
    "DEFAULT_BOOT_ROM",
    "SCREEN_SHAPE",
    "EmulatorFault",
    "GameBoy",
    "RomLoadError",
    "StateLoadError",
    "VecGameBoy",
    "__version__",
    "observe_screen",
]
