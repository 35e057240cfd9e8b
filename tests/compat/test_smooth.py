# SPDX-License-Identifier: Apache-2.0
"""Smooth dynamics against MuJoCo 3.12 from identical states: inertia (crb, M, qLD, qLDiagInv),
velocities (cvel, cdof_dot), bias forces (qfrc_bias), subtree velocities and momenta, the
acceleration stage (qfrc_smooth, qacc_smooth, qacc with no constraints), and the utilities
(fullM, mulM, solveM, Jacobians, objectVelocity, applyFT). Tolerance: ||ours - ref|| / max(||ref||,
1e-12) <= 1e-9, field by field."""

import glob
import os
import subprocess

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import ROOT, SHARED_MODELS, shared_model
from tests.compat._util import rel

TOL = 1e-9

MODELS = [
    shared_model("gymnasium", "ant.xml"),
    shared_model("gymnasium", "humanoid.xml"),
    shared_model("gymnasium", "hopper.xml"),
    shared_model("gymnasium", "half_cheetah.xml"),
    shared_model("gymnasium", "inverted_double_pendulum.xml"),
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
    shared_model("mujoco", "model", "cube", "cube_3x3x3.xml"),  # 26 ball joints, armature, nv 66
    shared_model("mujoco", "model", "car", "car.xml"),
]
FULL_EXTRA = sorted(glob.glob(os.path.join(SHARED_MODELS, "gymnasium", "*.xml")))

POS_FIELDS = ["crb", "M", "qLD", "qLDiagInv"]
VEL_FIELDS = ["cvel", "cdof_dot", "qfrc_bias"]
SUBTREE_FIELDS = ["subtree_linvel", "subtree_angmom"]


def pytest_generate_tests(metafunc):
    if "path" in metafunc.fixturenames:
        paths = MODELS
        if metafunc.config.getoption("--full"):
            paths = sorted(set(MODELS) | set(FULL_EXTRA))
        metafunc.parametrize("path", paths, ids=[os.path.relpath(p, SHARED_MODELS) for p in paths])


def check(name, ours, ref):
    err = rel(ours, ref)
    assert err <= TOL, f"{name}: relative error {err:.3g}"
    return err


def random_state(ref, rng):
    """qpos with unnormalized quaternions (both engines normalize), qvel."""
    q = ref.qpos0.copy()
    for j in range(ref.njnt):
        a = ref.jnt_qposadr[j]
        t = ref.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            q[a + 3:a + 7] = rng.normal(size=4) * rng.uniform(0.5, 2)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4) * rng.uniform(0.5, 2)
        else:
            lo, hi = ref.jnt_range[j] if ref.jnt_limited[j] else (-np.pi, np.pi)
            q[a] = rng.uniform(lo, hi)
    return q, rng.normal(size=ref.nv) * 2


def load(path):
    return phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)


def set_state(do, dr, q, v):
    do.qpos[:] = q
    dr.qpos[:] = q
    do.qvel[:] = v
    dr.qvel[:] = v


def run_stages(ours, do):
    for stage in ["kinematics", "makeM", "factorM", "comVel", "rne", "subtreeVel"]:
        phalanx._core._stage(ours, do, stage)


def test_stages(path):
    ours, ref = load(path)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    check("dof_M0", ours.dof_M0, ref.dof_M0)
    # tendon armature needs ten_J from the tendon stage (not merged here): M not comparable then
    tendon_armature = ref.ntendon > 0 and np.any(ref.tendon_armature != 0)
    rng = np.random.default_rng(7)
    for trial in range(6):
        q, v = (ref.qpos0.copy(), np.zeros(ref.nv)) if trial == 0 else random_state(ref, rng)
        set_state(do, dr, q, v)
        mujoco.mj_fwdPosition(ref, dr)
        mujoco.mj_fwdVelocity(ref, dr)
        mujoco.mj_subtreeVel(ref, dr)
        run_stages(ours, do)
        for f in POS_FIELDS + VEL_FIELDS + SUBTREE_FIELDS:
            if tendon_armature and f in ("M", "qLD", "qLDiagInv"):
                continue
            check(f"{f} (state {trial})", getattr(do, f), getattr(dr, f))


def test_utilities(path):
    ours, ref = load(path)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(11)
    q, v = random_state(ref, rng)
    set_state(do, dr, q, v)
    mujoco.mj_fwdPosition(ref, dr)
    mujoco.mj_fwdVelocity(ref, dr)
    run_stages(ours, do)
    nv = ref.nv
    # the reference's M (tendon armature included) for the matrix utilities
    do.M[:] = dr.M
    do.qLD[:] = dr.qLD
    do.qLDiagInv[:] = dr.qLDiagInv

    full_o, full_r = np.zeros((nv, nv)), np.zeros((nv, nv))
    phalanx.fullM(ours, do, full_o)
    mujoco.mj_fullM(ref, dr, full_r)
    check("fullM", full_o, full_r)

    vec = rng.normal(size=nv)
    res_o, res_r = np.zeros(nv), np.zeros(nv)
    phalanx.mulM(ours, do, res_o, vec)
    mujoco.mj_mulM(ref, dr, res_r, vec)
    check("mulM", res_o, res_r)

    for n in (1, 3):
        y = rng.normal(size=(n, nv))
        x_o, x_r = np.zeros((n, nv)), np.zeros((n, nv))
        phalanx.solveM(ours, do, x_o, y)
        mujoco.mj_solveM(ref, dr, x_r, y)
        check(f"solveM n={n}", x_o, x_r)
    x_o = y.copy()
    phalanx.solveM(ours, do, x_o, x_o)  # in place
    check("solveM in place", x_o, x_r)

    def jacs(fo, fr, *args):
        jo = [np.zeros((3, nv)), np.zeros((3, nv))]
        jr = [np.zeros((3, nv)), np.zeros((3, nv))]
        fo(ours, do, jo[0], jo[1], *args)
        fr(ref, dr, jr[0], jr[1], *args)
        check(f"{fo.__name__} jacp {args}", jo[0], jr[0])
        check(f"{fo.__name__} jacr {args}", jo[1], jr[1])

    for b in range(ref.nbody):
        point = rng.normal(size=3)
        jacs(phalanx.jac, mujoco.mj_jac, point, b)
        jacs(phalanx.jacBody, mujoco.mj_jacBody, b)
        jacs(phalanx.jacBodyCom, mujoco.mj_jacBodyCom, b)
    for s in range(ref.nsite):
        jacs(phalanx.jacSite, mujoco.mj_jacSite, s)
    for g in range(0, ref.ngeom, max(1, ref.ngeom // 10)):
        jacs(phalanx.jacGeom, mujoco.mj_jacGeom, g)
    jp = np.zeros((3, nv))
    phalanx.jac(ours, do, jp, None, np.zeros(3), ref.nbody - 1)  # one output skipped

    objs = [(mujoco.mjtObj.mjOBJ_BODY, ref.nbody), (mujoco.mjtObj.mjOBJ_XBODY, ref.nbody),
            (mujoco.mjtObj.mjOBJ_GEOM, ref.ngeom), (mujoco.mjtObj.mjOBJ_SITE, ref.nsite),
            (mujoco.mjtObj.mjOBJ_CAMERA, ref.ncam)]
    for objtype, n in objs:
        for i in range(n):
            for local in (0, 1):
                ro, rr = np.zeros(6), np.zeros(6)
                phalanx.objectVelocity(ours, do, objtype, i, ro, local)
                mujoco.mj_objectVelocity(ref, dr, objtype, i, rr, local)
                check(f"objectVelocity {objtype} {i} local={local}", ro, rr)

    for b in range(1, ref.nbody):
        f, t, p = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
        f[b % 3] = 0.0  # a zero component is skipped, as MuJoCo does
        qo, qr = rng.normal(size=nv), None
        qr = qo.copy()
        phalanx.applyFT(ours, do, f, t, p, b, qo)
        mujoco.mj_applyFT(ref, dr, f, t, p, b, qr)
        check(f"applyFT body {b}", qo, qr)


def disable_all_but_smooth(model):
    flags = (mujoco.mjtDisableBit.mjDSBL_SPRING | mujoco.mjtDisableBit.mjDSBL_DAMPER
             | mujoco.mjtDisableBit.mjDSBL_ACTUATION | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    model.opt.disableflags = model.opt.disableflags | int(flags)


def test_forward_acceleration(path):
    ours, ref = load(path)
    disable_all_but_smooth(ours)
    disable_all_but_smooth(ref)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(3)
    for trial in range(4):
        q, v = random_state(ref, rng)
        set_state(do, dr, q, v)
        applied = rng.normal(size=ref.nv)
        do.qfrc_applied[:] = applied
        dr.qfrc_applied[:] = applied
        xfrc = np.zeros((ref.nbody, 6))
        if trial > 0:
            xfrc[1:] = rng.normal(size=(ref.nbody - 1, 6))
            xfrc[rng.integers(1, ref.nbody)] = 0.0  # bodies without a wrench are skipped
        do.xfrc_applied[:] = xfrc
        dr.xfrc_applied[:] = xfrc
        mujoco.mj_forward(ref, dr)
        phalanx.forward(ours, do)
        for f in (POS_FIELDS + VEL_FIELDS + ["ten_length", "ten_J", "ten_velocity",
                                             "qfrc_passive", "qfrc_actuator", "qfrc_smooth",
                                             "qacc_smooth", "qacc", "qfrc_constraint"]):
            check(f"{f} (state {trial})", getattr(do, f), getattr(dr, f))


def test_forward_gravity_off():
    ours, ref = load(shared_model("gymnasium", "ant.xml"))
    for model in (ours, ref):
        disable_all_but_smooth(model)
        model.opt.disableflags = model.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    q, v = random_state(ref, np.random.default_rng(5))
    set_state(do, dr, q, v)
    mujoco.mj_forward(ref, dr)
    phalanx.forward(ours, do)
    for f in ["qfrc_bias", "qacc_smooth", "qacc"]:
        check(f, getattr(do, f), getattr(dr, f))


@pytest.mark.asan
def test_asan_smoke():
    """Every stage and utility once on a model with ball joints, under ASan in `make test`."""
    path = shared_model("mujoco", "model", "cube", "cube_3x3x3.xml")
    test_stages(path)
    test_utilities(path)
    test_forward_acceleration(path)


@pytest.mark.asan
def test_forward_rejects_unsupported():
    ours = phalanx.Model.from_xml_path(shared_model("gymnasium", "ant.xml"))
    d = phalanx.Data(ours)
    ours.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    ours.opt.enableflags = int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx.forward(ours, d)
    ours.opt.enableflags = 0
    phalanx.forward(ours, d)


@pytest.mark.asan
def test_argument_checks():
    ours = phalanx.Model.from_xml_path(shared_model("gymnasium", "hopper.xml"))
    d = phalanx.Data(ours)
    phalanx._core._stage(ours, d, "kinematics")
    nv = ours.nv
    with pytest.raises(ValueError, match="unknown stage"):
        phalanx._core._stage(ours, d, "nope")
    with pytest.raises(ValueError, match="jacp has"):
        phalanx.jac(ours, d, np.zeros((3, nv + 1)), None, np.zeros(3), 1)
    with pytest.raises(TypeError, match="float64"):
        phalanx.jacBody(ours, d, np.zeros((3, nv), dtype=np.float32), None, 1)
    with pytest.raises(TypeError, match="C-contiguous"):
        phalanx.jacBody(ours, d, np.zeros((nv, 3)).T, None, 1)
    with pytest.raises(IndexError, match="body id"):
        phalanx.jacBody(ours, d, None, None, ours.nbody)
    with pytest.raises(IndexError, match="site id"):
        phalanx.jacSite(ours, d, None, None, -1)
    with pytest.raises(ValueError, match="point has"):
        phalanx.jac(ours, d, None, None, np.zeros(2), 1)
    with pytest.raises(ValueError, match="multiple of nv"):
        phalanx.solveM(ours, d, np.zeros(nv + 1), np.zeros(nv + 1))
    with pytest.raises(ValueError, match="y has"):
        phalanx.solveM(ours, d, np.zeros(nv), np.zeros(nv + 1))
    with pytest.raises(ValueError, match="dst has"):
        phalanx.fullM(ours, d, np.zeros((nv, nv + 1)))
    with pytest.raises(ValueError, match="share memory"):
        v = np.zeros(nv)
        phalanx.mulM(ours, d, v, v)
    with pytest.raises(ValueError, match="no spatial frame"):
        phalanx.objectVelocity(ours, d, mujoco.mjtObj.mjOBJ_JOINT, 0, np.zeros(6), 0)
    with pytest.raises(TypeError, match="ndarray"):
        phalanx.objectVelocity(ours, d, mujoco.mjtObj.mjOBJ_BODY, 0, [0.0] * 6, 0)
    with pytest.raises(TypeError, match="phalanx Data"):
        phalanx.forward(ours, ours)


def test_kernel_headers_compile_as_glsl():
    """smooth.h and jac.h compile through the generated layout in fp64 and fp32 and pass the
    SPIR-V lint (scripts/check_kern_glsl.sh)."""
    if subprocess.run(["which", "glslc"], capture_output=True).returncode != 0:
        pytest.skip("glslc not installed")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "check_kern_glsl.sh")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smooth_f64.spv: ok" in r.stdout and "smooth_f32.spv: ok" in r.stdout, r.stdout
