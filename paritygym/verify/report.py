"""Parity reports: what a verification level checked, and whether it passed."""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any, Iterable, Sequence


@dataclasses.dataclass
class ParityReport:
    """One verification result.

    Attributes:
        env_id: the env checked.
        level: 1 (module properties), 2 (interactions), 3 (rollouts), 4 (policy transfer).
        name: what was checked, e.g. "random policy, frameskip 4".
        passed: whether it met its criterion.
        episodes / steps: how much was compared.
        tolerance: the criterion, e.g. "exact (bit-identical float32)" or "1e-3 abs".
        details: numbers behind the verdict (max errors, divergence horizons, p-values...).
        failure: the first divergence or the reason it failed, when it failed.
    """

    env_id: str
    level: int
    name: str
    passed: bool
    episodes: int = 0
    steps: int = 0
    tolerance: str = "exact"
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    failure: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def format_reports(reports: Sequence[ParityReport]) -> str:
    """A plain-text table of reports."""
    header = f"{'env':<22} {'level':<5} {'check':<44} {'episodes':>8} {'steps':>10} {'tolerance':<28} result"
    lines = [header, "-" * len(header)]
    for r in reports:
        result = "PASS" if r.passed else f"FAIL: {r.failure or ''}"
        lines.append(
            f"{r.env_id:<22} L{r.level:<4} {r.name[:44]:<44} {r.episodes:>8} {r.steps:>10} {r.tolerance[:28]:<28} {result}"
        )
    passed = sum(r.passed for r in reports)
    lines.append(f"{passed}/{len(reports)} checks passed")
    return "\n".join(lines)


def write_reports(reports: Iterable[ParityReport], path: str | pathlib.Path) -> pathlib.Path:
    """Writes reports as JSON (a list of dicts)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([r.to_dict() for r in reports], indent=2, default=_jsonable) + "\n")
    return path


def _jsonable(value: Any) -> Any:
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def write_markdown(reports: Sequence[ParityReport], path: str | pathlib.Path, command: str = "") -> pathlib.Path:
    """A Markdown report (table plus each check's details), for docs/verification/."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# Parity report: {', '.join(sorted({r.env_id for r in reports}))}", ""]
    if command:
        lines += [f"Regenerate with `{command}`.", ""]
    lines += ["| level | check | episodes | criterion | result |", "|---|---|---|---|---|"]
    for r in reports:
        result = "pass" if r.passed else f"FAIL: {r.failure}"
        lines.append(f"| L{r.level} | {r.name} | {r.episodes} | {r.tolerance} | {result} |")
    lines.append("")
    for r in reports:
        if r.details:
            lines += [f"## {r.name}", "", "```json", json.dumps(r.details, indent=1, default=_jsonable), "```", ""]
    path.write_text("\n".join(lines))
    return path
