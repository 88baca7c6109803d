"""Regenerate cheetahjax/data/half_cheetah.json from Gymnasium's half_cheetah.xml.

    python -m cheetahjax.data.generate

Compiles the XML with the installed MuJoCo (the version is recorded in the file) and stores
the raw MjModel fields the engine reads. tests/halfcheetah/test_model.py checks the shipped
file against a fresh compilation.
"""

from __future__ import annotations

import pathlib
import warnings


def half_cheetah_xml_path() -> pathlib.Path:
    import gymnasium

    return pathlib.Path(gymnasium.__file__).resolve().parent / "envs" / "mujoco" / "assets" / "half_cheetah.xml"


def compile_half_cheetah():
    """Gymnasium's HalfCheetah MjModel, compiled exactly as Gymnasium does (from the XML path)."""
    import mujoco

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # settotalmass deprecation notice (values unchanged)
        return mujoco.MjModel.from_xml_path(str(half_cheetah_xml_path()))


def main() -> None:
    from cheetahjax.data import HALF_CHEETAH_FIELDS
    from planarjax.physics.model import fields_from_mjmodel, save_fields

    fields = fields_from_mjmodel(compile_half_cheetah())
    fields["source"] = "gymnasium/envs/mujoco/assets/half_cheetah.xml"
    save_fields(fields, HALF_CHEETAH_FIELDS)
    print(f"wrote {HALF_CHEETAH_FIELDS}")


if __name__ == "__main__":
    main()
