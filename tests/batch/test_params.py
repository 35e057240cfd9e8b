# SPDX-License-Identifier: Apache-2.0
"""Per-world model parameters of phalanx.Batch (domain randomization): a world with overridden
parameters steps bitwise as a single Model edited the same way, then phalanx.setConst, then
phalanx.step (any number of threads); the derived constants recomputed per world are exactly
those the step reads and setConst changes (the contract of docs/batch.md); mujoco edited the
same way (mj_setConst) agrees; argument errors."""

import copy

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model

pytestmark = pytest.mark.asan

DSBL_CONSTRAINT = 1

# an arm with a dampratio position actuator, a tendon motor, armature, stiffness, damping, and a
# free ball on a plane (contacts)
ARM_XML = """
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" damping="0.1" stiffness="1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" armature="0.01" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="c" pos="0.3 0 0">
          <joint name="s3" type="slide" axis="1 0 0"/>
          <geom type="box" size="0.05 0.05 0.05"/>
        </body>
      </body>
    </body>
    <body name="ball" pos="0.5 0.5 0.1">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t"><joint joint="h1" coef="1"/><joint joint="h2" coef="0.5"/></fixed>
  </tendon>
  <actuator>
    <position joint="h1" kp="20" dampratio="0.7"/>
    <motor tendon="t" gear="2" forcerange="-1 1" forcelimited="true"/>
    <position joint="h2" kp="5" kv="0.3"/>
    <motor joint="s3"/>
  </actuator>
</mujoco>
"""

# the derived constants of the contract: recomputed per world (docs/batch.md)
DERIVED = ["body_subtreemass", "dof_M0", "body_invweight0", "dof_invweight0", "tendon_invweight0",
           "actuator_acc0", "cam_poscom0", "light_poscom0"]
# constants setConst changes after these edits that the batch keeps at the shared model's value:
# statistics the step never reads
KEPT = {"stat.meanmass"}


def arm_model():
    return phalanx.Model.from_xml_string(ARM_XML)


def gym_model(name, constraints=True):
    m = phalanx.Model.from_xml_path(shared_model("gymnasium", name + ".xml"))
    if not constraints:
        m.opt.disableflags |= DSBL_CONSTRAINT
    return m


def base_value(m, name):
    if name.startswith("opt."):
        return np.array(getattr(m.opt, name[4:]), dtype=float)
    if name.startswith("stat."):
        return np.array(getattr(m.stat, name[5:]), dtype=float)
    return np.array(getattr(m, name), dtype=float)


def random_params(m, n, seed, dampratio=False):
    """Per-world values of every settable parameter: the model's, randomly scaled."""
    rng = np.random.default_rng(seed)
    p = {}
    for name in phalanx.BATCH_MODEL_PARAMS:
        base = base_value(m, name)
        vals = np.repeat(base[None], n, axis=0)
        scale = rng.uniform(0.8, 1.25, vals.shape)
        if name == "geom_solimp":
            vals[..., :2] = np.minimum(vals[..., :2] * rng.uniform(0.98, 1.0, vals[..., :2].shape),
                                       0.999)
        elif name == "opt.gravity":
            vals = vals + rng.uniform(-1, 1, vals.shape)
        elif name == "actuator_gainprm":
            vals = vals * scale
        elif name == "actuator_biasprm":
            # position-like actuators keep biasprm[1] = -kp; others scaled
            gain = p["actuator_gainprm"]
            for i in range(m.nu):
                if base[i, 1] != 0 and base[i, 1] == -m.actuator_gainprm[i, 0]:
                    vals[:, i, 1] = -gain[:, i, 0]
                    vals[:, i, 2] *= scale[:, i, 2]
                    if dampratio:  # a damping ratio, converted to -kv per world
                        vals[::2, i, 2] = rng.uniform(0.3, 1.0, vals[::2, i, 2].shape)
                else:
                    vals[:, i] *= scale[:, i]
        else:
            vals = vals * scale
        p[name] = vals
    return p


def edited_model(m, params, w):
    """A single Model edited as world w, then setConst (the reference of a batch world)."""
    m1 = copy.copy(m)
    for name, vals in params.items():
        if name == "opt.timestep":
            m1.opt.timestep = float(vals[w])
        elif name == "opt.gravity":
            m1.opt.gravity[:] = vals[w]
        else:
            getattr(m1, name)[...] = vals[w].reshape(getattr(m1, name).shape)
    phalanx.setConst(m1, phalanx.Data(m1))
    return m1


def controls(m, n, k):
    return np.random.default_rng(100 + k).uniform(-1, 1, (n, m.nu))


def run_batch(m, params, nworld, nthread, ncall=3, nsub=3):
    b = phalanx.Batch(m, nworld, nthread, seed=5)
    b.set_model_params(params)
    b.reset(qpos_noise=0.05, qvel_noise=0.05)
    b.forward()
    for k in range(ncall):
        b.ctrl[:] = controls(m, nworld, k)
        b.step(nsub)
    return b


def snapshot(b):
    return {f: np.array(getattr(b, f)) for f in phalanx._core.DATA_FIELDS} | {"time": b.time.copy()}


# (model, constraints on, substeps per call: enough for contacts to form with constraints)
CASES = [("arm", True, 3), ("hopper", True, 15), ("half_cheetah", False, 3), ("ant", True, 8)]


@pytest.mark.parametrize("name,constraints,nsub", CASES)
def test_world_equals_edited_model_bitwise(name, constraints, nsub):
    m = arm_model() if name == "arm" else gym_model(name, constraints)
    nworld = 5
    params = random_params(m, nworld, seed=1, dampratio=True)
    b = run_batch(m, params, nworld, 0, nsub=nsub)
    ref = snapshot(b)
    assert not b.flags.any()
    for nthread in (1, 2):
        got = snapshot(run_batch(m, params, nworld, nthread, nsub=nsub))
        for f in ref:
            assert ref[f].tobytes() == got[f].tobytes(), (name, nthread, f)

    start = phalanx.Batch(m, nworld, 0, seed=5)
    start.reset(qpos_noise=0.05, qvel_noise=0.05)
    ncon = 0
    for w in range(nworld):
        m1 = edited_model(m, params, w)
        # the derived constants the batch recomputed for this world are setConst's
        for dn in DERIVED:
            assert b.model_param(dn)[w].tobytes() == np.asarray(getattr(m1, dn)).tobytes(), dn
        assert b.model_param("stat.meaninertia")[w] == m1.stat.meaninertia
        np.testing.assert_array_equal(b.model_param("actuator_biasprm")[w], m1.actuator_biasprm)

        d = phalanx.Data(m1)
        d.qpos[:] = start.qpos[w]
        d.qvel[:] = start.qvel[w]
        phalanx.forward(m1, d)
        for k in range(3):
            d.ctrl[:] = controls(m, nworld, k)[w]
            for _ in range(nsub):
                phalanx.step(m1, d)
        for f in phalanx._core.DATA_FIELDS:
            assert np.array(getattr(d, f)).tobytes() == ref[f][w].tobytes(), (name, w, f)
        assert d.time == ref["time"][w]
        ncon += d.ncon
    assert (ncon > 0) == constraints  # the constraint cases do have contacts


def test_derived_contract():
    """setConst after editing every settable parameter changes only the settable parameters, the
    derived constants the batch recomputes per world, and KEPT (which the step never reads: the
    bitwise test above passes with the batch's unchanged values)."""
    for m in (arm_model(), gym_model("hopper"), gym_model("ant")):
        params = random_params(m, 2, seed=3, dampratio=True)
        m1 = edited_model(m, params, 0)
        changed = set()
        for f in phalanx._core.MODEL_FIELDS:
            a, c = np.asarray(getattr(m, f)), np.asarray(getattr(m1, f))
            if a.tobytes() != c.tobytes():
                changed.add(f)
        for group in ("opt", "stat"):
            for attr in dir(getattr(m, group)):
                if attr.startswith("_"):
                    continue
                a = getattr(getattr(m, group), attr)
                if callable(a):
                    continue
                c = getattr(getattr(m1, group), attr)
                if np.asarray(a).tobytes() != np.asarray(c).tobytes():
                    changed.add(group + "." + attr)
        allowed = set(phalanx.BATCH_MODEL_PARAMS) | set(phalanx.BATCH_DERIVED_PARAMS) | KEPT
        assert changed <= allowed, changed - allowed
        assert set(phalanx.BATCH_DERIVED_PARAMS) == set(DERIVED) | {"stat.meaninertia"}


def mj_edited(xml_or_path, params, w, is_path, constraints=True):
    mm = (mujoco.MjModel.from_xml_path(xml_or_path) if is_path
          else mujoco.MjModel.from_xml_string(xml_or_path))
    if not constraints:
        mm.opt.disableflags |= DSBL_CONSTRAINT
    for name, vals in params.items():
        if name == "opt.timestep":
            mm.opt.timestep = float(vals[w])
        elif name == "opt.gravity":
            mm.opt.gravity[:] = vals[w]
        else:
            getattr(mm, name)[...] = vals[w].reshape(getattr(mm, name).shape)
    mujoco.mj_setConst(mm, mujoco.MjData(mm))
    return mm


@pytest.mark.parametrize("name", ["arm", "hopper", "reacher"])
def test_against_mujoco(name):
    """mujoco edited the same way with mj_setConst: bitwise the same derived constants and
    trajectory, with contacts too (the arm's resting ball, hopper after its foot
    lands) and without (reacher)."""
    is_path = name != "arm"
    src = shared_model("gymnasium", name + ".xml") if is_path else ARM_XML
    constraints = name != "reacher"
    m = arm_model() if name == "arm" else gym_model(name, constraints)
    nstep = 60 if name == "hopper" else 20  # hopper's foot lands after about 35 steps
    nworld = 3
    params = random_params(m, nworld, seed=7, dampratio=True)
    b = phalanx.Batch(m, nworld, 2)
    b.set_model_params(params)
    for w in range(nworld):
        mm = mj_edited(src, params, w, is_path, constraints)
        for dn in DERIVED:
            got = b.model_param(dn)[w]
            np.testing.assert_array_equal(got, np.reshape(getattr(mm, dn), got.shape),
                                          err_msg=dn)
        assert b.model_param("stat.meaninertia")[w] == mm.stat.meaninertia
        np.testing.assert_array_equal(b.model_param("actuator_biasprm")[w], mm.actuator_biasprm)
    md = [mujoco.MjData(mj_edited(src, params, w, is_path, constraints)) for w in range(nworld)]
    mms = [mj_edited(src, params, w, is_path, constraints) for w in range(nworld)]
    for k in range(nstep):
        ctrl = controls(m, nworld, k)
        b.ctrl[:] = ctrl
        b.step()
        for w in range(nworld):
            md[w].ctrl[:] = ctrl[w]
            mujoco.mj_step(mms[w], md[w])
    assert (sum(d.ncon for d in md) > 0) == constraints
    for w in range(nworld):
        np.testing.assert_array_equal(b.qpos[w], md[w].qpos)
        np.testing.assert_array_equal(b.qvel[w], md[w].qvel)
        np.testing.assert_array_equal(b.qacc[w], md[w].qacc)
        assert b.time[w] == md[w].time


def test_values_get_set_mask_clear_and_between_steps():
    m = gym_model("half_cheetah", False)
    n = 4
    b = phalanx.Batch(m, n, 2)
    assert b.model_params_set == ()
    for name in phalanx.BATCH_MODEL_PARAMS + phalanx.BATCH_DERIVED_PARAMS:
        v = b.model_param(name)
        base = base_value(m, name)
        assert v.dtype == np.float64 and v.shape == (n,) + base.shape, name
        for w in range(n):
            assert v[w].tobytes() == base.tobytes(), name
    mass = np.repeat(m.body_mass[None], n, axis=0)
    mass[1:] *= 2.0
    mask = np.array([False, True, False, True])
    b.set_model_param("body_mass", mass, mask=mask)
    got = b.model_param("body_mass")
    np.testing.assert_array_equal(got[[0, 2]], np.repeat(m.body_mass[None], 2, axis=0))
    np.testing.assert_array_equal(got[[1, 3]], mass[[1, 3]])
    sub = b.model_param("body_subtreemass")
    np.testing.assert_array_equal(sub[0], m.body_subtreemass)
    assert sub[1, 0] == 2 * m.body_subtreemass[0]
    assert b.model_params_set == ("body_mass",)
    got[:] = 0  # a copy: the batch is unchanged
    assert b.model_param("body_mass")[1, 1] == mass[1, 1]

    # changeable between steps: world 1 with doubled mass until the change, then base again
    b.step(2)
    base = np.repeat(m.body_mass[None], n, axis=0)
    b.set_model_param("body_mass", base)
    b.step(2)
    d = phalanx.Data(m)
    m2 = edited_model(m, {"body_mass": mass}, 1)
    for _ in range(2):
        phalanx.step(m2, d)
    for _ in range(2):
        phalanx.step(m, d)
    assert d.qpos.tobytes() == b.qpos[1].tobytes()

    b.clear_model_params()
    assert b.model_params_set == ()
    np.testing.assert_array_equal(b.model_param("body_subtreemass")[1], m.body_subtreemass)
    assert m.frozen and not copy.copy(m).frozen


def test_errors():
    m = gym_model("hopper")
    n = 3
    b = phalanx.Batch(m, n)
    good = np.repeat(m.body_mass[None], n, axis=0)
    with pytest.raises(ValueError, match="unknown model parameter 'body_mas'.*body_mass"):
        b.set_model_param("body_mas", good)
    with pytest.raises(ValueError, match="unknown model parameter"):
        b.model_param("qpos")
    with pytest.raises(ValueError, match="derived constant"):
        b.set_model_param("dof_M0", np.zeros((n, m.nv)))
    with pytest.raises(TypeError, match="must be a str"):
        b.model_param(3)
    with pytest.raises(ValueError, match=r"shape \(3, 5\).*got \(5,\)"):
        b.set_model_param("body_mass", m.body_mass)
    with pytest.raises(ValueError, match=r"shape \(3, 5, 3\).*got \(3, 15\)"):
        b.set_model_param("body_inertia", np.zeros((n, 15)))
    with pytest.raises(ValueError, match=r"opt.timestep must have shape \(3,\)"):
        b.set_model_param("opt.timestep", np.ones((n, 1)))
    with pytest.raises(ValueError, match="convertible to float64"):
        b.set_model_param("body_mass", np.ones((n, m.nbody), dtype=complex))
    bad = good.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="body_mass: world 2, element 1 is nan; values must be"):
        b.set_model_param("body_mass", bad)
    bad[2, 1] = -1
    with pytest.raises(ValueError, match=">= 0"):
        b.set_model_param("body_mass", bad)
    with pytest.raises(ValueError, match="> 0"):
        b.set_model_param("opt.timestep", np.zeros(n))
    with pytest.raises(ValueError, match="finite"):
        b.set_model_param("opt.gravity", np.full((n, 3), np.inf))
    # a masked-out bad row is ignored
    b.set_model_param("body_mass", bad, mask=np.array([True, True, False]))
    # all-or-nothing: a bad second parameter changes nothing
    before = b.model_param("body_mass")
    with pytest.raises(ValueError, match="dof_damping"):
        b.set_model_params({"body_mass": 2 * good, "dof_damping": np.full((n, m.nv), np.nan)})
    np.testing.assert_array_equal(b.model_param("body_mass"), before)
    with pytest.raises(TypeError, match="must be a dict"):
        b.set_model_params([("body_mass", good)])
    with pytest.raises(ValueError, match="no parameter"):
        b.set_model_params({})
    with pytest.raises(ValueError, match="mask must be"):
        b.set_model_param("body_mass", good, mask=np.ones(2, bool))
    # the shared model stays frozen and unchanged
    with pytest.raises(ValueError, match="read-only"):
        m.body_mass[1] = 1.0
    assert m.frozen
