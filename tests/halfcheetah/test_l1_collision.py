"""L1: capsule-plane contacts and contact frames vs MuJoCo's d.contact (float64)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from cheetahjax.data import half_cheetah_model

from .helpers import cheetah_states, max_abs, mujoco_forward, new_mujoco, run_probe64

MJ = new_mujoco()
MODEL = half_cheetah_model()


@settings(max_examples=100, deadline=None)
@given(cheetah_states())
def test_contacts_match_mujoco(state):
    ref = mujoco_forward(*MJ, *state)
    contacts = run_probe64(*state)["fwd"].contacts
    margin = MODEL.pair_margin[np.asarray(contacts.pair)]
    # MuJoCo keeps every candidate within the margin (dist <= margin), in pair order.
    exists = contacts.dist <= margin
    assert exists.sum() == ref["ncon"]
    geoms = np.array([MODEL.contact_pairs[p] for p in contacts.pair])[exists]
    assert np.array_equal(geoms, ref["contact_geom"].reshape(-1, 2))
    assert max_abs(contacts.dist[exists], ref["contact_dist"]) < 1e-12
    assert max_abs(contacts.pos[exists], ref["contact_pos"]) < 1e-12
    assert max_abs(contacts.frame[exists].reshape(-1, 9), ref["contact_frame"]) < 1e-12
