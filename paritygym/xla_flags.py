"""XLA options paritygym turns on for every program of the process, and how to opt out.

XLA reads ``XLA_FLAGS`` once, when JAX starts its first backend, so these are added to the
environment when ``paritygym`` is imported, provided no backend has started yet (importing JAX
alone starts none; running a JAX computation does). A flag that ``XLA_FLAGS`` already names keeps
the user's value. ``PARITYGYM_XLA_FLAGS=0`` in the environment turns the defaults off.

The defaults change how XLA compiles, never what a program computes (the parity suites run with
them, as users do):

``--xla_cpu_copy_insertion_use_region_analysis=true``
    XLA:CPU's copy insertion then looks inside loop and conditional bodies before it copies an
    array that is written in place while an older version is still read (XLA:GPU does this by
    default). The packed state arrays of the game engines were copied whole hundreds of times per
    step without it: the Pokémon bench program ran 12-17 % more steps per CPU second with it
    (docs/dev/progress-pokemon-env.md, session of 2026-12-02).
"""

from __future__ import annotations

import os

DEFAULT_XLA_FLAGS: tuple[str, ...] = ("--xla_cpu_copy_insertion_use_region_analysis=true",)
OPT_OUT_VARIABLE = "PARITYGYM_XLA_FLAGS"


def _flag_name(flag: str) -> str:
    return flag.split("=", 1)[0]


def merged_xla_flags(existing: str, defaults: tuple[str, ...] = DEFAULT_XLA_FLAGS) -> str:
    """``existing`` (an ``XLA_FLAGS`` value) plus each default whose name it does not already set."""
    named = {_flag_name(word) for word in existing.split()}
    added = [flag for flag in defaults if _flag_name(flag) not in named]
    return " ".join([*existing.split(), *added])


def apply_default_xla_flags() -> bool:
    """Adds the default flags to ``XLA_FLAGS`` unless opted out or too late (a JAX backend has
    already started). Returns whether ``XLA_FLAGS`` now holds them for the backends to come."""
    if os.environ.get(OPT_OUT_VARIABLE, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        return False
    os.environ["XLA_FLAGS"] = merged_xla_flags(os.environ.get("XLA_FLAGS", ""))
    return True
