"""L3 trajectory comparison, TOST (against textbook values and scipy's t-tests), reports."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from paritygym.verify import ParityReport, compare_trajectories, format_reports, tost, write_reports


def traj(values, field="x"):
    return [{field: np.float32(v), "done": np.bool_(False)} for v in values]


def test_identical_trajectories_match():
    result = compare_trajectories(traj([1, 2, 3]), traj([1, 2, 3]))
    assert result.matched and result.steps == 3 and result.first_divergence is None


def test_first_divergence_names_step_field_and_values():
    result = compare_trajectories(traj([1, 2, 3, 9]), traj([1, 2, 4, 5]))
    d = result.first_divergence
    assert not result.matched and (d.step, d.field, d.ours, d.reference) == (2, "x", 3.0, 4.0)
    assert "step 2" in result.describe()


def test_exact_mode_detects_one_ulp_but_tolerance_accepts_it():
    a = np.float32(1.0)
    b = np.nextafter(a, np.float32(2.0))
    assert not compare_trajectories(traj([a]), traj([b])).matched
    assert compare_trajectories(traj([a]), traj([b]), tolerance=1e-6).matched


def test_nan_matches_nan_but_not_a_number():
    assert compare_trajectories(traj([np.nan]), traj([np.nan])).matched
    assert not compare_trajectories(traj([np.nan]), traj([0.0]), tolerance=1.0).matched


def test_array_fields_report_the_element_index():
    ours = [{"obs": np.array([[0, 1], [2, 3]], np.float32)}]
    ref = [{"obs": np.array([[0, 1], [2, 4]], np.float32)}]
    d = compare_trajectories(ours, ref).first_divergence
    assert d.index == (1, 1)


def test_stacked_and_record_forms_agree():
    a = {"x": np.arange(5, dtype=np.float32)}
    b = {"x": np.array([0, 1, 2, 3.5, 4], np.float32)}
    stacked = compare_trajectories(a, b, tolerance=0.1)
    records = compare_trajectories([{"x": v} for v in a["x"]], [{"x": v} for v in b["x"]], tolerance=0.1)
    assert stacked.first_divergence.step == records.first_divergence.step == 3
    assert stacked.first_step_above(0.1) == 3 and np.allclose(stacked.step_linf, records.step_linf)


def test_length_mismatch_is_not_a_match():
    result = compare_trajectories(traj([1, 2, 3]), traj([1, 2]))
    assert not result.matched and "lengths differ" in result.describe()


def test_missing_field_is_an_error():
    with pytest.raises(KeyError):
        compare_trajectories([{"x": 1.0, "y": 2.0}], [{"x": 1.0}])


def test_tost_textbook_value():
    # a = b = [1, 2, 3], margin 1: t = 1 / sqrt(1/3 + 1/3) = 1.2247 with 4 df; one-sided p = 0.1440.
    r = tost([1, 2, 3], [1, 2, 3], margin=1.0)
    assert r.df == pytest.approx(4.0)
    assert r.p_lower == pytest.approx(0.14397, abs=1e-4) and r.p_upper == pytest.approx(0.14397, abs=1e-4)
    assert not r.equivalent


@pytest.mark.parametrize("seed", range(5))
def test_tost_equals_two_shifted_welch_t_tests(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(0.1, 1.0, 40), rng.normal(0.0, 1.5, 30)
    margin = 0.8
    r = tost(a, b, margin)
    p_lower = stats.ttest_ind(a + margin, b, equal_var=False, alternative="greater").pvalue
    p_upper = stats.ttest_ind(a - margin, b, equal_var=False, alternative="less").pvalue
    assert r.p_lower == pytest.approx(p_lower, rel=1e-9) and r.p_upper == pytest.approx(p_upper, rel=1e-9)


def test_tost_paired_and_decisions():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, 200)
    assert tost(x, x + rng.normal(0, 0.01, 200), margin=0.1, paired=True).equivalent
    assert not tost(x, x + 1.0, margin=0.1).equivalent
    r = tost(x, x + 0.001, margin=0.5)
    assert r.equivalent and r.ci_low < 0 < r.ci_high + 0.01


@pytest.mark.parametrize("kwargs", [dict(margin=0.0), dict(margin=1.0, alpha=0.6)])
def test_tost_refuses_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        tost([1, 2], [1, 2], **kwargs)


def test_reports_format_and_json(tmp_path):
    reports = [
        ParityReport("Toy-v0", 3, "random policy", True, episodes=100, steps=1000),
        ParityReport("Toy-v0", 3, "scripted policy", False, failure="step 3, field x"),
    ]
    table = format_reports(reports)
    assert "PASS" in table and "FAIL: step 3" in table and "1/2 checks passed" in table
    path = write_reports(reports, tmp_path / "r.json")
    data = json.loads(path.read_text())
    assert data[1]["failure"] == "step 3, field x" and data[0]["episodes"] == 100


def test_key_word_bits_are_balanced_even_for_consecutive_keys():
    import jax

    from paritygym.random import key_word

    consecutive = jax.vmap(lambda t: key_word(jax.random.key(t)))(np.arange(4096))
    split = jax.vmap(key_word)(jax.random.split(jax.random.key(0), 4096))
    for words in (np.asarray(consecutive), np.asarray(split)):
        bits = (words[:, None] >> np.arange(32)) & 1
        assert np.all(np.abs(bits.mean(axis=0) - 0.5) < 0.04)
        assert len(np.unique(words)) > 4000


def test_markdown_report(tmp_path):
    from paritygym.verify import write_markdown

    reports = [ParityReport("Toy-v0", 4, "transfer", False, episodes=3, failure="not shown equivalent", details={"p": 0.2})]
    text = write_markdown(reports, tmp_path / "r.md", command="paritygym verify Toy-v0 --level 4").read_text()
    assert "| L4 | transfer | 3 |" in text and "FAIL: not shown equivalent" in text and '"p": 0.2' in text


def test_batch_keys_are_distinct_and_usable():
    import jax

    from paritygym.random import batch_keys

    keys = batch_keys(jax.random.key(3), 10_000)
    data = np.asarray(jax.random.key_data(keys))
    assert len({tuple(row) for row in data}) == 10_000
    draws = np.asarray(jax.vmap(lambda k: jax.random.uniform(k))(keys))
    assert abs(draws.mean() - 0.5) < 0.02
    other = np.asarray(jax.random.key_data(batch_keys(jax.random.key(4), 10_000)))
    assert not np.array_equal(data, other)


def test_transfer_report_passes_equal_backends_and_fails_shifted_ones():
    """The shared L4 evaluation-transfer report: verdict, criterion and numbers come from the TOST."""
    from paritygym.verify import transfer_report

    rng = np.random.default_rng(0)
    same = rng.integers(0, 2, 4000).astype(float), rng.integers(0, 2, 4000).astype(float)
    report = transfer_report("X-v0", "policy on both", *same, 0.05, 0.05, "win rate", 8000, {"note": 1})
    assert report.passed and report.failure is None and report.level == 4 and report.episodes == 8000
    assert report.tolerance == "TOST on win rate, margin ±0.05, alpha 0.05"
    assert list(report.details) == ["summary", "note", "tost"]
    assert "equivalent" in report.details["summary"] and report.details["tost"]["margin"] == 0.05

    shifted = transfer_report("X-v0", "policy on both", same[0], same[1] * 0 + 1.0, 0.05, 0.05, "win rate", 8000, {})
    assert not shifted.passed and "not shown equivalent" in shifted.failure


def test_transfer_request_checks():
    from paritygym.verify import check_transfer_request

    check_transfer_request("x.l4", 4, 2)
    with pytest.raises(ValueError, match="level 4 only"):
        check_transfer_request("x.l4", 3, 10)
    with pytest.raises(ValueError, match="at least 2 battles"):
        check_transfer_request("x.l4", 4, 1, "battles")
