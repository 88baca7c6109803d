"""The benchmark harness: batch sweeps, compile time apart from run time, the reference side by side."""

from paritygym.bench.output import format_table, write_json, write_plot
from paritygym.bench.runner import DEFAULT_BATCHES, BenchResult, Measurement, run_bench

__all__ = ["DEFAULT_BATCHES", "BenchResult", "Measurement", "format_table", "run_bench", "write_json", "write_plot"]
