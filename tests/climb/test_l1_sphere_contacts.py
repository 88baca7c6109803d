"""L1: the new contact pairs (plane-sphere, sphere-box, sphere-capsule) vs MuJoCo's d.contact.

Contacts are matched by geom pair (MuJoCo's broad phase orders pairs its own way; the order does
not change the physics): the same set of pairs, and per pair the same distance, point, frame and
mixed friction, in float64.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

from climbjax.data import course_model
from planarjax.physics import model as pm

from .helpers import contacts_by_pair, mujoco_forward, new_mujoco, random_states, run_probe64

MODEL = course_model()
STATES = random_states(seed=1, count=300)


@pytest.fixture(scope="module")
def compared():
    m, d = new_mujoco()
    out = []
    for state in STATES:
        ref = mujoco_forward(m, d, *state)
        ours = contacts_by_pair(MODEL, run_probe64(*state)["fwd"].contacts)
        out.append((ref, ours))
    return out


def _type_pair(pair):
    return tuple(MODEL.geom_type[g] for g in pair)


def test_every_new_pair_type_is_exercised(compared):
    seen = collections.Counter(_type_pair(tuple(g)) for ref, _ in compared for g in ref["contact_geom"])
    for types in [(pm.GEOM_PLANE, pm.GEOM_SPHERE), (pm.GEOM_SPHERE, pm.GEOM_BOX), (pm.GEOM_SPHERE, pm.GEOM_CAPSULE)]:
        assert seen[types] >= 10, (types, seen)


def test_contact_set_matches(compared):
    for ref, ours in compared:
        theirs = {tuple(int(x) for x in g) for g, ex in zip(ref["contact_geom"], ref["contact_exclude"])}
        assert set(ours) == theirs


def test_distance_point_frame_friction_match(compared):
    worst = collections.defaultdict(float)
    for ref, ours in compared:
        for i, g in enumerate(ref["contact_geom"]):
            c = ours[tuple(int(x) for x in g)]
            kind = pm.GEOM_TYPE_NAMES[MODEL.geom_type[g[0]]] + "-" + pm.GEOM_TYPE_NAMES[MODEL.geom_type[g[1]]]
            worst[kind + " dist"] = max(worst[kind + " dist"], abs(c["dist"] - ref["contact_dist"][i]))
            worst[kind + " pos"] = max(worst[kind + " pos"], np.max(np.abs(c["pos"] - ref["contact_pos"][i])))
            worst[kind + " frame"] = max(worst[kind + " frame"],
                                         np.max(np.abs(c["frame"].reshape(9) - ref["contact_frame"][i])))
            pair = MODEL.contact_pairs.index(tuple(int(x) for x in g))
            assert np.allclose(MODEL.pair_friction[pair], ref["contact_friction"][i], rtol=0, atol=1e-15)
    print(dict(worst))
    assert max(worst.values()) < 1e-12, dict(worst)


def test_inside_box_and_corner_cases():
    """Centres inside a box (nearest face), beyond a corner, on a rotated box (the slope), and a
    sphere against the capsule rock across the plane."""
    m, d = new_mujoco()
    states = [
        np.array([6.3, 0.3, 0.0, -1.2, 0.5]),     # head deep inside step2 (centre inside the box)
        np.array([4.42, 0.62, 0.2, 0.3, 0.2]),    # pot against step 2's top-left corner
        np.array([9.0, 0.55, -0.3, -1.6, 0.6]),   # on the rotated slope
        np.array([5.7, 0.6, 0.0, 2.0, 0.9]),      # pot into the rock
    ]
    for qpos in states:
        ref = mujoco_forward(m, d, qpos, np.zeros(5), np.zeros(2))
        ours = contacts_by_pair(MODEL, run_probe64(qpos, np.zeros(5), np.zeros(2))["fwd"].contacts)
        assert set(ours) == {tuple(int(x) for x in g) for g in ref["contact_geom"]}
        for i, g in enumerate(ref["contact_geom"]):
            c = ours[tuple(int(x) for x in g)]
            assert abs(c["dist"] - ref["contact_dist"][i]) < 1e-12
            assert np.max(np.abs(c["pos"] - ref["contact_pos"][i])) < 1e-12
            assert np.max(np.abs(c["frame"].reshape(9) - ref["contact_frame"][i])) < 1e-12
