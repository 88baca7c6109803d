"""PufferLib 3.0 "Ocean" Pong rules as pure JAX functions on a `PongState`.

No RL concerns here (see env.py): a game is a state, a paddle direction per agent step and one
random bit per agent step (the ball's vertical speed when a round starts). Every branch is a
`jnp.where`, so the step vmaps without divergence. All arithmetic is float32 in the same order
as the C reference (pongjax/csrc/pong.c), which makes the two bit-identical.

Geometry (y points up; the agent is the right paddle, the scripted opponent the left one):

    x = 0 ............................................ x = width (500)
    | left paddle (opponent)        ball        right paddle (agent) |
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from paritygym.checks import bounded
from paritygym.numerics import exact_div, rounded_product

f32 = jnp.float32


@struct.dataclass
class PongParams:
    """Court geometry and speeds (traced: changing them does not recompile)."""

    width: float = bounded(500.0, gt=0)
    height: float = bounded(640.0, gt=0)
    paddle_width: float = bounded(20.0, gt=0)
    paddle_height: float = bounded(70.0, gt=0)
    paddle_speed: float = bounded(8.0, ge=0)
    ball_width: float = bounded(32.0, gt=0)
    ball_height: float = bounded(32.0, gt=0)
    ball_initial_speed_x: float = bounded(10.0, ge=0)
    ball_initial_speed_y: float = bounded(1.0, ge=0)
    ball_speed_y_increment: float = bounded(3.0, ge=0)
    ball_max_speed_y: float = bounded(13.0, ge=0)
    max_score: int = bounded(21, ge=1)


@struct.dataclass
class PongState:
    paddle_yl: jax.Array  # opponent paddle bottom edge (f32)
    paddle_yr: jax.Array  # agent paddle bottom edge (f32)
    ball_x: jax.Array  # ball left edge (f32)
    ball_y: jax.Array  # ball bottom edge (f32)
    ball_vx: jax.Array
    ball_vy: jax.Array
    score_l: jax.Array  # opponent's points (i32)
    score_r: jax.Array  # agent's points (i32)
    tick: jax.Array  # agent steps since the round started (PufferLib's episode_length log)
    n_bounces: jax.Array  # paddle hits this round
    obs: jax.Array  # f32[8]: the last computed observation (PufferLib keeps a stale one after a point)


def paddle_range(p: PongParams) -> tuple[jax.Array, jax.Array]:
    """Paddles may stick out of the court by half their height."""
    return -f32(p.paddle_height) / 2, f32(p.height) - f32(p.paddle_height) / 2


def observe(s: PongState, p: PongParams, corrected: bool) -> jax.Array:
    """The 8 normalised observation values.

    PufferLib 3.0 divides the unsigned integer scores by max_score in integer arithmetic, so the two
    score features are 0 until a score reaches max_score (which ends the game): always 0. With
    ``corrected`` they are score / max_score as floats.
    """
    lo, hi = paddle_range(p)
    if corrected:
        scores = (exact_div(s.score_l.astype(f32), f32(p.max_score)), exact_div(s.score_r.astype(f32), f32(p.max_score)))
    else:
        max_score = jnp.int32(p.max_score)
        scores = ((s.score_l // max_score).astype(f32), (s.score_r // max_score).astype(f32))
    return jnp.stack(
        [
            exact_div(s.paddle_yl - lo, hi - lo),
            exact_div(s.paddle_yr - lo, hi - lo),
            exact_div(s.ball_x, f32(p.width)),
            exact_div(s.ball_y, f32(p.height)),
            exact_div(s.ball_vx + f32(p.ball_initial_speed_x), 2 * f32(p.ball_initial_speed_x)),
            exact_div(s.ball_vy + f32(p.ball_max_speed_y), 2 * f32(p.ball_max_speed_y)),
            *scores,
        ]
    ).astype(f32)


def start_round(s: PongState, p: PongParams, bit: jax.Array) -> PongState:
    """Paddles and ball back to the start; the ball flies towards the agent with vy in {-1, 0} x initial vy.

    ``bit`` plays the part of PufferLib's ``rand() % 2``.
    """
    paddle_y = f32(p.height) / 2 - f32(p.paddle_height) / 2
    return s.replace(
        paddle_yl=paddle_y,
        paddle_yr=paddle_y,
        ball_x=exact_div(f32(p.width), 5),
        ball_y=f32(p.height) / 2 - f32(p.ball_height) / 2,
        ball_vx=f32(p.ball_initial_speed_x),
        ball_vy=(bit.astype(jnp.int32) - 1).astype(f32) * f32(p.ball_initial_speed_y),
        tick=jnp.int32(0),
        n_bounces=jnp.int32(0),
    )


def new_game(p: PongParams, bit: jax.Array) -> PongState:
    zero = f32(0.0)
    blank = PongState(
        paddle_yl=zero, paddle_yr=zero, ball_x=zero, ball_y=zero, ball_vx=zero, ball_vy=zero,
        score_l=jnp.int32(0), score_r=jnp.int32(0), tick=jnp.int32(0), n_bounces=jnp.int32(0),
        obs=jnp.zeros(8, f32),
    )
    s = start_round(blank, p, bit)
    return s.replace(obs=observe(s, p, corrected=False))  # scores are 0: both observation modes agree


def paddle_direction(action: jax.Array, continuous: bool) -> jax.Array:
    """Discrete: 0 stay, 1 up (+1), 2 down (-1), anything else stay. Continuous: clip to [-1, 1];
    non-finite and subnormal values count as 0 (XLA on CPU flushes subnormals; treating them as 0
    in both engines keeps every reachable state free of them)."""
    if continuous:
        a = jnp.asarray(action, f32).reshape(-1)[0]
        usable = jnp.isfinite(a) & (jnp.abs(a) >= jnp.finfo(f32).tiny)
        return jnp.clip(jnp.where(usable, a, f32(0.0)), -1.0, 1.0)
    a = jnp.asarray(action).astype(jnp.int32).reshape(())
    return jnp.where(a == 1, f32(1.0), jnp.where(a == 2, f32(-1.0), f32(0.0)))


def _where(cond: jax.Array, a: PongState, b: PongState) -> PongState:
    return jax.tree.map(lambda x, y: jnp.where(cond, x, y), a, b)


# The fields an observation is computed from.
OBSERVED_FIELDS = ("paddle_yl", "paddle_yr", "ball_x", "ball_y", "ball_vx", "ball_vy", "score_l", "score_r")


def step(
    s: PongState, direction: jax.Array, bit: jax.Array, p: PongParams, frameskip: int, corrected: bool
) -> tuple[PongState, jax.Array, jax.Array, jax.Array]:
    """One agent step: ``frameskip`` frames, stopping at the first point.

    Returns ``(state, reward, terminal, last_obs)``; ``last_obs`` is the observation the ended game
    last showed (stale, as PufferLib computes none for its last point) on a terminal step, else the
    state's observation. The reward is assigned, not summed, across frames: the last event wins
    (+0.1 for a hit by the agent, +1 when the agent scores, -1 when it concedes). On the game's
    last point the state is already the next game's start (as in PufferLib).

    Observations are computed once, at the end, from the fields of the last frame that computed
    one (the same values PufferLib computes every frame): per-frame [8]-vectors selected through
    the frame chain make XLA recompute the whole chain for every vector element.
    """
    lo, hi = paddle_range(p)
    speed = f32(p.paddle_speed)
    ph, bw, bh = f32(p.paddle_height), f32(p.ball_width), f32(p.ball_height)
    old_obs = s.obs
    s = s.replace(tick=s.tick + 1)
    reward = f32(0.0)
    terminal = jnp.bool_(False)
    playing = jnp.bool_(True)  # no point scored yet in this agent step
    seen = {k: getattr(s, k) for k in OBSERVED_FIELDS}  # what the current observation shows...
    seen_now = jnp.bool_(False)  # ...once a frame of this step has computed one (else old_obs)
    ended_seen, ended_seen_now = seen, jnp.bool_(False)  # the same, frozen at the game's last point
    fresh_game = new_game(p, bit)
    for _ in range(frameskip):
        yr = s.paddle_yr + rounded_product(speed, direction)  # C: no FMA contraction
        delta = jnp.clip(s.ball_y - (s.paddle_yl + ph / 2), -speed, speed)
        yl = jnp.clip(s.paddle_yl + delta, lo, hi)
        yr = jnp.clip(yr, lo, hi)
        bx = s.ball_x + s.ball_vx
        by = s.ball_y + s.ball_vy
        vx = s.ball_vx
        vy = jnp.where((by < 0) | (by + bh > f32(p.height)), -s.ball_vy, s.ball_vy)

        at_left = bx < 0
        left_hit = at_left & (by + bh > yl) & (by < yl + ph)
        agent_scores = at_left & ~left_hit
        vx = jnp.where(left_hit, -vx, vx)

        at_right = (bx + bw > f32(p.width)) & ~agent_scores
        right_hit = at_right & (by + bh > yr) & (by < yr + ph)
        opponent_scores = at_right & ~right_hit
        vx = jnp.where(right_hit, -vx, vx)
        vy_hit = jnp.clip(vy + rounded_product(f32(p.ball_speed_y_increment), direction), -f32(p.ball_max_speed_y), f32(p.ball_max_speed_y))
        vy_hit = jnp.where((vy_hit < 0.01) & (vy_hit > -0.01), f32(p.ball_speed_y_increment), vy_hit)
        vy = jnp.where(right_hit, vy_hit, vy)
        bx = jnp.where(right_hit, jnp.clip(bx, 0, f32(p.width) - bw), bx)
        by = jnp.where(right_hit, jnp.clip(by, 0, f32(p.height) - bh), by)

        moved = s.replace(
            paddle_yl=yl, paddle_yr=yr, ball_x=bx, ball_y=by, ball_vx=vx, ball_vy=vy,
            n_bounces=s.n_bounces + (left_hit | right_hit).astype(jnp.int32),
            score_l=s.score_l + opponent_scores.astype(jnp.int32),
            score_r=s.score_r + agent_scores.astype(jnp.int32),
        )  # fmt: skip
        scored = agent_scores | opponent_scores
        game_over = scored & ((moved.score_r == p.max_score) | (moved.score_l == p.max_score))
        # After a point: a new round or, on the last point, a new game.
        after_point = _where(game_over, fresh_game.replace(obs=s.obs), start_round(moved, p, bit))
        frame_state = _where(scored, after_point, moved)
        # Every frame computes an observation except a point that does not end the game (3.0 quirk).
        observes = playing & (~scored | game_over | corrected)
        ends = playing & game_over
        ended_seen = {k: jnp.where(ends, seen[k], ended_seen[k]) for k in OBSERVED_FIELDS}
        ended_seen_now = jnp.where(ends, seen_now, ended_seen_now)
        seen = {k: jnp.where(observes, getattr(frame_state, k), seen[k]) for k in OBSERVED_FIELDS}
        seen_now = seen_now | observes

        reward = jnp.where(
            playing,
            jnp.where(agent_scores, f32(1.0), jnp.where(opponent_scores, f32(-1.0), jnp.where(right_hit, f32(0.1), reward))),
            reward,
        )
        terminal = terminal | ends
        s = _where(playing, frame_state, s)
        playing = playing & ~scored

    seen, ended_seen = jax.lax.optimization_barrier((seen, ended_seen))
    obs = jnp.where(seen_now, observe(s.replace(**seen), p, corrected), old_obs)
    ended_obs = jnp.where(ended_seen_now, observe(s.replace(**ended_seen), p, corrected), old_obs)
    s = s.replace(obs=obs)
    return s, reward, terminal, jnp.where(terminal, ended_obs, obs)
