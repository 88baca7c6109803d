"""Shared base of the gymnax environments that run on the planar physics engine
(HalfCheetah-v0 in cheetahjax, Climb-v0 in climbjax).

It owns what every such env does the same way: argument checks, the model cast to the chosen
precision, the fused multi-step physics function, the float64 guard and the box action space of
the model's actuators. The task (observation, reward, reset, termination) stays in each env.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from gymnax.environments import environment, spaces

from paritygym.checks import check_value
from planarjax.physics.model import PlanarModel
from planarjax.physics.step import make_multi_step

PRECISIONS = ("float32", "float64")


class PlanarPhysicsEnv(environment.Environment):
    """A gymnax env whose agent step is `substeps` physics steps of `model`.

    Args:
        model: the engine's model in float64 (it is cast to `precision` here).
        precision: "float32" (default, fast) or "float64" (needs 64-bit JAX when the env is used).
        substeps: physics steps per agent step.
        solver_iterations: cap on Newton iterations per physics step; None: the model's
            opt.iterations, as MuJoCo.
    """

    substeps_argument = "substeps"  # the name a subclass's constructor gives `substeps` (for errors)

    def __init__(self, model: PlanarModel, precision: str, substeps: int, solver_iterations: int | None):
        super().__init__()
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        substeps = check_value(self.substeps_argument, substeps, "int", ge=1)
        if solver_iterations is not None:   # None: MuJoCo's own cap (the model's opt.iterations)
            solver_iterations = check_value("solver_iterations", solver_iterations, "int", ge=1)
        self.precision = precision
        self.dtype = np.dtype(precision)
        self.model = model.astype(self.dtype)
        self.dt = float(self.model.timestep) * substeps
        self._multi_step = make_multi_step(self.model, substeps, solver_iterations)

    def _check_precision(self) -> None:
        """Fail clearly instead of silently computing a float64 env in float32."""
        if self.dtype == np.float64 and not jax.config.jax_enable_x64:
            raise RuntimeError(f"{type(self).__name__}(precision='float64') needs 64-bit JAX: call "
                               "jax.config.update('jax_enable_x64', True) or use `with jax.enable_x64(True):`")

    @property
    def num_actions(self) -> int:
        return self.model.nu

    def action_space(self, params: object = None) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (self.model.nu,), jnp.float32)
