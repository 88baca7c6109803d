"""planarjax: the planar rigid-body engine that HalfCheetah-v0 (cheetahjax) and Climb-v0
(climbjax) run on: MuJoCo's pipeline (mj_forward then mj_Euler) re-implemented in JAX for planar
trees, and verified against MuJoCo 4.0.0's C engine.

- ``planarjax.physics``: the engine (model constants, kinematics, dynamics, collision,
  constraints, the Newton solver, the step).
- ``planarjax.env.PlanarPhysicsEnv``: the gymnax base class of the envs that run on it.
- ``planarjax.substeps``: the substep parity check with MuJoCo (each env brings its gaits).

The engine needs only JAX at run time; MuJoCo is needed to compile a model's constants
(``planarjax.physics.model.fields_from_mjmodel``) and by the parity checks.
"""
