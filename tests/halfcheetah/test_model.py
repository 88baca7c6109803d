"""Model constants: the shipped HalfCheetah constants equal a fresh compilation, and the loader
refuses models the engine cannot simulate with a clear error."""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pytest

from cheetahjax.data import HALF_CHEETAH_FIELDS, half_cheetah_model
from cheetahjax.data.generate import compile_half_cheetah
from planarjax.physics import model as pm
from planarjax.physics.model import PlanarModel, UnsupportedModelError, fields_from_mjmodel, load_fields


def test_shipped_constants_match_fresh_compilation():
    shipped = load_fields(HALF_CHEETAH_FIELDS)
    fresh = fields_from_mjmodel(compile_half_cheetah())
    skip = {"mujoco_version", "source"}
    assert set(fresh) - skip <= set(shipped), "shipped file lacks fields: regenerate with python -m cheetahjax.data.generate"
    for key in sorted(set(fresh) - skip):
        if key == "opt":
            for name, value in fresh["opt"].items():
                np.testing.assert_allclose(np.asarray(shipped["opt"][name], dtype=float), np.asarray(value, dtype=float),
                                           rtol=1e-13, atol=0, err_msg=f"opt.{name}")
        elif isinstance(fresh[key], list) and fresh[key] and isinstance(fresh[key][0], str):
            assert shipped[key] == fresh[key], key
        else:
            np.testing.assert_allclose(np.asarray(shipped[key], dtype=float), np.asarray(fresh[key], dtype=float),
                                       rtol=1e-13, atol=1e-15, err_msg=key)


def test_planar_model_from_fresh_mjmodel_equals_shipped():
    shipped = half_cheetah_model()
    fresh = PlanarModel.from_mjmodel(compile_half_cheetah(), name="half_cheetah")
    for field in dataclasses.fields(shipped):
        value, other = getattr(shipped, field.name), getattr(fresh, field.name)
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(other, value, rtol=1e-13, atol=1e-15, err_msg=field.name)
        else:
            assert other == value, field.name


def test_enum_values_match_mujoco():
    assert pm.JNT_SLIDE == mujoco.mjtJoint.mjJNT_SLIDE and pm.JNT_HINGE == mujoco.mjtJoint.mjJNT_HINGE
    assert pm.GEOM_PLANE == mujoco.mjtGeom.mjGEOM_PLANE and pm.GEOM_CAPSULE == mujoco.mjtGeom.mjGEOM_CAPSULE
    assert pm.GEOM_BOX == mujoco.mjtGeom.mjGEOM_BOX and pm.GEOM_SPHERE == mujoco.mjtGeom.mjGEOM_SPHERE
    assert pm.INTEGRATOR_EULER == mujoco.mjtIntegrator.mjINT_EULER
    assert pm.CONE_PYRAMIDAL == mujoco.mjtCone.mjCONE_PYRAMIDAL
    assert pm.TRN_JOINT == mujoco.mjtTrn.mjTRN_JOINT and pm.DYN_NONE == mujoco.mjtDyn.mjDYN_NONE
    assert pm.GAIN_FIXED == mujoco.mjtGain.mjGAIN_FIXED and pm.BIAS_NONE == mujoco.mjtBias.mjBIAS_NONE
    assert pm.DSBL_WARMSTART == mujoco.mjtDisableBit.mjDSBL_WARMSTART
    assert pm.DSBL_FILTERPARENT == mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
    assert (pm.MINVAL, pm.MINIMP, pm.MAXIMP, pm.MINMU) == (mujoco.mjMINVAL, mujoco.mjMINIMP, mujoco.mjMAXIMP,
                                                          mujoco.mjMINMU)


def test_collision_pairs_are_floor_capsule_pairs():
    model = half_cheetah_model()
    m = compile_half_cheetah()
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    assert model.contact_pairs == tuple((floor, g) for g in range(m.ngeom) if g != floor)
    assert model.limited_joints == tuple(j for j in range(m.njnt) if m.jnt_limited[j])


def _compile(xml: str):
    return mujoco.MjModel.from_xml_string(xml)


_BASE = """
<mujoco>
  <option integrator="{integrator}"/>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 .1"/>
    <body name="b" pos="0 0 1">
      <joint name="j" type="{joint}" axis="{axis}"/>
      <geom type="{geom}" size=".1 .2 .1" fromto="{fromto}"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("change, message", [
    (dict(joint="ball", axis="0 1 0"), "free and ball joints"),
    (dict(joint="hinge", axis="1 0 0"), "not along y"),
    (dict(joint="slide", axis="0 1 0"), "leaves the x-z plane"),
    (dict(integrator="RK4"), "Euler"),
    (dict(geom="box", fromto=""), "no collision function"),
])
def test_unsupported_models_raise_clear_errors(change, message):
    params = dict(integrator="Euler", joint="hinge", axis="0 1 0", geom="capsule", fromto="-.2 0 0 .2 0 0")
    params.update(change)
    xml = _BASE.format(**params).replace('fromto=""', "")
    with pytest.raises(UnsupportedModelError, match=message):
        PlanarModel.from_mjmodel(_compile(xml))
