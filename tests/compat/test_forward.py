# SPDX-License-Identifier: Apache-2.0
"""phalanx.forward against mujoco.mj_forward (MuJoCo 3.12, the oracle) from identical states.

For each model, with constraints disabled in both engines (collision and the solver have issues
of their own), several random states — qpos with non-unit quaternions, qvel, act, ctrl partly
outside its range, qfrc_applied, xfrc_applied — are set in both engines, both run forward, and
every quantity of the smooth dynamics is compared norm-wise: ‖Δ‖ / max(‖ref‖, 1e-12) ≤ 1e-9
(sparse arrays in the shared model sparsity, the actuator moments densely). The fast subset runs
in `make test`; `--full` sweeps every corpus model, skipping (with the reason) those phalanx does
not compile or step yet. Run with `-s` to print the worst error per quantity.
"""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
NSTATE = 4
QUANTITIES = ["M", "qLD", "qLDiagInv", "qfrc_bias", "qfrc_spring", "qfrc_damper",
              "qfrc_gravcomp", "qfrc_fluid", "qfrc_passive", "ten_length", "ten_J", "ten_velocity",
              "actuator_length", "actuator_moment", "actuator_velocity", "actuator_force",
              "act_dot", "qfrc_actuator", "qfrc_smooth", "qacc_smooth", "qacc", "cvel",
              "cdof_dot"]

FAST = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
    shared_model("mujoco", "model", "slider_crank", "slider_crank.xml"),
    shared_model("mujoco", "model", "car", "car.xml"),
]

WORST = {}


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "fwd_model", FAST)


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST:
        print("\nworst relative error per quantity (phalanx.forward vs mj_forward):")
        for q in QUANTITIES:
            if q in WORST:
                print(f"  {q:18s} {WORST[q][0]:.2e}  ({WORST[q][1]})")


def dense_moment(d, nu, nv):
    out = np.zeros((nu, nv))
    for i in range(nu):
        adr, n = d.moment_rowadr[i], d.moment_rownnz[i]
        out[i, d.moment_colind[adr:adr + n]] = d.actuator_moment[adr:adr + n]
    return out


def random_state(ref, rng):
    q = ref.qpos0.copy()
    for j in range(ref.njnt):
        a, t = ref.jnt_qposadr[j], ref.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] += rng.uniform(-0.5, 0.5, 3)
            q[a + 3:a + 7] = rng.normal(size=4) * rng.uniform(0.5, 2)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4) * rng.uniform(0.5, 2)
        else:
            lo, hi = ref.jnt_range[j] if ref.jnt_limited[j] else (-1.0, 1.0)
            q[a] = rng.uniform(lo, hi)
    lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
    ctrl = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo))
    act = rng.uniform(0, 1, ref.na)
    return (q, rng.normal(size=ref.nv), act, ctrl, rng.normal(size=ref.nv),
            rng.normal(size=(ref.nbody, 6)) * (rng.uniform(size=(ref.nbody, 1)) < 0.5))


def load_pair(path):
    try:
        ref = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"mujoco rejects it: {str(e).splitlines()[0][:80]}")
    try:
        ours = phalanx.Model.from_xml_path(path)
    except NotImplementedError as e:
        pytest.skip(f"phalanx does not compile it yet: {str(e)[:100]}")
    # sensors off: they change none of the quantities compared here (test_sensor.py compares
    # them), and models with sensor types phalanx refuses keep their dynamics compared
    off = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | off
    return ours, ref


@pytest.mark.compat
def test_forward_matches_mujoco(fwd_model):
    ours, ref = load_pair(fwd_model)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    try:
        phalanx.forward(ours, do)
    except NotImplementedError as e:
        if fwd_model in FAST:
            raise
        pytest.skip(f"phalanx cannot run forward on it yet: {str(e)[:120]}")
    rng = np.random.default_rng(7)
    rel = os.path.relpath(fwd_model, SHARED_MODELS)
    for k in range(NSTATE):
        q, v, act, ctrl, qfrc, xfrc = random_state(ref, rng)
        for d in (do, dr):
            d.qpos[:], d.qvel[:], d.act[:], d.ctrl[:] = q, v, act, ctrl
            d.qfrc_applied[:], d.xfrc_applied[:] = qfrc, xfrc
        mujoco.mj_forward(ref, dr)
        phalanx.forward(ours, do)
        for name in QUANTITIES:
            if name == "actuator_moment":
                a, b = dense_moment(do, ref.nu, ref.nv), dense_moment(dr, ref.nu, ref.nv)
            else:
                a, b = np.asarray(getattr(do, name)), np.asarray(getattr(dr, name))
            a, b = a.ravel(), b.ravel()
            assert a.shape == b.shape, name
            if not a.size:
                continue
            err = np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12)
            if not err <= WORST.get(name, (-1.0, ""))[0]:
                WORST[name] = (float(err), rel)
            assert err <= TOL, f"{name} (state {k}): relative error {err:.3e}"
