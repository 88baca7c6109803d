"""The course model: MJCF (``course.xml``) and its compiled constants (``course.json``, see generate.py)."""

from __future__ import annotations

import functools
import pathlib

from planarjax.physics.model import PlanarModel, load_fields

DATA_DIR = pathlib.Path(__file__).resolve().parent
COURSE_XML = DATA_DIR / "course.xml"
COURSE_FIELDS = DATA_DIR / "course.json"


@functools.lru_cache(maxsize=None)
def course_model() -> PlanarModel:
    """The climbing course for the planar engine, float64, from the shipped constants (no MuJoCo needed)."""
    return PlanarModel.from_fields(load_fields(COURSE_FIELDS), name="climb_course")
