"""The RL env PokemonGen1Random-v0: registration, random play through the single-agent env (both
built-in opponents, one compiled program), rewards, masks, the turn cap, illegal actions, hidden
information in the observation, team injection, and (slow) paritygym's conformance checker.

The battle engine itself is verified against Showdown in test_l3_battles.py; the env's core step
is that engine step after ``legal_or_first`` (checked here to be the identity on legal choices)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym.testing import check_action_dtype, check_env, check_options
from paritygym.twoplayer import OPPONENT_HEURISTIC, OPPONENT_RANDOM
from pokejax import env as penv
from pokejax.data import tables
from pokejax import env_step
from pokejax.game.bots import expected_damage, max_damage_action
from pokejax.game.masks import legal_mask, legal_or_first
from pokejax.game.observe import OBS_SIZE, obs_layout, observe
from pokejax.game.state import REQUEST_SWITCH
from paritygym.verify import compare_trajectories
from pokejax.reference import engine_record, showdown_record

ENV_ID = "PokemonGen1Random-v0"
POOL_ENV_ID = "PokemonGen1RandomPool-v0"
BATCH = 16


@pytest.fixture(scope="session")
def batched():
    """The env, its params and its reset/step/mask/observe, vmapped over BATCH and jitted once."""
    env, params = paritygym.make(ENV_ID)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    mask = jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))
    game = env.game

    def views(state, player, full):
        return (observe(state, player, full), legal_mask(state, player),
                max_damage_action(jax.random.key(0), state, player), expected_damage(state, player))

    views_of = jax.jit(jax.vmap(views, in_axes=(0, 0, None)))
    return env, params, reset, step, mask, views_of, game


def _random_legal(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int32)


def _play(batched, params, steps, seed):
    """Random legal play of the agent; returns per-step arrays and every game state seen."""
    env, _, reset, step, mask, _, _ = batched
    key = jax.random.key(seed)
    obs, state = reset(jax.random.split(key, BATCH), params)
    rng = np.random.default_rng(seed)
    out = {"obs": [np.asarray(obs)], "reward": [], "terminated": [], "truncated": [], "illegal": [], "states": [state]}
    for t in range(steps):
        masks = np.asarray(mask(state, params))
        assert masks.any(axis=1).all(), "the agent has no legal action in a running episode"
        actions = _random_legal(rng, masks)
        obs, state, reward, terminated, truncated, info = step(jax.random.split(jax.random.fold_in(key, t), BATCH),
                                                               state, actions, params)
        out["obs"].append(np.asarray(obs))
        out["reward"].append(np.asarray(reward))
        out["terminated"].append(np.asarray(terminated))
        out["truncated"].append(np.asarray(truncated))
        out["illegal"].append(np.asarray(info["illegal_action"]))
        out["states"].append(state)
    return {k: (np.stack(v) if k != "states" else v) for k, v in out.items()}


@pytest.fixture(scope="session")
def step_batch():
    """The env's own batched step (``paritygym.batched_step``) over BATCH envs, jitted once. Its
    default chunks at this batch (2 envs for the switch-only steps, 1 for new battles and their observation)
    are smaller than the number of envs that need them in many steps: the overflow path runs often."""
    env, _ = paritygym.make(ENV_ID)
    assert paritygym.batched_step(env) == env.step_batch
    return jax.jit(paritygym.batched_step(env))


def _assert_same_tree(a, b, what):
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b, what
    for k, (x, y) in enumerate(zip(leaves_a, leaves_b)):
        assert np.array_equal(np.asarray(x), np.asarray(y)), f"{what}: leaf {k} of {tree_a} differs"


@pytest.mark.parametrize("opponent,max_steps", [(OPPONENT_RANDOM, 100_000), (OPPONENT_HEURISTIC, 100_000),
                                                (OPPONENT_RANDOM, 4)])
def test_step_batch_equals_vmapped_step(batched, step_batch, opponent, max_steps):
    """``step_batch`` (rare work gathered into chunks) gives exactly the vmapped ``step``'s
    outputs: observations, the whole next state, rewards, flags and every ``info`` array, step
    for step over 120 steps of random legal play with illegal actions mixed in, both opponents;
    ``max_steps_in_episode=4`` restarts all envs at once (every chunk overflows), also envs whose
    step was their own replacement (both switch-only steps in one env step). The returned
    observation is always the observation of the returned state."""
    env, params, reset, step, mask, observe, _ = batched
    params = params.replace(opponent=opponent, max_steps_in_episode=max_steps)
    key = jax.random.key(40 + opponent + max_steps)
    _, state = reset(jax.random.split(key, BATCH), params)
    rng = np.random.default_rng(opponent)
    most_restarted = replaced_then_restarted = own_replacements = lone_replacements = 0
    for t in range(120):
        actions = _random_legal(rng, np.asarray(mask(state, params)))
        actions = np.where(rng.random(BATCH) < 0.1, rng.integers(-2, 12, BATCH), actions).astype(np.int32)
        keys = jax.random.split(jax.random.fold_in(key, t), BATCH)
        out = step(keys, state, actions, params)
        out_batch = step_batch(keys, state, actions, params)
        _assert_same_tree(out, out_batch, f"step {t}")
        obs, new_state, _, terminated, truncated, _ = out
        own_obs = observe(new_state.game, new_state.agent, params.game.full_observation)[0]
        assert np.array_equal(np.asarray(obs), np.asarray(own_obs)), f"step {t}: obs is not the state's"
        ended = np.asarray(terminated | truncated)
        most_restarted = max(most_restarted, int(ended.sum()))
        in_switch = np.asarray(state.game.request) == REQUEST_SWITCH
        replaced_then_restarted += int((ended & in_switch).sum())
        own_replacements += int(in_switch.sum())
        # the opponent alone lost a Pokémon in a move turn and the battle goes on: its lone replacement
        rows = np.arange(BATCH)
        agent = np.asarray(state.agent)
        left, left_next = np.asarray(state.game.side.pokemon_left), np.asarray(new_state.game.side.pokemon_left)
        lone_replacements += int((~ended & ~in_switch & (left_next[rows, 1 - agent] < left[rows, 1 - agent])
                                  & (left_next[rows, agent] == left[rows, agent])).sum())
        state = new_state
    # each of step_batch's paths ran: the agent's own replacement (a switch request), the
    # opponent's lone replacement, a restart (the next battle's start)
    assert own_replacements >= 1 and lone_replacements >= 1, (own_replacements, lone_replacements)
    if max_steps == 4:
        assert most_restarted == BATCH and replaced_then_restarted >= 1
    else:
        assert most_restarted >= 1


@pytest.mark.parametrize("chunks", [(0, None), (None, 0), (-1, 2), (2, 1.5), (True, None)])
def test_step_batch_rejects_bad_chunk_sizes(chunks):
    """A chunk of 0 (or any non-positive or non-int size) is an error, not silently the default."""
    env, params = paritygym.make(POOL_ENV_ID)
    switch_chunk, restart_chunk = chunks
    with pytest.raises(ValueError, match=r"(switch|restart)_chunk must be a positive int or None"):
        env.step_batch(jax.random.split(jax.random.key(0), BATCH), None, jnp.zeros(BATCH, jnp.int32), params,
                       switch_chunk=switch_chunk, restart_chunk=restart_chunk)


def test_step_batch_default_and_given_chunk_sizes():
    inputs = {"actions": jnp.zeros(64, jnp.int32)}
    assert env_step.chunk_sizes(inputs) == (8, 1)
    assert env_step.chunk_sizes(inputs, 1, 64) == (1, 64)
    assert env_step.chunk_sizes({"actions": jnp.zeros(3, jnp.int32)}) == (1, 1)

def test_registered():
    env, params = paritygym.make(ENV_ID)
    assert isinstance(env, penv.PokemonGen1RandomEnv) and env.num_actions == 10
    assert env.observation_space(params).shape == (OBS_SIZE,)
    spec = paritygym.spec(ENV_ID)
    assert spec.reference_bench == "pokejax.reference:reference_bench" and spec.verify == "pokejax.verify:verify"
    _, p = paritygym.make(ENV_ID, opponent=OPPONENT_HEURISTIC, game=penv.PokemonParams(max_turns=50))
    assert p.opponent == OPPONENT_HEURISTIC and p.game.max_turns == 50
    with pytest.raises(TypeError, match="max_turn"):
        paritygym.make(ENV_ID, max_turn=5)


def test_env_module_still_offers_the_game_functions():
    """``pokejax.env`` re-exports the observation, masks and bot it held before they moved to
    ``pokejax.game`` (the same functions)."""
    from pokejax.game.masks import NUM_ACTIONS, legal_masks

    for name in penv.__all__:
        assert hasattr(penv, name), name
    assert penv.observe is observe and penv.obs_layout is obs_layout and penv.OBS_SIZE == OBS_SIZE
    assert penv.legal_masks is legal_masks and penv.legal_mask is legal_mask and penv.legal_or_first is legal_or_first
    assert penv.max_damage_action is max_damage_action and penv.expected_damage is expected_damage
    assert penv.NUM_ACTIONS == NUM_ACTIONS


def test_observation_layout_covers_the_vector():
    layout = obs_layout()
    assert layout[0][1] == 0 and layout[-1][1] + layout[-1][2] == OBS_SIZE
    assert all(a[1] + a[2] == b[1] for a, b in zip(layout, layout[1:]))
    assert len({name for name, _, _ in layout}) == len(layout)


def test_observation_table_features_lie_in_unit_range():
    """The observation clips only the features it computes (``pokejax.game.observe._unit``); those it
    reads from the data tables must lie in [-1, 1] as they are: base stats, power and accuracy over 255,
    priority."""
    gen1 = tables.load()
    assert 0 <= np.min(gen1.species_base) and np.max(gen1.species_base) <= 255
    assert 0 <= np.min(gen1.move_power) and np.max(gen1.move_power) <= 255
    assert np.max(gen1.move_accuracy) <= 255   # negative: never misses (shown as 1)
    assert -1 <= np.min(gen1.move_priority) and np.max(gen1.move_priority) <= 1


@pytest.mark.parametrize("opponent", [OPPONENT_RANDOM, OPPONENT_HEURISTIC])
def test_random_play(batched, opponent):
    """Whole battles: finite in-bounds observations, legal actions accepted, rewards +1/-1 only when
    a battle ends, episodes end and restart (autoreset)."""
    _, params, *_ = batched
    params = params.replace(opponent=opponent)
    run = _play(batched, params, 150, seed=opponent)
    assert np.isfinite(run["obs"]).all() and (np.abs(run["obs"]) <= 1).all()
    assert not run["illegal"].any()
    ended = run["terminated"] | run["truncated"]
    assert run["terminated"].sum() >= BATCH, "too few battles ended in 150 steps"
    assert set(np.unique(run["reward"])) <= {-1.0, 0.0, 1.0}
    assert (run["reward"][~ended] == 0).all()
    assert (run["reward"][run["terminated"]] != 0).mean() > 0.9   # ties are rare
    if opponent == OPPONENT_HEURISTIC:
        # the max-damage bot beats a uniformly random agent most of the time
        results = run["reward"][run["terminated"]]
        assert (results == -1).mean() > 0.6, results


def test_same_key_same_trajectory(batched):
    _, params, *_ = batched
    a = _play(batched, params, 20, seed=5)
    b = _play(batched, params, 20, seed=5)
    for k in ("obs", "reward", "terminated"):
        assert np.array_equal(a[k], b[k])
    c = _play(batched, params, 20, seed=6)
    assert not np.array_equal(a["obs"], c["obs"])


def test_turn_cap_truncates_with_zero_reward(batched):
    _, params, *_ = batched
    params = params.replace(game=params.game.replace(max_turns=3))
    run = _play(batched, params, 12, seed=3)
    turns = np.stack([np.asarray(s.game.turn) for s in run["states"]])
    assert run["truncated"].any()
    assert (run["reward"][run["truncated"] & ~run["terminated"]] == 0).all()
    # every state carried on (after autoreset) is within the cap
    assert (turns <= 4).all()


def test_illegal_action_replaced_by_first_legal(batched):
    env, params, reset, step, mask, *_ = batched
    keys = jax.random.split(jax.random.key(11), BATCH)
    obs, state = reset(keys, params)
    masks = np.asarray(mask(state, params))
    bad = np.full(BATCH, 99, np.int32)
    first = masks.argmax(axis=1).astype(np.int32)
    out_bad = step(keys, state, bad, params)
    out_first = step(keys, state, first, params)
    assert np.asarray(out_bad[5]["illegal_action"]).all()
    assert not np.asarray(out_first[5]["illegal_action"]).any()
    assert np.array_equal(np.asarray(out_bad[0]), np.asarray(out_first[0]))


def test_legal_or_first_keeps_legal_choices(batched):
    _, params, *_ , observe, game = batched
    run = _play(batched, params, 30, seed=8)
    checked = 0
    keep_legal = jax.jit(jax.vmap(legal_or_first))
    masks_of = jax.jit(jax.vmap(lambda s: jnp.stack([legal_mask(s, 0), legal_mask(s, 1)])))
    rng = np.random.default_rng(0)
    for st in run["states"][::5]:
        g = st.game
        masks = np.asarray(masks_of(g))
        acts = np.array([[rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in pair] for pair in masks], np.int32)
        kept = np.asarray(keep_legal(g, acts))
        acting = masks.any(axis=2)
        assert np.array_equal(kept[acting], acts[acting])
        checked += acting.sum()
    assert checked > 0


def test_hidden_information(batched):
    """Own team in full; the opponent's Pokémon only once they have been in battle, its moves
    only once used, its HP as a percentage; ``full`` shows everything."""
    _, params, *_, observe, game = batched
    run = _play(batched, params, 25, seed=4)
    layout = {name: (start, n) for name, start, n in obs_layout()}

    def field(obs, name):
        s, n = layout[name]
        return obs[..., s:s + n]

    seen_hidden = 0
    for st in run["states"][::4]:
        g = st.game
        players = np.zeros(BATCH, np.int32)
        obs, masks, _, _ = observe(g, players, False)
        full, *_ = observe(g, players, True)
        obs, full = np.asarray(obs), np.asarray(full)
        revealed = np.asarray(g.team.revealed)[:, 1]
        size = np.asarray(g.team.size)[:, 1]
        for k in range(6):
            present = field(obs, f"opponent.team[{k}].present")[:, 0]
            assert np.array_equal(present == 1, revealed[:, k] & (k < size)), k
            hidden = ~revealed[:, k] & (k < size)
            seen_hidden += hidden.sum()
            assert (field(obs, f"opponent.team[{k}].species")[hidden] == 0).all()
            assert (field(full, f"opponent.team[{k}].species")[hidden] > 0).all()
            assert (field(obs, f"opponent.team[{k}].stats") == 0).all()   # exact stats never shown
            own = field(obs, f"own.team[{k}].species")[:, 0]
            assert ((own > 0) == (k < np.asarray(g.team.size)[:, 0])).all()
            assert np.array_equal(field(obs, f"own.team[{k}].present"), field(full, f"own.team[{k}].present"))
    assert seen_hidden > 0


def test_heuristic_picks_a_legal_max_damage_move(batched):
    _, params, *_, observe, game = batched
    run = _play(batched, params, 20, seed=9)
    for st in run["states"][::3]:
        g = st.game
        for p in (0, 1):
            _, masks, action, dmg = observe(g, np.full(BATCH, p, np.int32), False)
            masks, action, dmg = np.asarray(masks), np.asarray(action), np.asarray(dmg)
            live = masks.any(axis=1)
            assert masks[live, action[live]].all()
            moves_dmg = np.where(masks[:, :4], dmg, -1)
            attack = live & (moves_dmg.max(axis=1) > 0)
            assert np.array_equal(action[attack], moves_dmg[attack].argmax(axis=1))


def test_team_injection_matches_showdown(showdown):
    """``init_from_packed``: the battle Showdown starts from the same packed teams and seed."""
    for k in range(3):
        seeds = [[k, 1, 2, 3], [k, 4, 5, 6]]
        teams = [showdown.generate_team(s)["packed"] for s in seeds]
        battle_seed = [k + 7, 8, 9, 10]
        reply = showdown.start(battle_seed, p1_team=teams[0], p2_team=teams[1])
        try:
            st = penv.PokemonGen1Random().init_from_packed(teams[0], teams[1], battle_seed)
            cmp = compare_trajectories([engine_record(st)], [showdown_record(reply)])
            assert cmp.matched, cmp.first_divergence
        finally:
            showdown.destroy(reply["id"])


def test_team_pool_option():
    """The default env runs Showdown's generator; the pool id (or ``team_pool_size``) carries a
    pool in its params; a bad size is refused at construction."""
    _, default = paritygym.make(ENV_ID)
    assert default.game.team_pool is None
    env, params = paritygym.make(POOL_ENV_ID)
    assert env.team_pool_size == 4096 and params.game.team_pool.size == 4096
    _, small = paritygym.make(ENV_ID, team_pool_size=64, team_pool_seed=5)
    assert small.game.team_pool.size == 64
    with pytest.raises(ValueError, match="size"):
        paritygym.make(ENV_ID, team_pool_size=-1)


def test_hand_built_pool_with_an_unbatched_move_is_refused():
    """The env's batched step has no engine fallback: a pool holding a move the batched turn does
    not run (Metronome, built by hand) is refused when the step is traced with it, naming the move;
    the generator's pools pass."""
    from paritygym.batching import batched_step
    from pokejax.game import batched

    env, params = paritygym.make(ENV_ID, team_pool_size=64, team_pool_seed=5)
    pool = params.game.team_pool
    assert batched.unbatched_moves(pool.teams.moves) == []
    moves = np.array(pool.teams.moves)
    moves[3, 0, 1] = tables.load().move_by_id["metronome"]
    bad = params.replace(game=params.game.replace(team_pool=pool.replace(teams=pool.teams.replace(moves=jnp.asarray(moves)))))
    keys = jax.random.split(jax.random.key(0), 2)
    states = jax.eval_shape(lambda k: jax.vmap(env.reset, in_axes=(0, None))(k, params)[1], keys)
    actions = jnp.zeros(2, jnp.int32)
    jax.eval_shape(lambda k, s, a: batched_step(env)(k, s, a, params), keys, states, actions)   # the generator's pool
    with pytest.raises(ValueError, match="metronome"):
        jax.eval_shape(lambda k, s, a: batched_step(env)(k, s, a, bad), keys, states, actions)
    # the vector env passes params as an argument (traced): it checks them on the host instead
    from paritygym.vector import JaxVectorEnv
    with pytest.raises(ValueError, match="metronome"):
        JaxVectorEnv(env, bad, 2)


def test_team_pool_battles_match_showdown(showdown):
    """Battles the pool env starts (teams drawn from the pool, battle seed from the key) are
    battles Showdown plays identically: both teams injected as packed teams, the same battle
    seed, random legal choices, the full state compared after every decision (L3)."""
    from pokejax import parity
    from pokejax.game import setup

    env, params = paritygym.make(ENV_ID, team_pool_size=64, team_pool_seed=1)
    init = jax.jit(env.game.init_unstarted)
    pool_rows = {tuple(r) for r in np.asarray(params.game.team_pool.teams.species)}
    steps = 0
    for k in range(4):
        st = init(jax.random.key(100 + k), params.game)
        teams = [setup.TeamArrays(*(np.asarray(getattr(st.team, f))[side] for f in
                                    ("species", "level", "moves", "ivs", "evs", "size")))
                 for side in (0, 1)]
        assert all(tuple(t.species) in pool_rows for t in teams)
        hi, lo = (int(w) for w in np.asarray(st.rng))
        battle_seed = [hi >> 16, hi & 0xFFFF, lo >> 16, lo & 0xFFFF]
        result = parity.play_battle(showdown, battle_seed, teams=[setup.to_packed(t) for t in teams], choice_seed=k)
        assert result.matched, str(result)
        steps += result.steps
    assert steps > 40


@pytest.mark.slow
def test_conformance():
    report = check_env(ENV_ID, num_envs=2, num_steps=16)
    assert report.episodes_ended > 0


@pytest.mark.slow
def test_conformance_team_pool():
    report = check_env(POOL_ENV_ID, num_envs=2, num_steps=16)
    assert report.episodes_ended > 0


@pytest.mark.parametrize("env_id", [ENV_ID, POOL_ENV_ID])
def test_conformance_of_options_and_action_dtype(env_id):
    """The parts of check_env that compile nothing, in the default suite (the full run is slow)."""
    assert len(check_options(env_id)) == 4
    assert check_action_dtype(env_id)


def test_verify_hook_runs_l3():
    """``paritygym verify PokemonGen1Random-v0``'s hook: L3 on a few battles (the compiled engine
    of test_l3_battles.py is reused), and a clear refusal of the levels it does not run."""
    from pokejax.verify import verify

    (report,) = verify(level=3, episodes=2, seed=3)
    assert report.passed and report.episodes == 2 and report.steps > 10, report
    (refused,) = verify(level=1, episodes=1)
    assert not refused.passed and "tests/pokemon" in refused.failure
    with pytest.raises(ValueError, match="episodes"):
        verify(level=3, episodes=0)


def test_compile_report_kernel_origins_reads_xla_call_stacks():
    """``pokemon_compile_report --programs kernels`` finds each XLA kernel's stage from the call stack XLA
    keeps: a small program's kernels come from a function named like a stage (or have no stack:
    some ops XLA wraps into a kernel of their own carry none)."""
    from benchmarks.pokemon_compile_report import kernel_origins

    def batch_move(x):
        return jnp.sin(x) * 2.0 + jnp.cos(x)[::-1], jnp.cumsum(x * x)

    counts, total, packed = kernel_origins(jax.jit(batch_move).lower(jnp.ones(64)).compile().as_text())
    assert total >= 1 and sum(counts.values()) == total and packed == 0
    assert counts[("batch_move", "(own)")] >= 1, counts
    assert set(counts) <= {("batch_move", "(own)"), ("outside step_batch", "?")}, counts


def test_compile_report_profile_maps_kernel_runs_to_their_origin():
    """``pokemon_compile_report --programs profile``'s pieces: every kernel run the profiler records is named
    like an instruction of the compiled module, runs once per call, and takes the stage of the
    function it comes from."""
    from benchmarks.pokemon_compile_report import _kernel_stacks, kernel_durations, origin

    def batch_move(x):
        return jnp.sin(x) * 2.0 + jnp.cos(x)[::-1], jnp.cumsum(x * x)

    x = jnp.ones(4096)
    compiled = jax.jit(batch_move).lower(x).compile()
    jax.block_until_ready(compiled(x))
    durations, cpu = kernel_durations(lambda: [jax.block_until_ready(compiled(x)) for _ in range(3)])
    stacks = _kernel_stacks(compiled.as_text())
    assert durations and cpu > 0
    assert set(durations) <= set(stacks), set(durations) - set(stacks)
    assert all(len(runs) == 3 and min(runs) >= 0 for runs in durations.values()), durations
    staged = [name for name in durations if stacks[name]]
    assert staged and all(origin(stacks[name]) == ("batch_move", "(own)") for name in staged), staged


def test_compile_report_stale_reads_names_the_readers_of_a_copied_version():
    """``pokemon_compile_report --programs copies``: for a copy of the largest copied array, the other readers
    of the copied value are reported (one pair per reader), and smaller copies are only counted."""
    from benchmarks.pokemon_compile_report import stale_reads

    text = "\n".join([
        "ENTRY %main (p: s32[8,4]) -> s32[8,4] {",
        "  %p = s32[8,4]{1,0} parameter(0)",
        "  %w1 = s32[8,4]{1,0} fusion(%p), kind=kLoop, calls=%f1",
        "  %copy.1 = s32[8,4]{1,0} copy(%w1)",
        "  %w2 = s32[8,4]{1,0} fusion(%copy.1), kind=kLoop, calls=%f2",
        "  %old = s32[8]{0} fusion(%w1, %w2), kind=kLoop, calls=%f3",
        "  %small = s32[2]{0} slice(%p), slice={[0:2]}",
        "  %copy.2 = s32[2]{0} copy(%small)",
        "  ROOT %t = (s32[8,4]{1,0}, s32[8]{0}, s32[2]{0}) tuple(%w2, %old, %copy.2)",
        "}",
    ])
    largest, count, total, pairs = stale_reads(text)
    assert (largest, count, total) == ("s32[8,4]", 1, 2)
    assert pairs == {("?", "?"): 1}, pairs


@pytest.mark.slow  # a measurement tool's check (compiles the step with each ablation stub)
def test_compile_report_ablation_stubs_keep_the_step_shapes():
    """``pokemon_compile_report --programs ablations`` times the bench program without one part at a time: each
    stub must leave the batched env step's outputs with the same shapes and dtypes (else it would time
    another program) and must really take its part out (the step's StableHLO shrinks)."""
    from benchmarks.pokemon_compile_report import _stub_parts

    def outputs_and_lines(stub=None):
        env, params = paritygym.make(ENV_ID)
        if stub is not None:
            stub(env)
        keys = jax.random.split(jax.random.key(0), 8)
        states = jax.eval_shape(lambda k: jax.vmap(env.reset, in_axes=(0, None))(k, params)[1], keys)
        actions = jax.ShapeDtypeStruct((8,), jnp.int32)
        step = jax.jit(lambda k, s, a: env.step_batch(k, s, a, params))
        lines = len(step.lower(keys, states, actions).as_text().splitlines())
        return jax.eval_shape(step, keys, states, actions), lines

    whole, whole_lines = outputs_and_lines()
    for name, stub in _stub_parts().items():
        outputs, lines = outputs_and_lines(stub)
        assert jax.tree_util.tree_structure(outputs) == jax.tree_util.tree_structure(whole), name
        assert all(a.shape == b.shape and a.dtype == b.dtype
                   for a, b in zip(jax.tree_util.tree_leaves(outputs), jax.tree_util.tree_leaves(whole))), name
        assert lines < whole_lines, (name, lines, whole_lines)


def test_compile_report_run_ablations_refuses_an_unknown_part():
    """``--programs run_ablations --stubs``: a misspelt part is refused by name before anything compiles."""
    from benchmarks.pokemon_compile_report import run_ablations

    with pytest.raises(ValueError, match="unknown parts \\['move trun'\\]"):
        run_ablations(8, 1, 1, only="observation;move trun+observation")


@pytest.mark.parametrize("pick", [99, -1, penv.NUM_ACTIONS])
def test_user_opponent_out_of_range_pick_falls_back_to_the_first_legal_action(pick):
    """A user policy's out-of-range pick is not read as another action (a clamped or wrapped lookup read these
    picks as the last action and let them through when that one was legal)."""
    env = penv.PokemonGen1RandomEnv(opponents=(lambda key, obs, mask: jnp.int32(pick),))
    params = env.default_params.replace(opponent=2)
    _, state = env.reset(jax.random.key(3), params)
    only_last = jnp.zeros(penv.NUM_ACTIONS, bool).at[penv.NUM_ACTIONS - 1].set(True)
    choose = jax.jit(lambda k, g, m: env._opponent_action(k, g, 1, params, m))
    assert int(choose(jax.random.key(4), state.game, only_last)) == penv.NUM_ACTIONS - 1
    assert int(choose(jax.random.key(4), state.game, only_last.at[2].set(True))) == 2
