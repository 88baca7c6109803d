"""Keeping freed memory in the process, so XLA:CPU programs do not fault their buffers in afresh.

An XLA:CPU program allocates its temporary block (tens of MB for a batched env step) and its outputs at
every call and frees them at the end. glibc's malloc serves a block over its mmap threshold (adaptive,
at most 32 MiB) with a fresh ``mmap`` and unmaps it on ``free``, so such a call touches new pages: the
kernel zeroes and maps each 4 KiB page on first touch. pokejax's step at batch 2,048 on one JAX device
faulted ~8,400 pages per call, about a third of its CPU time spent in the kernel (``getrusage``: minor
faults and system time per call). With mmap and heap trimming off, freed blocks stay in malloc's heap
and the next call reuses them: no faults (the same program: 17.3-17.8 -> 11.8 CPU us per env step;
``python scripts/page_faults.py PokemonGen1RandomPool-v0 --batch 2048``).

XLA's worker threads (asynchronous dispatch, several devices) allocate from glibc's per-thread arenas,
whose memory comes in heaps of 64 MiB; a heap that becomes empty is unmapped and mapped afresh at the
next call unless malloc keeps top padding (``M_TOP_PAD``) about as large as the blocks, so 32 MiB of it
is set too (pokejax on 2 devices at batch 4,096, a 32.8 MiB temporary block per device: 3,900-16,800
faults per call without it, 0-1,300 with it; ``paritygym bench PokemonGen1RandomPool-v0 --batch 4096``
124,180 -> 186,889 steps/s). Its price: in the first calls (up to ~10 seen), and in a rare later one
(~2 in 100 seen), a large block may land in fresh heap and fault its pages in once more, so the
resident size grows by a few such blocks.
Limits: a block over 64 MiB cannot fit a thread arena's heap and is still mapped on its own (pokejax at
batch 8,192 on 2 devices), so there the faults remain.

The cost is the usual one of such allocator settings (PyTorch and TensorFlow recommend jemalloc or
tcmalloc for the same reason): memory freed by the process is kept for reuse rather than returned to
the operating system, so the resident size stays near its peak. The settings are process-wide, so
paritygym never applies them on import: its command lines (``paritygym bench``, ``verify``, the
training examples, the benchmark scripts) and the test suite call ``keep_freed_memory()``; a training
script of your own may call it once at start.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

# mallopt parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4
_M_TOP_PAD = -2
_MAX_MMAP_THRESHOLD = 32 * 1024 * 1024   # glibc's upper limit on 64-bit
_NO_TRIM = 2**31 - 1

_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Sets glibc's malloc to keep freed blocks for reuse (no mmap of large blocks, no trimming of the
    heap, 32 MiB of top padding). Returns True if the settings are in force (now or from an earlier
    call), False where they cannot apply (not Linux with glibc) or ``PARITYGYM_KEEP_FREED_MEMORY=0`` is
    set. Idempotent."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = False
    if os.environ.get("PARITYGYM_KEEP_FREED_MEMORY", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):   # musl and others have no mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # The first three are all needed: with mmap off and trimming off but the default threshold,
    # pokejax's step still faulted ~3,000-4,000 pages per call (getrusage's minor faults); the top
    # padding keeps the per-thread arenas' emptied heaps (see the module docstring).
    ok = (mallopt(_M_MMAP_THRESHOLD, _MAX_MMAP_THRESHOLD) == 1 and mallopt(_M_MMAP_MAX, 0) == 1
          and mallopt(_M_TRIM_THRESHOLD, _NO_TRIM) == 1
          and mallopt(_M_TOP_PAD, _MAX_MMAP_THRESHOLD) == 1)
    _applied = bool(ok)
    return _applied
