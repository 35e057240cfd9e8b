# SPDX-License-Identifier: Apache-2.0
"""phalanx: a batched physics engine with MuJoCo's semantics, written in C.

The API follows MuJoCo's Python bindings: ``Model.from_xml_path``, ``Data(model)``, every array
a zero-copy NumPy view with MuJoCo's field name, ``model.opt``, and named accessors such as
``data.body("torso").xpos`` or ``model.joint("hip").qposadr``.
"""

import enum
import os

import numpy as np

from phalanx import _core
from phalanx._core import (
    ArenaError,
    Batch,
    InternalError,
    MJCFError,
    Vulkan,
    VulkanError,
    vulkan_available,
)
from phalanx.gym_envs import register_envs as _register_envs

# gymnasium.make("phalanx/Ant-v5") and the ten other Gymnasium MuJoCo v5 tasks
_register_envs()

__all__ = [
    "Model",
    "Data",
    "Batch",
    "BATCH_FLAGS",
    "BATCH_MODEL_PARAMS",
    "BATCH_DERIVED_PARAMS",
    "VectorEnv",
    "make_vec",
    "ObjType",
    "kinematics",
    "collision",
    "geomDistance",
    "ray",
    "rayGeom",
    "rayMesh",
    "rayHfield",
    "CONTACT_DTYPE",
    "integratePos",
    "differentiatePos",
    "normalizeQuat",
    "step",
    "step1",
    "step2",
    "resetData",
    "resetDataKeyframe",
    "copyData",
    "State",
    "stateSize",
    "getState",
    "setState",
    "forward",
    "setConst",
    "subtreeVel",
    "fullM",
    "mulM",
    "solveM",
    "jac",
    "jacBody",
    "jacBodyCom",
    "jacSite",
    "jacGeom",
    "objectVelocity",
    "applyFT",
    "rnePostConstraint",
    "rne",
    "energyPos",
    "energyVel",
    "objectAcceleration",
    "jacDot",
    "jacPointAxis",
    "jacSubtreeCom",
    "Vulkan",
    "vulkan_available",
    "name2id",
    "id2name",
    "asset_path",
    "MJCFError",
    "ArenaError",
    "VulkanError",
    "InternalError",
]


class ObjType(enum.IntEnum):
    """MuJoCo 3.12's object types (mjtObj)."""

    UNKNOWN = 0
    BODY = 1
    XBODY = 2
    JOINT = 3
    DOF = 4
    GEOM = 5
    SITE = 6
    CAMERA = 7
    LIGHT = 8
    FLEX = 9
    MESH = 10
    SKIN = 11
    HFIELD = 12
    TEXTURE = 13
    MATERIAL = 14
    PAIR = 15
    EXCLUDE = 16
    EQUALITY = 17
    TENDON = 18
    ACTUATOR = 19
    SENSOR = 20
    NUMERIC = 21
    TEXT = 22
    TUPLE = 23
    KEY = 24
    PLUGIN = 25


# accessor name -> (object type, prefix of model fields, prefixes of data fields)
_ACCESSORS = {
    "body": (ObjType.BODY, "body_", ()),
    "joint": (ObjType.JOINT, "jnt_", ()),
    "jnt": (ObjType.JOINT, "jnt_", ()),
    "geom": (ObjType.GEOM, "geom_", ("geom_",)),
    "site": (ObjType.SITE, "site_", ("site_",)),
    "camera": (ObjType.CAMERA, "cam_", ("cam_",)),
    "cam": (ObjType.CAMERA, "cam_", ("cam_",)),
    "light": (ObjType.LIGHT, "light_", ("light_",)),
    "mesh": (ObjType.MESH, "mesh_", ()),
    "material": (ObjType.MATERIAL, "mat_", ()),
    "mat": (ObjType.MATERIAL, "mat_", ()),
    "tendon": (ObjType.TENDON, "tendon_", ("ten_",)),
    "actuator": (ObjType.ACTUATOR, "actuator_", ("actuator_",)),
    "sensor": (ObjType.SENSOR, "sensor_", ()),
    "equality": (ObjType.EQUALITY, "eq_", ()),
    "eq": (ObjType.EQUALITY, "eq_", ()),
    "pair": (ObjType.PAIR, "pair_", ()),
    "exclude": (ObjType.EXCLUDE, "exclude_", ()),
    "key": (ObjType.KEY, "key_", ()),
    "keyframe": (ObjType.KEY, "key_", ()),
    "numeric": (ObjType.NUMERIC, "numeric_", ()),
    "text": (ObjType.TEXT, "text_", ()),
    "tuple": (ObjType.TUPLE, "tuple_", ()),
}

# joint type -> (qpos size, dof size)
_JOINT_SIZES = {0: (7, 6), 1: (4, 3), 2: (1, 1), 3: (1, 1)}


def _resolve(model, objtype, key):
    if isinstance(key, str):
        i = model.name2id(int(objtype), key)
        if i < 0:
            raise KeyError(f"no {objtype.name.lower()} named {key!r}")
        return i
    i = int(key)
    count = {
        ObjType.BODY: model.nbody, ObjType.JOINT: model.njnt, ObjType.GEOM: model.ngeom,
        ObjType.SITE: model.nsite, ObjType.CAMERA: model.ncam, ObjType.LIGHT: model.nlight,
        ObjType.MESH: model.nmesh, ObjType.MATERIAL: model.nmat, ObjType.TENDON: model.ntendon,
        ObjType.ACTUATOR: model.nu, ObjType.SENSOR: model.nsensor, ObjType.EQUALITY: model.neq,
        ObjType.PAIR: model.npair, ObjType.EXCLUDE: model.nexclude, ObjType.KEY: model.nkey,
        ObjType.NUMERIC: model.nnumeric, ObjType.TEXT: model.ntext, ObjType.TUPLE: model.ntuple,
    }[objtype]
    if not 0 <= i < count:
        raise IndexError(f"{objtype.name.lower()} id {i} out of range [0, {count})")
    return i


class _Named:
    """One object's fields with the prefix dropped, as views into the owner's arrays."""

    def __init__(self, owner, model, objtype, prefixes, idx, qslice=None):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_prefixes", prefixes)
        object.__setattr__(self, "_slices", qslice or {})
        object.__setattr__(self, "id", idx)
        object.__setattr__(self, "name", model.id2name(int(objtype), idx) or "")

    def _field(self, attr):
        if attr in self._slices:
            return getattr(self._owner, attr), self._slices[attr]
        for p in self._prefixes:
            full = p + attr
            if full in dir(self._owner):
                return getattr(self._owner, full), self.id
        if attr in dir(self._owner) and not self._prefixes:
            return getattr(self._owner, attr), self.id
        raise AttributeError(f"no field {attr!r} for this object")

    def __getattr__(self, attr):
        arr, idx = self._field(attr)
        return arr[idx]

    def __setattr__(self, attr, value):
        arr, idx = self._field(attr)
        arr[idx] = value

    def __repr__(self):
        return f"<{type(self).__name__} id={self.id} name={self.name!r}>"


def _model_from_bytes(cls, blob):
    return cls._from_bytes(blob)


def _data_from_bytes(cls, model, blob):
    d = cls(model)
    d._set_bytes(blob)
    return d


class Model(_core.Model):
    """A compiled model. Build it with Model.from_xml_path(path) or Model.from_xml_string(xml)."""

    def __reduce__(self):
        return (_model_from_bytes, (type(self), self._to_bytes()))

    def __deepcopy__(self, memo):
        return self.__copy__()

    def _accessor(self, kind, key):
        objtype, prefix, _ = _ACCESSORS[kind]
        return _Named(self, self, objtype, (prefix,), _resolve(self, objtype, key))

    def body(self, key):
        return self._accessor("body", key)

    def joint(self, key):
        return self._accessor("joint", key)

    jnt = joint

    def geom(self, key):
        return self._accessor("geom", key)

    def site(self, key):
        return self._accessor("site", key)

    def camera(self, key):
        return self._accessor("camera", key)

    cam = camera

    def light(self, key):
        return self._accessor("light", key)

    def mesh(self, key):
        return self._accessor("mesh", key)

    def material(self, key):
        return self._accessor("material", key)

    mat = material

    def tendon(self, key):
        return self._accessor("tendon", key)

    def actuator(self, key):
        return self._accessor("actuator", key)

    def sensor(self, key):
        return self._accessor("sensor", key)

    def equality(self, key):
        return self._accessor("equality", key)

    eq = equality

    def pair(self, key):
        return self._accessor("pair", key)

    def exclude(self, key):
        return self._accessor("exclude", key)

    def key(self, key):
        return self._accessor("key", key)

    keyframe = key

    def numeric(self, key):
        return self._accessor("numeric", key)


# mjContact of MuJoCo 3.12, field for field (the C struct pxContact)
CONTACT_DTYPE = np.dtype(
    [
        ("dist", np.float64),
        ("pos", np.float64, (3,)),
        ("frame", np.float64, (9,)),
        ("includemargin", np.float64),
        ("friction", np.float64, (5,)),
        ("solref", np.float64, (2,)),
        ("solreffriction", np.float64, (2,)),
        ("solimp", np.float64, (5,)),
        ("adhesion", np.float64),
        ("mu", np.float64),
        ("H", np.float64, (36,)),
        ("dim", np.int32),
        ("geom1", np.int32),
        ("geom2", np.int32),
        ("geom", np.int32, (2,)),
        ("flex", np.int32, (2,)),
        ("elem", np.int32, (2,)),
        ("vert", np.int32, (2,)),
        ("exclude", np.int32),
        ("efc_address", np.int32),
    ],
    align=True,  # the C struct's trailing padding: 584 bytes, as sizeof(pxContact)
)


class Data(_core.Data):
    """The state of one world of a Model: Data(model)."""

    @property
    def contact(self):
        """The ncon contacts as a NumPy record array over the C buffer (CONTACT_DTYPE), with
        mjContact's fields: ``data.contact.dist``, ``data.contact.frame``, ``data.contact[0]``."""
        n = self.ncon
        raw = self._contact_bytes[: n * CONTACT_DTYPE.itemsize]
        return raw.view(CONTACT_DTYPE).view(np.recarray)

    def __reduce__(self):
        return (_data_from_bytes, (type(self), self.model, self._to_bytes()))

    def __copy__(self):
        # as MuJoCo's bindings: a copy of every array, sharing the model
        return _data_from_bytes(type(self), self.model, self._to_bytes())

    def __deepcopy__(self, memo):
        import copy

        model = copy.deepcopy(self.model, memo)
        return _data_from_bytes(type(self), model, self._to_bytes())

    def _accessor(self, kind, key):
        m = self.model
        objtype, _, prefixes = _ACCESSORS[kind]
        idx = _resolve(m, objtype, key)
        slices = {}
        if objtype == ObjType.JOINT:
            nq, nv = _JOINT_SIZES[int(m.jnt_type[idx])]
            qa, da = int(m.jnt_qposadr[idx]), int(m.jnt_dofadr[idx])
            slices = {"qpos": slice(qa, qa + nq), "qvel": slice(da, da + nv),
                      "qacc": slice(da, da + nv), "xanchor": idx, "xaxis": idx}
            prefixes = ("",)
        elif objtype == ObjType.BODY:
            prefixes = ("",)
        return _Named(self, m, objtype, prefixes, idx, slices)

    def body(self, key):
        return self._accessor("body", key)

    def joint(self, key):
        return self._accessor("joint", key)

    jnt = joint

    def geom(self, key):
        return self._accessor("geom", key)

    def site(self, key):
        return self._accessor("site", key)

    def camera(self, key):
        return self._accessor("camera", key)

    cam = camera

    def light(self, key):
        return self._accessor("light", key)

    def tendon(self, key):
        return self._accessor("tendon", key)

    def actuator(self, key):
        return self._accessor("actuator", key)


def collision(model, data):
    """Contacts of the current kinematics, in MuJoCo's order (mj_collision): data.ncon and
    data.contact. Raises NotImplementedError for a geom pair phalanx cannot collide yet."""
    _core.collision(model, data)


def geomDistance(model, data, geom1, geom2, distmax, fromto=None):
    """Smallest distance between geoms geom1 and geom2, capped at distmax (mj_geomDistance).
    A given fromto (float64, 6 elements) receives the closest points, on geom1 then on geom2
    (zeros when the geoms are farther apart than distmax). Negative: penetration depth.
    Raises NotImplementedError for a pair MuJoCo measures with code phalanx lacks."""
    return _core.geomDistance(model, data, int(geom1), int(geom2), float(distmax), fromto)


def ray(model, data, pnt, vec, geomgroup=None, flg_static=1, bodyexclude=-1, normal=None):
    """Nearest geom hit by the ray pnt + x * vec, x >= 0 (mj_ray): returns (dist, geomid), dist
    in units of |vec|, (-1, -1) without a hit. Geoms are skipped when invisible (alpha 0), on body
    bodyexclude, static with flg_static false, or in a group whose geomgroup flag (6 entries;
    None: all groups) is 0. A given normal (writable float64, 3 elements) receives the unit
    surface normal at the hit (zeros without one). ValueError for a NaN or infinite pnt or vec,
    or a vec shorter than 1e-15 (MuJoCo's error)."""
    return _core.ray(model, data, pnt, vec, geomgroup, int(bool(flg_static)), int(bodyexclude),
                     normal)


def rayGeom(pos, mat, size, pnt, vec, geomtype, normal=None):
    """Distance along vec at which the ray pnt + x * vec, x >= 0, meets a primitive geom (plane,
    sphere, capsule, ellipsoid, cylinder, box) of pose pos, mat (9, row-major) and size, or -1
    (mju_rayGeom). A given normal (writable float64, 3 elements) receives the surface normal."""
    return _core.rayGeom(pos, mat, size, pnt, vec, int(geomtype), normal)


def rayMesh(model, data, geomid, pnt, vec, normal=None):
    """Distance along vec to mesh geom geomid, or -1 (mj_rayMesh)."""
    return _core.rayMesh(model, data, int(geomid), pnt, vec, normal)


def rayHfield(model, data, geomid, pnt, vec, normal=None):
    """Distance along vec to height-field geom geomid, or -1 (mj_rayHfield)."""
    return _core.rayHfield(model, data, int(geomid), pnt, vec, normal)


def kinematics(model, data):
    """Forward kinematics (MuJoCo's mj_kinematics + mj_comPos + mj_camlight + fixed tendons)."""
    _core.kinematics(model, data)


def integratePos(model, qpos, qvel, dt):
    """qpos += dt * qvel on the joint manifold, in place (as mujoco.mj_integratePos)."""
    _core.integratePos(model, qpos, qvel, float(dt))


def differentiatePos(model, qvel, dt, qpos1, qpos2):
    """Write into qvel the velocity that moves qpos1 to qpos2 in time dt (mj_differentiatePos)."""
    _core.differentiatePos(model, qvel, float(dt), qpos1, qpos2)


def normalizeQuat(model, qpos):
    """Normalize the quaternions of ball and free joints in qpos, in place (mj_normalizeQuat)."""
    _core.normalizeQuat(model, qpos)


# the hot calls are the extension's functions themselves (no Python frame per step)
step = _core.step


def step1(model, data):
    """First half of a step (mj_step1)."""
    _core.step1(model, data)


def step2(model, data):
    """Second half of a step (mj_step2)."""
    _core.step2(model, data)


def resetData(model, data):
    """Reset data to the model's defaults (mj_resetData)."""
    _core.resetData(model, data)


def resetDataKeyframe(model, data, key):
    """Reset data, then set the state of keyframe key (mj_resetDataKeyframe)."""
    _core.resetDataKeyframe(model, data, int(key))


def copyData(dst, model, src):
    """Copy every array and the time of src into dst (mj_copyData); returns dst."""
    if dst.model is not src.model and (dst.model.nq, dst.model.nv) != (src.model.nq, src.model.nv):
        raise ValueError("copyData: the two Data belong to models of different sizes")
    dst._set_bytes(src._to_bytes())
    return dst


class State(enum.IntFlag):
    """MuJoCo 3.12's state elements (mjtState) and their unions."""

    TIME = 1 << 0
    QPOS = 1 << 1
    QVEL = 1 << 2
    ACT = 1 << 3
    HISTORY = 1 << 4
    WARMSTART = 1 << 5
    CTRL = 1 << 6
    QFRC_APPLIED = 1 << 7
    XFRC_APPLIED = 1 << 8
    EQ_ACTIVE = 1 << 9
    MOCAP_POS = 1 << 10
    MOCAP_QUAT = 1 << 11
    USERDATA = 1 << 12
    PLUGIN = 1 << 13
    PHYSICS = QPOS | QVEL | ACT | HISTORY
    FULLPHYSICS = TIME | PHYSICS | PLUGIN
    USER = CTRL | QFRC_APPLIED | XFRC_APPLIED | EQ_ACTIVE | MOCAP_POS | MOCAP_QUAT | USERDATA
    INTEGRATION = FULLPHYSICS | USER | WARMSTART


_NSTATE = 14
for _name, _e in State.__members__.items():
    globals()["mjSTATE_" + _name] = int(_e)
mjNSTATE = _NSTATE

# element -> (Data field, size function); userdata and plugin state have no storage in phalanx
# (their sizes are 0: nuserdata and npluginstate are 0 for every phalanx model)
_STATE_ELEMS = [
    (State.TIME, "time", lambda m: 1),
    (State.QPOS, "qpos", lambda m: m.nq),
    (State.QVEL, "qvel", lambda m: m.nv),
    (State.ACT, "act", lambda m: m.na),
    (State.HISTORY, None, lambda m: m.nhistory),
    (State.WARMSTART, "qacc_warmstart", lambda m: m.nv),
    (State.CTRL, "ctrl", lambda m: m.nu),
    (State.QFRC_APPLIED, "qfrc_applied", lambda m: m.nv),
    (State.XFRC_APPLIED, "xfrc_applied", lambda m: 6 * m.nbody),
    (State.EQ_ACTIVE, "eq_active", lambda m: m.neq),
    (State.MOCAP_POS, "mocap_pos", lambda m: 3 * m.nmocap),
    (State.MOCAP_QUAT, "mocap_quat", lambda m: 4 * m.nmocap),
    (State.USERDATA, None, lambda m: 0),
    (State.PLUGIN, None, lambda m: 0),
]


def _check_spec(spec):
    spec = int(spec)
    if spec < 0:
        raise ValueError(f"invalid state signature {spec} < 0")
    if spec >= 1 << _NSTATE:
        raise ValueError(f"invalid state signature {spec} >= 2^mjNSTATE")
    return spec


def stateSize(model, spec):
    """Number of numbers in the state selected by spec (mj_stateSize)."""
    spec = _check_spec(spec)
    return sum(size(model) for elem, _, size in _STATE_ELEMS if spec & elem)


def _state_elems(model, spec):
    for elem, field, size in _STATE_ELEMS:
        if spec & elem:
            n = size(model)
            if field is None and n:
                raise NotImplementedError(f"state element {elem.name} (history buffers) is not "
                                          "supported yet")
            yield field, n


def getState(model, data, state, spec):
    """Write the state selected by spec into the float64 array state (mj_getState)."""
    import numpy as np

    spec = _check_spec(spec)
    out = np.asarray(state)
    if out.dtype != np.float64 or out.size != stateSize(model, spec):
        raise ValueError(f"getState: state must be a float64 array of {stateSize(model, spec)} "
                         "numbers")
    flat = out.reshape(-1)
    adr = 0
    for field, n in _state_elems(model, spec):
        if field == "time":
            flat[adr] = data.time
        elif n:
            flat[adr:adr + n] = np.asarray(getattr(data, field), dtype=np.float64).reshape(-1)
        adr += n


def setState(model, data, state, spec):
    """Set the state selected by spec from the array state (mj_setState)."""
    import numpy as np

    spec = _check_spec(spec)
    flat = np.asarray(state, dtype=np.float64).reshape(-1)
    if flat.size != stateSize(model, spec):
        raise ValueError(f"setState: state must have {stateSize(model, spec)} numbers")
    adr = 0
    for field, n in _state_elems(model, spec):
        if field == "time":
            data.time = float(flat[adr])
        elif field == "eq_active":
            getattr(data, field)[:] = flat[adr:adr + n] != 0
        elif n:
            view = getattr(data, field)
            view[...] = flat[adr:adr + n].reshape(view.shape)
        adr += n
forward = _core.forward


def setConst(model, data):
    """Recompute the model constants MuJoCo derives by running the engine (MuJoCo's
    mj_setConst), after editing masses, inertias, armature, gears and the like: subtree masses,
    dof_M0, body/dof/tendon invweight0, actuator_acc0, tendon/actuator length0, eq_data, camera
    and light offsets, dampratio -> kv, statistics and dof_length. ``data`` is scratch (left at
    qpos_spring, as MuJoCo leaves it)."""
    _core.setConst(model, data)


def subtreeVel(model, data):
    """subtree_linvel and subtree_angmom (as mujoco.mj_subtreeVel)."""
    _core.subtreeVel(model, data)


def fullM(model, data, dst):
    """dst (nv x nv) = the dense inertia from data.M (as mujoco.mj_fullM in 3.12)."""
    _core.fullM(model, data, dst)


def mulM(model, data, res, vec):
    """res = M vec (as mujoco.mj_mulM)."""
    _core.mulM(model, data, res, vec)


def solveM(model, data, x, y):
    """x = inv(M) y with the factorization in data, for (nv,) or (n, nv) arrays (mj_solveM)."""
    _core.solveM(model, data, x, y)


def jac(model, data, jacp, jacr, point, body):
    """Jacobians (3 x nv each, None to skip) of a global point attached to body (mj_jac)."""
    _core.jac(model, data, jacp, jacr, point, int(body))


def jacBody(model, data, jacp, jacr, body):
    """Jacobians of the body frame origin (mj_jacBody)."""
    _core.jacBody(model, data, jacp, jacr, int(body))


def jacBodyCom(model, data, jacp, jacr, body):
    """Jacobians of the body center of mass (mj_jacBodyCom)."""
    _core.jacBodyCom(model, data, jacp, jacr, int(body))


def jacSite(model, data, jacp, jacr, site):
    """Jacobians of a site (mj_jacSite)."""
    _core.jacSite(model, data, jacp, jacr, int(site))


def jacGeom(model, data, jacp, jacr, geom):
    """Jacobians of a geom (mj_jacGeom)."""
    _core.jacGeom(model, data, jacp, jacr, int(geom))


def objectVelocity(model, data, objtype, objid, res, flg_local):
    """6D velocity (rotation, translation) of an object (mj_objectVelocity)."""
    _core.objectVelocity(model, data, int(objtype), int(objid), res, int(flg_local))


def applyFT(model, data, force, torque, point, body, qfrc_target):
    """qfrc_target += J' force + J' torque at a point on body (mj_applyFT)."""
    _core.applyFT(model, data, force, torque, point, int(body), qfrc_target)


def rnePostConstraint(model, data):
    """cacc, cfrc_int and cfrc_ext from the forward results (mj_rnePostConstraint); computed on
    demand, as in MuJoCo, with the contact and connect/weld forces of the last forward pass.
    Raises NotImplementedError for a model forward refuses."""
    _core.rnePostConstraint(model, data)


def rne(model, data, flg_acc, result):
    """result (nv) = recursive Newton-Euler: the bias force, plus M qacc with flg_acc (mj_rne)."""
    _core.rne(model, data, int(flg_acc), result)


def energyPos(model, data):
    """Potential energy (gravity, joint and tendon springs) into data.energy[0] (mj_energyPos)."""
    _core.energyPos(model, data)


def energyVel(model, data):
    """Kinetic energy 0.5 qvel' M qvel into data.energy[1] (mj_energyVel)."""
    _core.energyVel(model, data)


def objectAcceleration(model, data, objtype, objid, res, flg_local):
    """6D acceleration (rotation, translation) of an object, from data.cacc: call
    rnePostConstraint first (mj_objectAcceleration)."""
    _core.objectAcceleration(model, data, int(objtype), int(objid), res, int(flg_local))


def jacDot(model, data, jacp, jacr, point, body):
    """Time derivatives of the Jacobians of a global point attached to body (mj_jacDot)."""
    _core.jacDot(model, data, jacp, jacr, point, int(body))


def jacPointAxis(model, data, jacPoint, jacAxis, point, axis, body):
    """Translation Jacobian of a point and rotation Jacobian of an axis (mj_jacPointAxis)."""
    _core.jacPointAxis(model, data, jacPoint, jacAxis, point, axis, int(body))


def jacSubtreeCom(model, data, jacp, body):
    """Translation Jacobian of the center of mass of body's subtree (mj_jacSubtreeCom)."""
    _core.jacSubtreeCom(model, data, jacp, int(body))


def name2id(model, objtype, name):
    """Id of the object of type objtype named name, or -1 (as mujoco.mj_name2id)."""
    return model.name2id(int(objtype), name)


def id2name(model, objtype, idx):
    """Name of object idx of type objtype, or None (as mujoco.mj_id2name)."""
    return model.id2name(int(objtype), int(idx))


def asset_path(name):
    """Path of an MJCF model shipped inside the package (e.g. asset_path("pendulum.xml"))."""
    return os.path.join(os.path.dirname(__file__), "assets", name)


# reasons a batch world is flagged: bit i of Batch.flags is BATCH_FLAGS[i]
BATCH_FLAGS = _core.BATCH_FLAGS
# model parameters a batch can set per world (Batch.set_model_param), and the derived constants
# it recomputes per world from them (readable with Batch.model_param)
BATCH_MODEL_PARAMS = _core.BATCH_MODEL_PARAMS
BATCH_DERIVED_PARAMS = _core.BATCH_DERIVED_PARAMS


def __getattr__(name):
    # the Gymnasium vector env imports gymnasium only when asked for
    if name == "VectorEnv":
        from phalanx.vector import VectorEnv

        return VectorEnv
    if name == "make_vec":
        from phalanx.tasks import make_vec

        return make_vec
    raise AttributeError(f"module 'phalanx' has no attribute {name!r}")
