"""The `paritygym` command line: list, info, bench, verify."""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time
from typing import Sequence

import paritygym


def _parse_batches(text: str) -> list[int]:
    try:
        batches = [int(x) for x in text.split(",")]  # an empty item ("1,,2") is an error, not skipped
    except ValueError:
        raise argparse.ArgumentTypeError(f"batch sizes are comma-separated positive integers, got {text!r}") from None
    if any(b < 1 for b in batches):
        raise argparse.ArgumentTypeError(f"batch sizes must be positive integers, got {text!r}")
    return batches


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):  # NaN would time forever, 0 or less nothing
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _parse_modes(text: str) -> list[str]:
    modes = text.split(",")
    if not modes or any(m not in ("loop", "scan") for m in modes):
        raise argparse.ArgumentTypeError(f"modes are a comma-separated subset of loop,scan, got {text!r}")
    return modes


def _env_id(text: str) -> str:
    try:
        paritygym.spec(text)
    except KeyError as exc:
        raise argparse.ArgumentTypeError(str(exc.args[0])) from None
    return text


def cmd_list(args: argparse.Namespace) -> int:
    ids = paritygym.registered_envs()
    width = max((len(i) for i in ids), default=10)
    for env_id in ids:
        s = paritygym.spec(env_id)
        print(f"{env_id:<{width}}  reference: {s.reference}")
        print(f"{'':<{width}}  parity:    {s.parity}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    s = paritygym.spec(args.env)
    print(f"id:         {s.id} (version {s.version})")
    print(f"entry:      {s.entry_point} ({s.kind})")
    print(f"reference:  {s.reference}")
    print(f"parity:     {s.parity}")
    if s.docs:
        print(f"docs:       {s.docs}")
    if s.kind == "jax":
        print(f"api:        paritygym.make({s.id!r}) -> (env, params), the functional (gymnax) API; "
              f"paritygym.make_vec({s.id!r}, num_envs) -> gymnasium VectorEnv")
    else:
        print(f"api:        paritygym.make_vec({s.id!r}, num_envs) -> gymnasium VectorEnv; one env: "
              f"{s.entry_point.replace(':', '.')}(seed, **options) -> gymnasium.Env; no functional API "
              "(paritygym.make refuses it)")
    opts = paritygym.options(args.env)
    static = ", ".join(f"{k}={'(required)' if v is ... else repr(v)}" for k, v in opts["static options"].items())
    print(f"options:    {static or 'none'}")
    if s.kind == "jax":
        from paritygym.spaces import to_gymnasium

        env, params = paritygym.make(args.env)
        print(f"observation: {to_gymnasium(env.observation_space(params))}")
        print(f"action:      {to_gymnasium(env.action_space(params))}")
        print(f"params:      {params}")
    return 0


def _reference_missing(exc: BaseException) -> str | None:
    """The install advice when ``exc`` says a reference system is missing, else None."""
    from paritygym.references import MissingReference, missing_package

    if isinstance(exc, ModuleNotFoundError):
        exc = missing_package(exc) or exc
    return str(exc) if isinstance(exc, MissingReference) else None


def cmd_bench(args: argparse.Namespace) -> int:
    from paritygym.bench import format_table, run_bench, write_json, write_plot

    out = pathlib.Path(args.out).resolve()
    print(f"results will be written to {out}/")  # before the run: the default is relative to the current folder
    try:
        result = run_bench(
            args.env,
            batches=args.batch,
            reference=args.reference,
            reference_batches=args.reference_batch,
            min_seconds=args.min_seconds,
            scan_length=args.scan_length,
            modes=args.modes,
        )
    except (ImportError, RuntimeError) as exc:
        advice = _reference_missing(exc)
        if advice is None:
            raise
        print(f"paritygym bench {args.env} --reference: {advice}", file=sys.stderr)
        return 2
    print(format_table(result))
    stem = out / f"{args.env}-{time.strftime('%Y%m%d-%H%M%S')}"
    print(f"json: {write_json(result, stem.with_suffix('.json'))}")
    if not args.no_plot:
        print(f"plot: {write_plot(result, stem.with_suffix('.png'))}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from paritygym.registry import load
    from paritygym.verify import format_reports, write_markdown, write_reports

    s = paritygym.spec(args.env)
    hook = s.verify_l4 if args.level == 4 and s.verify_l4 else s.verify
    if hook is None:
        print(f"{args.env} has no verify hook", file=sys.stderr)
        return 2
    from paritygym.cache import enable_compilation_cache

    enable_compilation_cache()  # verify compiles large programs; a rerun loads them
    extra = {"seeds": args.seeds} if args.seeds is not None else {}  # only hooks that train policies (L4) take it
    try:
        reports = load(hook)(level=args.level, episodes=args.episodes, seed=args.seed, **extra)
    except (ImportError, RuntimeError) as exc:
        advice = _reference_missing(exc)
        if advice is None:
            raise
        print(f"paritygym verify {args.env}: {advice}", file=sys.stderr)
        return 2
    print(format_reports(reports))
    out = pathlib.Path(args.out) if args.out else pathlib.Path("runs/verify") / f"{args.env}-L{args.level}.json"
    print(f"json: {write_reports(reports, out)}")
    if args.markdown:
        command = " ".join(["paritygym", *sys.argv[1:]]) if sys.argv and sys.argv[0].endswith("paritygym") else ""
        print(f"markdown: {write_markdown(reports, args.markdown, command)}")
    return 0 if reports and all(r.passed for r in reports) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paritygym",
        description="Verified high-performance RL environments: list them, inspect one, benchmark it "
        "against its reference, or run its parity checks.",
    )
    parser.add_argument("--version", action="version", version=f"paritygym {paritygym.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list registered envs with their reference and parity status")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("info", help="spaces, version, reference and parity status of one env")
    p.add_argument("env", type=_env_id, help="env id, e.g. Pong-v0")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser(
        "bench",
        help="steps/s at several batch sizes (plain loop and lax.scan), compile time apart, "
        "optionally beside the reference",
        description="Measures env steps/s of random-action rollouts at each batch size, for a plain "
        "Python step loop and a lax.scan-fused rollout; JIT compile time is reported apart from run "
        "time. With --reference the reference system runs in the same invocation (1 process and one "
        "per core) and the ratios are printed. Writes a table, JSON and a log-log PNG.",
    )
    p.add_argument("env", type=_env_id)
    p.add_argument("--batch", type=_parse_batches, default=[1, 32, 128, 512, 2048, 8192], help="comma-separated batch sizes")
    p.add_argument("--reference", action="store_true", help="also run the reference side by side")
    p.add_argument("--reference-batch", type=_parse_batches, default=None, help="batch sizes for the reference (default: --batch)")
    p.add_argument("--min-seconds", type=_positive_seconds, default=1.0, help="minimum timed run per measurement (> 0)")
    p.add_argument("--scan-length", type=_positive_int, default=128, help="steps fused per lax.scan call")
    p.add_argument("--modes", type=_parse_modes, default=["loop", "scan"], help="which of loop,scan to time (JAX envs)")
    p.add_argument("--out", default="runs/bench",
                   help="folder for the JSON and PNG (default: runs/bench under the current folder; printed at the start)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument(
        "--devices", type=_positive_int, default=os.cpu_count() or 1,
        help="on CPU, split the machine into this many JAX devices and shard the batch over them "
        "(default: one per core, so JAX uses every core as the reference's one-process-per-core does)",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "verify",
        help="run the parity checks of one env against its reference and print a report",
        description="Runs the env's verification ladder against the real reference at the chosen level "
        "(1 module properties, 2 interactions, 3 rollouts, 4 policy transfer), prints a parity report "
        "and writes it as JSON. Exit status 0 only if every check passed.",
    )
    p.add_argument("env", type=_env_id)
    p.add_argument("--level", type=int, choices=[1, 2, 3, 4], default=3)
    p.add_argument("--episodes", type=_positive_int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=_positive_int, default=None,
                   help="L4 of envs that train policies (Pong-v0): policies trained per backend (default 10)")
    p.add_argument("--out", default=None, help="JSON path (default runs/verify/ENV-L<level>.json)")
    p.add_argument("--markdown", default=None, help="also write a Markdown report here (e.g. docs/verification/ENV-L4.md)")
    p.set_defaults(func=cmd_verify)
    return parser


def use_host_devices(count: int) -> None:
    """Exposes ``count`` CPU devices to JAX (so a batch can be sharded over all cores). Must run
    before JAX initialises its backends; a no-op for GPU/TPU runs."""
    import os

    if "jax" in sys.modules:
        import jax

        if jax._src.xla_bridge.backends_are_initialized():  # too late to change the device count
            return
    flag = f"--xla_force_host_platform_device_count={count}"
    existing = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in existing:
        os.environ["XLA_FLAGS"] = f"{existing} {flag}".strip()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    if getattr(args, "devices", None):
        use_host_devices(args.devices)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
