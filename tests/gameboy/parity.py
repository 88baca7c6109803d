"""Shared pieces of the PyBoy parity tests: button scripts and a scripted CATCH player."""

from __future__ import annotations

import numpy as np

import emurust

#: Masks a player of CATCH would use (plus nothing).
CATCH_MASKS = [0, 0x08, 0x10, 0x20, 0x11, 0x21, 0x01]


def catch_player(seed: int, epsilon: float = 0.1):
    """A scripted CATCH player: chases the lowest fruit or coin, steps away from bombs, presses
    START on the title and game-over screens; takes a random action with probability `epsilon`.
    It reads our emulator's RAM (C0A0-C0B9, see roms/catch/main.c)."""
    rng = np.random.default_rng(seed)

    def policy(step: int, gb: emurust.GameBoy) -> int:
        if rng.random() < epsilon:
            return int(rng.choice(CATCH_MASKS))
        ram = gb.peek_range(0xC0A0, 0xC0BA)
        state, paddle = ram[3], ram[4]
        if state != 1:
            return 0x08 if step % 8 < 2 else 0
        best = None
        for i in range(6):
            kind, x, y = ram[8 + 3 * i:11 + 3 * i]
            if kind in (1, 2) and (best is None or y > best[1]):
                best = (x, y)
            if kind == 3 and y > 90 and abs(int(x) - (paddle + 8)) < 14:
                return 0x21 if x > paddle + 8 else 0x11
        if best is None:
            return 0
        centre = paddle + 12
        if best[0] + 4 < centre - 3:
            return 0x20
        if best[0] + 4 > centre + 3:
            return 0x10
        return 0

    return policy


def random_script(seed: int, steps: int, masks=None, hold=(1, 30)) -> np.ndarray:
    from emurust.reference import random_buttons

    return random_buttons(np.random.default_rng(seed), steps, hold=hold, allowed=masks)
