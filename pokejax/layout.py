"""Named blocks of a flat observation vector, shared by the Gen 1 and Gen 9 observations."""

from __future__ import annotations

from typing import Iterable, Sequence


def layout(sections: Iterable[tuple[str, Sequence[tuple[str, int]]]], size: int) -> list[tuple[str, int, int]]:
    """``(name, start, length)`` of every block, for ``sections`` of ``(prefix, fields)`` laid end to end
    in order (a block is named ``prefix.field``); they must fill ``size`` exactly."""
    out, pos = [], 0
    for prefix, fields in sections:
        for name, n in fields:
            out.append((f"{prefix}.{name}", pos, n))
            pos += n
    if pos != size:
        raise ValueError(f"the blocks fill {pos} entries, the observation has {size}")
    return out
