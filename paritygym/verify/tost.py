"""L4: two one-sided tests (TOST) for the equivalence of two means.

H0: |mean(a) - mean(b)| >= margin; H1 (equivalence): |mean(a) - mean(b)| < margin.
Each one-sided null is rejected by a t-test; equivalence is declared when both are rejected at
level alpha, i.e. when the larger of the two p-values is below alpha. This equals checking that
the (1 - 2 alpha) confidence interval of the difference lies inside (-margin, +margin).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
from scipy import stats


@dataclasses.dataclass(frozen=True)
class TostResult:
    difference: float  # mean(a) - mean(b) (paired: mean of a - b)
    margin: float
    alpha: float
    p_lower: float  # H0: difference <= -margin
    p_upper: float  # H0: difference >= +margin
    df: float
    ci_low: float  # (1 - 2 alpha) confidence interval of the difference
    ci_high: float
    n_a: int
    n_b: int
    paired: bool

    @property
    def p_value(self) -> float:
        return max(self.p_lower, self.p_upper)

    @property
    def equivalent(self) -> bool:
        return self.p_value < self.alpha

    def describe(self) -> str:
        verdict = "equivalent" if self.equivalent else "not shown equivalent"
        return (
            f"diff {self.difference:+.4g}, {100 * (1 - 2 * self.alpha):.0f}% CI [{self.ci_low:.4g}, {self.ci_high:.4g}], "
            f"margin ±{self.margin:g}, p={self.p_value:.3g} -> {verdict} (alpha {self.alpha})"
        )


def tost(
    a: Sequence[float],
    b: Sequence[float],
    margin: float,
    alpha: float = 0.05,
    paired: bool = False,
) -> TostResult:
    """TOST equivalence test of the means of ``a`` and ``b`` with margin ``±margin``.

    Unpaired samples use Welch's t (unequal variances, Welch–Satterthwaite degrees of freedom);
    ``paired=True`` tests the mean of ``a - b`` with a one-sample t.
    """
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("samples must be one-dimensional")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("samples must be finite")
    if paired:
        if a.shape != b.shape:
            raise ValueError(f"paired samples must have equal length, got {a.size} and {b.size}")
        if a.size < 2:
            raise ValueError("need at least 2 pairs")
        d = a - b
        diff = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(d.size))
        df = float(d.size - 1)
    else:
        if a.size < 2 or b.size < 2:
            raise ValueError("need at least 2 observations per sample")
        va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
        diff = float(a.mean() - b.mean())
        se = float(math.sqrt(va + vb))
        df = float((va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))) if se > 0 else float(a.size + b.size - 2)
    if se == 0.0:
        # No spread: the difference is known exactly.
        inside = -margin < diff < margin
        p = 0.0 if inside else 1.0
        return TostResult(diff, margin, alpha, p, p, df, diff, diff, a.size, b.size, paired)
    t_lower = (diff + margin) / se
    t_upper = (diff - margin) / se
    p_lower = float(stats.t.sf(t_lower, df))
    p_upper = float(stats.t.cdf(t_upper, df))
    half = float(stats.t.ppf(1 - alpha, df)) * se
    return TostResult(diff, margin, alpha, p_lower, p_upper, df, diff - half, diff + half, int(a.size), int(b.size), paired)


def check_transfer_request(hook: str, level: int, episodes: int, unit: str = "episodes") -> None:
    """Argument checks shared by the evaluation-transfer L4 hooks (`<pkg>.l4.verify_l4`)."""
    if level != 4:
        raise ValueError(f"{hook} runs level 4 only, got {level}")
    if episodes < 2:
        raise ValueError(f"L4 needs at least 2 {unit} per backend, got {episodes}")


def transfer_report(env_id: str, name: str, ours, reference, margin: float, alpha: float, metric: str,
                    episodes: int, details: dict):
    """The L4 report of one policy evaluated on both backends: a Welch TOST of the per-episode values
    `ours` and `reference` (e.g. win indicators or returns) at `margin`; `details` describe the run
    (placed between the TOST's summary and its full numbers)."""
    from paritygym.verify.report import ParityReport

    result = tost(ours, reference, margin, alpha)
    return ParityReport(
        env_id=env_id, level=4, name=name, passed=result.equivalent, episodes=episodes,
        tolerance=f"TOST on {metric}, margin ±{margin:g}, alpha {alpha}",
        details={"summary": result.describe(), **details, "tost": dict(vars(result))},
        failure=None if result.equivalent else result.describe(),
    )
