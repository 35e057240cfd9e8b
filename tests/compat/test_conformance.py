# SPDX-License-Identifier: Apache-2.0
"""Compiled model and kinematics, field by field, against MuJoCo 3.12 (the oracle).

Every array that both phalanx and mujoco define is compared: integers exactly, reals within
1e-9 relative or 1e-12 absolute. Kinematics is compared at qpos0 and at random
configurations (with non-unit quaternions, which both engines normalize). The fast subset runs
in `make test`; `make conformance` passes --full and sweeps every corpus model.
"""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

RTOL, ATOL = 1e-9, 1e-12

# models of the fast subset (make test): Gymnasium's tasks and MuJoCo's humanoid
FAST = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
]

# the corpus named by the foundation issue
NAMED = [
    shared_model("mujoco", "model", d, f)
    for d, f in [("tendon_arm", "arm26.xml"), ("slider_crank", "slider_crank.xml"),
                 ("car", "car.xml"), ("mug", "mug.xml"), ("adhesion", "active_adhesion.xml"),
                 ("humanoid", "22_humanoids.xml"), ("humanoid", "humanoid100.xml")]
]

# corpus models phalanx rejects today, with the reason (known_unsupported.tsv); the list may only
# shrink: a listed model that loads is a failure (remove it), an unlisted model that raises
# NotImplementedError too, and a listed model must still fail for its listed reason
def _known_unsupported():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_unsupported.tsv")
    with open(path) as f:
        rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip() and not ln.startswith("#")]
    return {rel: reason for rel, reason in rows}


KNOWN_UNSUPPORTED = _known_unsupported()

# model fields MuJoCo derives by running the engine (mj_setConst, mj_setLengthRange) are compared
# too: phalanx computes them all (csrc/engine/setconst.c)
ENGINE_DERIVED = set()

KIN_FIELDS = ["xpos", "xquat", "xmat", "xipos", "ximat", "xanchor", "xaxis", "geom_xpos",
              "geom_xmat", "site_xpos", "site_xmat", "subtree_com", "cinert", "cdof", "cam_xpos",
              "cam_xmat", "light_xpos", "light_xdir"]


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "model_path", FAST + NAMED)


def load_both(path):
    """(phalanx model, mujoco model); skips with the reason where phalanx declares a gap."""
    try:
        ref = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # MuJoCo rejects it: so must we
        with pytest.raises((phalanx.MJCFError, NotImplementedError)):
            phalanx.Model.from_xml_path(path)
        pytest.skip(f"MuJoCo rejects this model ({str(e).splitlines()[0][:80]}); so does phalanx")
    rel = os.path.relpath(path, SHARED_MODELS)
    try:
        ours = phalanx.Model.from_xml_path(path)
    except NotImplementedError as e:
        if rel in KNOWN_UNSUPPORTED:
            assert KNOWN_UNSUPPORTED[rel] in str(e), f"{rel} now fails for another reason: {e}"
            pytest.skip(f"known unsupported: {KNOWN_UNSUPPORTED[rel]}")
        raise AssertionError(f"{rel} is not in KNOWN_UNSUPPORTED but raised: {e}") from e
    assert rel not in KNOWN_UNSUPPORTED, f"{rel} loads now: remove it from KNOWN_UNSUPPORTED"
    return ours, ref


def compared_fields(ours, ref):
    return [n for n in phalanx._core.MODEL_FIELDS if n not in ENGINE_DERIVED and hasattr(ref, n)]


def lengthrange_not_computed(ours):
    """Rows of actuator_lengthrange phalanx leaves NaN ("not computed"): muscles whose range MuJoCo
    simulates with joint or tendon limits active, which needs the constraint solver. Asserts that
    only such rows are NaN; the other rows are compared."""
    lr = np.asarray(ours.actuator_lengthrange)
    nan = np.isnan(lr).any(axis=1)
    if nan.any():
        muscle = (np.asarray(ours.actuator_gaintype) == int(mujoco.mjtGain.mjGAIN_MUSCLE)) | (
            np.asarray(ours.actuator_biastype) == int(mujoco.mjtBias.mjBIAS_MUSCLE))
        limits = np.asarray(ours.jnt_limited).any() or np.asarray(ours.tendon_limited).any()
        assert limits and muscle[nan].all(), "NaN lengthrange outside limit-dependent muscles"
    return nan


def assert_field(name, a, b):
    if isinstance(a, bytes):
        assert a == bytes(b), f"{name}: {a[:60]!r} != {bytes(b)[:60]!r}"
        return
    b = np.asarray(b)
    assert a.shape == b.shape, f"{name}: shape {a.shape} != mujoco's {b.shape}"
    if a.dtype.kind in "iub" or b.dtype.kind in "iub":
        bad = np.nonzero(a.astype(np.int64) != b.astype(np.int64))
        assert bad[0].size == 0, f"{name}: differs at {bad[0][:5]}: {a[bad][:5]} != {b[bad][:5]}"
    else:
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=name)


def test_compiled_model(model_path):
    ours, ref = load_both(model_path)
    for s in phalanx._core.MODEL_SIZES:
        if hasattr(ref, s):
            assert getattr(ours, s) == getattr(ref, s), f"size {s}: {getattr(ours, s)} != {getattr(ref, s)}"
    for name in compared_fields(ours, ref):
        a, b = getattr(ours, name), getattr(ref, name)
        if name == "actuator_lengthrange":
            keep = ~lengthrange_not_computed(ours)
            a, b = np.asarray(a)[keep], np.asarray(b)[keep]
        assert_field(name, a, b)
    # options (defaults, <option>, <flag>, merged options of attached models) and the statistics
    # the compiler computes (meaninertia from the mass matrix at qpos0)
    for name in OPTION_FIELDS:
        assert_field("opt." + name, np.atleast_1d(getattr(ours.opt, name)),
                     np.atleast_1d(getattr(ref.opt, name)))
    for name in ("meaninertia", "meanmass", "meansize", "extent", "center"):
        assert_field("stat." + name, np.atleast_1d(getattr(ours.stat, name)),
                     np.atleast_1d(getattr(ref.stat, name)))


OPTION_FIELDS = ("timestep", "impratio", "tolerance", "ls_tolerance", "noslip_tolerance",
                 "ccd_tolerance", "sleep_tolerance", "gravity", "wind", "magnetic", "density",
                 "viscosity", "o_margin", "o_solref", "o_solimp", "o_friction", "integrator",
                 "cone", "jacobian", "solver", "iterations", "ls_iterations",
                 "noslip_iterations", "ccd_iterations", "disableflags", "enableflags",
                 "disableactuator", "sdf_initpoints", "sdf_iterations")


def random_qpos(ref, rng):
    q = ref.qpos0.copy()
    for j in range(ref.njnt):
        a = ref.jnt_qposadr[j]
        t = ref.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            q[a + 3:a + 7] = rng.normal(size=4) * rng.uniform(0.5, 2)  # not unit: normalized
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4) * rng.uniform(0.5, 2)
        else:
            lo, hi = ref.jnt_range[j] if ref.jnt_limited[j] else (-np.pi, np.pi)
            q[a] = rng.uniform(lo, hi)
    return q


def test_kinematics(model_path):
    ours, ref = load_both(model_path)
    d_ours = phalanx.Data(ours)
    d_ref = mujoco.MjData(ref)
    rng = np.random.default_rng(12345)
    fixed = [i for i in range(ref.ntendon)
             if ref.tendon_num[i] and ref.wrap_type[ref.tendon_adr[i]] == mujoco.mjtWrap.mjWRAP_JOINT]
    for trial in range(21):
        q = ref.qpos0.copy() if trial == 0 else random_qpos(ref, rng)
        d_ref.qpos[:] = q
        d_ours.qpos[:] = q
        mujoco.mj_kinematics(ref, d_ref)
        mujoco.mj_comPos(ref, d_ref)
        mujoco.mj_camlight(ref, d_ref)
        mujoco.mj_tendon(ref, d_ref)
        phalanx.kinematics(ours, d_ours)
        for f in KIN_FIELDS:
            np.testing.assert_allclose(getattr(d_ours, f), getattr(d_ref, f), rtol=RTOL,
                                       atol=ATOL, err_msg=f"{f} at configuration {trial}")
        np.testing.assert_allclose(d_ours.ten_length[fixed], d_ref.ten_length[fixed], rtol=RTOL,
                                   atol=ATOL, err_msg=f"fixed ten_length at configuration {trial}")
