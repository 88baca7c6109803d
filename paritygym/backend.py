"""Which form of a batched env step the backend gets: the CPU form or the accelerator form.

XLA:CPU and an accelerator reward different programs for the same rules:

- On the CPU, work skipped is time saved: running a rare mechanic only on the few envs that need it
  (gathered into a sub-batch), and writing a packed row with one scatter, are the fast forms.
- On an accelerator (TPU, GPU) width is nearly free and every kernel launch, loop trip and gather
  is latency while the vector units idle. The TPU backend also turns a scatter or gather whose
  indices differ per env into a sequential loop over the envs. There, the fast form runs the work
  on the whole batch under a mask and writes with selects.

Code that has two forms asks ``accelerator_form()`` when it is traced. Both forms give bit-identical
results; the tests force each one on the CPU with ``forced_form`` and compare them.

Which form runs is set by the environment variable ``PARITYGYM_STEP_FORM``: ``auto`` (the default:
the CPU form on the CPU backend, the accelerator form on any other), ``cpu`` or ``accelerator``.
On a TPU v5e the accelerator form is the faster one for both engines (Pokémon 237 K against 62 K
env steps/s, TCG 133 K against 42 K, batch 4,096; docs/benchmarks).
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator, Literal

import jax

Form = Literal["cpu", "accelerator"]
FORM_VARIABLE = "PARITYGYM_STEP_FORM"
_CHOICES = ("cpu", "accelerator", "auto")
_forced: Form | None = None


def step_form() -> Form:
    """The form for programs traced now: ``forced_form``'s if one is forced, else the one
    ``PARITYGYM_STEP_FORM`` names (default ``auto``: ``form_for_backend(jax.default_backend())``)."""
    if _forced is not None:
        return _forced
    chosen = os.environ.get(FORM_VARIABLE, "auto").strip().lower() or "auto"
    if chosen not in _CHOICES:
        raise ValueError(f"{FORM_VARIABLE} must be one of {', '.join(_CHOICES)}; got {chosen!r}")
    if chosen == "auto":
        return form_for_backend(jax.default_backend())
    return chosen  # type: ignore[return-value]


def form_for_backend(backend: str) -> Form:
    """The form ``auto`` picks for a JAX backend name: ``cpu`` for XLA:CPU, ``accelerator`` for any
    other (``tpu``, ``gpu``/``cuda``/``rocm``)."""
    return "cpu" if backend == "cpu" else "accelerator"


def accelerator_form() -> bool:
    return step_form() == "accelerator"


@contextlib.contextmanager
def forced_form(form: Form) -> Iterator[None]:
    """Trace with ``form`` whatever the backend. Read at trace time only: a function jitted and
    traced before keeps the form it was traced with, so build fresh jitted functions (and fresh
    env objects, whose methods cache their traces) inside the block."""
    global _forced
    if form not in ("cpu", "accelerator"):
        raise ValueError(f"form must be 'cpu' or 'accelerator', got {form!r}")
    previous, _forced = _forced, form
    try:
        yield
    finally:
        _forced = previous
