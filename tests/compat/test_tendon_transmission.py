# SPDX-License-Identifier: Apache-2.0
"""Tendons (mj_tendon), transmissions (mj_transmission) and their velocities against MuJoCo 3.12.

From identical random configurations and velocities, both engines run kinematics, the tendon
stage, the transmission stage and the tendon/actuator velocities; then ten_length, ten_J (dense),
the wrap path (ten_wrapadr, ten_wrapnum, and wrap_obj/wrap_xpos over the points in use),
ten_velocity, actuator_length, actuator_moment (dense), its sparsity (moment_rownnz/rowadr/colind)
and actuator_velocity must agree: integers exactly, reals within 1e-9 norm-wise
(|a - b| / max(|b|, 1e-12)). Corpus models with tendons and actuators, plus small inline models
for every wrap and transmission type the corpus leaves untouched. --full adds more corpus models.
"""

import os

import numpy as np
import pytest

import phalanx
from phalanx import _core
from tests.conftest import shared_model
from tests.compat._util import rel as rel_err

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
NTRIAL = 12

# fast subset (make test): spatial tendons with cylinder wraps and side sites, slider-crank,
# pulleys, sphere/cylinder wraps with side sites in and out, refsite, ball/hinge/slide/free joints
FAST = [
    ("mujoco", "model", "tendon_arm", "arm26.xml"),
    ("mujoco", "model", "slider_crank", "slider_crank.xml"),
    ("gymnasium", "humanoid.xml"),
    ("gymnasium", "inverted_pendulum.xml"),
    ("gymnasium", "ant.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_J2.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_J3.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "tendon_wrap_sphere.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "tendon_wrap_cylinder.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "refsite.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "refsite_free.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "sites.xml"),
]

# more corpus models with tendons or actuators (--full)
MORE = [
    ("gymnasium", "humanoidstandup.xml"),
    ("gymnasium", "half_cheetah.xml"),
    ("gymnasium", "hopper.xml"),
    ("gymnasium", "walker2d_v5.xml"),
    ("gymnasium", "swimmer.xml"),
    ("gymnasium", "reacher.xml"),
    ("gymnasium", "pusher_v5.xml"),
    ("gymnasium", "inverted_double_pendulum.xml"),
    ("mujoco", "model", "humanoid", "humanoid.xml"),
    ("mujoco", "model", "balloons", "balloons.xml"),
    ("mujoco", "model", "car", "car.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_J0.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_J1.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_armature_offtree.xml"),
    ("mujoco", "test", "engine", "testdata", "island", "tendon_wrap.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "activation.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "tendon_force_clamp.xml"),
    ("mujoco", "test", "engine", "testdata", "tendon_springlength.xml"),
    ("mujoco", "test", "testdata", "tendon_wrap.xml"),
]

# inline models: what the corpus leaves untouched
INLINE = {
    # joint and jointinparent transmissions on hinge, slide, ball and free joints (gear 6), a site
    # transmission with translational and rotational gear, and a fixed tendon over them
    "joints": """
<mujoco>
  <worldbody>
    <body name="a" pos="0 0 1">
      <freejoint name="root"/>
      <geom size=".1"/>
      <site name="sa" pos=".1 .2 .3" euler="10 20 30"/>
      <body name="b" pos=".3 0 0">
        <joint name="ball" type="ball" pos=".05 0 0"/>
        <geom size=".05"/>
        <body name="c" pos=".3 0 0" euler="0 30 0">
          <joint name="hinge" axis="0 1 1" pos="0 .1 0"/>
          <joint name="slide" type="slide" axis="1 0 .3"/>
          <geom size=".05"/>
          <site name="sc" pos="0 .1 0" euler="40 0 10"/>
        </body>
      </body>
    </body>
    <body name="d" pos="1 0 1">
      <joint name="ball2" type="ball"/>
      <geom size=".1"/>
    </body>
    <body name="e" pos="1.2 0 1">
      <freejoint name="free2"/>
      <geom size=".05"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="f">
      <joint joint="hinge" coef="2"/>
      <joint joint="slide" coef="-.5"/>
    </fixed>
  </tendon>
  <actuator>
    <motor joint="hinge" gear="3"/>
    <motor joint="slide" gear="-2"/>
    <general joint="ball" gear="1 2 3 0 0 0"/>
    <general jointinparent="ball" gear=".5 -1 2 0 0 0"/>
    <general joint="root" gear="1 2 3 4 5 6"/>
    <general jointinparent="root" gear="-1 2 .5 3 -2 1"/>
    <general jointinparent="free2" gear="1 0 2 .5 .5 -1"/>
    <general jointinparent="ball2" gear="0 1 -1 0 0 0"/>
    <general tendon="f" gear="1.5"/>
    <general site="sc" gear="1 2 3 -1 .5 2"/>
    <general site="sa" gear="0 0 0 1 1 1"/>
    <general site="sc" refsite="sa" gear="1 -2 .5 .3 0 1"/>
    <general site="sc" refsite="sa" gear="0 0 0 1 2 3"/>
    <general site="sa" refsite="sc" gear="1 1 1 0 0 0"/>
  </actuator>
</mujoco>""",
    # sphere wrap with a side site inside the sphere (wrap_inside), sphere and cylinder wraps on
    # moving geoms, pulleys on multi-body paths, site transmissions with refsite on separate trees
    "wraps": """
<mujoco>
  <worldbody>
    <site name="w0" pos="0 0 1"/>
    <site name="w1" pos=".5 0 1.2"/>
    <body name="arm" pos="0 0 .5">
      <joint name="j0" axis="0 1 0"/>
      <joint name="j1" axis="1 0 0"/>
      <geom name="ball" type="sphere" size=".15"/>
      <site name="inside" pos=".02 0 .05"/>
      <site name="s0" pos=".4 0 0"/>
      <body name="fore" pos=".5 0 0">
        <joint name="j2" axis="0 1 0"/>
        <joint name="j3" type="slide" axis="1 0 0"/>
        <geom name="cyl" type="cylinder" size=".08 .1" euler="90 0 0"/>
        <site name="side" pos="0 0 -.3"/>
        <site name="s1" pos=".3 0 .05"/>
        <body name="hand" pos=".4 0 0">
          <joint name="j4" type="ball"/>
          <geom size=".05"/>
          <site name="s2" pos=".1 .05 0"/>
        </body>
      </body>
    </body>
    <body name="other" pos="1 1 1">
      <freejoint/>
      <geom name="ball2" size=".1"/>
      <site name="s3" pos="0 0 .2"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="inside">
      <site site="w0"/>
      <geom geom="ball" sidesite="inside"/>
      <site site="s0"/>
    </spatial>
    <spatial name="plain">
      <site site="w1"/>
      <geom geom="ball"/>
      <site site="s1"/>
      <geom geom="cyl" sidesite="side"/>
      <site site="s2"/>
    </spatial>
    <spatial name="pulley">
      <site site="w0"/>
      <site site="s1"/>
      <pulley divisor="2"/>
      <site site="s1"/>
      <geom geom="cyl"/>
      <site site="s2"/>
      <pulley divisor="3"/>
      <site site="s2"/>
      <geom geom="ball2"/>
      <site site="s3"/>
    </spatial>
    <spatial name="free">
      <site site="s3"/>
      <geom geom="ball" sidesite="w1"/>
      <site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <general tendon="plain" gear="2"/>
    <general tendon="pulley" gear="-1"/>
    <general site="s3" refsite="s2" gear="1 2 3 .1 .2 .3"/>
    <general site="s2" refsite="w0" gear="1 2 3 .1 .2 .3"/>
  </actuator>
</mujoco>""",
    # slider-crank whose rod is too short for some configurations (no real root)
    "crank": """
<mujoco>
  <worldbody>
    <body name="crank" pos="0 0 0">
      <joint name="c" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/>
      <site name="crankpin" pos=".3 0 0"/>
    </body>
    <body name="slider" pos=".6 0 0">
      <joint name="s" type="slide" axis="1 0 0"/>
      <joint name="h" axis="0 0 1"/>
      <geom size=".05"/>
      <site name="slider" euler="0 90 0"/>
    </body>
  </worldbody>
  <actuator>
    <general cranksite="crankpin" slidersite="slider" cranklength=".35" gear="2"/>
    <general cranksite="slider" slidersite="crankpin" cranklength=".2"/>
  </actuator>
</mujoco>""",
}

ADHESION = ("mujoco", "model", "adhesion", "active_adhesion.xml")


def random_qpos(ref, rng):
    q = ref.qpos0.copy()
    for j in range(ref.njnt):
        a = ref.jnt_qposadr[j]
        t = ref.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = ref.qpos0[a:a + 3] + rng.uniform(-.3, .3, 3)
            q[a + 3:a + 7] = rng.normal(size=4) * rng.uniform(0.5, 2)  # not unit: normalized
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4) * rng.uniform(0.5, 2)
        else:
            lo, hi = ref.jnt_range[j] if ref.jnt_limited[j] else (-np.pi, np.pi)
            q[a] = rng.uniform(lo, hi)
    return q


def dense(nrow, ncol, rownnz, rowadr, colind, vals):
    out = np.zeros((nrow, ncol))
    for r in range(nrow):
        for k in range(rowadr[r], rowadr[r] + rownnz[r]):
            out[r, colind[k]] += vals[k]
    return out


def run_ref(ref, d):
    mujoco.mj_kinematics(ref, d)
    mujoco.mj_comPos(ref, d)
    mujoco.mj_tendon(ref, d)
    mujoco.mj_transmission(ref, d)
    mujoco.mj_fwdVelocity(ref, d)


def run_ours(ours, d):
    phalanx.kinematics(ours, d)
    _core._tendon(ours, d)
    _core._transmission(ours, d)
    _core._tendonVelocity(ours, d)


def compare(ours, ref, trials=NTRIAL, seed=7, worst=None):
    """Run both engines from identical states; assert every field; return the worst errors."""
    d_ours = phalanx.Data(ours)
    d_ref = mujoco.MjData(ref)
    rng = np.random.default_rng(seed)
    worst = {} if worst is None else worst
    nv = ref.nv
    for trial in range(trials):
        q = ref.qpos0.copy() if trial == 0 else random_qpos(ref, rng)
        v = rng.normal(size=nv)
        d_ref.qpos[:] = q
        d_ours.qpos[:] = q
        d_ref.qvel[:] = v
        d_ours.qvel[:] = v
        run_ref(ref, d_ref)
        run_ours(ours, d_ours)
        where = f"at configuration {trial}"

        errs = {
            "ten_length": rel_err(d_ours.ten_length, d_ref.ten_length),
            "ten_J": rel_err(
                dense(ours.ntendon, nv, ours.ten_J_rownnz, ours.ten_J_rowadr, ours.ten_J_colind,
                      d_ours.ten_J),
                dense(ref.ntendon, nv, ref.ten_J_rownnz, ref.ten_J_rowadr, ref.ten_J_colind,
                      d_ref.ten_J)),
            "ten_velocity": rel_err(d_ours.ten_velocity, d_ref.ten_velocity),
            "actuator_length": rel_err(d_ours.actuator_length, d_ref.actuator_length),
            "actuator_moment": rel_err(
                dense(ours.nu, nv, d_ours.moment_rownnz, d_ours.moment_rowadr,
                      d_ours.moment_colind, d_ours.actuator_moment),
                dense(ref.nu, nv, d_ref.moment_rownnz, d_ref.moment_rowadr,
                      d_ref.moment_colind, d_ref.actuator_moment)),
            "actuator_velocity": rel_err(d_ours.actuator_velocity, d_ref.actuator_velocity),
        }

        # the wrap path: addresses, counts, objects and points in use
        np.testing.assert_array_equal(d_ours.ten_wrapadr, d_ref.ten_wrapadr, err_msg=where)
        np.testing.assert_array_equal(d_ours.ten_wrapnum, d_ref.ten_wrapnum, err_msg=where)
        used = int(np.sum(d_ref.ten_wrapnum))
        np.testing.assert_array_equal(d_ours.wrap_obj.reshape(-1)[:used],
                                      d_ref.wrap_obj.reshape(-1)[:used], err_msg=where)
        errs["wrap_xpos"] = rel_err(d_ours.wrap_xpos.reshape(-1)[:3 * used],
                                    d_ref.wrap_xpos.reshape(-1)[:3 * used])

        # the moment sparsity as MuJoCo fills it
        np.testing.assert_array_equal(d_ours.moment_rownnz, d_ref.moment_rownnz, err_msg=where)
        np.testing.assert_array_equal(d_ours.moment_rowadr, d_ref.moment_rowadr, err_msg=where)
        nnz = int(np.sum(d_ref.moment_rownnz))
        np.testing.assert_array_equal(d_ours.moment_colind[:nnz], d_ref.moment_colind[:nnz],
                                      err_msg=where)

        for name, e in errs.items():
            assert e <= TOL, f"{name}: relative error {e:.3g} {where}"
            worst[name] = max(worst.get(name, 0.0), e if np.isfinite(e) else np.inf)
    return worst


# corpus models loaded with a text edit that leaves tendons and transmissions alone: their muscles
# get an explicit lengthrange, which MuJoCo otherwise computes by a simulation with joint or
# tendon limits (constraints, which phalanx does not compute yet)
EDITS = {
    "arm26.xml": [(f'tendon="{n}"/>', f'tendon="{n}" lengthrange=".1 .5"/>')
                  for n in ("SF", "SE", "EF", "EE", "BF", "BE")],
    "activation.xml": [('tendon="tendon" ctrllimited', 'tendon="tendon" lengthrange="1 3" ctrllimited')],
}


def load_path(parts):
    path = shared_model(*parts)
    if parts[-1] not in EDITS:
        return phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    with open(path) as f:
        xml = f.read()
    for a, b in EDITS[parts[-1]]:
        assert a in xml
        xml = xml.replace(a, b)
    return phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)


def corpus(full):
    return FAST + (MORE if full else [])


def pytest_generate_tests(metafunc):
    if "corpus_model" in metafunc.fixturenames:
        full = metafunc.config.getoption("--full")
        models = corpus(full)
        metafunc.parametrize("corpus_model", models, ids=[os.path.join(*p) for p in models])


def test_corpus(corpus_model):
    ours, ref = load_path(corpus_model)
    assert ref.ntendon + ref.nu > 0
    compare(ours, ref)


@pytest.mark.asan
@pytest.mark.parametrize("name", sorted(INLINE))
def test_inline(name):
    xml = INLINE[name]
    ours = phalanx.Model.from_xml_string(xml)
    ref = mujoco.MjModel.from_xml_string(xml)
    compare(ours, ref, trials=40)


@pytest.mark.asan
def test_actuation_disabled():
    """With actuation disabled MuJoCo still computes moments, but zeroes actuator_velocity."""
    flag = '<mujoco>\n  <option><flag actuation="disable"/></option>'
    xml = INLINE["joints"].replace("<mujoco>", flag, 1)
    ours = phalanx.Model.from_xml_string(xml)
    ref = mujoco.MjModel.from_xml_string(xml)
    assert ref.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_ACTUATION
    compare(ours, ref, trials=4)
    d = phalanx.Data(ours)
    d.qvel[:] = 1.0
    run_ours(ours, d)
    assert not np.any(d.actuator_velocity) and np.any(d.actuator_moment)


def test_inline_covers_wrap_inside_and_no_root():
    """The inline models reach the branches they are there for."""
    ref = mujoco.MjModel.from_xml_string(INLINE["wraps"])
    d = mujoco.MjData(ref)
    rng = np.random.default_rng(7)
    wrapped_inside = 0
    for _ in range(40):
        d.qpos[:] = random_qpos(ref, rng)
        mujoco.mj_kinematics(ref, d)
        mujoco.mj_tendon(ref, d)
        wrapped_inside += int(d.ten_wrapnum[0] == 4)  # site, 2 tangent points, site
    assert wrapped_inside > 0

    ref = mujoco.MjModel.from_xml_string(INLINE["crank"])
    d = mujoco.MjData(ref)
    both = set()
    for _ in range(40):
        d.qpos[:] = random_qpos(ref, rng)
        mujoco.mj_kinematics(ref, d)
        mujoco.mj_comPos(ref, d)
        mujoco.mj_transmission(ref, d)
        # length a'v - sqrt(det) or a'v: the rod reaches the slider axis or it does not
        vec = d.site_xpos[0] - d.site_xpos[1]
        axis = d.site_xmat[1].reshape(3, 3)[:, 2]
        av = vec @ axis
        both.add(bool(av * av + .35 ** 2 - vec @ vec > 0))
    assert both == {True, False}


def test_adhesion_needs_contacts():
    """Body transmission reads contacts: the transmission stage alone rejects it while they can
    exist (forward computes it after its rows: test_adhesion_forward), exact when disabled."""
    path = shared_model(*ADHESION)
    ours = phalanx.Model.from_xml_path(path)
    d = phalanx.Data(ours)
    phalanx.kinematics(ours, d)
    _core._tendon(ours, d)
    with pytest.raises(NotImplementedError, match="body transmission"):
        _core._transmission(ours, d)

    with open(path) as f:
        xml = f.read()
    xml = xml.replace('<option viscosity="1"/>',
                      '<option viscosity="1"><flag contact="disable"/></option>', 1)
    assert 'contact="disable"' in xml
    ours = phalanx.Model.from_xml_string(xml)
    ref = mujoco.MjModel.from_xml_string(xml)
    assert int(np.sum(ref.actuator_trntype == mujoco.mjtTrn.mjTRN_BODY)) > 0
    compare(ours, ref, trials=4)


# body transmissions with contacts of every kind: condim 1, 3 and 6 with both cones, contacts
# in the margin gap (margin .02, gap .015: exclude 1 between 5 and 20 mm), two adhesion bodies
ADHESION_OWN = """
<mujoco>
  <option cone="{cone}"/>
  <default><geom margin=".02" gap=".015"/></default>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="pad" pos="0 0 .08">
      <freejoint/>
      <geom type="box" size=".1 .1 .02" condim="{condim}"/>
      <geom type="sphere" size=".03" pos=".12 0 0" condim="1"/>
    </body>
    <body name="arm" pos=".5 0 .15">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <joint name="roll" type="hinge" axis="1 0 0"/>
      <geom type="capsule" size=".03 .1" euler="0 90 0" condim="{condim}"/>
    </body>
  </worldbody>
  <actuator>
    <adhesion body="pad" ctrlrange="0 1" gain="30"/>
    <motor joint="lift" ctrlrange="-1 1" gear="20"/>
    <adhesion body="arm" ctrlrange="0 1" gain="10"/>
  </actuator>
</mujoco>
"""


def dense_moment(nu, nv, d):
    out = np.zeros((nu, nv))
    for i in range(nu):
        for k in range(d.moment_rowadr[i], d.moment_rowadr[i] + d.moment_rownnz[i]):
            out[i, d.moment_colind[k]] += d.actuator_moment[k]
    return out


def adhesion_worst(ours, ref, nstate, every, seed):
    """forward from states of MuJoCo's own trajectory (random controls, the full integration
    state copied): the worst relative errors of the moments, actuator velocities and forces and
    qacc, with how many states had a nonzero body moment and an in-gap contact of such a body."""
    rng = np.random.default_rng(seed)
    src = mujoco.MjData(ref)
    body = np.asarray(ref.actuator_trntype) == int(mujoco.mjtTrn.mjTRN_BODY)
    trnbodies = set(np.asarray(ref.actuator_trnid)[body, 0])
    worst, moved, ingap = {}, 0, 0
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    for t in range(nstate * every):
        src.ctrl[:] = rng.uniform(0, 1, ref.nu) * (ref.actuator_ctrlrange[:, 1] -
                                                  ref.actuator_ctrlrange[:, 0]) + \
            ref.actuator_ctrlrange[:, 0]
        mujoco.mj_step(ref, src)
        if t % every != every - 1:
            continue
        state = np.empty(mujoco.mj_stateSize(ref, spec))
        mujoco.mj_getState(ref, src, state, spec)
        rd = mujoco.MjData(ref)
        mujoco.mj_setState(ref, rd, state, spec)
        mujoco.mj_forward(ref, rd)
        od = phalanx.Data(ours)
        od.qpos[:], od.qvel[:], od.act[:], od.ctrl[:] = rd.qpos, rd.qvel, rd.act, rd.ctrl
        od.qacc_warmstart[:] = rd.qacc_warmstart
        od.time = rd.time
        phalanx.forward(ours, od)
        mref = np.zeros((ref.nu, ref.nv))
        mujoco.mju_sparse2dense(mref, rd.actuator_moment, rd.moment_rownnz, rd.moment_rowadr,
                                rd.moment_colind)
        moved += int(np.any(mref[body] != 0))
        ingap += int(any(c.exclude == 1 and {ref.geom_bodyid[c.geom[0]],
                                              ref.geom_bodyid[c.geom[1]]} & trnbodies
                         for c in rd.contact))
        for name, a, b in (("actuator_moment", dense_moment(ref.nu, ref.nv, od), mref),
                           ("actuator_velocity", od.actuator_velocity, rd.actuator_velocity),
                           ("qfrc_actuator", od.qfrc_actuator, rd.qfrc_actuator),
                           ("qacc", od.qacc, rd.qacc)):
            worst[name] = max(worst.get(name, 0.0), rel_err(np.asarray(a), np.asarray(b)))
    return worst, moved, ingap


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("condim", [1, 3, 6])
def test_adhesion_forward(cone, condim):
    """Adhesion actuators in forward (moments from the body's contact rows and in-gap contacts,
    after the rows, as mj_transmission): the moments, actuator velocities and forces within TOL
    of MuJoCo's, qacc within 1e-6 (the solve), at 30 states of MuJoCo's own trajectory, some
    with in-gap contacts."""
    xml = ADHESION_OWN.format(cone=cone, condim=condim)
    ours = phalanx.Model.from_xml_string(xml)
    ref = mujoco.MjModel.from_xml_string(xml)
    worst, moved, ingap = adhesion_worst(ours, ref, 30, 7, seed=condim)
    assert moved > 0 and ingap > 0, f"states with body moments {moved}, in-gap contacts {ingap}"
    for name, err in worst.items():
        assert err <= (1e-6 if name == "qacc" else TOL), f"{name}: {err:.3g}"


@pytest.mark.parametrize("jacobian", ["DENSE", "AUTO"])
def test_adhesion_forward_corpus(jacobian):
    """MuJoCo's active_adhesion.xml (nv 209: with jacobian auto, MuJoCo's default, both engines
    use the sparse Jacobian; the dense one asked for in both too), 12 states: as
    test_adhesion_forward."""
    path = shared_model(*ADHESION)
    ours = phalanx.Model.from_xml_path(path)
    ref = mujoco.MjModel.from_xml_path(path)
    ref.opt.jacobian = ours.opt.jacobian = int(getattr(mujoco.mjtJacobian, "mjJAC_" + jacobian))
    worst, moved, _ = adhesion_worst(ours, ref, 12, 40, seed=5)
    assert moved > 0
    for name, err in worst.items():
        assert err <= (1e-6 if name == "qacc" else TOL), f"{name}: {err:.3g}"


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_adhesion_step(integrator):
    """ADHESION_OWN (elliptic, condim 3) stepped 200 times under random controls from the same
    start in both engines: qpos and qvel within TOL of MuJoCo's at every step (measured: equal)."""
    xml = ADHESION_OWN.format(cone="elliptic", condim=3).replace(
        "<option ", f'<option integrator="{integrator}" ', 1)
    ours = phalanx.Model.from_xml_string(xml)
    ref = mujoco.MjModel.from_xml_string(xml)
    od, rd = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(11)
    for t in range(200):
        od.ctrl[:] = rd.ctrl[:] = rng.uniform(0, 1, ref.nu)
        phalanx.step(ours, od)
        mujoco.mj_step(ref, rd)
        assert rel_err(np.asarray(od.qpos), rd.qpos) <= TOL, f"qpos at step {t}"
        assert rel_err(np.asarray(od.qvel), rd.qvel) <= TOL, f"qvel at step {t}"
    assert rd.ncon > 0
