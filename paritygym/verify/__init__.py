"""The verification harness every env uses: reference adapters, L3 rollout comparison, L4 TOST, reports."""

from paritygym.verify.adapter import Record, ReferenceAdapter
from paritygym.verify.compare import (
    Divergence,
    TrajectoryComparison,
    assert_trajectories_match,
    compare_trajectories,
)
from paritygym.verify.report import ParityReport, format_reports, write_markdown, write_reports
from paritygym.verify.tost import TostResult, check_transfer_request, tost, transfer_report

__all__ = [
    "Divergence",
    "ParityReport",
    "Record",
    "ReferenceAdapter",
    "TostResult",
    "TrajectoryComparison",
    "assert_trajectories_match",
    "check_transfer_request",
    "compare_trajectories",
    "format_reports",
    "tost",
    "transfer_report",
    "write_markdown",
    "write_reports",
]
