"""Where a pokejax env step's run time goes, and Showdown's random-play speed by how it is driven.

    python -m benchmarks.pokemon --pieces --batch 1024   # CPU cost of each piece of the env step
    python -m benchmarks.pokemon --drivers               # Showdown turns/s, called directly or through streams

`paritygym bench PokemonGen1Random-v0 --reference` uses `pokejax.reference.reference_bench`.
"""

from __future__ import annotations

from collections.abc import Callable

from pokejax.reference import reference_bench


# ---------------------------------------------------------------------------------------------
# Where an env step's run time goes: ``python -m benchmarks.pokemon --pieces --batch 1024``
# ---------------------------------------------------------------------------------------------

def _cpu_us_per_env(fn, args, batch: int, calls: int) -> float:
    """CPU microseconds of this process per env of one call of ``jax.jit(fn)(*args)`` (compiled first)."""
    import time

    import jax

    fn = jax.jit(fn)
    jax.block_until_ready(fn(*args))
    cpu = time.process_time()
    for _ in range(calls):
        res = fn(*args)
    jax.block_until_ready(res)
    return (time.process_time() - cpu) / calls / batch * 1e6


def piece_costs(env_id: str = "PokemonGen1RandomPool-v0", batch: int = 1024, warm_steps: int = 40,
                calls: int = 10, seed: int = 0) -> dict[str, float]:
    """CPU microseconds per env of each piece of the env step at ``batch`` envs, on mid-battle
    states (reached by ``warm_steps`` random legal env steps), timed in CPU seconds of this process
    (steady on a shared machine).

    Two kinds of rows: ``stage:`` rows are the stages of ``step_batch`` in its order, each jitted
    alone on the real intermediate values of one step of the batch (so the chunked stages run on as
    many needing envs as the step really has; their counts are printed); the other rows are pieces
    vmapped alone on the mid-battle states. XLA fuses across pieces inside the whole program, so
    the rows add up to the whole only roughly."""
    import jax
    import jax.numpy as jnp

    import paritygym
    from paritygym.batching import batched_step
    from paritygym.twoplayer import random_legal_action
    from pokejax.game import batched, engine
    from pokejax.game.bots import max_damage_action
    from pokejax.game.masks import legal_masks
    from pokejax.game.observe import observe

    env, params = paritygym.make(env_id)
    keys = jax.random.split(jax.random.key(seed), batch)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    mask_of = jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))
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
    actions = jax.jit(jax.vmap(random_legal_action))(keys, mask_of(states, params))
    out: dict[str, float] = {}

    def timed(name, fn, args):
        out[name] = _cpu_us_per_env(fn, args, batch, calls)
        print(f"  {name:<46} {out[name]:8.1f} CPU us per env", flush=True)

    timed("env_step (whole, random actions included)", env_step, (jax.random.key(7), states))
    for name, fn, args in step_batch_stages(env, params, keys, states, actions):
        timed(f"stage: {name}", fn, args)
    pieces = {
        "engine.step": (jax.vmap(engine.step), (game, two)),
        "engine.move_step": (jax.vmap(engine.move_step), (game, two)),
        "engine.switch_step": (jax.vmap(engine.switch_step), (game, two)),
        "batched.switch_step_batch": (batched.switch_step_batch, (game, two)),
        "new episode (teams + initial_state)": (jax.vmap(env._new_episode, in_axes=(0, None)), (keys, params)),
        "observe": (jax.vmap(lambda s, p: observe(s, p, g.full_observation)), (game, states.agent)),
        "legal_masks": (jax.vmap(legal_masks), (game,)),
        "opponent: random_legal_action": (jax.vmap(random_legal_action), (keys, mask_of(states, params))),
        "opponent: max_damage_action": (jax.vmap(lambda k, s, p: max_damage_action(k, s, p)),
                                        (keys, game, 1 - states.agent)),
    }
    for name, (fn, args) in pieces.items():
        timed(name, fn, args)
    # inside engine.move_step: its parts on the same states, both players choosing at random
    both = jax.jit(jax.vmap(lambda k, m: jax.vmap(random_legal_action)(jax.random.split(k, 2), m)))(
        keys, jax.vmap(legal_masks)(game))
    begun = jax.jit(jax.vmap(engine.begin_step))(game)
    engine_parts = {
        "engine.move_step, random actions": (jax.vmap(engine.move_step), (game, both)),
        "... begin_step (the step's draw pool)": (jax.vmap(engine.begin_step), (game,)),
        "... move_turn": (jax.vmap(lambda s, a: engine.move_turn(s, a, True)), (begun, both)),
        "... ... run_move (p1's first move slot, alone)": (
            jax.vmap(lambda s: engine.run_move(s, s.active.moves[0, 0], True)), (begun,)),
        "... end_turn": (jax.vmap(lambda s: engine.end_turn(s, True)), (begun,)),
        "... end_step": (jax.vmap(engine.end_step), (begun,)),
    }
    for name, (fn, args) in engine_parts.items():
        timed(name, fn, args)
    return out


def step_batch_stages(env, params, keys, states, actions) -> list[tuple[str, Callable, tuple]]:
    """(name, function, arguments) of each stage of ``env.step_batch(keys, states, actions, params)``
    in order (``pokejax.env_step.batch_stages``, the list ``step_batch`` runs, default chunks), the
    arguments being the real outputs of the stages before (run here, jitted). Prints how many envs
    each chunked stage has to run on."""
    import jax

    from pokejax import env_step
    from pokejax.game.state import REQUEST_START, REQUEST_SWITCH

    inputs = env_step.batch_inputs(keys, states, actions)
    out, results = [], []
    for name, fn, stage_args in env_step.batch_stages(env, params, *env_step.chunk_sizes(inputs)):
        args = stage_args(inputs, results)
        out.append((name, fn, args))
        results.append(jax.jit(fn)(*args))
    joint = results[1][0]
    in_switch = (states.game.request == REQUEST_START) | (states.game.request == REQUEST_SWITCH)
    print(f"  envs in a switch request: {int(in_switch.sum())}, with a lone replacement or a new battle after "
          f"the joint step: {int((joint.lone | joint.restarted).sum())}, a new battle: {int(joint.restarted.sum())} "
          f"(of {actions.shape[0]}; the new battles are the new episodes drawn)", flush=True)
    return out


if __name__ == "__main__":
    import argparse
    import os

    ap = argparse.ArgumentParser(description="pokejax env step: CPU cost of its pieces (--pieces), or Showdown's "
                                             "random-play speed by how it is driven (--drivers)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--pieces", action="store_true")
    what.add_argument("--drivers", action="store_true",
                      help="Showdown turns/s called directly and through its battle streams, 1 process and 1 per core")
    ap.add_argument("--env", default="PokemonGen1RandomPool-v0")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=10)
    args = ap.parse_args()
    if args.drivers:
        for procs in sorted({1, os.cpu_count() or 1}):
            for driver in ("engine", "stream"):
                turns = reference_bench(64, 2000, procs, driver=driver)
                print(f"  Showdown, {driver:<6} driver, {procs} process(es): {turns:10,.0f} turns/s", flush=True)
    else:
        from paritygym.memory import keep_freed_memory

        keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
        piece_costs(args.env, args.batch, calls=args.calls)
