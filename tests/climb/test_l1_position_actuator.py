"""L1: position actuators (fixed gain, affine bias -kp q, ctrl and force clamps) vs MuJoCo."""

from __future__ import annotations

import numpy as np

from climbjax.data import course_model
from planarjax.physics import model as pm

from .helpers import mujoco_forward, new_mujoco, random_states, run_probe64

MODEL = course_model()


def test_model_reads_position_actuators():
    m, _ = new_mujoco()
    assert pm.BIAS_AFFINE == int(m.actuator_biastype[0]) == 1
    assert MODEL.actuator_has_bias == (True, True)
    assert np.array_equal(MODEL.actuator_biasprm, m.actuator_biasprm[:, :3])


def test_actuator_forces_match_mujoco():
    m, d = new_mujoco()
    saturated = 0
    for qpos, qvel, ctrl in random_states(seed=2, count=150):
        ref = mujoco_forward(m, d, qpos, qvel, ctrl)
        ours = run_probe64(qpos, qvel, ctrl)["fwd"].qfrc_actuator
        assert np.max(np.abs(ours - ref["qfrc_actuator"])) < 1e-12
        saturated += int(np.any(np.isclose(np.abs(ref["actuator_force"]), m.actuator_forcerange[:, 1])))
    assert saturated >= 10  # the force clamp was exercised


def test_velocity_bias_is_refused():
    """kv (a velocity term in the bias) is not covered by these tests, so the model loader refuses it."""
    import mujoco

    from climbjax.data import COURSE_XML

    xml = COURSE_XML.read_text().replace('kp="500"', 'kp="500" kv="5"')
    fields = pm.fields_from_mjmodel(mujoco.MjModel.from_xml_string(xml))
    try:
        pm.PlanarModel.from_fields(fields)
    except pm.UnsupportedModelError as error:
        assert "kv" in str(error)
    else:
        raise AssertionError("a velocity-biased actuator was accepted")
