"""emurust: a Game Boy emulator in Rust for reinforcement learning."""

from emurust._emurust import __version__

__all__ = ["__version__"]
