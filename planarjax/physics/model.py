"""Model constants for the planar rigid-body engine.

Two layers, so that the engine never needs MuJoCo at run time:

1. ``fields_from_mjmodel(m)`` copies the raw fields the engine uses out of a compiled
   ``mujoco.MjModel`` (MuJoCo's own names and layouts) into a plain dict of lists. The
   HalfCheetah dict is shipped as JSON in ``cheetahjax/data/`` (see ``cheetahjax/data/generate.py``),
   Climb's in ``climbjax/data/``.
2. ``PlanarModel.from_fields(fields)`` checks that the model is one this engine can simulate
   (a planar tree: slide joints in the x-z plane, hinges about y, Euler integrator, pyramidal
   cones, ...) and reduces it to the arrays the engine reads: angles instead of quaternions,
   (x, z) pairs instead of 3-vectors, contact-pair parameters mixed once at load time.

Everything that decides the *shape* of the program (tree topology, joint and geom types, the
list of collision pairs) is static (``pytree_node=False``); numbers are numpy arrays that get
baked into the compiled program as constants (cast with ``PlanarModel.astype``).
"""

from __future__ import annotations

import json
import math
import pathlib
from typing import Any

import numpy as np
from flax import struct

# MuJoCo enum values (mjtJoint, mjtGeom, mjtIntegrator, ...) used by the engine. They are part
# of MuJoCo's stable C API; a test checks them against the installed `mujoco` module.
JNT_FREE, JNT_BALL, JNT_SLIDE, JNT_HINGE = 0, 1, 2, 3
GEOM_PLANE, GEOM_HFIELD, GEOM_SPHERE, GEOM_CAPSULE, GEOM_ELLIPSOID, GEOM_CYLINDER, GEOM_BOX = range(7)
INTEGRATOR_EULER = 0
CONE_PYRAMIDAL = 0
TRN_JOINT = 0
DYN_NONE = 0
GAIN_FIXED = 0
BIAS_NONE = 0
BIAS_AFFINE = 1
DSBL_FILTERPARENT = 1 << 10
DSBL_WARMSTART = 1 << 9

# MuJoCo numeric constants (mjMINVAL, mjMINIMP, mjMAXIMP, mjMINMU).
MINVAL = 1e-15
MINIMP = 1e-4
MAXIMP = 0.9999
MINMU = 1e-5

# Geom-type pairs the collision module can handle (lower type first, as MuJoCo orders pairs).
# Extending the engine to a new pair means adding a function in collision.py and a key here.
SUPPORTED_COLLISION_PAIRS = {(GEOM_PLANE, GEOM_CAPSULE), (GEOM_PLANE, GEOM_SPHERE), (GEOM_SPHERE, GEOM_CAPSULE),
                             (GEOM_SPHERE, GEOM_BOX)}
# Which geom of a supported pair may move (1: the first, 2: the second); the other must be static.
MOVING_GEOM_OF_PAIR = {(GEOM_PLANE, GEOM_CAPSULE): 2, (GEOM_PLANE, GEOM_SPHERE): 2, (GEOM_SPHERE, GEOM_CAPSULE): 1,
                       (GEOM_SPHERE, GEOM_BOX): 1}

GEOM_TYPE_NAMES = {GEOM_PLANE: "plane", GEOM_HFIELD: "hfield", GEOM_SPHERE: "sphere", GEOM_CAPSULE: "capsule",
                   GEOM_ELLIPSOID: "ellipsoid", GEOM_CYLINDER: "cylinder", GEOM_BOX: "box"}


class UnsupportedModelError(ValueError):
    """The MuJoCo model uses a feature this engine does not simulate (yet)."""


# ----------------------------------------------------------------------------------------------
# Layer 1: raw fields out of a compiled MjModel
# ----------------------------------------------------------------------------------------------

_SIZE_FIELDS = ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "neq", "ntendon", "npair", "nexclude",
                "nmocap", "nflex", "nplugin")
_ARRAY_FIELDS = (
    "body_parentid", "body_rootid", "body_weldid", "body_jntadr", "body_jntnum", "body_dofadr", "body_dofnum",
    "body_pos", "body_quat", "body_ipos", "body_iquat", "body_mass", "body_inertia", "body_invweight0",
    "body_gravcomp",
    "jnt_type", "jnt_bodyid", "jnt_qposadr", "jnt_dofadr", "jnt_pos", "jnt_axis", "jnt_limited", "jnt_range",
    "jnt_margin", "jnt_solref", "jnt_solimp", "jnt_stiffness", "jnt_stiffnesspoly", "qpos0", "qpos_spring",
    "dof_bodyid", "dof_jntid", "dof_parentid", "dof_damping", "dof_dampingpoly", "dof_armature",
    "dof_frictionloss", "dof_invweight0",
    "geom_type", "geom_bodyid", "geom_contype", "geom_conaffinity", "geom_condim", "geom_priority",
    "geom_solmix", "geom_friction", "geom_solref", "geom_solimp", "geom_margin", "geom_gap", "geom_size",
    "geom_pos", "geom_quat", "geom_rgba",
    "actuator_trntype", "actuator_dyntype", "actuator_gaintype", "actuator_biastype", "actuator_trnid",
    "actuator_gear", "actuator_ctrllimited", "actuator_ctrlrange", "actuator_forcelimited",
    "actuator_forcerange", "actuator_gainprm", "actuator_biasprm", "actuator_damping", "actuator_armature",
)
_OPTION_FIELDS = ("timestep", "gravity", "integrator", "cone", "solver", "iterations", "tolerance", "ls_iterations",
                  "ls_tolerance", "impratio",
                  "disableflags", "enableflags", "density", "viscosity", "wind", "o_margin")


def _to_json_value(value: Any) -> Any:
    array = np.asarray(value)
    if array.dtype == np.bool_:
        return array.astype(bool).tolist()
    if np.issubdtype(array.dtype, np.integer) or array.dtype == np.uint8:
        return array.astype(int).tolist()
    return array.astype(float).tolist()


def fields_from_mjmodel(m: Any) -> dict[str, Any]:
    """Copy every MjModel field the engine reads into a JSON-ready dict (MuJoCo's names).

    Fields a given MuJoCo release does not have (e.g. ``dof_dampingpoly`` before 3.14) are
    left out; ``PlanarModel.from_fields`` treats a missing field as "feature unused".
    """
    import mujoco  # only needed to read names

    fields: dict[str, Any] = {"mujoco_version": mujoco.__version__}
    for name in _SIZE_FIELDS:
        fields[name] = int(getattr(m, name))
    for name in _ARRAY_FIELDS:
        if hasattr(m, name):
            fields[name] = _to_json_value(getattr(m, name))
    fields["opt"] = {name: _to_json_value(getattr(m.opt, name)) for name in _OPTION_FIELDS}
    fields["stat_meaninertia"] = float(m.stat.meaninertia)
    for kind, count, obj in (("body", m.nbody, mujoco.mjtObj.mjOBJ_BODY), ("jnt", m.njnt, mujoco.mjtObj.mjOBJ_JOINT),
                             ("geom", m.ngeom, mujoco.mjtObj.mjOBJ_GEOM),
                             ("actuator", m.nu, mujoco.mjtObj.mjOBJ_ACTUATOR)):
        fields[f"{kind}_names"] = [mujoco.mj_id2name(m, obj, i) or "" for i in range(count)]
    return fields


def save_fields(fields: dict[str, Any], path: str | pathlib.Path) -> None:
    # json writes floats with repr(), which round-trips float64 exactly.
    pathlib.Path(path).write_text(json.dumps(fields, indent=1) + "\n")


def load_fields(path: str | pathlib.Path) -> dict[str, Any]:
    return json.loads(pathlib.Path(path).read_text())


# ----------------------------------------------------------------------------------------------
# Layer 2: the planar engine's model
# ----------------------------------------------------------------------------------------------

def _quat_to_mat(q: np.ndarray) -> np.ndarray:
    w, x, y, z = np.asarray(q, dtype=np.float64) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _y_rotation_angle(q: np.ndarray, what: str, tol: float = 1e-12) -> float:
    """Angle of a quaternion that must be a rotation about +y (the planar engine's only rotation)."""
    q = np.asarray(q, dtype=np.float64) / np.linalg.norm(q)
    if abs(q[1]) > tol or abs(q[3]) > tol:
        raise UnsupportedModelError(f"{what}: orientation {q.tolist()} is not a rotation about y (not planar)")
    return 2.0 * math.atan2(q[2], q[0])


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise UnsupportedModelError(message)


def _mix_contact_parameters(f: dict[str, Any], g1: int, g2: int) -> dict[str, Any]:
    """Contact parameters of a geom pair, mixed as MuJoCo does for automatically found pairs."""
    priority = np.asarray(f["geom_priority"])
    solmix = np.asarray(f["geom_solmix"], dtype=np.float64)
    friction = np.asarray(f["geom_friction"], dtype=np.float64)
    solref = np.asarray(f["geom_solref"], dtype=np.float64)
    solimp = np.asarray(f["geom_solimp"], dtype=np.float64)
    condim = np.asarray(f["geom_condim"])
    if priority[g1] != priority[g2]:
        # The geom with the higher priority sets every parameter.
        win = g1 if priority[g1] > priority[g2] else g2
        out_condim, fr, mix = int(condim[win]), friction[win], 1.0 if win == g1 else 0.0
    else:
        out_condim = int(max(condim[g1], condim[g2]))
        fr = np.maximum(friction[g1], friction[g2])
        s1, s2 = solmix[g1], solmix[g2]
        if s1 >= MINVAL and s2 >= MINVAL:
            mix = s1 / (s1 + s2)
        elif s1 < MINVAL and s2 < MINVAL:
            mix = 0.5
        else:
            mix = 0.0 if s1 < MINVAL else 1.0
    if solref[g1, 0] > 0 and solref[g2, 0] > 0:
        ref = mix * solref[g1] + (1 - mix) * solref[g2]
    else:  # "direct" (negative) solref: MuJoCo takes the element-wise minimum
        ref = np.minimum(solref[g1], solref[g2])
    imp = mix * solimp[g1] + (1 - mix) * solimp[g2]
    margin = max(f["geom_margin"][g1], f["geom_margin"][g2])
    gap = max(f["geom_gap"][g1], f["geom_gap"][g2])
    # 5-vector: tangent1, tangent2, torsional, rolling1, rolling2.
    friction5 = np.maximum(MINMU, np.array([fr[0], fr[0], fr[1], fr[2], fr[2]]))
    return dict(condim=out_condim, friction=friction5, solref=ref, solimp=imp, margin=margin, gap=gap)


def _require_planar_pair(a: dict[str, np.ndarray], body_y: np.ndarray, g1: int, g2: int) -> None:
    """A contact between two geoms of a planar model stays in the x-z plane (normal with no y part)
    when the shapes are arranged symmetrically about the plane of motion: checked per shape."""
    for g in (g1, g2):
        gtype = int(a["geom_type"][g])
        rot = _quat_to_mat(a["geom_quat"][g])
        y = body_y[int(a["geom_bodyid"][g])] + float(a["geom_pos"][g][1])
        where = f"geom {g} ({GEOM_TYPE_NAMES.get(gtype, gtype)})"
        if gtype == GEOM_PLANE:
            _require(abs(rot[1, 2]) < 1e-12, f"{where}: plane normal leaves the x-z plane")
        elif gtype == GEOM_BOX:
            half_x, half_y, half_z = (float(v) for v in a["geom_size"][g])
            _require(abs(rot[1, 1] - 1.0) < 1e-12 and abs(y) < 1e-12,
                     f"{where}: boxes must be rotated about y only and centred on y = 0")
            # A sphere centre deep inside a box leaves through the nearest face; the y faces must
            # never be the nearest, or the contact normal would leave the plane.
            _require(half_y > min(half_x, half_z),
                     f"{where}: the half-size along y must exceed the smaller in-plane half-size")
        elif gtype == GEOM_CAPSULE:
            along_y = abs(abs(rot[1, 2]) - 1.0) < 1e-12
            _require((abs(rot[1, 2]) < 1e-12 and abs(y) < 1e-12)
                     or (along_y and abs(y) <= float(a["geom_size"][g][1])),
                     f"{where}: capsules must lie in the plane y = 0 or cross it along y")
        elif gtype == GEOM_SPHERE:
            _require(abs(y) < 1e-12, f"{where}: spheres must be centred on y = 0")


@struct.dataclass
class PlanarModel:
    """Constants of a planar tree of rigid bodies (motion in the x-z plane, rotation about y).

    Conventions: a planar pose is (x, z, angle); a planar motion vector is (omega_y, v_x, v_z)
    and a planar force vector is (torque_y, f_x, f_z). Body 0 is the world. Joint i has dof i
    and qpos index i (slide and hinge joints only).
    """

    # --- static structure: decides the program's shape -------------------------------------
    name: str = struct.field(pytree_node=False)
    nbody: int = struct.field(pytree_node=False)
    njnt: int = struct.field(pytree_node=False)
    ngeom: int = struct.field(pytree_node=False)
    nu: int = struct.field(pytree_node=False)
    body_parent: tuple[int, ...] = struct.field(pytree_node=False)
    body_root: tuple[int, ...] = struct.field(pytree_node=False)  # tree root (child of world); 0 for the world
    body_joints: tuple[tuple[int, ...], ...] = struct.field(pytree_node=False)
    body_last_dof: tuple[int, ...] = struct.field(pytree_node=False)  # deepest dof moving the body, -1: static
    jnt_type: tuple[int, ...] = struct.field(pytree_node=False)
    jnt_body: tuple[int, ...] = struct.field(pytree_node=False)
    dof_parent: tuple[int, ...] = struct.field(pytree_node=False)  # -1: no parent dof
    dof_body: tuple[int, ...] = struct.field(pytree_node=False)
    limited_joints: tuple[int, ...] = struct.field(pytree_node=False)
    geom_type: tuple[int, ...] = struct.field(pytree_node=False)
    geom_body: tuple[int, ...] = struct.field(pytree_node=False)
    contact_pairs: tuple[tuple[int, int], ...] = struct.field(pytree_node=False)  # (geom1, geom2), type1 <= type2
    pair_moving: tuple[int, ...] = struct.field(pytree_node=False)  # 0 or 1: which geom of the pair moves
    pair_condim: tuple[int, ...] = struct.field(pytree_node=False)
    actuator_dof: tuple[int, ...] = struct.field(pytree_node=False)
    actuator_ctrllimited: tuple[bool, ...] = struct.field(pytree_node=False)
    actuator_forcelimited: tuple[bool, ...] = struct.field(pytree_node=False)
    actuator_has_bias: tuple[bool, ...] = struct.field(pytree_node=False)  # affine bias (position actuators)
    implicit_damping: bool = struct.field(pytree_node=False)  # Euler integrates dof damping implicitly
    warmstart: bool = struct.field(pytree_node=False)
    # Newton solver options (opt.iterations, opt.tolerance, opt.ls_iterations, opt.ls_tolerance):
    # static, they set the float64 solver's stopping tests (solver.py).
    solver_iterations: int = struct.field(pytree_node=False)
    solver_tolerance: float = struct.field(pytree_node=False)
    ls_iterations: int = struct.field(pytree_node=False)
    ls_tolerance: float = struct.field(pytree_node=False)
    body_names: tuple[str, ...] = struct.field(pytree_node=False)
    jnt_names: tuple[str, ...] = struct.field(pytree_node=False)
    geom_names: tuple[str, ...] = struct.field(pytree_node=False)
    actuator_names: tuple[str, ...] = struct.field(pytree_node=False)

    # --- numbers ------------------------------------------------------------------------------
    timestep: np.ndarray            # ()
    gravity_xz: np.ndarray          # (2,)
    body_offset_xz: np.ndarray      # (nbody, 2) body origin in the parent frame
    body_offset_angle: np.ndarray   # (nbody,)   body frame rotation about y relative to the parent
    body_y: np.ndarray              # (nbody,)   world y of the body origin (constant in a planar model)
    body_com_xz: np.ndarray         # (nbody, 2) centre of mass in the body frame
    body_mass: np.ndarray           # (nbody,)
    body_inertia_yy: np.ndarray     # (nbody,)   rotational inertia about y through the COM
    body_invweight0: np.ndarray     # (nbody, 2) (translational, rotational), computed by MuJoCo at qpos0
    jnt_anchor_xz: np.ndarray       # (njnt, 2)  joint position in the body frame
    jnt_slide_axis_xz: np.ndarray   # (njnt, 2)  slide direction in the body frame (0 for hinges)
    jnt_hinge_sign: np.ndarray      # (njnt,)    +1 for axis +y, -1 for axis -y, 0 for slides
    qpos0: np.ndarray               # (nq,)
    qpos_spring: np.ndarray         # (nq,)
    jnt_stiffness: np.ndarray       # (njnt,)
    jnt_range: np.ndarray           # (njnt, 2)
    jnt_margin: np.ndarray          # (njnt,)
    jnt_solref: np.ndarray          # (njnt, 2)
    jnt_solimp: np.ndarray          # (njnt, 5)
    dof_damping: np.ndarray         # (nv,)
    dof_armature: np.ndarray        # (nv,)
    dof_invweight0: np.ndarray      # (nv,)
    geom_offset: np.ndarray         # (ngeom, 3) geom position in the body frame
    geom_rot: np.ndarray            # (ngeom, 3, 3) geom orientation in the body frame
    geom_size: np.ndarray           # (ngeom, 3)
    geom_rgba: np.ndarray           # (ngeom, 4)
    pair_friction: np.ndarray       # (npair, 5)
    pair_solref: np.ndarray         # (npair, 2)
    pair_solimp: np.ndarray         # (npair, 5)
    pair_margin: np.ndarray         # (npair,)
    pair_gap: np.ndarray            # (npair,)
    actuator_gear: np.ndarray       # (nu,)
    actuator_gain: np.ndarray       # (nu,)  gainprm[0] of a fixed-gain actuator
    actuator_biasprm: np.ndarray    # (nu, 3) affine bias b0 + b1 length + b2 velocity (0 for motors)
    actuator_ctrlrange: np.ndarray  # (nu, 2)
    actuator_forcerange: np.ndarray  # (nu, 2)
    impratio: np.ndarray            # ()
    meaninertia: np.ndarray         # ()

    @property
    def nq(self) -> int:
        return self.njnt

    @property
    def nv(self) -> int:
        return self.njnt

    @property
    def npair(self) -> int:
        return len(self.contact_pairs)

    def astype(self, dtype: Any) -> "PlanarModel":
        """The same model with every floating-point constant cast to ``dtype``."""
        def cast(x):
            return np.asarray(x, dtype=dtype) if isinstance(x, np.ndarray) and x.dtype.kind == "f" else x
        return self.replace(**{k: cast(v) for k, v in vars(self).items() if isinstance(v, np.ndarray)})

    def dof_chain(self, dof: int) -> tuple[int, ...]:
        """``dof`` and its ancestor dofs, deepest first."""
        chain = []
        while dof >= 0:
            chain.append(dof)
            dof = self.dof_parent[dof]
        return tuple(chain)

    def body_chain(self, body: int) -> tuple[int, ...]:
        """The dofs that move ``body`` (deepest first); empty for static bodies."""
        return self.dof_chain(self.body_last_dof[body])

    @classmethod
    def from_fields(cls, f: dict[str, Any], name: str = "model") -> "PlanarModel":
        """Check ``f`` (from ``fields_from_mjmodel``) describes a supported planar model and reduce it."""
        a = {k: np.asarray(v) for k, v in f.items() if k != "opt" and not k.endswith("_names")}
        opt = {k: np.asarray(v) for k, v in f["opt"].items()}
        nbody, njnt, ngeom, nu = f["nbody"], f["njnt"], f["ngeom"], f["nu"]

        # -- features outside this engine ---------------------------------------------------
        for count in ("neq", "ntendon", "npair", "nexclude", "na", "nmocap", "nflex", "nplugin"):
            _require(f[count] == 0, f"{count} = {f[count]}: equality constraints, tendons, explicit contact "
                     "pairs/excludes, actuator activations, mocap bodies, flexes and plugins are not supported")
        for j, jtype in enumerate(f["jnt_type"]):
            _require(jtype in (JNT_SLIDE, JNT_HINGE), f"joint {j} ({(f.get('jnt_names') or [''] * njnt)[j]}): "
                     "free and ball joints are not supported (planar engine: slide and hinge joints only)")
        _require(int(opt["integrator"]) == INTEGRATOR_EULER, "only the Euler integrator is supported")
        _require(int(opt["cone"]) == CONE_PYRAMIDAL, "only pyramidal friction cones are supported")
        flags = int(opt["disableflags"]) & ~DSBL_WARMSTART
        _require(flags == 0, f"disableflags {int(opt['disableflags'])}: only mjDSBL_WARMSTART is supported")
        _require(int(opt["enableflags"]) == 0, f"enableflags {int(opt['enableflags'])} are not supported")
        _require(float(opt["impratio"]) == 1.0, "impratio != 1 is not supported")
        _require(float(opt["density"]) == 0 and float(opt["viscosity"]) == 0 and not np.any(opt["wind"]),
                 "fluid forces (density, viscosity, wind) are not supported")
        for field in ("dof_frictionloss", "body_gravcomp", "jnt_stiffnesspoly", "dof_dampingpoly",
                      "actuator_damping", "actuator_armature"):
            if field in a:
                _require(not np.any(a[field]), f"{field} is non-zero: not supported")

        # -- tree and joints -------------------------------------------------------------------
        body_parent = tuple(int(p) if b > 0 else -1 for b, p in enumerate(a["body_parentid"]))
        body_root = tuple(int(r) for r in a["body_rootid"])
        body_joints = tuple(tuple(range(int(a["body_jntadr"][b]), int(a["body_jntadr"][b] + a["body_jntnum"][b])))
                            for b in range(nbody))
        jnt_type = tuple(int(t) for t in a["jnt_type"])
        hinge_sign = np.zeros(njnt)
        slide_axis = np.zeros((njnt, 2))
        for j, jtype in enumerate(jnt_type):
            axis = a["jnt_axis"][j].astype(np.float64)
            where = f"joint {j} ({(f.get('jnt_names') or [''] * njnt)[j]})"
            if jtype == JNT_HINGE:
                _require(abs(axis[0]) < 1e-12 and abs(axis[2]) < 1e-12,
                         f"{where}: hinge axis {axis.tolist()} is not along y (not planar)")
                hinge_sign[j] = 1.0 if axis[1] > 0 else -1.0
            elif jtype == JNT_SLIDE:
                _require(abs(axis[1]) < 1e-12, f"{where}: slide axis {axis.tolist()} leaves the x-z plane")
                slide_axis[j] = axis[[0, 2]] / np.linalg.norm(axis)
            else:
                raise UnsupportedModelError(f"{where}: free and ball joints are not supported (planar engine)")
            _require(int(a["jnt_qposadr"][j]) == j and int(a["jnt_dofadr"][j]) == j,
                     f"{where}: qpos/dof addresses must equal the joint index")
        dof_parent = tuple(int(p) for p in a["dof_parentid"])
        dof_body = tuple(int(b) for b in a["dof_bodyid"])
        body_last_dof = [-1] * nbody
        for b in range(1, nbody):
            if a["body_dofnum"][b] > 0:
                body_last_dof[b] = int(a["body_dofadr"][b] + a["body_dofnum"][b] - 1)
            else:
                body_last_dof[b] = body_last_dof[body_parent[b]]

        body_offset_angle = np.array([_y_rotation_angle(a["body_quat"][b], f"body {b}") for b in range(nbody)])
        body_y = np.zeros(nbody)
        for b in range(1, nbody):
            body_y[b] = body_y[body_parent[b]] + float(a["body_pos"][b][1])
        inertia_yy = np.zeros(nbody)
        for b in range(nbody):
            r = _quat_to_mat(a["body_iquat"][b])
            inertia_yy[b] = (r @ np.diag(a["body_inertia"][b].astype(np.float64)) @ r.T)[1, 1]

        limited = tuple(j for j in range(njnt) if bool(a["jnt_limited"][j]))

        # -- collision pairs (what MuJoCo's broad phase could ever pair) ------------------------
        geom_type = tuple(int(t) for t in a["geom_type"])
        geom_body = tuple(int(b) for b in a["geom_bodyid"])
        weld = [int(w) for w in a["body_weldid"]]
        filter_parent = not (int(opt["disableflags"]) & DSBL_FILTERPARENT)
        pairs, pair_moving, pair_params = [], [], []
        for g1 in range(ngeom):
            for g2 in range(g1 + 1, ngeom):
                if not ((a["geom_contype"][g1] & a["geom_conaffinity"][g2])
                        or (a["geom_contype"][g2] & a["geom_conaffinity"][g1])):
                    continue
                w1, w2 = weld[geom_body[g1]], weld[geom_body[g2]]
                if w1 == w2:
                    continue
                if filter_parent and w1 != 0 and w2 != 0 and (
                        weld[max(body_parent[w1], 0)] == w2 or weld[max(body_parent[w2], 0)] == w1):
                    continue
                first, second = (g1, g2) if geom_type[g1] <= geom_type[g2] else (g2, g1)
                types = (geom_type[first], geom_type[second])
                _require(types in SUPPORTED_COLLISION_PAIRS,
                         f"geoms {first} and {second}: no collision function for "
                         f"{GEOM_TYPE_NAMES.get(types[0], types[0])}-{GEOM_TYPE_NAMES.get(types[1], types[1])}")
                moving = MOVING_GEOM_OF_PAIR[types]
                static = second if moving == 1 else first
                _require(body_last_dof[geom_body[static]] < 0,
                         f"geoms {first} and {second}: the {GEOM_TYPE_NAMES[geom_type[static]]} must be static "
                         "(contacts between two moving bodies, or a moving "
                         f"{GEOM_TYPE_NAMES[geom_type[static]]}, are not supported yet)")
                _require_planar_pair(a, body_y, first, second)
                params = _mix_contact_parameters(f, first, second)
                _require(params["condim"] == 3, f"geoms {first} and {second}: only condim 3 contacts are supported")
                pairs.append((first, second))
                pair_moving.append(moving - 1)
                pair_params.append(params)

        # -- actuators -------------------------------------------------------------------------
        actuator_dof = []
        for k in range(nu):
            _require(int(a["actuator_trntype"][k]) == TRN_JOINT, f"actuator {k}: only joint transmission")
            _require(int(a["actuator_dyntype"][k]) == DYN_NONE, f"actuator {k}: activation dynamics unsupported")
            _require(int(a["actuator_gaintype"][k]) == GAIN_FIXED, f"actuator {k}: only fixed gain")
            _require(int(a["actuator_biastype"][k]) in (BIAS_NONE, BIAS_AFFINE),
                     f"actuator {k}: only motors and affine bias (position actuators) are supported")
            if int(a["actuator_biastype"][k]) == BIAS_AFFINE:
                # Euler integrates only joint damping implicitly: a velocity term (kv) would be explicit
                # in MuJoCo too, but it is not covered by the L1 tests, so refuse it for now.
                _require(float(a["actuator_biasprm"][k][2]) == 0.0,
                         f"actuator {k}: velocity bias (kv) is not supported; use joint damping")
            actuator_dof.append(int(a["actuator_trnid"][k][0]))

        damping = a["dof_damping"].astype(np.float64)
        stacked = lambda key, width: (np.array([p[key] for p in pair_params], dtype=np.float64)
                                      if pair_params else np.zeros((0, width)))
        names = lambda kind, n: tuple(f.get(f"{kind}_names") or [""] * n)
        return cls(
            name=name, nbody=nbody, njnt=njnt, ngeom=ngeom, nu=nu,
            body_parent=body_parent, body_root=body_root, body_joints=body_joints,
            body_last_dof=tuple(body_last_dof), jnt_type=jnt_type,
            jnt_body=tuple(int(b) for b in a["jnt_bodyid"]), dof_parent=dof_parent, dof_body=dof_body,
            limited_joints=limited, geom_type=geom_type, geom_body=geom_body, contact_pairs=tuple(pairs), pair_moving=tuple(pair_moving),
            pair_condim=tuple(p["condim"] for p in pair_params), actuator_dof=tuple(actuator_dof),
            actuator_ctrllimited=tuple(bool(x) for x in a["actuator_ctrllimited"]),
            actuator_forcelimited=tuple(bool(x) for x in a["actuator_forcelimited"]),
            actuator_has_bias=tuple(int(t) == BIAS_AFFINE for t in a["actuator_biastype"]),
            implicit_damping=bool(np.any(damping > 0)),
            warmstart=not (int(opt["disableflags"]) & DSBL_WARMSTART),
            solver_iterations=int(opt["iterations"]), solver_tolerance=float(opt["tolerance"]),
            ls_iterations=int(opt["ls_iterations"]), ls_tolerance=float(opt["ls_tolerance"]),
            body_names=names("body", nbody), jnt_names=names("jnt", njnt), geom_names=names("geom", ngeom),
            actuator_names=names("actuator", nu),
            timestep=np.asarray(float(opt["timestep"])),
            gravity_xz=opt["gravity"].astype(np.float64)[[0, 2]],
            body_offset_xz=a["body_pos"].astype(np.float64)[:, [0, 2]],
            body_offset_angle=body_offset_angle, body_y=body_y,
            body_com_xz=a["body_ipos"].astype(np.float64)[:, [0, 2]],
            body_mass=a["body_mass"].astype(np.float64), body_inertia_yy=inertia_yy,
            body_invweight0=a["body_invweight0"].astype(np.float64),
            jnt_anchor_xz=a["jnt_pos"].astype(np.float64)[:, [0, 2]], jnt_slide_axis_xz=slide_axis,
            jnt_hinge_sign=hinge_sign, qpos0=a["qpos0"].astype(np.float64),
            qpos_spring=a["qpos_spring"].astype(np.float64), jnt_stiffness=a["jnt_stiffness"].astype(np.float64),
            jnt_range=a["jnt_range"].astype(np.float64), jnt_margin=a["jnt_margin"].astype(np.float64),
            jnt_solref=a["jnt_solref"].astype(np.float64), jnt_solimp=a["jnt_solimp"].astype(np.float64),
            dof_damping=damping, dof_armature=a["dof_armature"].astype(np.float64),
            dof_invweight0=a["dof_invweight0"].astype(np.float64),
            geom_offset=a["geom_pos"].astype(np.float64),
            geom_rot=np.stack([_quat_to_mat(q) for q in a["geom_quat"]]),
            geom_size=a["geom_size"].astype(np.float64), geom_rgba=a["geom_rgba"].astype(np.float64),
            pair_friction=stacked("friction", 5), pair_solref=stacked("solref", 2),
            pair_solimp=stacked("solimp", 5), pair_margin=np.array([p["margin"] for p in pair_params]),
            pair_gap=np.array([p["gap"] for p in pair_params]),
            actuator_gear=a["actuator_gear"].astype(np.float64)[:, 0],
            actuator_gain=a["actuator_gainprm"].astype(np.float64)[:, 0],
            actuator_biasprm=a["actuator_biasprm"].astype(np.float64).reshape(nu, -1)[:, :3],
            actuator_ctrlrange=a["actuator_ctrlrange"].astype(np.float64),
            actuator_forcerange=a["actuator_forcerange"].astype(np.float64),
            impratio=np.asarray(float(opt["impratio"])), meaninertia=np.asarray(float(f["stat_meaninertia"])),
        )

    @classmethod
    def from_mjmodel(cls, m: Any, name: str = "model") -> "PlanarModel":
        return cls.from_fields(fields_from_mjmodel(m), name=name)
