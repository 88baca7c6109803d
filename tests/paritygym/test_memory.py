"""paritygym.memory: with freed memory kept, a jitted program's large buffers stop faulting pages in at
every call; without it (a fresh process with the opt-out set) they do."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import paritygym
from paritygym import memory

# A program whose 47 MiB output is malloc'd at every call and freed before the next; prints the median
# of the minor page faults of its last 9 calls (the top padding lets a rare call, ~2 in 100 seen, land
# its block in fresh heap once more). Over 32 MiB, glibc's largest mmap threshold: by default
# every call maps it afresh (pokejax's step at batch 2,048 on one device has a temporary block this big).
_FAULTS = textwrap.dedent("""
    import resource, sys
    import paritygym
    print("applied", paritygym.keep_freed_memory())
    import jax, jax.numpy as jnp
    # on the calling thread: malloc's main arena (XLA's worker threads allocate from glibc's per-thread
    # arenas, whose heaps the settings keep less reliably)
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    f = jax.jit(lambda x: jnp.sin(jnp.outer(x, x)) * 2)
    x = jnp.linspace(0, 1, 3500)
    # warm-up: with the top padding the block may land in fresh heap in the first calls (up to ~10 seen)
    for _ in range(20):
        f(x).block_until_ready()
    per_call = []
    for _ in range(9):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        f(x).block_until_ready()
        per_call.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    print("faults", sorted(per_call)[4])
""")


def _faults_per_call(keep: bool) -> tuple[bool, float]:
    # one CPU device whatever the calling process set (other tests' CLIs add a device count to XLA_FLAGS):
    # with several, XLA runs the program on its worker threads, outside the main arena
    env = dict(os.environ, PARITYGYM_KEEP_FREED_MEMORY="1" if keep else "0", JAX_PLATFORMS="cpu", XLA_FLAGS="")
    out = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    return lines["applied"] == "True", float(lines["faults"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_kept_memory_stops_page_faults_per_call():
    applied, faults_kept = _faults_per_call(True)
    not_applied, faults_default = _faults_per_call(False)
    assert applied and not not_applied
    # 47 MiB is 11,963 pages: by default each call faults them in again
    assert faults_default > 6000, faults_default
    assert faults_kept < 100, faults_kept


def test_idempotent_and_exported():
    first = memory.keep_freed_memory()
    assert memory.keep_freed_memory() is first
    assert paritygym.keep_freed_memory is memory.keep_freed_memory
