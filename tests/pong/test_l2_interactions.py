"""L2: rules that interact, on constructed states, in our engine and the C reference."""

from __future__ import annotations

import numpy as np

from .pong_helpers import HI, LO, assert_same, make_state, step_both

f32 = np.float32


def test_agent_hit_in_the_top_corner_clamps_ball_and_speed():
    # Agent paddle at the top of its range, ball arriving in the corner with maximal upward speed.
    state = make_state(paddle_yr=HI, ball_x=465.0, ball_y=600.0, ball_vx=10.0, ball_vy=13.0)
    ours, theirs = step_both(state, action=1, bit=0)
    assert_same(ours, theirs)
    assert ours["reward"] == f32(0.1)
    assert ours["ball_vy"] == f32(-10.0)  # the top wall reverses vy to -13 first, then the hit adds +3
    assert ours["ball_x"] == f32(468.0) and ours["ball_y"] == f32(608.0)


def test_agent_hit_at_the_bottom_corner_moving_down():
    state = make_state(paddle_yr=LO, ball_x=466.0, ball_y=2.0, ball_vx=10.0, ball_vy=-5.0)
    ours, theirs = step_both(state, action=2, bit=1)
    assert_same(ours, theirs)
    assert ours["reward"] == f32(0.1)
    assert ours["ball_y"] == f32(0.0)


def test_zero_vertical_speed_after_hit_becomes_plus_increment():
    state = make_state(paddle_yr=285.0, ball_x=465.0, ball_y=300.0, ball_vx=10.0, ball_vy=3.0)
    ours, theirs = step_both(state, action=2, bit=0)  # 3 + 3 * (-1) = 0 -> +3
    assert_same(ours, theirs)
    assert ours["ball_vy"] == f32(3.0)


def test_point_during_frameskip_skips_remaining_frames_and_leaves_stale_observation():
    # The agent misses on frame 2 of 4: frames 3-4 do not run, and the observation is frame 1's.
    state = make_state(paddle_yr=LO, ball_x=455.0, ball_y=500.0, ball_vx=10.0, ball_vy=1.0)
    ours, theirs = step_both(state, action=0, bit=1, frameskip=4)
    assert_same(ours, theirs)
    assert ours["reward"] == f32(-1.0) and ours["score_l"] == 1
    frame1, _ = step_both(state, action=0, bit=1, frameskip=1)
    assert np.array_equal(ours["obs"], frame1["obs"])  # PufferLib 3.0: stale after a point
    assert ours["ball_x"] == f32(100.0) and ours["tick"] == 0


def test_corrected_mode_observes_the_new_round_after_a_point():
    state = make_state(paddle_yr=LO, ball_x=455.0, ball_y=500.0, ball_vx=10.0, ball_vy=1.0, score_l=3)
    ours, theirs = step_both(state, action=0, bit=1, frameskip=4, corrected=True)
    assert_same(ours, theirs)
    assert ours["obs"][2] == f32(100.0) / f32(500.0)
    assert ours["obs"][6] == f32(4.0) / f32(21.0)


def test_twenty_first_point_ends_the_game_and_starts_a_new_one_in_the_same_step():
    state = make_state(ball_x=5.0, ball_y=600.0, ball_vx=-10.0, ball_vy=1.0, paddle_yl=LO, score_r=20, score_l=7)
    ours, theirs = step_both(state, action=0, bit=0)
    assert_same(ours, theirs)
    assert ours["terminated"] and ours["reward"] == f32(1.0)
    assert ours["score_l"] == 0 and ours["score_r"] == 0
    assert ours["ball_vy"] == f32(-1.0)
    # A new game computes its observation (unlike a new round).
    assert ours["obs"][2] == f32(100.0) / f32(500.0)


def test_opponent_twenty_first_point_during_frameskip():
    state = make_state(paddle_yr=LO, ball_x=455.0, ball_y=500.0, ball_vx=10.0, ball_vy=1.0, score_l=20)
    ours, theirs = step_both(state, action=1, bit=1, frameskip=4)
    assert_same(ours, theirs)
    assert ours["terminated"] and ours["reward"] == f32(-1.0) and ours["ball_vy"] == f32(0.0)


def test_opponent_bounce_then_agent_hit_within_one_skipped_step_rewards_last_event():
    # Left-edge bounce on frame 1, no scoring; reward stays 0 (opponent hits give nothing).
    state = make_state(paddle_yl=280.0, ball_x=5.0, ball_y=300.0, ball_vx=-10.0, ball_vy=0.0)
    ours, theirs = step_both(state, action=0, bit=0, frameskip=4)
    assert_same(ours, theirs)
    assert ours["ball_vx"] == f32(10.0) and ours["reward"] == f32(0.0) and ours["n_bounces"] == 1
