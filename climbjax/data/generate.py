"""Regenerate climbjax/data/course.json from course.xml.

    python -m climbjax.data.generate

Compiles the MJCF with the installed MuJoCo (the version is recorded in the file) and stores the
raw MjModel fields the planar engine reads. tests/climb/test_model.py checks the shipped file
against a fresh compilation.
"""

from __future__ import annotations


def compile_course():
    import mujoco

    from climbjax.data import COURSE_XML

    return mujoco.MjModel.from_xml_path(str(COURSE_XML))


def main() -> None:
    from planarjax.physics.model import fields_from_mjmodel, save_fields
    from climbjax.data import COURSE_FIELDS

    fields = fields_from_mjmodel(compile_course())
    fields["source"] = "climbjax/data/course.xml"
    save_fields(fields, COURSE_FIELDS)
    print(f"wrote {COURSE_FIELDS}")


if __name__ == "__main__":
    main()
