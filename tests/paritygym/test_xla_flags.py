"""paritygym's default XLA flags (paritygym/xla_flags.py): merged into XLA_FLAGS without overriding
the user's, applied on import before a backend starts, and really read by XLA."""

from __future__ import annotations

import os
import subprocess
import sys

from paritygym.xla_flags import DEFAULT_XLA_FLAGS, merged_xla_flags

REGION_ANALYSIS = "--xla_cpu_copy_insertion_use_region_analysis"


def test_merge_adds_the_defaults_and_keeps_the_users_flags():
    assert merged_xla_flags("") == " ".join(DEFAULT_XLA_FLAGS)
    merged = merged_xla_flags("--xla_force_host_platform_device_count=2")
    assert merged.split() == ["--xla_force_host_platform_device_count=2", *DEFAULT_XLA_FLAGS]
    # The user's own value of a default flag wins, and is not repeated.
    assert merged_xla_flags(f"{REGION_ANALYSIS}=false") == f"{REGION_ANALYSIS}=false"
    assert merged_xla_flags(merged) == merged


# A program whose in-place column writes are each followed by reads of columns they do not touch:
# XLA's default copy insertion copies the whole array before such writes, region analysis does not.
_COPIES_PROGRAM = """
import paritygym, jax, jax.numpy as jnp, os
def writes(x):
    for i in range(4):
        x = x.at[:, i].set(x[:, 10 + i] * 3 + x[:, 20])
        x = x.at[:, 30 + i].set(jnp.where(x[:, i] > 5, x[:, 40 + i], x[:, 20 - i]))
    return x
program = jax.jit(lambda x: jax.lax.fori_loop(0, 3, lambda _, x: writes(x), x), donate_argnums=0)
text = program.lower(jnp.ones((1024, 64), jnp.int32)).compile().as_text()
print(os.environ.get("XLA_FLAGS", ""), "|", sum(" copy(" in line for line in text.splitlines()))
"""


def _copies(**env_changes: str) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PARITYGYM_XLA_FLAGS")}
    env.update(env_changes, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", _COPIES_PROGRAM], env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout.strip().splitlines()[-1]
    flags, copies = out.rsplit("|", 1)
    return flags.strip(), int(copies)


def test_importing_paritygym_sets_the_flags_xla_reads_them_and_opting_out_works():
    flags_on, copies_on = _copies()
    flags_off, copies_off = _copies(PARITYGYM_XLA_FLAGS="0")
    assert flags_on.split() == list(DEFAULT_XLA_FLAGS) and flags_off == ""
    assert copies_on < copies_off, (copies_on, copies_off)
