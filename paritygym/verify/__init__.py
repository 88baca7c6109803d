"""The verification harness every env uses: reference adapters, L3 rollout comparison, L4 TOST, reports."""

from paritygym.verify.adapter import Record, ReferenceAdapter
from paritygym.verify.compare import (
    Divergence,
    TrajectoryComparison,
    assert_trajectories_match,
    compare_trajectories,
)
from paritygym.verify.report import ParityReport, format_reports, write_markdown, write_reports
from paritygym.verify.tost import TostResult, tost

__all__ = [
    "Divergence",
    "ParityReport",
    "Record",
    "ReferenceAdapter",
    "TostResult",
    "TrajectoryComparison",
    "assert_trajectories_match",
    "compare_trajectories",
    "format_reports",
    "tost",
    "write_markdown",
    "write_reports",
]
