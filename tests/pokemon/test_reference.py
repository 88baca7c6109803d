"""The Showdown oracle itself: pinned version, seeding rules, and team slots as the bridge reports them."""

from __future__ import annotations

import pytest


def test_pinned_version(showdown):
    assert showdown.call("ping")["version"] == "0.11.11"


def test_battle_and_player_seeds_reproduce_a_battle(showdown):
    def run():
        b = showdown.start(seed=[1, 2, 3, 4], p1_seed=[5, 6, 7, 8], p2_seed=[9, 10, 11, 12])
        states = [b["state"]]
        logs = list(b["log"])
        for _ in range(3):
            r = showdown.choose(b["id"], None, None)
            states.append(r["state"])
            logs += r["log"]
        showdown.destroy(b["id"])
        return states, logs, b["teams"]

    states_a, logs_a, teams_a = run()
    states_b, logs_b, teams_b = run()
    assert teams_a == teams_b
    assert logs_a == logs_b and not any(line.startswith("|t:|") for line in logs_a)
    assert states_a == states_b
    # PRNG state after three autoChoose turns (battle seed 1,2,3,4; player seeds 5..8, 9..12)
    assert [s["state"]["seed"] if "state" in s else s["seed"] for s in states_a][1:] == [
        "55250,62519,52978,42619", "54274,43667,37867,24894", "14735,5508,9502,51264"]


def test_switch_choices_use_original_team_slots(showdown):
    b = showdown.start(seed=[7, 7, 7, 7], p1_seed=[1, 1, 1, 1], p2_seed=[2, 2, 2, 2])
    assert b["state"]["sides"][0]["active"] == 0
    r = showdown.choose(b["id"], {"switch": 4}, {"move": 0})
    side = r["state"]["sides"][0]
    assert side["active"] == 4
    assert side["team"][4]["active"] and not side["team"][0]["active"]
    assert side["order"][0] == 4
    showdown.destroy(b["id"])


def test_speed_benchmark_drivers_count_decisions(showdown):
    """Both random-play benchmarks (the battle called directly, and Showdown's battle streams with
    its RandomPlayerAI) play whole battles and count one turn per commitChoices: at least one
    decision per battle, and a gen-1 battle of 6 vs 6 lasts more than six of them."""
    for driver in ("engine", "stream"):
        reply = showdown.speed(3, seed=(1, 2, 3, 4), driver=driver)
        assert reply["turns"] > 3 * 6 and reply["seconds"] > 0, (driver, reply)
    # the stream driver's battles come from its seed alone (Showdown's Runner seeds both RandomPlayerAIs)
    first, again = (showdown.speed(3, seed=(1, 2, 3, 4), driver="stream")["turns"] for _ in range(2))
    assert first == again
    with pytest.raises(ValueError, match="driver"):
        showdown.speed(1, driver="websocket")
