"""Pong state -> RGB frame (numpy), for GIFs of trained policies."""

from __future__ import annotations

from typing import Any

import numpy as np

from pongjax.game import PongParams


def render_state(state: Any, params: PongParams | None = None, scale: float = 0.25) -> np.ndarray:
    """An RGB frame (uint8 [H, W, 3]) of one env's state (`EnvState` or `PongState`, host arrays).

    The court is drawn with y pointing up (row 0 is the top), the opponent's paddle on the left in
    grey, the agent's on the right in white, the ball in orange; scores as pips along the top.
    """
    p = params or PongParams()
    s = getattr(state, "game", state)
    height, width = int(round(float(p.height) * scale)), int(round(float(p.width) * scale))
    frame = np.zeros((height, width, 3), np.uint8)
    frame[:, :] = (18, 24, 38)

    def box(x0: float, y0: float, w: float, h: float, color: tuple[int, int, int]) -> None:
        # Court coordinates (y up) to pixel rows (row 0 at the top).
        c0, c1 = int(np.floor(x0 * scale)), int(np.ceil((x0 + w) * scale))
        r0, r1 = int(np.floor(height - (y0 + h) * scale)), int(np.ceil(height - y0 * scale))
        frame[max(r0, 0) : max(min(r1, height), 0), max(c0, 0) : max(min(c1, width), 0)] = color

    box(width / scale / 2 - 1, 0, 2, float(p.height), (60, 70, 90))  # centre line
    box(0, float(s.paddle_yl), float(p.paddle_width), float(p.paddle_height), (150, 150, 160))
    box(float(p.width) - float(p.paddle_width), float(s.paddle_yr), float(p.paddle_width), float(p.paddle_height), (240, 240, 240))
    box(float(s.ball_x), float(s.ball_y), float(p.ball_width), float(p.ball_height), (255, 160, 40))
    for i in range(int(s.score_l)):
        frame[2:5, 4 + 4 * i : 6 + 4 * i] = (150, 150, 160)
    for i in range(int(s.score_r)):
        frame[2:5, width - 6 - 4 * i : width - 4 - 4 * i] = (240, 240, 240)
    return frame
