"""L3 rollout comparison: our trajectory against the reference's, field by field, step by step."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence, Union

import numpy as np

Record = Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class Divergence:
    """The first place two trajectories differ beyond tolerance."""

    step: int
    field: str
    index: tuple[int, ...] | None
    ours: Any
    reference: Any
    abs_error: float

    def __str__(self) -> str:
        where = f"{self.field}{list(self.index) if self.index else ''}"
        return (
            f"step {self.step}, field {where}: ours={self.ours!r} reference={self.reference!r}"
            f" (|error|={self.abs_error:.3g})"
        )


@dataclasses.dataclass
class TrajectoryComparison:
    """The result of comparing two trajectories.

    Attributes:
        steps: number of records compared (the shorter length when lengths differ).
        first_divergence: first step/field beyond tolerance, or None when they agree.
        max_abs_error: per field, the largest absolute error over all compared steps.
        step_linf: per step, the largest absolute error over all numeric fields.
        length_ours / length_reference: the two trajectory lengths.
    """

    steps: int
    first_divergence: Divergence | None
    max_abs_error: dict[str, float]
    step_linf: np.ndarray
    length_ours: int
    length_reference: int

    @property
    def matched(self) -> bool:
        return self.first_divergence is None and self.length_ours == self.length_reference

    def first_step_above(self, threshold: float) -> int | None:
        """The first step whose L-inf error exceeds ``threshold`` (None if none does)."""
        above = np.flatnonzero(self.step_linf > threshold)
        return int(above[0]) if above.size else None

    def describe(self) -> str:
        if self.matched:
            return f"{self.steps} steps identical within tolerance (max |error| {max(self.max_abs_error.values(), default=0.0):.3g})"
        if self.first_divergence is not None:
            return f"diverged at {self.first_divergence}"
        return f"lengths differ: ours {self.length_ours} steps, reference {self.length_reference} steps"


Trajectory = Union[Sequence[Record], Mapping[str, Any]]


def _stack(traj: Trajectory, names: Sequence[str] | None) -> tuple[dict[str, np.ndarray], int]:
    """A trajectory as a dict of arrays with time as the leading axis."""
    if isinstance(traj, Mapping):
        arrays = {k: np.asarray(v) for k, v in traj.items()}
        lengths = {v.shape[0] if v.ndim else -1 for v in arrays.values()}
        if len(lengths) != 1 or -1 in lengths:
            raise ValueError(f"stacked trajectory fields must share a leading time axis, got lengths {sorted(lengths)}")
        return arrays, lengths.pop()
    if len(traj) == 0:
        return {}, 0
    keys = names if names is not None else list(traj[0].keys())
    out = {}
    for k in keys:
        for t, rec in enumerate(traj):
            if k not in rec:
                raise KeyError(f"field {k!r} missing at step {t}")
        try:
            out[k] = np.stack([np.asarray(rec[k]) for rec in traj])
        except ValueError as exc:
            raise ValueError(f"field {k!r} changes shape along the trajectory: {exc}") from None
    return out, len(traj)


def _field_error(ours: np.ndarray, ref: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-element absolute error and per-element 'outside tolerance' flags.

    With tol == 0 the comparison is exact: floats must be identical (NaN matches NaN, +0.0 matches
    -0.0), integers and bools equal.
    """
    if ours.dtype == object or ref.dtype == object:
        raise TypeError("record values must be numeric arrays")
    if ours.dtype.kind == "b" or ref.dtype.kind == "b":
        diff = ours.astype(bool) != ref.astype(bool)
        return diff.astype(np.float64), diff
    a = ours.astype(np.float64)
    b = ref.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        err = np.where(both_nan, 0.0, np.abs(a - b))
    err = np.where(np.isnan(err), np.inf, err)
    bad = ((a != b) & ~both_nan) if tol == 0 else (err > tol)
    return err, bad


def compare_trajectories(
    ours: Trajectory,
    reference: Trajectory,
    tolerance: float | Mapping[str, float] = 0.0,
    fields: Sequence[str] | None = None,
) -> TrajectoryComparison:
    """Compares two trajectories field by field.

    Args:
        ours, reference: either sequences of records (dicts of named arrays), one per step, or
            dicts of stacked arrays whose leading axis is time.
        tolerance: absolute tolerance, one for all fields or per field (missing fields: exact).
            0 means exact.
        fields: the fields to compare (default: every field of ``ours``; the reference must have them).
    """
    a_all, len_a = _stack(ours, fields)
    names = list(fields) if fields is not None else sorted(a_all)
    b_all, len_b = _stack(reference, names)
    n = min(len_a, len_b)
    tol_of = (lambda f: float(tolerance.get(f, 0.0))) if isinstance(tolerance, Mapping) else (lambda f: float(tolerance))
    max_err: dict[str, float] = {}
    step_linf = np.zeros(n)
    first: Divergence | None = None
    for f in names:
        if f not in b_all:
            raise KeyError(f"field {f!r} missing from the reference")
        a, b = a_all[f][:n], b_all[f][:n]
        if a.shape != b.shape:
            raise ValueError(f"field {f!r}: shape {a.shape[1:]} (ours) vs {b.shape[1:]} (reference)")
        err, bad = _field_error(a, b, tol_of(f))
        per_step = err.reshape(n, -1).max(axis=1) if err.size else np.zeros(n)
        max_err[f] = float(per_step.max()) if n else 0.0
        step_linf = np.maximum(step_linf, per_step)
        bad_steps = bad.reshape(n, -1).any(axis=1) if bad.size else np.zeros(n, bool)
        if bad_steps.any():
            t = int(np.argmax(bad_steps))
            if first is None or t < first.step:
                flat = int(np.flatnonzero(bad[t].ravel())[0]) if bad[t].ndim else 0
                idx = tuple(int(i) for i in np.unravel_index(flat, bad[t].shape)) if bad[t].ndim else None
                pick = (lambda x: x[t][idx].item()) if idx is not None else (lambda x: x[t].item())
                first = Divergence(t, f, idx, pick(a), pick(b), float(err[t][idx] if idx is not None else err[t]))
    return TrajectoryComparison(
        steps=n,
        first_divergence=first,
        max_abs_error=max_err,
        step_linf=step_linf,
        length_ours=len_a,
        length_reference=len_b,
    )


def assert_trajectories_match(
    ours: Sequence[Record],
    reference: Sequence[Record],
    tolerance: float | Mapping[str, float] = 0.0,
    context: str = "",
    fields: Sequence[str] | None = None,
) -> TrajectoryComparison:
    """`compare_trajectories`, raising AssertionError with the first divergence when they differ."""
    result = compare_trajectories(ours, reference, tolerance, fields)
    if not result.matched:
        prefix = f"{context}: " if context else ""
        raise AssertionError(prefix + result.describe())
    return result
