"""Where a jitted program's size comes from: the ops of Gen 9's lowered ``turn.step`` attributed to the Python
functions on their call stacks (inclusive: an op inside ``_use_move`` called from ``_turn`` counts for both).

    python scripts/program_breakdown.py                         # turn.step at 8 battles, the CPU form, top 40
    python scripts/program_breakdown.py --form accelerator --top 60

It reads the StableHLO that JAX lowers (``lower(...).as_text(debug_info=True)``: each op's location is a chain of
call sites), before XLA's optimisation: a function's share of the ops, not of the compiled instructions or the
run time (``scripts/profile_step.py`` profiles those on a device). A function unrolled twice counts twice.
"""

from __future__ import annotations

import argparse
import ast
import collections
import functools
import re
import sys

LOCATION = re.compile(r"#loc(\d+) = loc\((.*)\)$")
CALLSITE = re.compile(r"callsite\(#loc(\d+) at #loc(\d+)\)")
NAMED = re.compile(r'"[^"]*"\(#loc(\d+)\)')
FILE_LINE = re.compile(r'"([^"]+\.py)":(\d+)')
OP = re.compile(r"^\s*(?:%\S+(?:, %\S+)* = )?\"?(?:stablehlo|chlo)\.")
OP_LOCATION = re.compile(r"loc\(#loc(\d+)\)\s*$")


@functools.lru_cache(maxsize=None)
def _functions(path: str) -> tuple[tuple[int, int, str], ...]:
    try:
        tree = ast.parse(open(path).read())
    except (OSError, SyntaxError):
        return ()
    return tuple((n.lineno, n.end_lineno, n.name) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))


def _function_at(path: str, line: int) -> str:
    best = None
    for first, last, name in _functions(path):
        if first <= line <= last and (best is None or first > best[0]):
            best = (first, name)
    return best[1] if best else "?"


def breakdown(text: str, package: str = "pokejax") -> tuple[int, collections.Counter]:
    """(ops, Counter of (file under ``package``, function) -> ops whose call stack passes through it)."""
    locations = {}
    for line in text.splitlines():
        match = LOCATION.match(line)
        if match:
            locations[match.group(1)] = match.group(2)

    @functools.lru_cache(maxsize=None)
    def frames(index: str) -> frozenset:
        body = locations.get(index, "")
        if match := CALLSITE.match(body):
            return frames(match.group(1)) | frames(match.group(2))
        if match := NAMED.match(body):
            return frames(match.group(1))
        if (match := FILE_LINE.match(body)) and f"/{package}/" in match.group(1):
            path = match.group(1)
            return frozenset({(path.split(f"/{package}/")[-1], _function_at(path, int(match.group(2))))})
        return frozenset()

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    ops, counts = 0, collections.Counter()
    for line in text.splitlines():
        if not OP.match(line):
            continue
        ops += 1
        if match := OP_LOCATION.search(line):
            counts.update(frames(match.group(1)))
    return ops, counts


def lowered_gen9_step(batch: int, form: str) -> str:
    import jax
    import jax.numpy as jnp

    from paritygym.backend import forced_form
    from pokejax.gen9 import state as S
    from pokejax.gen9 import turn
    from pokejax.gen9.env import restricted_pool

    team_pool = restricted_pool()
    with forced_form(form):
        st = jax.eval_shape(lambda: S.from_pool(team_pool, jnp.zeros(batch, jnp.int32), jnp.ones(batch, jnp.int32),
                                                jnp.zeros((batch, 2), jnp.uint32)))
        actions = jax.ShapeDtypeStruct((batch, 2), jnp.int32)
        return jax.jit(lambda s, a: turn.step(s, a)).lower(st, actions).as_text(debug_info=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--form", choices=("cpu", "accelerator"), default="cpu")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    if args.batch < 1 or args.top < 1:
        parser.error("--batch and --top must be positive")
    ops, counts = breakdown(lowered_gen9_step(args.batch, args.form))
    print(f"Gen 9 turn.step, {args.batch} battles, {args.form} form: {ops:,} lowered ops")
    for (path, function), n in counts.most_common(args.top):
        print(f"{n:>8,} {100 * n / ops:5.1f} %  {path}:{function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
