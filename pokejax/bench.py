"""`paritygym bench PokemonGen1Random-v0 --reference`: Showdown's own random-play speed.

Each node process runs whole gen1randombattle battles inside Showdown (``bridge.js``'s ``speed``
command: random teams, both players choosing uniformly among the legal choices, one
``commitChoices`` per decision), so the figure is Showdown's engine speed without any
process-boundary cost. A "turn" is one decision of both players (a move turn or a replacement
after a faint), the same unit as one step of the JAX env.
"""

from __future__ import annotations

import concurrent.futures

from pokejax.reference import ShowdownBridge

AVERAGE_TURNS_PER_BATTLE = 60   # measured on random play; sizes the work, not the result
WARMUP_BATTLES = 20             # lets V8 optimise the battle code before the timed run


def _turns_per_second(battles: int, seed: int) -> tuple[int, float]:
    with ShowdownBridge(timeout=600.0) as bridge:
        bridge.speed(WARMUP_BATTLES, seed=(seed, 1, 2, 3))
        reply = bridge.speed(battles, seed=(seed, 4, 5, 6))
    return int(reply["turns"]), float(reply["seconds"])


def reference_bench(batch_size: int, num_steps: int, num_procs: int) -> float:
    """Showdown random-play turns/s over ``num_procs`` node processes run side by side.

    The reference has no batch: about ``batch_size * num_steps`` turns (at least 6,000, at most
    60,000) are split over the processes. Each process times only its own battles; the result is
    the total turns over the slowest process's time."""
    if num_procs < 1:
        raise ValueError(f"num_procs must be >= 1, got {num_procs}")
    total_turns = min(max(batch_size * num_steps, 6_000), 60_000)
    battles = max(1, total_turns // AVERAGE_TURNS_PER_BATTLE // num_procs)
    # threads suffice: each waits on its own node process
    with concurrent.futures.ThreadPoolExecutor(num_procs) as pool:
        results = list(pool.map(lambda k: _turns_per_second(battles, 100 + k), range(num_procs)))
    return sum(t for t, _ in results) / max(s for _, s in results)


# ---------------------------------------------------------------------------------------------
# Where an env step's run time goes: ``python -m pokejax.bench --pieces --batch 1024``
# ---------------------------------------------------------------------------------------------

def piece_costs(env_id: str = "PokemonGen1RandomPool-v0", batch: int = 1024, warm_steps: int = 40,
                calls: int = 10, seed: int = 0) -> dict[str, float]:
    """CPU microseconds per env of each piece of the env step, each piece jitted and vmapped on
    its own over ``batch`` mid-battle states (reached by ``warm_steps`` random legal env steps),
    timed in CPU seconds of this process (steady on a shared machine). The pieces overlap the
    whole (``env_step``) imperfectly: XLA fuses across pieces inside the whole program."""
    import time

    import jax
    import jax.numpy as jnp

    import paritygym
    from paritygym.batching import batched_step
    from paritygym.twoplayer import random_legal_action
    from pokejax import env as penv
    from pokejax.game import engine

    env, params = paritygym.make(env_id)
    keys = jax.random.split(jax.random.key(seed), batch)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    mask_of = jax.vmap(env.action_mask, in_axes=(0, None))
    step = batched_step(env)

    @jax.jit
    def env_step(key, states):
        k_act, k_step = jax.random.split(key)
        actions = jax.vmap(random_legal_action)(jax.random.split(k_act, batch), mask_of(states, params))
        return step(jax.random.split(k_step, batch), states, actions, params)[1]

    for t in range(warm_steps):
        states = env_step(jax.random.key(1000 + t), states)
    game = states.game
    two = jnp.zeros((batch, 2), jnp.int32)
    g = params.game
    pieces = {
        "env_step (whole)": (env_step, (jax.random.key(7), states)),
        "engine.step": (jax.vmap(engine.step), (game, two)),
        "engine.switch_step": (jax.vmap(engine.switch_step), (game, two)),
        "new episode (teams + initial_state)": (jax.vmap(env._new_episode, in_axes=(0, None)), (keys, params)),
        "observe": (jax.vmap(lambda s, p: penv.observe(s, p, g.full_observation)), (game, states.agent)),
        "legal_masks": (jax.vmap(penv.legal_masks), (game,)),
        "max_damage_action": (jax.vmap(lambda k, s, p: penv.max_damage_action(k, s, p)), (keys, game, 1 - states.agent)),
    }
    out = {}
    for name, (fn, args) in pieces.items():
        fn = jax.jit(fn)
        jax.block_until_ready(fn(*args))
        cpu = time.process_time()
        for _ in range(calls):
            res = fn(*args)
        jax.block_until_ready(res)
        out[name] = (time.process_time() - cpu) / calls / batch * 1e6
        print(f"  {name:<38} {out[name]:8.1f} CPU us per env", flush=True)
    return out


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="pokejax env step: CPU cost of its pieces")
    ap.add_argument("--pieces", action="store_true", required=True)
    ap.add_argument("--env", default="PokemonGen1RandomPool-v0")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=10)
    args = ap.parse_args()
    piece_costs(args.env, args.batch, calls=args.calls)
