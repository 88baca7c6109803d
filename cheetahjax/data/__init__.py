"""Generated model constants (see generate.py) and the loader for them."""

from __future__ import annotations

import functools
import pathlib

from planarjax.physics.model import PlanarModel, load_fields

DATA_DIR = pathlib.Path(__file__).resolve().parent
HALF_CHEETAH_FIELDS = DATA_DIR / "half_cheetah.json"


@functools.lru_cache(maxsize=None)
def half_cheetah_model() -> PlanarModel:
    """Gymnasium HalfCheetah-v5's model, float64, from the shipped constants (no MuJoCo needed)."""
    return PlanarModel.from_fields(load_fields(HALF_CHEETAH_FIELDS), name="half_cheetah")
