"""Shared by the example tests: load a script from examples/ as a module, and check what a PPO
example run leaves behind (metrics, curve, a checkpoint that reloads bit for bit)."""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
from types import ModuleType

import jax
import numpy as np

from paritygym.train import load_checkpoint

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    """``examples/<name>.py`` imported as a module (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
