"""The planar rigid-body engine: MuJoCo's step for models whose bodies move in the x-z plane
(slide joints along x and z, hinges about y), batch-last arrays.

Modules, in the order a step runs them: ``model`` (constants from a compiled MuJoCo model),
``maps`` and ``treeops`` (the tree recursions as array operations), ``spatial`` (planar spatial
algebra), ``kinematics``, ``dynamics``, ``collision``, ``constraint``, ``linalg`` and ``solver``,
and ``step`` (mj_forward + mj_Euler; ``make_multi_step`` for an env's substeps).
"""
