# SPDX-License-Identifier: Apache-2.0
"""Contact and constraint-row capacity overflow (MuJoCo's CONTACTFULL and CNSTRFULL warnings)
flags a batch world without touching its neighbours, and the VectorEnv truncates it with that
reason; Batch.set_autoreset resets the worlds a step flags, exactly as reset(mask) + forward(mask)
after the step would, keeping their flags readable until the next call."""

import numpy as np
import pytest

import phalanx

pytestmark = pytest.mark.asan

# three balls over a plane and an arm that touches nothing; <size> caps contacts and rows
BALLS_XML = """
<mujoco>
  <size nconmax="{nconmax}" njmax="{njmax}"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 {z}"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body pos="0.5 0 {z}"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body pos="1 0 {z}"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body pos="3 0 1">
      <joint name="arm" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="arm"/></actuator>
</mujoco>
"""


def balls(nconmax=2, njmax=-1):
    xml = BALLS_XML.replace("{nconmax}", str(nconmax)).replace("{njmax}", str(njmax))
    xml = xml.replace("{z}", "1")
    return phalanx.Model.from_xml_string(xml)


def drop(b, worlds):
    """Put the balls of the given worlds on the plane (touching: a contact each)."""
    for w in worlds:
        for i in range(3):
            b.qpos[w, 7 * i + 2] = 0.099


def run(m, low, nworld=5, nthread=2, nstep=3):
    b = phalanx.Batch(m, nworld, nthread)
    drop(b, low)
    for _ in range(nstep):
        b.step()
    return b


@pytest.mark.parametrize("which", ["contactfull", "cnstrfull"])
def test_capacity_flags_isolated(which):
    # contactfull: 3 contacts > nconmax 2; cnstrfull: 3 contacts x 4 pyramid rows > njmax 10
    m = balls(nconmax=2) if which == "contactfull" else balls(nconmax=10, njmax=10)
    bit = 1 << phalanx.BATCH_FLAGS.index(which)
    b = run(m, low=[1, 3])
    assert list(b.flags) == [0, bit, 0, bit, 0]
    warn = 1 if which == "contactfull" else 2  # MuJoCo's warning rows
    assert list(b.warning[:, warn, 1]) == [0, 1, 0, 1, 0]
    # the flagged worlds stopped at the substep that overflowed
    assert b.time[1] == m.opt.timestep and b.time[0] == 3 * m.opt.timestep
    # neighbours bitwise as in a run without the overflowing worlds
    clean = run(m, low=[])
    assert not clean.flags.any()
    for f in phalanx._core.DATA_FIELDS:
        a, c = np.asarray(getattr(b, f)), np.asarray(getattr(clean, f))
        for w in (0, 2, 4):
            assert a[w].tobytes() == c[w].tobytes(), (f, w)
    # with room for the rows the same worlds are healthy
    roomy = run(balls(nconmax=10), low=[1, 3])
    assert not roomy.flags.any()


def test_vector_env_truncates_overflow():
    gymnasium = pytest.importorskip("gymnasium")
    m = balls(nconmax=2)
    env = phalanx.VectorEnv(m, num_envs=3, obs_fn=lambda b: b.qpos.copy(),
                            reward_fn=lambda b, a: np.ones(b.num_worlds),
                            terminated_fn=lambda b: np.zeros(b.num_worlds, bool),
                            autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP)
    env.reset(seed=0)
    drop(env.batch, [1])
    env.batch.forward()
    _, rew, term, trunc, infos = env.step(np.zeros((3, 1)))
    assert list(trunc) == [False, True, False] and not term.any()
    assert rew[1] == 0 and rew[0] == 1
    assert infos["truncation_reason"][1] == "contactfull"
    assert list(infos["_truncation_reason"]) == [False, True, False]
    env.close()


def bad_steps(b, k):
    """NaN in world 1's velocity at call 1, a huge force in world 3 at call 2."""
    if k == 1:
        b.qvel[1, 0] = np.nan
    if k == 2:
        b.qfrc_applied[3, 0] = 1e30


@pytest.mark.parametrize("nthread", [0, 2])
def test_autoreset_equals_reset_after_step(nthread):
    m = balls(10)
    n = 5
    auto = phalanx.Batch(m, n, nthread, seed=3)
    auto.set_autoreset(True, qpos_noise=0.01, qvel_noise=0.02)
    assert auto.autoreset
    manual = phalanx.Batch(m, n, nthread, seed=3)
    for b in (auto, manual):
        drop(b, [0, 2])
        b.reset(qpos_noise=0.01, qvel_noise=0.02)
    total = 0
    for k in range(5):
        for b in (auto, manual):
            b.ctrl[:] = 0.1 * k
            bad_steps(b, k)
        na = auto.step(2)
        # the manual reference: step, read the flags, reset the flagged worlds, forward them
        stale = manual.flags != 0
        nm = manual.step(2)
        flagged = (manual.flags != 0) & ~stale
        assert na == nm == flagged.sum()
        total += na
        np.testing.assert_array_equal(auto.flags[flagged], manual.flags[flagged])
        assert not auto.flags[~flagged].any()
        if flagged.any():
            manual.reset(flagged, qpos_noise=0.01, qvel_noise=0.02)
            manual.forward(flagged)
        for f in phalanx._core.DATA_FIELDS:
            assert np.asarray(getattr(auto, f)).tobytes() == \
                np.asarray(getattr(manual, f)).tobytes(), (k, f)
        assert auto.time.tobytes() == manual.time.tobytes()
        assert auto.rng_state.tobytes() == manual.rng_state.tobytes()
    assert total == 2
    # world 1 was flagged at call 1 and reset, then stepped on
    assert auto.time[1] > 0

    # reset() clears the kept flags; switching off stops the resets
    auto.qvel[4, 0] = np.nan
    auto.step()
    assert auto.flags[4] != 0
    auto.reset(np.array([False, False, False, False, True]))
    assert auto.flags[4] == 0
    auto.set_autoreset(False)
    auto.qvel[4, 0] = np.nan
    auto.step()
    t = auto.time[4]
    auto.step()
    assert auto.flags[4] != 0 and auto.time[4] == t  # left alone until reset


def test_autoreset_errors():
    b = phalanx.Batch(balls(10), 2)
    with pytest.raises(ValueError, match="key must be -1"):
        b.set_autoreset(True, key=3)
    with pytest.raises(ValueError, match="qpos_noise must be finite"):
        b.set_autoreset(True, qpos_noise=-1.0)
    assert not b.autoreset


def stepped(b, low, nstep=3):
    drop(b, low)
    for _ in range(nstep):
        b.step()
    return b


@pytest.mark.parametrize("nconmax,njmax", [(2, -1), (10, 10), (1, 0), (40, 200)])
def test_batch_capacities_equal_size(nconmax, njmax):
    # Batch(nconmax=, njmax=) over a model without <size> equals the model compiled with
    # <size nconmax njmax>: flags, warnings and every data array, bit for bit
    ref = stepped(phalanx.Batch(balls(nconmax, njmax), 5, 2), low=[1, 3])
    base = balls(nconmax=-1)
    b = stepped(phalanx.Batch(base, 5, 2, nconmax=nconmax, njmax=None if njmax < 0 else njmax),
                low=[1, 3])
    assert b.nconmax == nconmax == ref.nconmax
    assert b.njmax == ref.njmax
    assert list(b.flags) == list(ref.flags)
    for f in list(phalanx._core.DATA_FIELDS) + ["time"]:
        assert np.asarray(getattr(b, f)).tobytes() == np.asarray(getattr(ref, f)).tobytes(), f
    # the storage is that of the <size> model's worlds
    assert b.nbytes == ref.nbytes


def test_batch_capacity_errors():
    m = balls(nconmax=-1)
    for bad in (-1, -5, 10**12, 2.0, True, "3", 10001):
        with pytest.raises(ValueError, match="nconmax must be None"):
            phalanx.Batch(m, 2, nconmax=bad)
    with pytest.raises(ValueError, match="njmax must be None"):
        phalanx.Batch(m, 2, njmax=20001)
    b = phalanx.Batch(m, 2, nconmax=0, njmax=0)
    assert (b.nconmax, b.njmax) == (0, 0)
    stepped(b, low=[1])
    assert b.flags[1] == 1 << phalanx.BATCH_FLAGS.index("contactfull") and b.flags[0] == 0


def test_make_vec_capacities():
    env = phalanx.make_vec("Humanoid-v5", num_envs=2, num_threads=0, nconmax=24, njmax=120)
    full = phalanx.make_vec("Humanoid-v5", num_envs=2, num_threads=0)
    assert (env.batch.nconmax, env.batch.njmax) == (24, 120)
    assert env.batch.nbytes * 3 < full.batch.nbytes
    # with room for what the episode needs, the trajectories are the same
    for e in (env, full):
        e.reset(seed=3)
    acts = np.random.default_rng(0).uniform(-0.4, 0.4, (30, 2, 17))
    for a in acts:
        o1, r1, t1, u1, _ = env.step(a)
        o2, r2, t2, u2, _ = full.step(a)
        assert o1.tobytes() == o2.tobytes() and r1.tobytes() == r2.tobytes()
        assert (t1 == t2).all() and (u1 == u2).all()
    env.close()
    full.close()
