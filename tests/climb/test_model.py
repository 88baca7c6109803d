"""The shipped course constants match a fresh compilation of course.xml, and the model checks."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from climbjax.data import COURSE_FIELDS, COURSE_XML
from climbjax.data.generate import compile_course
from planarjax.physics import model as pm


def test_shipped_fields_match_fresh_compile():
    shipped = json.loads(COURSE_FIELDS.read_text())
    fresh = json.loads(json.dumps(pm.fields_from_mjmodel(compile_course())))
    for key, value in fresh.items():
        if key == "mujoco_version":
            continue
        assert key in shipped, key
        if isinstance(value, dict):
            for k, v in value.items():
                assert np.allclose(np.asarray(shipped[key][k], dtype=float), np.asarray(v, dtype=float), atol=0), (key, k)
        elif isinstance(value, list) and value and isinstance(value[0], str):
            assert shipped[key] == value, key
        else:
            assert np.array_equal(np.asarray(shipped[key]), np.asarray(value)), key


def test_thin_box_is_refused():
    """A box whose y faces could be nearest to a sphere centre inside it would give out-of-plane normals."""
    xml = COURSE_XML.read_text().replace('size="0.5 2 0.9"', 'size="0.5 0.4 0.9"')
    with pytest.raises(pm.UnsupportedModelError, match="half-size along y"):
        pm.PlanarModel.from_fields(pm.fields_from_mjmodel(mujoco.MjModel.from_xml_string(xml)))


def test_moving_box_is_refused():
    xml = COURSE_XML.read_text().replace('type="sphere" pos="0.7 0 0" size="0.1"', 'type="box" pos="0.7 0 0" size="0.1 0.1 0.1"')
    with pytest.raises(pm.UnsupportedModelError):
        pm.PlanarModel.from_fields(pm.fields_from_mjmodel(mujoco.MjModel.from_xml_string(xml)))
