# SPDX-License-Identifier: Apache-2.0
"""The package's own MJCF for the eleven Gymnasium v5 tasks (python/phalanx/assets/gymnasium/)
against the files Gymnasium 1.x loads for them.

Each pair is compiled by the mujoco package (the oracle) and every MjModel field that takes part
in simulation is compared with exact equality: all numeric arrays (body_*, jnt_*, dof_*, geom_*,
site_*, actuator_*, tendon_*, key_*, qpos0, ...), all integer sizes, every field of `opt` and
`stat`, and the names of every named object. Left out by design, because the package's files drop
rendering-only input: cameras, lights, textures, materials, geom colours and material ids, custom
numeric/text data (Gymnasium never reads it), the name tables' layout and the arena size (from
the deprecated `nstack`). Then ours is compiled by phalanx, compared field by field with MuJoCo's
compilation, and stepped under random controls next to MuJoCo: both engines agree on the state
at every step."""

import inspect
import os

import mujoco
import numpy as np
import pytest

import phalanx

# Gymnasium's v5 env module -> our file (the default xml_file of that env)
TASKS = {
    "ant_v5": "ant.xml",
    "half_cheetah_v5": "half_cheetah.xml",
    "hopper_v5": "hopper.xml",
    "walker2d_v5": "walker2d_v5.xml",
    "humanoid_v5": "humanoid.xml",
    "humanoidstandup_v5": "humanoidstandup.xml",
    "swimmer_v5": "swimmer.xml",
    "reacher_v5": "reacher.xml",
    "pusher_v5": "pusher_v5.xml",
    "inverted_pendulum_v5": "inverted_pendulum.xml",
    "inverted_double_pendulum_v5": "inverted_double_pendulum.xml",
}
FILES = sorted(TASKS.values())

OURS = os.path.join(os.path.dirname(phalanx.__file__), "assets", "gymnasium")

# rendering-only or bookkeeping fields that the package's files leave out on purpose
SKIP_PREFIXES = ("cam_", "light_", "tex_", "mat_", "numeric_", "text_", "tuple_", "name_")
SKIP_FIELDS = {
    "geom_rgba", "geom_matid", "names", "paths", "names_map", "signature", "vis",
    "ncam", "nlight", "ntex", "ntexdata", "nmat", "nnumeric", "nnumericdata", "ntext",
    "ntextdata", "ntuple", "ntupledata", "nnames", "npaths", "nnames_map", "narena", "nbuffer",
}
# (object type, size field) of every kind of named object whose names are compared
NAMED = [
    (mujoco.mjtObj.mjOBJ_BODY, "nbody"), (mujoco.mjtObj.mjOBJ_JOINT, "njnt"),
    (mujoco.mjtObj.mjOBJ_GEOM, "ngeom"), (mujoco.mjtObj.mjOBJ_SITE, "nsite"),
    (mujoco.mjtObj.mjOBJ_ACTUATOR, "nu"), (mujoco.mjtObj.mjOBJ_TENDON, "ntendon"),
    (mujoco.mjtObj.mjOBJ_SENSOR, "nsensor"), (mujoco.mjtObj.mjOBJ_EQUALITY, "neq"),
    (mujoco.mjtObj.mjOBJ_KEY, "nkey"), (mujoco.mjtObj.mjOBJ_MESH, "nmesh"),
    (mujoco.mjtObj.mjOBJ_HFIELD, "nhfield"), (mujoco.mjtObj.mjOBJ_PAIR, "npair"),
    (mujoco.mjtObj.mjOBJ_EXCLUDE, "nexclude"),
]


def gymnasium_assets():
    import gymnasium.envs.mujoco as gm

    return os.path.join(os.path.dirname(gm.__file__), "assets")


def compared_fields(model):
    """Names of the numeric arrays and integer/float sizes of an MjModel that are compared."""
    out = []
    for name in dir(model):
        if name.startswith("_") or name in SKIP_FIELDS or name.startswith(SKIP_PREFIXES):
            continue
        value = getattr(model, name)
        if isinstance(value, (np.ndarray, int, float)) and not isinstance(value, bool):
            out.append(name)
    return out


def struct_fields(obj):
    return [n for n in dir(obj) if not n.startswith("_") and not callable(getattr(obj, n))]


def test_file_names_are_gymnasiums_defaults():
    """Each file is the one Gymnasium's v5 env loads by default (its xml_file argument)."""
    import importlib

    for module, xml in TASKS.items():
        env_cls = None
        mod = importlib.import_module(f"gymnasium.envs.mujoco.{module}")
        for obj in vars(mod).values():
            if inspect.isclass(obj) and obj.__module__ == mod.__name__:
                env_cls = obj
        default = inspect.signature(env_cls.__init__).parameters["xml_file"].default
        assert default == xml, (module, default)
        assert os.path.exists(os.path.join(OURS, xml))
    assert sorted(f for f in os.listdir(OURS) if f.endswith(".xml")) == FILES


@pytest.mark.parametrize("xml", FILES)
def test_same_compiled_model_as_gymnasium(xml):
    theirs = mujoco.MjModel.from_xml_path(os.path.join(gymnasium_assets(), xml))
    ours = mujoco.MjModel.from_xml_path(os.path.join(OURS, xml))
    fields = compared_fields(theirs)
    # the comparison covers the physics: these groups must all be there
    for prefix in ("body_", "jnt_", "dof_", "geom_", "site_", "actuator_", "tendon_", "key_"):
        assert any(f.startswith(prefix) for f in fields), prefix
    assert {"qpos0", "qpos_spring", "nq", "nv", "nu", "nbody", "ngeom"} <= set(fields)
    different = []
    for name in fields:
        a, b = getattr(theirs, name), getattr(ours, name)
        if isinstance(a, np.ndarray):
            if a.shape != b.shape or a.dtype != b.dtype or not np.array_equal(a, b, equal_nan=True):
                different.append(name)
        elif a != b:
            different.append(name)
    for struct in ("opt", "stat"):
        sa, sb = getattr(theirs, struct), getattr(ours, struct)
        for name in struct_fields(sa):
            if not np.array_equal(np.asarray(getattr(sa, name)), np.asarray(getattr(sb, name))):
                different.append(f"{struct}.{name}")
    assert not different, f"{xml}: fields differ from Gymnasium's model: {different}"

    for objtype, size in NAMED:
        for i in range(getattr(theirs, size)):
            assert mujoco.mj_id2name(theirs, objtype, i) == mujoco.mj_id2name(ours, objtype, i), (
                objtype, i)


@pytest.mark.parametrize("xml", FILES)
def test_phalanx_compiles_ours_as_mujoco(xml):
    """phalanx's compiled model of each file against MuJoCo's, on every compared field phalanx
    has (the others are MuJoCo's BVH and flex, skin, octree and plugin fields, empty here):
    integers exact, reals with the conformance suite's tolerance (1e-9 relative, 1e-12
    absolute)."""
    path = os.path.join(OURS, xml)
    mm = mujoco.MjModel.from_xml_path(path)
    pm = phalanx.Model.from_xml_path(path)
    compared = 0
    for name in compared_fields(mm):
        if not hasattr(pm, name):
            # phalanx keeps no BVH (MuJoCo's midphase tree) and names nactuator nu; everything
            # else it lacks is empty in these models
            value = getattr(mm, name)
            empty = value.size == 0 if isinstance(value, np.ndarray) else not value
            assert empty or "bvh" in name or name == "nactuator", name
            continue
        a, b = np.asarray(getattr(mm, name)), np.asarray(getattr(pm, name))
        assert a.shape == b.shape, name
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12, err_msg=name)
        else:
            np.testing.assert_array_equal(b, a, err_msg=name)
        compared += 1
    assert compared > 300


@pytest.mark.parametrize("xml", FILES)
def test_phalanx_steps_like_mujoco(xml):
    """Ours compiled by phalanx and by MuJoCo, stepped with the same random controls."""
    path = os.path.join(OURS, xml)
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    pm = phalanx.Model.from_xml_path(path)
    pd = phalanx.Data(pm)
    rng = np.random.default_rng(0)
    lo, hi = mm.actuator_ctrlrange[:, 0], mm.actuator_ctrlrange[:, 1]
    max_contacts = 0
    for _ in range(150):
        u = rng.uniform(lo, hi)
        md.ctrl[:] = u
        pd.ctrl[:] = u
        mujoco.mj_step(mm, md)
        phalanx.step(pm, pd)
        assert pd.ncon == md.ncon
        max_contacts = max(max_contacts, md.ncon)
        # the solver and RK4 reorder a few sums: agreement to round-off, never a drift
        np.testing.assert_allclose(pd.qpos, md.qpos, rtol=0, atol=1e-10)
        np.testing.assert_allclose(pd.qvel, md.qvel, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(pd.time, md.time)
    # the models with contacts exercise them within 150 steps
    floor = mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    if floor >= 0 and mm.geom_conaffinity[floor] and mm.geom_contype[1:].any():
        assert max_contacts > 0
