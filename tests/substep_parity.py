"""The substep parity check shared by the HalfCheetah and Climb tests (see planarjax.substeps)."""

from __future__ import annotations

from planarjax import substeps
from planarjax.physics.model import PlanarModel

TOLERANCE = 1e-10  # float64 qpos and qvel after every substep
# qacc (the next warm start): a substep moves qvel by h * qacc with h <= 0.01, so 1e-8 is the qvel
# bound. It is absolute: near rest qacc is ~0 while the forces it balances are not.
QACC_TOLERANCE = 1e-8


def check_substeps(model: PlanarModel, records: substeps.Records) -> dict[str, float]:
    result = substeps.compare(records, substeps.engine_substeps(model, records))
    print(f"\n{len(records['ctrl'])} transitions: {result}")
    # The gait must exercise the solver: constraints in most substeps, multi-step solves, and solves
    # the warm start ends early (0 iterations with constraints present).
    assert result["with_constraints"] >= 0.3 * result["substeps"], result
    assert result["max_niter"] >= 3, result
    assert result["warm_start_exits"] >= 100, result
    assert result["niter_mismatches"] == 0, result
    assert result["qpos"] <= TOLERANCE and result["qvel"] <= TOLERANCE, result
    assert result["qacc"] <= QACC_TOLERANCE, result
    return result
