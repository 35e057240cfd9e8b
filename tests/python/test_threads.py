# SPDX-License-Identifier: Apache-2.0
"""Thread safety of the Python entry points: a call that releases the GIL on a Data claims it, a
second call on the same Data from another thread raises RuntimeError naming both calls, edits of a
Model are refused while calls run on it, and threads hammering one Data never crash the
interpreter. step and forward release the GIL (a conflict can only be seen if they do)."""

import copy
import pickle
import threading
import time

import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model

pytestmark = pytest.mark.asan

CONSTRAINT = 1  # mjDSBL_CONSTRAINT


def model():
    m = phalanx.Model.from_xml_path(shared_model("gymnasium", "humanoid.xml"))
    m.opt.disableflags |= CONSTRAINT
    return m


def hold_in_thread(m, d, seconds):
    """Start a thread that holds d (as a running call does) for `seconds`; return it once the
    claim is visible (probed with a call that only checks, never claims)."""

    def hold():
        while True:
            try:
                phalanx._core._hold(m, d, seconds)
                return
            except RuntimeError:  # a probe of ours was running: try again
                time.sleep(0.001)

    t = threading.Thread(target=hold)
    t.start()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            phalanx.subtreeVel(m, d)
        except RuntimeError:
            return t
        time.sleep(0.001)
    t.join()
    raise AssertionError("the holding thread never claimed the Data")


def test_calls_on_a_held_data_are_refused():
    m = model()
    d = phalanx.Data(m)
    other = phalanx.Data(m)
    nv = m.nv
    t = hold_in_thread(m, d, 1.5)
    try:
        busy = r"this Data is in use by phalanx\._hold running in another thread"
        calls = [
            lambda: phalanx.step(m, d),
            lambda: phalanx.step1(m, d),
            lambda: phalanx.step2(m, d),
            lambda: phalanx.forward(m, d),
            lambda: phalanx.kinematics(m, d),
            lambda: phalanx.resetData(m, d),
            lambda: phalanx.resetDataKeyframe(m, d, 0),
            lambda: phalanx.rnePostConstraint(m, d),
            lambda: phalanx.rne(m, d, 1, np.zeros(nv)),
            lambda: phalanx.energyPos(m, d),
            lambda: phalanx.subtreeVel(m, d),
            lambda: phalanx.mulM(m, d, np.zeros(nv), np.zeros(nv)),
            lambda: phalanx.solveM(m, d, np.zeros(nv), np.zeros(nv)),
            lambda: phalanx.jac(m, d, None, None, np.zeros(3), 1),
            lambda: phalanx.jacDot(m, d, None, None, np.zeros(3), 1),
            lambda: phalanx.objectAcceleration(m, d, 1, 1, np.zeros(6), 0),
            lambda: phalanx.applyFT(m, d, np.ones(3), None, np.zeros(3), 1, np.zeros(nv)),
            lambda: phalanx._core._passive(m, d),
            lambda: phalanx._core._stage(m, d, "crb"),
            lambda: phalanx.copyData(other, m, d),
            lambda: phalanx.copyData(d, m, other),
            lambda: pickle.dumps(d),
            lambda: copy.copy(d),
        ]
        for call in calls:
            with pytest.raises(RuntimeError, match=busy):
                call()
        with pytest.raises(RuntimeError, match=r"Data\.qpos: this Data is in use"):
            d.qpos = np.zeros(m.nq)
        with pytest.raises(RuntimeError, match=r"Data\.time: this Data is in use"):
            d.time = 1.0
        # the Model is in use: edits are refused, reads work
        model_busy = r"this Model is in use by phalanx\._hold running in another thread"
        with pytest.raises(RuntimeError, match=r"Model\.opt\.timestep: " + model_busy):
            m.opt.timestep = 0.001
        with pytest.raises(RuntimeError, match=r"Model\.opt\.gravity: " + model_busy):
            m.opt.gravity = np.zeros(3)
        with pytest.raises(RuntimeError, match=r"Model\.body_mass: " + model_busy):
            m.body_mass = np.ones(m.nbody)
        assert m.opt.timestep > 0 and d.qpos.shape == (m.nq,)
        # another Data of the same Model works meanwhile
        phalanx.step(m, other)
        phalanx.rnePostConstraint(m, other)
    finally:
        t.join()
    # free again
    m.opt.timestep = 0.004
    d.qpos = other.qpos
    phalanx.step(m, d)
    phalanx.copyData(other, m, d)
    assert np.array_equal(other.qpos, d.qpos)


def test_threads_hammering_one_data():
    """Four threads step, run forward, kinematics and rnePostConstraint, and assign fields on one
    Data while a fifth edits the Model: every failure is the named conflict, conflicts happen
    (the calls run without the GIL), and the Data is sound afterwards."""
    m = model()
    d = phalanx.Data(m)
    errors, conflicts, done = [], [0], [0]
    lock = threading.Lock()
    stop = time.monotonic() + 1.0

    def worker(k):
        rng = np.random.default_rng(k)
        calls = [
            lambda: phalanx.step(m, d),
            lambda: phalanx.forward(m, d),
            lambda: phalanx.kinematics(m, d),
            lambda: phalanx.rnePostConstraint(m, d),
            lambda: setattr(d, "qvel", rng.normal(size=m.nv) * 0.1),
        ]
        while time.monotonic() < stop:
            try:
                calls[rng.integers(len(calls))]()
                with lock:
                    done[0] += 1
            except RuntimeError as e:
                with lock:
                    if "in use by phalanx." in str(e):
                        conflicts[0] += 1
                    else:
                        errors.append(repr(e))
            except Exception as e:  # noqa: BLE001 - anything else is a failure
                with lock:
                    errors.append(repr(e))

    def editor():
        while time.monotonic() < stop:
            try:
                m.opt.timestep = 0.005
            except RuntimeError as e:
                if "this Model is in use" not in str(e):
                    with lock:
                        errors.append(repr(e))
            time.sleep(0.0005)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=editor))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
    assert done[0] > 100
    assert conflicts[0] > 0, "no conflict seen: do step/forward release the GIL?"
    # the Data is usable and consistent afterwards: forward twice gives the same accelerations
    d.qvel[:] = 0
    phalanx.forward(m, d)
    qacc = d.qacc.copy()
    phalanx.forward(m, d)
    assert np.array_equal(qacc, d.qacc) and np.all(np.isfinite(qacc))


def test_one_data_per_thread_runs_concurrently():
    """Threads with their own Data on one Model never conflict, and give the serial results."""
    m = model()
    datas = [phalanx.Data(m) for _ in range(3)]
    for k, d in enumerate(datas):
        d.qvel[:] = 0.1 * (k + 1)
    ref = []
    for d in datas:
        r = phalanx.Data(m)
        phalanx.copyData(r, m, d)
        for _ in range(50):
            phalanx.step(m, r)
        ref.append(r.qpos.copy())
    threads = [threading.Thread(target=lambda d=d: [phalanx.step(m, d) for _ in range(50)])
               for d in datas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for d, q in zip(datas, ref):
        assert np.array_equal(d.qpos, q)
