# SPDX-License-Identifier: Apache-2.0
"""phalanx.collision against mujoco.mj_collision on the corpus, at states MuJoCo's own
trajectories reach.

For each model, MuJoCo steps from its first keyframe (or qpos0) under seeded random controls;
at 50 states along the way (10 in the fast subset; every STRIDE steps) both engines get the same
qpos and mocap poses, phalanx takes MuJoCo's body and geom poses, both run collision, and every
field of every contact must agree, in order (tests/compat/_contact.py). The fast subset (make test) takes Gymnasium's models, the humanoid
and MuJoCo's collision test models of primitive geoms; `--full` sweeps every corpus model
phalanx compiles. Models whose geom pairs need a collider phalanx does not have yet are listed
in KNOWN_GAPS with the pair named in the error; the list may only shrink (a listed model that
collides is a failure, so is an unlisted one that raises). Run with `-s` for the worst error.
"""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.compat._contact import compare_contacts
from tests.compat.test_conformance import load_both
from tests.conftest import SHARED_MODELS, parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
STRIDE = 4
POSE_FIELDS = ("xpos", "xquat", "xmat", "xipos", "ximat", "geom_xpos", "geom_xmat")

FAST = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
] + sorted(glob.glob(shared_model("mujoco", "test", "engine", "testdata", "collision_primitive",
                                  "*.xml")))

# models whose collision needs a routine phalanx lacks: model -> what the error names
KNOWN_GAPS = {}

# models whose contacts differ because MuJoCo's broad phase is not conservative (docs/collision.md):
# the comparison must fail for them (a listed model that matches is a failure: remove it)
KNOWN_BROADPHASE = {}

WORST = {"err": 0.0, "model": "", "states": 0, "contacts": 0}


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "col_model", FAST)


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST["states"]:
        print(f"\ncollision: {WORST['states']} states, {WORST['contacts']} contacts compared; "
              f"worst scaled error {WORST['err']:.2e} ({WORST['model']})")


def mujoco_states(mm, nstate, seed):
    """qpos, mocap_pos, mocap_quat at nstate points of a MuJoCo trajectory under random controls"""
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    rng = np.random.default_rng(seed)
    lo = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 1], 1.0)
    states = []
    for i in range(nstate * STRIDE):
        if i % STRIDE == 0:
            states.append((md.qpos.copy(), md.mocap_pos.copy(), md.mocap_quat.copy()))
        md.ctrl[:] = rng.uniform(lo, hi) if mm.nu else 0
        mujoco.mj_step(mm, md)
        if not np.all(np.isfinite(md.qpos)):
            break
    return states


def test_corpus_contacts(col_model, full):
    ours, ref = load_both(col_model)
    rel = os.path.relpath(col_model, SHARED_MODELS)
    if ref.nflex:
        pytest.skip("flex collisions: the model is refused at compile")
    pd, md = phalanx.Data(ours), mujoco.MjData(ref)
    try:
        phalanx.collision(ours, pd)
    except NotImplementedError as e:
        assert rel in KNOWN_GAPS, f"{rel} is not in KNOWN_GAPS but raised: {e}"
        assert KNOWN_GAPS[rel] in str(e), f"{rel} now fails for another reason: {e}"
        return
    assert rel not in KNOWN_GAPS, f"{rel} collides now: remove it from KNOWN_GAPS"
    if rel in KNOWN_BROADPHASE:
        with pytest.raises(AssertionError):
            compare_states(ours, ref, pd, md, rel, full)
        return
    compare_states(ours, ref, pd, md, rel, full)


def compare_states(ours, ref, pd, md, rel, full):
    for k, (q, mp, mq) in enumerate(mujoco_states(ref, 50 if full else 10, seed=len(rel))):
        for d in (pd, md):
            d.qpos[:] = q
            d.mocap_pos[:] = mp
            d.mocap_quat[:] = mq
        mujoco.mj_kinematics(ref, md)
        mujoco.mj_collision(ref, md)
        phalanx.kinematics(ours, pd)
        # collision alone on MuJoCo's poses: kinematics is compared elsewhere
        # (test_conformance.py), and a 1-ulp pose difference can move a contact of a
        # near-degenerate configuration by more than the tolerance
        for f in POSE_FIELDS:
            getattr(pd, f)[:] = getattr(md, f)
        phalanx.collision(ours, pd)
        err = compare_contacts(pd, md, TOL, f"{rel} state {k}")
        WORST["states"] += 1
        WORST["contacts"] += md.ncon
        if err > WORST["err"]:
            WORST["err"], WORST["model"] = err, rel
