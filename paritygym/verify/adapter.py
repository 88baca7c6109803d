"""The protocol every reference adapter implements.

An adapter drives the real reference system (Showdown under node, MuJoCo's C engine, the C Pong,
PyBoy, the Python TCG engine) so that tests can run it side by side with our env. Records are
flat dicts of named numpy arrays ("obs", "reward", "terminated", "ball_x", ...), the same names on
both sides, so `compare_trajectories` can compare them field by field.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

Record = Mapping[str, np.ndarray]


@runtime_checkable
class ReferenceAdapter(Protocol):
    """A reference system seen through the same record format as our env."""

    def reset(self, seed: int) -> Record:
        """Starts an episode; returns the first record (observation and full comparable state)."""
        ...

    def step(self, action: Any) -> Record:
        """Applies one action (or one per player); returns the record after it."""
        ...

    def get_state(self) -> Record:
        """The full comparable state now."""
        ...

    def set_state(self, state: Record) -> None:
        """Injects a state (for one-step tests from arbitrary states). May raise NotImplementedError."""
        ...

    def close(self) -> None:
        """Releases processes, libraries or files the reference holds."""
        ...
