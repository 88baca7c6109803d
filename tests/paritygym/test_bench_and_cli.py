"""The benchmark harness and the command line."""

from __future__ import annotations

import json

import pytest

from paritygym.bench import format_table, run_bench, write_json, write_plot
from paritygym.cli import main


def test_bench_measures_loop_and_scan_with_compile_time(tmp_path):
    result = run_bench("ToyCounter-v0", batches=[1, 8], min_seconds=0.05, scan_length=16)
    systems = {(m.system, m.batch) for m in result.measurements}
    assert systems == {("jax-loop", 1), ("jax-scan", 1), ("jax-loop", 8), ("jax-scan", 8)}
    for m in result.measurements:
        assert m.steps_per_second > 0 and m.compile_seconds is not None and m.compile_seconds > 0
    assert "jax-scan" in format_table(result)
    data = json.loads(write_json(result, tmp_path / "b.json").read_text())
    assert data["machine"]["cpu_count"] >= 1 and len(data["measurements"]) == 4
    assert write_plot(result, tmp_path / "b.png").stat().st_size > 1000


def test_bench_with_reference_reports_ratios():
    result = run_bench("Pong-v0", batches=[64], reference=True, min_seconds=0.05, scan_length=16, reference_steps=10)
    assert any(m.system.startswith("reference x1") for m in result.measurements)
    assert result.ratios() and all(r > 0 for r in result.ratios().values())


def test_cli_list_and_info(capsys):
    assert main(["list"]) == 0
    assert "Pong-v0" in capsys.readouterr().out
    assert main(["info", "Pong-v0"]) == 0
    out = capsys.readouterr().out
    assert "Discrete(3)" in out and "version 0" in out
    assert "paritygym.make('Pong-v0') -> (env, params)" in out and "frame_skip=1" in out


def test_cli_info_says_a_native_env_has_no_functional_api(capsys):
    assert main(["info", "GameBoy-v0"]) == 0
    out = capsys.readouterr().out
    assert "no functional API (paritygym.make refuses it)" in out and "emurust.env.GameBoyEnv" in out
    assert "frame_skip=4" in out and "max_steps_in_episode=10000" in out and "max_episode_steps" not in out


def test_cli_bench_writes_outputs(tmp_path, capsys):
    code = main(["bench", "ToyCounter-v0", "--batch", "2", "--min-seconds", "0.05", "--scan-length", "8", "--out", str(tmp_path)])
    assert code == 0
    assert list(tmp_path.glob("*.json")) and list(tmp_path.glob("*.png"))


def test_cli_rejects_unknown_env_and_bad_batches():
    with pytest.raises(SystemExit):
        main(["info", "Nope-v0"])
    with pytest.raises(SystemExit):
        main(["bench", "Pong-v0", "--batch", "0,x"])


@pytest.mark.parametrize("args", [
    ["--min-seconds", "nan"], ["--min-seconds", "inf"], ["--min-seconds", "-1"], ["--min-seconds", "0"],
    ["--batch", "1,,2"], ["--batch", ""], ["--batch", "2,"], ["--reference-batch", "1,,2"],
    ["--scan-length", "0"], ["--modes", "loop,fast"], ["--devices", "0"],
])
def test_cli_bench_refuses_bad_numbers_before_running(args, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "ToyCounter-v0", "--out", str(tmp_path), *args])
    assert exc.value.code == 2  # argparse's usage error: nothing ran
    assert "results will be written" not in capsys.readouterr().out


@pytest.mark.parametrize("kwargs", [
    {"min_seconds": float("nan")}, {"min_seconds": -1.0}, {"batches": []}, {"batches": [1, 0]},
    {"scan_length": 0}, {"modes": ("loop", "fast")},
])
def test_run_bench_refuses_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        run_bench("ToyCounter-v0", **{"batches": [1], "min_seconds": 0.01, **kwargs})


def test_cli_bench_says_where_it_writes_before_it_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "ToyCounter-v0", "--batch", "2", "--min-seconds", "0.02", "--scan-length", "4", "--no-plot"]) == 0
    out = capsys.readouterr().out
    where = tmp_path.resolve() / "runs" / "bench"
    assert out.index(f"results will be written to {where}/") < out.index("jax-loop")
    assert list(where.glob("ToyCounter-v0-*.json"))


def test_compilation_cache_keeps_a_configured_directory(tmp_path, monkeypatch):
    import jax

    from paritygym.cache import cache_dir, enable_compilation_cache

    monkeypatch.setenv("PARITYGYM_JAX_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    before = jax.config.jax_compilation_cache_dir
    assert before, "tests/conftest.py configures a cache directory"
    assert str(enable_compilation_cache()) == before  # the suite's directory is kept


def test_timed_programs_compute_the_observation():
    """The timed programs must not let XLA drop the observation as dead code (a policy reads it)."""
    import jax
    import jax.numpy as jnp

    from paritygym.bench.runner import jax_programs

    from ..toy_envs import Counter

    class CosineObservation(Counter):
        def get_obs(self, state, params=None, key=None):
            return jnp.cos(jnp.array([state.position, state.time], jnp.float32))

    env = CosineObservation()
    params = env.default_params
    reset, loop_step, scan_steps = jax_programs(env, params, batch=4, scan_length=2)
    key = jax.random.key(0)
    states = reset(key)
    for program in (loop_step, scan_steps):
        hlo = program.lower(key, jnp.int32(0), states).compile().as_text()
        assert "cosine" in hlo


def test_observation_checksum_reads_every_element_of_every_leaf():
    import jax.numpy as jnp
    import numpy as np

    from paritygym.bench.runner import observation_checksum

    rng = np.random.default_rng(0)
    obs = {"board": rng.integers(0, 9, (5, 3, 4)).astype(np.int32), "mask": rng.random((5, 7)) < 0.5,
           "hp": rng.random((5,)).astype(np.float32), "turn": np.float32(2.0)}
    expected = sum(float(np.sum(np.asarray(v, np.float64))) for v in obs.values())
    assert float(observation_checksum(obs)) == pytest.approx(expected, rel=1e-6)
    for name, leaf in obs.items():  # changing any one element changes the checksum
        changed = dict(obs)
        bumped = np.array(leaf, np.float32) if np.ndim(leaf) else np.float32(leaf)
        if np.ndim(leaf):
            bumped.reshape(-1)[-1] += 1
        else:
            bumped = bumped + 1
        changed[name] = jnp.asarray(bumped)
        assert float(observation_checksum(changed)) == pytest.approx(expected + 1, rel=1e-6), name


def test_uniform_legal_actions_draws_each_legal_action_equally_often():
    """The bench's random agent: only legal actions, each about equally often (a wrong rank or an
    off-by-one in the k-th legal column would skew or break this), and any action at all where a
    row has none."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from paritygym.random import batch_words, uniform_legal_actions

    legal_columns = [0, 3, 17, 40, 57]
    mask = np.zeros((6000, 58), bool)
    mask[:, legal_columns] = True
    mask[-1000:] = False  # rows without a legal action
    words = batch_words(jax.random.key(5), 6000)[:, 0]
    actions = np.asarray(jax.jit(uniform_legal_actions)(words, jnp.asarray(mask)))
    assert mask[np.arange(5000), actions[:5000]].all()
    counts = np.bincount(actions[:5000], minlength=58)[legal_columns]
    assert np.abs(counts - 1000).max() < 150, counts  # 5,000 draws over 5 actions; 150 is ~5 sigma
    assert len(np.unique(actions[5000:])) > 40  # all 58 actions are drawn where none is legal


def test_bench_accelerator_sweeps_by_factor_and_writes_as_it_goes(tmp_path, monkeypatch):
    """scripts/bench_accelerator.py (the accelerator sweep; here on the CPU): the batch grows by ``--factor``, and the
    table and JSON are written after each figure, so a command cut short keeps what it measured."""
    import pathlib

    from ..examples import load_script

    module = load_script(pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench_accelerator.py")
    written = []
    measure = module.measure

    def recorded(*args, **kwargs):
        # the figures before this one are on disk already
        if (tmp_path / "results.json").exists():
            written.append(len(json.loads((tmp_path / "results.json").read_text())["rows"]))
        return measure(*args, **kwargs)

    monkeypatch.setattr(module, "measure", recorded)
    assert module.main(["--envs", "Pong-v0", "--modes", "scan", "--start", "16", "--max-batch", "256", "--factor", "4",
                        "--min-seconds", "0.01", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [r["batch"] for r in rows] == [16, 64, 256] and written == [1, 2]
    assert all(r["steps_per_second"] > 0 and r["compile_seconds"] > 0 for r in rows)
    assert "| Pong-v0 | scan | 256 |" in (tmp_path / "table.md").read_text()
    with pytest.raises(SystemExit):
        module.main(["--envs", "Pong-v0", "--factor", "1", "--out", str(tmp_path)])


def _doubled_plus_one(x):
    return x * 2 + 1


def _twice(x):
    return _doubled_plus_one(x) - _doubled_plus_one(x + 3)


def test_program_breakdown_counts_ops_for_every_function_on_their_stack():
    """scripts/program_breakdown.py: a lowered op counts for each function on its call stack; a helper called twice
    counts twice."""
    import pathlib

    import jax
    import jax.numpy as jnp

    from ..examples import load_script

    module = load_script(pathlib.Path(__file__).resolve().parents[2] / "scripts" / "program_breakdown.py")
    here = "paritygym/test_bench_and_cli.py"

    def lowered(fn):
        return module.breakdown(jax.jit(fn).lower(jnp.zeros(4, jnp.int32)).as_text(debug_info=True), package="tests")

    _, alone = lowered(_doubled_plus_one)
    ops, counts = lowered(_twice)
    once, inner, outer = alone[(here, "_doubled_plus_one")], counts[(here, "_doubled_plus_one")], counts[(here, "_twice")]
    assert once > 0 and inner == 2 * once and inner < outer <= ops, (ops, counts)
