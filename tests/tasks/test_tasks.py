# SPDX-License-Identifier: Apache-2.0
"""phalanx.make_vec against Gymnasium 1.x's MuJoCo v5 tasks (on mujoco 3.12).

The oracle is ``gymnasium.make("<Task>-v5")``: after a seeded reset its MuJoCo state is copied into
world 0 of the phalanx env, then both take the same seeded random actions and must agree on
observations, rewards, reward terms and infos (relative norm error <= 1e-6), terminations and
truncations. When an episode ends both are reset and the state is copied again. Reset noise is
checked as a distribution (phalanx draws from its own per-world generators), against the
analytic moments of Gymnasium's distributions.
"""

import warnings

import gymnasium
import mujoco
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import phalanx
from phalanx.tasks import DEFAULT_KWARGS, MAX_EPISODE_STEPS, TASK_IDS

TOL = 1e-6
NSTEP = 50

# the worst relative deviations seen by test_matches_gymnasium, printed at the end (pytest -s)
WORST = {}


def rel(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))


def copy_state(genv, penv, world=0):
    """Gymnasium's full integration state (mjSTATE_INTEGRATION) into a phalanx world."""
    m, d = genv.unwrapped.model, genv.unwrapped.data
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    # the parts these models have: time, qpos, qvel, act, warm start, ctrl (the applied forces,
    # equality flags, mocap and user data are empty or zero in the eleven tasks)
    assert not d.qfrc_applied.any() and not d.xfrc_applied.any() and m.nmocap == 0
    off = np.cumsum([0, 1, m.nq, m.nv, m.na, m.nv, m.nu])
    time, qpos, qvel, act, warm, ctrl = (state[off[i]:off[i + 1]] for i in range(6))
    penv.set_state(world, qpos, qvel, act=act, qacc_warmstart=warm, ctrl=ctrl, time=time[0])
    # mid-episode, Gymnasium's frames are those mj_step left: the positions before the last
    # integration, which its displacement rewards read as the pre-step position (Ant's main
    # body xpos, Humanoid's mass center from xipos); set_state recomputed them from qpos
    penv.batch.xpos[world] = d.xpos
    penv.batch.xipos[world] = d.xipos


def compare(env_id, nstep=NSTEP, seed=3, resync=None, **kwargs):
    """Run Gymnasium and phalanx side by side; return the worst relative deviations. With
    resync, Gymnasium's state is copied into phalanx again every resync steps (long runs: the
    contact-rich tasks amplify last-bit differences of the physics exponentially, about tenfold
    per 10 Ant steps, so unsynchronized trajectories part after a few hundred steps)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        genv = gymnasium.make(env_id, **kwargs)
    penv = phalanx.make_vec(env_id, num_envs=1, num_threads=0,
                            autoreset_mode=AutoresetMode.DISABLED, **kwargs)
    assert penv.single_observation_space == genv.observation_space
    assert penv.single_action_space == genv.action_space
    gobs, ginfo = genv.reset(seed=seed)
    pobs, _ = penv.reset(seed=0)
    copy_state(genv, penv)
    worst = {"obs": rel(penv._runner.obs[0], gobs)}
    assert worst["obs"] <= TOL, (env_id, "reset observation", worst["obs"])
    genv.action_space.seed(seed)
    episodes = 1
    for t in range(nstep):
        a = genv.action_space.sample()  # float32, as Gymnasium's action space gives
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            go, gr, gt, gtr, gi = genv.step(a)
        po, pr, pt, ptr, pi = penv.step(a[None])
        assert bool(pt[0]) == bool(gt) and bool(ptr[0]) == bool(gtr), (env_id, t, gt, gtr)
        worst["obs"] = max(worst["obs"], rel(po[0], go))
        worst["reward"] = max(worst.get("reward", 0.0), rel(pr[0], gr))
        assert set(pi) == set(gi) | {f"_{k}" for k in gi}, (env_id, sorted(pi), sorted(gi))
        assert list(k for k in pi if not k.startswith("_")) == list(gi), (env_id, list(pi))
        for key, value in gi.items():
            assert pi[f"_{key}"][0]
            worst[key] = max(worst.get(key, 0.0), rel(pi[key][0], value))
        if gt or gtr:
            episodes += 1
            genv.reset(seed=seed + 1 + t)
            penv.reset(options={"reset_mask": np.array([True])})
            copy_state(genv, penv)
        elif resync and (t + 1) % resync == 0:
            copy_state(genv, penv)
    for key, value in worst.items():
        assert value <= TOL, (env_id, key, value)
    worst["episodes"] = episodes
    genv.close()
    penv.close()
    return worst


@pytest.mark.parametrize("env_id", TASK_IDS)
def test_matches_gymnasium(env_id):
    worst = compare(env_id)
    WORST[env_id] = worst
    terms = {k: v for k, v in worst.items() if k not in ("obs", "reward", "episodes")}
    print(f"\n{env_id}: {worst['episodes']} episode(s); obs {worst['obs']:.1e}, reward "
          f"{worst['reward']:.1e}, infos max {max(terms.values()):.1e}")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", TASK_IDS)
def test_matches_gymnasium_long(env_id):
    """2000 steps (episodes end by termination or the time limit), state copied every 25."""
    worst = compare(env_id, nstep=2000, seed=17, resync=25)
    print(f"\n{env_id}: {worst['episodes']} episode(s); obs {worst['obs']:.1e}, reward "
          f"{worst['reward']:.1e}")


# non-default keyword arguments, each compared with Gymnasium given the same ones
KWARG_CASES = [
    ("Ant-v5", dict(include_cfrc_ext_in_observation=False,
                    exclude_current_positions_from_observation=False, main_body="torso",
                    contact_cost_weight=1e-3, contact_force_range=(-0.5, 2.0),
                    healthy_z_range=(0.3, 0.9), ctrl_cost_weight=0.2, forward_reward_weight=2.0,
                    healthy_reward=0.5, reset_noise_scale=0.2)),
    ("Ant-v5", dict(terminate_when_unhealthy=False, healthy_z_range=(0.6, 0.7), frame_skip=3)),
    ("HalfCheetah-v5", dict(forward_reward_weight=0.5, ctrl_cost_weight=0.3, frame_skip=2,
                            exclude_current_positions_from_observation=False)),
    ("Hopper-v5", dict(terminate_when_unhealthy=False, healthy_state_range=(-5.0, 5.0),
                       healthy_z_range=(0.9, 2.0), healthy_angle_range=(-0.1, 0.1),
                       healthy_reward=2.0, exclude_current_positions_from_observation=False)),
    ("Walker2d-v5", dict(healthy_z_range=(1.0, 1.5), healthy_angle_range=(-0.5, 0.5),
                         ctrl_cost_weight=0.01, reset_noise_scale=0.05)),
    ("Humanoid-v5", dict(include_cinert_in_observation=False, include_cvel_in_observation=False,
                         include_qfrc_actuator_in_observation=False,
                         include_cfrc_ext_in_observation=True,
                         exclude_current_positions_from_observation=False,
                         contact_cost_weight=1e-5, contact_cost_range=(0.0, 0.01),
                         healthy_z_range=(0.5, 3.0))),
    ("HumanoidStandup-v5", dict(include_cfrc_ext_in_observation=False, uph_cost_weight=3.0,
                                impact_cost_weight=1e-5, impact_cost_range=(0.0, 0.5),
                                ctrl_cost_weight=0.2)),
    ("Swimmer-v5", dict(forward_reward_weight=2.0, ctrl_cost_weight=0.1,
                        exclude_current_positions_from_observation=False)),
    ("Reacher-v5", dict(reward_dist_weight=2.0, reward_control_weight=0.5, frame_skip=3)),
    ("Pusher-v5", dict(reward_near_weight=1.0, reward_dist_weight=2.0,
                       reward_control_weight=0.5)),
    ("InvertedPendulum-v5", dict(reset_noise_scale=0.1, frame_skip=1)),
    ("InvertedDoublePendulum-v5", dict(healthy_reward=5.0, reset_noise_scale=0.2)),
]


@pytest.mark.parametrize("env_id,kwargs", KWARG_CASES,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(KWARG_CASES)])
def test_kwargs_match_gymnasium(env_id, kwargs):
    compare(env_id, nstep=20, seed=11, **kwargs)


def test_packaged_models_by_default():
    for env_id in TASK_IDS:
        path = phalanx.tasks.model_path(env_id)
        assert path.endswith(f"assets/gymnasium/{phalanx.tasks.MODEL_FILES[env_id]}")


# ---- errors --------------------------------------------------------------------------------------


def test_unknown_id():
    with pytest.raises(ValueError) as e:
        phalanx.make_vec("Ant-v4")
    for env_id in TASK_IDS:
        assert env_id in str(e.value)
    with pytest.raises(ValueError):
        phalanx.make_vec(3)


def test_bad_kwargs():
    with pytest.raises(TypeError) as e:
        phalanx.make_vec("Hopper-v5", healthy_zrange=(0, 1))
    assert "healthy_zrange" in str(e.value) and "healthy_z_range" in str(e.value)
    with pytest.raises(TypeError):
        phalanx.make_vec("Reacher-v5", reset_noise_scale=0.1)  # Reacher has none
    with pytest.raises(ValueError, match="healthy_z_range"):
        phalanx.make_vec("Hopper-v5", healthy_z_range=0.5)
    with pytest.raises(ValueError, match="ctrl_cost_weight"):
        phalanx.make_vec("Ant-v5", ctrl_cost_weight="big")
    with pytest.raises(ValueError, match="terminate_when_unhealthy"):
        phalanx.make_vec("Ant-v5", terminate_when_unhealthy=2)
    with pytest.raises(ValueError, match="frame_skip"):
        phalanx.make_vec("Ant-v5", frame_skip=0)
    with pytest.raises(ValueError, match="main_body"):
        phalanx.make_vec("Ant-v5", main_body="nose")
    with pytest.raises(ValueError, match="main_body"):
        phalanx.make_vec("Ant-v5", main_body=99)
    with pytest.raises(NotImplementedError, match="render"):
        phalanx.make_vec("Ant-v5", render_mode="rgb_array")
    with pytest.raises(NotImplementedError, match="default_camera_config"):
        phalanx.make_vec("Ant-v5", default_camera_config={"distance": 3.0})
    with pytest.raises(FileNotFoundError):
        phalanx.make_vec("Ant-v5", xml_file="no_such_model.xml")
    env = phalanx.make_vec("Ant-v5", render_mode=None, num_envs=2)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((2, 7)))


def test_model_too_small():
    # InvertedDoublePendulum's functions read qvel[2] and a site: the one-pole cart is refused
    path = phalanx.tasks.model_path("InvertedPendulum-v5")
    with pytest.raises(ValueError, match="nv >= 3"):
        phalanx.make_vec("InvertedDoublePendulum-v5", xml_file=path)
    with pytest.raises(ValueError, match="tips_arm"):
        phalanx.make_vec("Pusher-v5", xml_file=phalanx.tasks.model_path("Reacher-v5"))


def test_xml_file_path():
    path = phalanx.tasks.model_path("Hopper-v5")
    env = phalanx.make_vec("Hopper-v5", xml_file=path, num_envs=2, num_threads=0)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2, 11)


def test_max_episode_steps():
    for env_id in TASK_IDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert gymnasium.spec(env_id).max_episode_steps == MAX_EPISODE_STEPS[env_id]
    env = phalanx.make_vec("HalfCheetah-v5", num_envs=2, num_threads=0, max_episode_steps=3)
    env.reset(seed=0)
    a = np.zeros((2, 6), dtype=np.float32)
    flags = [env.step(a)[3].tolist() for _ in range(4)]
    assert flags == [[False, False], [False, False], [True, True], [False, False]]
    env = phalanx.make_vec("HalfCheetah-v5", num_envs=1, num_threads=0, max_episode_steps=None)
    env.reset(seed=0)
    for _ in range(1005):
        assert not env.step(a[:1])[3][0]


# ---- episodes against SyncVectorEnv --------------------------------------------------------------


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_autoreset_structure(mode):
    """Infos keys and masks, flags and final_obs as SyncVectorEnv gives them (the values after a
    reset differ: the reset noise comes from different generators)."""
    env_id = "Hopper-v5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        genv = SyncVectorEnv([lambda: gymnasium.make(env_id, max_episode_steps=3,
                                                     reset_noise_scale=0.0)] * 2,
                             autoreset_mode=mode)
    penv = phalanx.make_vec(env_id, num_envs=2, num_threads=0, max_episode_steps=3,
                            autoreset_mode=mode, reset_noise_scale=0.0)
    go, gi = genv.reset(seed=0)
    po, pi = penv.reset(seed=0)
    assert list(gi) == list(pi)
    a = np.zeros((2, 3), dtype=np.float32)
    for t in range(8):
        if mode == AutoresetMode.DISABLED and t in (3, 6):
            opts = {"reset_mask": np.array([True, True])}
            go, gi = genv.reset(options=opts)
            po, pi = penv.reset(options=opts)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                go, gr, gt, gtr, gi = genv.step(a)
            po, pr, pt, ptr, pi = penv.step(a)
            assert np.array_equal(gt, pt) and np.array_equal(gtr, ptr), t
            assert rel(pr, gr) <= TOL, t
        assert rel(po, go) <= TOL, t  # no noise: the same states
        assert list(gi) == list(pi), (t, list(gi), list(pi))
        for key, value in gi.items():
            if key.startswith("_"):
                assert np.array_equal(value, pi[key]), (t, key)
            elif key == "final_obs":
                for i in np.flatnonzero(gi["_final_obs"]):
                    assert rel(pi[key][i], value[i]) <= TOL
            elif key == "final_info":
                assert sorted(value) == sorted(pi[key])
            else:
                assert pi[key].dtype == value.dtype, key
                assert rel(pi[key], value) <= TOL, (t, key)


# ---- reset distributions -------------------------------------------------------------------------

NWORLD = 20000


def _moments_ok(x, mean, var, what, z=5.0):
    """Sample mean and variance within z standard errors of the analytic ones."""
    n = x.shape[0]
    m = x.mean(axis=0)
    v = x.var(axis=0, ddof=1)
    se_mean = np.sqrt(var / n)
    # variance of the sample variance: (mu4 - var^2 (n-3)/(n-1)) / n, mu4 from the sample
    mu4 = ((x - m) ** 4).mean(axis=0)
    se_var = np.sqrt(np.maximum(mu4 - var**2 * (n - 3) / (n - 1), 0) / n)
    assert np.all(np.abs(m - mean) <= z * se_mean + 1e-15), (what, m, mean, se_mean)
    assert np.all(np.abs(v - var) <= z * se_var + 1e-15), (what, v, var, se_var)


# reset noise of each task: (qpos distribution, qvel distribution), "u" uniform in
# [-scale, scale), "n" normal with standard deviation scale
NOISE = {
    "Ant-v5": ("u", "n"), "HalfCheetah-v5": ("u", "n"), "Hopper-v5": ("u", "u"),
    "Walker2d-v5": ("u", "u"), "Humanoid-v5": ("u", "u"), "HumanoidStandup-v5": ("u", "u"),
    "Swimmer-v5": ("u", "u"), "InvertedPendulum-v5": ("u", "u"),
    "InvertedDoublePendulum-v5": ("u", "n"),
}


def _reset_states(env_id, seed, **kwargs):
    """NWORLD reset states: 50 worlds reset NWORLD / 50 times (a Humanoid world holds 5.8 MB)."""
    env = phalanx.make_vec(env_id, num_envs=50, num_threads=2, **kwargs)
    env.reset(seed=seed)
    qpos, qvel = [], []
    for _ in range(NWORLD // 50):
        env.reset()
        qpos.append(np.array(env.batch.qpos))
        qvel.append(np.array(env.batch.qvel))
    return env, np.concatenate(qpos), np.concatenate(qvel)


@pytest.mark.parametrize("env_id", sorted(NOISE))
def test_reset_noise_distribution(env_id):
    env, qpos, qvel = _reset_states(env_id, seed=12345)
    s = DEFAULT_KWARGS[env_id]["reset_noise_scale"]
    qpos0 = np.asarray(env.model.qpos0)
    for x, kind, what in ((qpos - qpos0, NOISE[env_id][0], "qpos"),
                          (qvel, NOISE[env_id][1], "qvel")):
        if kind == "u":
            _moments_ok(x, 0.0, s * s / 3, f"{env_id} {what}")
            assert x.min() >= -s and x.max() <= s
        else:
            _moments_ok(x, 0.0, s * s, f"{env_id} {what}")
            # a normal, not a uniform of the same variance: 4.55% beyond two deviations
            tail = (np.abs(x) > 2 * s).mean()
            assert abs(tail - 0.0455) < 5 * np.sqrt(0.0455 * 0.9545 / x.size), tail


def test_reset_noise_reacher():
    env, qpos, qvel = _reset_states("Reacher-v5", seed=7)
    arm = qpos[:, :2] - np.asarray(env.model.qpos0)[:2]
    _moments_ok(arm, 0.0, 0.01 / 3, "reacher arm qpos")
    goal = qpos[:, 2:]
    assert np.all(np.linalg.norm(goal, axis=1) < 0.2)
    # uniform in the disk of radius 0.2: mean 0, E[x^2] = r^2 / 4
    _moments_ok(goal, 0.0, 0.04 / 4, "reacher goal")
    _moments_ok(qvel[:, :2], 0.0, 0.005**2 / 3, "reacher qvel")
    assert not qvel[:, 2:].any()


def test_reset_noise_pusher():
    env, qpos, qvel = _reset_states("Pusher-v5", seed=7)
    qpos0 = np.asarray(env.model.qpos0)
    assert np.array_equal(qpos[:, :7], np.broadcast_to(qpos0[:7], (NWORLD, 7)))
    assert not qpos[:, -2:].any() and not qvel[:, -4:].any()
    cyl = qpos[:, -4:-2]
    assert np.all(np.linalg.norm(cyl, axis=1) > 0.17)
    assert np.all((cyl[:, 0] >= -0.3) & (cyl[:, 0] < 0) & (np.abs(cyl[:, 1]) <= 0.2))
    # moments of the uniform law on [-0.3, 0] x [-0.2, 0.2] outside the disk of radius 0.17,
    # integrated numerically on a fine grid (midpoint rule)
    h = 2e-4
    gx, gy = np.meshgrid(np.arange(-0.3 + h / 2, 0, h), np.arange(-0.2 + h / 2, 0.2, h))
    keep = np.hypot(gx, gy) > 0.17
    mx, my = gx[keep].mean(), gy[keep].mean()
    vx, vy = gx[keep].var(), gy[keep].var()
    _moments_ok(cyl[:, :1], mx, vx, "pusher cylinder x")
    _moments_ok(cyl[:, 1:], my, vy, "pusher cylinder y")
    _moments_ok(qvel[:, :7], 0.0, 0.005**2 / 3, "pusher qvel")


# ---- determinism ---------------------------------------------------------------------------------


def _episode(env_id, num_threads, seed, nstep=30, num_envs=5):
    env = phalanx.make_vec(env_id, num_envs=num_envs, num_threads=num_threads, seed=seed)
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    low, high = env.single_action_space.low, env.single_action_space.high
    out = [obs]
    for _ in range(nstep):
        a = rng.uniform(low, high, size=(num_envs, low.size)).astype(np.float32)
        obs, r, term, trunc, infos = env.step(a)
        out += [obs, r, term, trunc] + [np.asarray(v) for v in infos.values()]
    env.close()
    return out


@pytest.mark.parametrize("env_id", ["Hopper-v5", "Ant-v5", "Humanoid-v5", "Reacher-v5"])
def test_same_seed_same_episodes(env_id):
    a = _episode(env_id, 0, seed=4)
    b = _episode(env_id, 0, seed=4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _episode(env_id, 0, seed=5)
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize("env_id", ["Hopper-v5", "Ant-v5", "Humanoid-v5", "Pusher-v5"])
def test_threads_bitwise(env_id):
    a = _episode(env_id, 1, seed=2, num_envs=7)
    b = _episode(env_id, 2, seed=2, num_envs=7)
    c = _episode(env_id, 3, seed=2, num_envs=7)
    for x, y, z in zip(a, b, c, strict=True):
        if x.dtype == object:
            assert x.tolist() == y.tolist() == z.tolist()
        else:
            assert x.tobytes() == y.tobytes() == z.tobytes()


def test_bad_action_truncates_one_world():
    env = phalanx.make_vec("Ant-v5", num_envs=3, num_threads=2, seed=1)
    env.reset(seed=1)
    a = np.zeros((3, 8), dtype=np.float32)
    a[1, 2] = np.nan
    obs, r, term, trunc, infos = env.step(a)
    assert trunc.tolist() == [False, True, False] and r[1] == 0.0 and not term[1]
    assert infos["_truncation_reason"].tolist() == [False, True, False]
    assert "badctrl" in infos["truncation_reason"][1]
    assert np.isfinite(obs[[0, 2]]).all()
    # the next step resets world 1 (NEXT_STEP) and reports its reset infos only
    obs, r, term, trunc, infos = env.step(np.zeros((3, 8), dtype=np.float32))
    assert infos["_x_position"].tolist() == [True, True, True]
    assert infos["_reward_forward"].tolist() == [True, False, True]


@pytest.mark.parametrize("env_id", TASK_IDS)
def test_vector_structure(env_id):
    """Spaces, metadata, and the keys, order, dtypes and masks of infos after a reset and a
    step, as gymnasium.make_vec(..., vectorization_mode="sync") gives them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        genv = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync")
    penv = phalanx.make_vec(env_id, num_envs=2, num_threads=0)
    assert penv.single_observation_space == genv.single_observation_space
    assert penv.single_action_space == genv.single_action_space
    assert penv.observation_space == genv.observation_space
    assert penv.action_space == genv.action_space
    assert penv.metadata["render_fps"] == genv.metadata["render_fps"]
    for k in range(2):
        if k == 0:
            gout = genv.reset(seed=1)
            pout = penv.reset(seed=1)
        else:
            a = genv.action_space.sample()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gout = genv.step(a)
            pout = penv.step(a)
        for g, p in zip(gout[:-1], pout[:-1]):
            assert g.dtype == p.dtype and g.shape == p.shape
        gi, pi = gout[-1], pout[-1]
        assert list(gi) == list(pi)
        for key in gi:
            assert gi[key].dtype == pi[key].dtype and gi[key].shape == pi[key].shape, key
            if key.startswith("_"):
                assert np.array_equal(gi[key], pi[key])
    genv.close()


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_copy_false(mode):
    """copy=False gives the same values as copy=True (views of the runner's buffer)."""
    envs = [phalanx.make_vec("Hopper-v5", num_envs=3, num_threads=0, max_episode_steps=2,
                             autoreset_mode=mode, copy=c) for c in (True, False)]
    outs = [[e.reset(seed=3)[0].copy()] for e in envs]
    a = np.full((3, 3), 0.3, dtype=np.float32)
    for t in range(5):
        for e, out in zip(envs, outs):
            if mode == AutoresetMode.DISABLED and t % 2 == 0 and t:
                out.append(e.reset(options={"reset_mask": np.ones(3, bool)})[0].copy())
                continue
            obs, r, term, trunc, infos = e.step(a)
            out += [np.array(obs), r, trunc]
            if "final_obs" in infos:
                out += [np.stack(infos["final_obs"][infos["_final_obs"]])]
    for x, y in zip(*outs, strict=True):
        assert np.array_equal(x, y)


def test_set_state_errors():
    env = phalanx.make_vec("Hopper-v5", num_envs=2, num_threads=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="index"):
        env.set_state(2, np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError):
        env.set_state(0, np.zeros(5), np.zeros(6))
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.set_state(0, np.zeros(6), np.zeros(6))
