"""Shared by the example tests: load a script from examples/ as a module, and check what a PPO
example run leaves behind (metrics, curve, a checkpoint that reloads bit for bit)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import pathlib
from collections.abc import Iterator
from types import ModuleType

import jax
import numpy as np

from paritygym.train import load_checkpoint

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load_script(path: pathlib.Path) -> ModuleType:
    """The script at ``path`` imported as a module (examples/ and scripts/ are scripts, not packages)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_example(name: str) -> ModuleType:
    """``examples/<name>.py`` imported as a module."""
    return load_script(EXAMPLES / f"{name}.py")


@contextlib.contextmanager
def quick_compiles() -> Iterator[None]:
    """XLA compiles with most optimisations off inside the block (``jax_disable_most_optimizations``:
    LLVM backend level 0, no expensive passes), for smoke runs whose cost is compiling programs that
    then run a few updates: about a third less CPU for the Pokémon and TCG ones, the same computation
    (floating-point results may round differently). Programs compiled here have their own
    persistent-cache keys (the flag is in the compile options); JAX's in-memory caches are cleared when
    the block ends."""
    previous = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", True)
    try:
        yield
    finally:
        jax.config.update("jax_disable_most_optimizations", previous)
        # The flag is not part of the in-memory jit caches' keys: drop what was compiled here, so that
        # later tests in this process compile (or load from the persistent cache) optimised programs.
        jax.clear_caches()


def check_saved_run(result, out_dir: pathlib.Path, min_steps: int) -> None:
    """The run trained ``min_steps`` or more with finite losses, wrote metrics.json (same step
    count), metrics.csv and curve.png, and its checkpoint reloads to the returned parameters."""
    assert result.steps >= min_steps
    last = result.history[-1]
    assert all(math.isfinite(last[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl")), last
    metrics = json.loads((out_dir / "metrics.json").read_text())
    assert metrics["steps"] == result.steps and (out_dir / "metrics.csv").exists() and (out_dir / "curve.png").exists()
    _, params, _ = load_checkpoint(out_dir / "checkpoint.msgpack")
    for a, b in zip(jax.tree.leaves(result.params), jax.tree.leaves(params)):
        assert np.array_equal(a, b)
