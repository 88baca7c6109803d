"""Throughput of the Gen 9 battle engine (``pokejax.gen9``) as it stands: batched random play.

    python -m benchmarks.pokemon_gen9 --batch 1024,4096 --steps 16
    python -m benchmarks.pokemon_gen9 --batch 4096,16384,65536 --steps 16 --json runs/gen9.json   # an accelerator

This times the engine alone (``paritygym bench PokemonGen9Random-v0`` times the env, with its
observations and built-in opponent): per decision of every battle, the legal mask of both sides, a uniformly drawn legal action for each (Gumbel-max on the
mask), ``turn.step``, and where a battle ended a new one from the team pool (restricted teams, as the
L3 plays them: ``turn.restricted_team``) with a fresh PRNG seed. No observation is computed. The
figure is battle decisions per second over the whole batch (each decision steps both players), with
``--steps`` decisions per jitted call (a ``lax.fori_loop``), compile time apart.

``--reference`` also times Showdown itself under node (``gen9.js``'s ``speed``: whole
``gen9randombattle`` battles, its own teams, nothing restricted, both players choosing uniformly among
their request's choices) in one process and in one process per core side by side, and prints our
best figure over each.

``--cost`` prints instead the deterministic size of ``turn.step`` alone as XLA compiled it for this
backend (HLO instructions, the cost analysis' flops and bytes accessed) and its jaxpr's equations,
gathers and selects: figures that do not depend on the machine's load (``PARITYGYM_STEP_FORM``
picks the form, ``paritygym.backend``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import time

import jax
import jax.numpy as jnp


def restricted_pool():
    """The pool's teams that the restricted engine plays (``pokejax.gen9.env.restricted_pool``)."""
    from pokejax.gen9.env import restricted_pool as pool_of_the_env

    return pool_of_the_env()


def make_run(team_pool, steps: int):
    """``run(state, key) -> (state, decisions)``: ``steps`` random decisions of every battle, ended
    battles replaced by new ones."""
    from pokejax.gen9 import masks, turn
    from pokejax.gen9 import state as S

    teams = len(team_pool)

    def new_battles(key, batch):
        k1, k2, k3 = jax.random.split(key, 3)
        seed = jax.random.bits(k3, (batch, 2), jnp.uint32)
        return S.from_pool(team_pool, jax.random.randint(k1, (batch,), 0, teams),
                           jax.random.randint(k2, (batch,), 0, teams), seed)

    def one(i, carry):
        st, key, done = carry
        key, k_act, k_new = jax.random.split(jax.random.fold_in(key, i), 3)
        mask = masks.legal_mask(st)
        noise = jax.random.gumbel(k_act, mask.shape)
        actions = jnp.argmax(jnp.where(mask, noise, -jnp.inf), axis=-1).astype(jnp.int32)
        st = turn.step(st, actions)
        ended = st.request == S.REQUEST_ENDED
        fresh = new_battles(k_new, ended.shape[0])
        st = jax.tree.map(lambda f, s: jnp.where(ended.reshape(ended.shape + (1,) * (s.ndim - 1)), f, s), fresh, st)
        return st, key, done + ended.sum(dtype=jnp.int32)

    def run(st, key):
        st, key, ended = jax.lax.fori_loop(0, steps, one, (st, key, jnp.int32(0)))
        return st, ended

    return jax.jit(run, donate_argnums=0), new_battles


def measure(batch: int, steps: int, min_seconds: float, team_pool) -> dict:
    run, new_battles = make_run(team_pool, steps)
    key = jax.random.key(0)
    st = jax.jit(new_battles, static_argnums=1)(key, batch)
    t0 = time.perf_counter()
    compiled = run.lower(st, key).compile()
    compile_s = time.perf_counter() - t0
    st, ended = compiled(st, key)          # warm-up
    jax.block_until_ready(st)
    calls, t0 = 0, time.perf_counter()
    ended_total = 0
    while True:
        st, ended = compiled(st, jax.random.fold_in(key, calls + 1))
        calls += 1
        ended_total += int(ended)
        if time.perf_counter() - t0 >= min_seconds:
            break
    elapsed = time.perf_counter() - t0
    return {"batch": batch, "steps_per_call": steps, "calls": calls, "seconds": elapsed,
            "decisions_per_s": batch * steps * calls / elapsed, "battles_ended_per_s": ended_total / elapsed,
            "compile_s": compile_s, "backend": jax.default_backend(), "device": str(jax.devices()[0].device_kind)}


REFERENCE_WARMUP_BATTLES = 20   # lets V8 optimise the battle code before the timed run


def _showdown_decisions(battles: int, seed: int) -> tuple[int, float]:
    from pokejax.gen9.reference import Gen9Bridge

    with Gen9Bridge(timeout=1800.0) as bridge:
        bridge.speed(REFERENCE_WARMUP_BATTLES, seed=(seed, 1, 2, 3))
        reply = bridge.speed(battles, seed=(seed, 4, 5, 6))
    return int(reply["decisions"]), float(reply["seconds"])


def showdown_speed(battles: int, procs: int) -> dict:
    """Showdown's random-play decisions/s over ``procs`` node processes side by side, ``battles``
    each: the total decisions over the slowest process's time."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(procs) as pool:   # each thread waits on its own node
        results = list(pool.map(lambda k: _showdown_decisions(battles, 100 + k), range(procs)))
    return {"procs": procs, "battles": battles * procs, "decisions": sum(d for d, _ in results),
            "decisions_per_s": sum(d for d, _ in results) / max(t for _, t in results)}


def step_cost(batch: int, team_pool) -> dict:
    """The size of ``turn.step`` at ``batch`` battles, jitted for the default backend in the form
    ``paritygym.backend`` picks: jaxpr equations (and gathers, selects), HLO instructions after
    XLA's optimisation, the cost analysis' flops and bytes accessed, and the compile seconds."""
    from pokejax.gen9 import turn
    from pokejax.gen9 import state as S

    st = jax.eval_shape(lambda: S.from_pool(team_pool, jnp.zeros(batch, jnp.int32), jnp.ones(batch, jnp.int32),
                                            jnp.zeros((batch, 2), jnp.uint32)))
    actions = jax.ShapeDtypeStruct((batch, 2), jnp.int32)
    def primitives(jaxpr):   # with those of nested jaxprs (jnp functions are jitted)
        for e in jaxpr.eqns:
            yield e.primitive.name
            for v in e.params.values():
                for sub in v if isinstance(v, (list, tuple)) else [v]:
                    if hasattr(sub, "jaxpr"):
                        yield from primitives(sub.jaxpr if hasattr(sub.jaxpr, "eqns") else sub.jaxpr.jaxpr)

    names = list(primitives(jax.make_jaxpr(lambda s, a: turn.step(s, a))(st, actions).jaxpr))   # a fresh trace
    lowered = jax.jit(lambda s, a: turn.step(s, a)).lower(st, actions)
    t0 = time.perf_counter()
    compiled = lowered.compile()
    compile_s = time.perf_counter() - t0
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    hlo = compiled.as_text()
    return {"batch": batch, "jaxpr_eqns": len(names), "gathers": names.count("gather"),
            "selects": names.count("select_n"),
            "hlo_instructions": sum(1 for line in hlo.splitlines() if re.match(r"\s+(ROOT )?%?[\w.\-]+ = ", line)),
            "flops": cost.get("flops"), "bytes_accessed": cost.get("bytes accessed"), "compile_s": compile_s,
            "backend": jax.default_backend()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", default="1024,4096", help="comma-separated batch sizes")
    ap.add_argument("--steps", type=int, default=16, help="decisions per jitted call")
    ap.add_argument("--min-seconds", type=float, default=3.0)
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--cost", action="store_true", help="the compiled step's size (step_cost) instead of timing")
    ap.add_argument("--reference", action="store_true", help="also time Showdown (one process, one per core)")
    ap.add_argument("--reference-battles", type=int, default=200, help="Showdown battles per process")
    args = ap.parse_args(argv)
    if args.reference_battles < 1:
        ap.error("--reference-battles must be >= 1")
    team_pool = restricted_pool()
    print(f"backend {jax.default_backend()} ({jax.devices()[0].device_kind}), {len(team_pool)} restricted pool teams",
          flush=True)
    results = []
    for batch in [int(b) for b in args.batch.split(",")]:
        if args.cost:
            r = step_cost(batch, team_pool)
            results.append(r)
            print(f"batch {batch:>7,}: step {r['hlo_instructions']:,} HLO instructions, {r['flops']:.4g} flops, "
                  f"{r['bytes_accessed']:.4g} bytes accessed; jaxpr {r['jaxpr_eqns']:,} eqns ({r['gathers']} gathers, "
                  f"{r['selects']} selects); compile {r['compile_s']:.1f} s", flush=True)
            continue
        r = measure(batch, args.steps, args.min_seconds, team_pool)
        results.append(r)
        print(f"batch {batch:>7,}: {r['decisions_per_s']:>14,.0f} decisions/s  "
              f"({r['battles_ended_per_s']:,.0f} battles ended/s; compile {r['compile_s']:.1f} s)", flush=True)
    if args.reference and not args.cost:
        import os

        best = max(r["decisions_per_s"] for r in results)
        for procs in sorted({1, os.cpu_count() or 1}):
            ref = showdown_speed(args.reference_battles, procs)
            results.append({"reference": "showdown", **ref})
            print(f"Showdown, {procs} process{'es' if procs > 1 else ''}: {ref['decisions_per_s']:>10,.0f} decisions/s "
                  f"({ref['battles']} battles) -> ours {best / ref['decisions_per_s']:,.1f}x", flush=True)
    if args.json:
        path = pathlib.Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
