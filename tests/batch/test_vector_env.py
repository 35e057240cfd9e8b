# SPDX-License-Identifier: Apache-2.0
"""phalanx.VectorEnv against Gymnasium's SyncVectorEnv over an equivalent single env (a tiny
gymnasium.Env over phalanx.Data, written here with the same user functions), in every autoreset
mode: identical observations, rewards, flags and infos. Seeding, error isolation and bad input."""

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import phalanx
from tests.batch.reference import Xoshiro, reset_with_noise
from tests.conftest import shared_model

PATH = shared_model("gymnasium", "half_cheetah.xml")
FRAME_SKIP = 2
NOISE = dict(qpos_noise=0.1, qvel_noise=0.1, ctrl_noise=0.05)


def load():
    m = phalanx.Model.from_xml_path(PATH)
    m.opt.disableflags |= 1  # constraints
    return m


# the user's functions, over (num_envs, ...) arrays
def obs_fn(b):
    return np.concatenate([b.qpos[:, 1:], b.qvel], axis=1)


def reward_fn(b, actions):
    return b.qvel[:, 0] - 0.1 * np.sum(actions**2, axis=1)


def terminated_fn(b):
    return np.abs(b.qpos[:, 2]) > 0.1


def info_fn(b):
    return {"x": b.qpos[:, 0].copy(), "fast": b.qvel[:, 0] > 0.5,
            "com": b.subtree_com[:, 0].copy(), "steps": (b.time * 100).astype(np.int64)}


class _OneWorld:
    """A Data seen as a batch of one: every array with a leading axis of 1."""

    def __init__(self, data):
        self._d = data

    def __getattr__(self, name):
        if name == "time":
            return np.array([self._d.time])
        return np.asarray(getattr(self._d, name))[None]


class OneEnv(gymnasium.Env):
    """The single env: phalanx.Data, phalanx.step, the reference generator for the noise."""

    def __init__(self):
        self.model = load()
        self.data = phalanx.Data(self.model)
        self.view = _OneWorld(self.data)
        self.rng = Xoshiro(0)
        m = self.model
        self.action_space = spaces.Box(m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1],
                                       (m.nu,), np.float64)
        self.observation_space = spaces.Box(-np.inf, np.inf, (m.nq - 1 + m.nv,), np.float64)

    def _info(self):
        return {k: v[0] for k, v in info_fn(self.view).items()}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.rng.seed(seed)
        reset_with_noise(self.model, self.data, self.rng, NOISE["qpos_noise"], NOISE["qvel_noise"])
        phalanx.forward(self.model, self.data)
        return obs_fn(self.view)[0], self._info()

    def step(self, action):
        d = self.data
        d.ctrl[:] = action
        d.ctrl[:] += NOISE["ctrl_noise"] * self.rng.symmetric(self.model.nu)
        for _ in range(FRAME_SKIP):
            phalanx.step(self.model, d)
        obs = obs_fn(self.view)[0]
        reward = reward_fn(self.view, np.asarray(action)[None])[0]
        return obs, reward, bool(terminated_fn(self.view)[0]), False, self._info()


def make_pair(mode, n, max_steps, nthread=0):
    ours = phalanx.VectorEnv(load(), n, obs_fn, reward_fn, terminated_fn, info_fn=info_fn,
                             frame_skip=FRAME_SKIP, max_episode_steps=max_steps,
                             autoreset_mode=mode, num_threads=nthread, seed=0, **NOISE)
    ref = SyncVectorEnv([lambda: gymnasium.wrappers.TimeLimit(OneEnv(), max_steps)] * n,
                        autoreset_mode=mode)
    return ours, ref


def assert_same(a, b, where):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]")
        return
    if isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), (where, sorted(a), sorted(b))
        for k in b:
            assert_same(a[k], b[k], f"{where}[{k}]")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (where, a.dtype, b.dtype, a.shape, b.shape)
    if b.dtype == object:
        for i, (x, y) in enumerate(zip(a, b)):
            if y is None:
                assert x is None, (where, i)
            else:
                assert type(x) is type(y), (where, i, type(x), type(y))
                assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (where, i)
    else:
        assert a.tobytes() == b.tobytes(), where


@pytest.mark.parametrize("mode,nthread", [(AutoresetMode.NEXT_STEP, 0), (AutoresetMode.SAME_STEP, 2),
                                          (AutoresetMode.DISABLED, 0)])
def test_matches_sync_vector_env(mode, nthread):
    n, steps = 4, 30
    ours, ref = make_pair(mode, n, max_steps=7, nthread=nthread)
    assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"] == mode
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.single_action_space == ref.single_action_space
    assert ours.observation_space == ref.observation_space
    assert ours.action_space == ref.action_space
    assert_same(ours.reset(seed=42), ref.reset(seed=42), "reset")
    rng = np.random.default_rng(1)
    terms = truncs = 0
    for t in range(steps):
        actions = rng.uniform(-1, 1, (n, 6))
        got, want = ours.step(actions), ref.step(actions)
        for k, name in enumerate(("obs", "rewards", "terminations", "truncations", "infos")):
            assert_same(got[k], want[k], f"step {t} {name}")
        done = want[2] | want[3]
        terms += want[2].sum()
        truncs += want[3].sum()
        if mode == AutoresetMode.DISABLED and done.any():
            r1 = ours.reset(options={"reset_mask": done.copy()})
            r2 = ref.reset(options={"reset_mask": done.copy()})
            assert_same(r1, r2, f"masked reset {t}")
    assert terms >= 2 and truncs >= 2  # both kinds of episode end were compared
    ours.close()
    ref.close()


def run_episode(env, seed, steps=15):
    out = [env.reset(seed=seed)[0]]
    rng = np.random.default_rng(7)
    for _ in range(steps):
        obs, r, te, tr, _ = env.step(rng.uniform(-1, 1, (env.num_envs, 6)))
        out += [obs, r, te, tr]
    return out


def test_seeding_twice_gives_identical_episodes():
    env = phalanx.VectorEnv(load(), 3, obs_fn, reward_fn, terminated_fn, max_episode_steps=5,
                            num_threads=2, **NOISE)
    a, b = run_episode(env, 9), run_episode(env, 9)
    c = run_episode(env, 10)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))
    assert a[0].tobytes() != c[0].tobytes()


def test_nan_action_truncates_only_its_env():
    def make():
        return phalanx.VectorEnv(load(), 3, obs_fn, reward_fn, info_fn=info_fn,
                                 frame_skip=FRAME_SKIP, seed=3, **NOISE)

    env, clean = make(), make()
    env.reset(seed=3)
    clean.reset(seed=3)
    actions = np.zeros((3, 6))
    bad = actions.copy()
    bad[1, 2] = np.nan
    obs, rew, te, tr, infos = env.step(bad)
    obs2, rew2, _, _, _ = clean.step(actions)
    assert tr.tolist() == [False, True, False] and not te.any()
    assert infos["truncation_reason"][1] == "badctrl"
    assert infos["_truncation_reason"].tolist() == [False, True, False]
    assert rew[1] == 0
    for i in (0, 2):
        assert obs[i].tobytes() == obs2[i].tobytes() and rew[i] == rew2[i]
    # next step: env 1 is reset (NEXT_STEP), the others go on undisturbed
    obs, rew, te, tr, infos = env.step(actions)
    obs2, rew2, _, _, _ = clean.step(actions)
    assert not tr.any() and rew[1] == 0 and "truncation_reason" not in infos
    for i in (0, 2):
        assert obs[i].tobytes() == obs2[i].tobytes()
    assert env.batch.flags[1] == 0


def test_views_option_and_fresh_outputs():
    env = phalanx.VectorEnv(load(), 2, lambda b: b.qvel, reward_fn, copy=False)
    obs, _ = env.reset(seed=0)
    assert np.shares_memory(obs, env.batch.qvel)
    env2 = phalanx.VectorEnv(load(), 2, lambda b: b.qvel, reward_fn)
    obs, _ = env2.reset(seed=0)
    assert not np.shares_memory(obs, env2.batch.qvel)


def test_bad_input():
    m = load()
    for n in (0, -3, 1 << 30):
        with pytest.raises(ValueError, match="num_envs"):
            phalanx.VectorEnv(m, n, obs_fn, reward_fn)
    with pytest.raises(ValueError, match="num_envs"):
        phalanx.VectorEnv(m, 2.5, obs_fn, reward_fn)
    with pytest.raises(ValueError, match="autoreset_mode"):
        phalanx.VectorEnv(m, 2, obs_fn, reward_fn, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="frame_skip"):
        phalanx.VectorEnv(m, 2, obs_fn, reward_fn, frame_skip=0)
    with pytest.raises(ValueError, match="obs_fn"):
        phalanx.VectorEnv(m, 2, lambda b: np.zeros(3), reward_fn)
    env = phalanx.VectorEnv(m, 2, obs_fn, reward_fn, terminated_fn)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"\(2, 6\).*got shape \(3, 6\)"):
        env.step(np.zeros((3, 6)))
    with pytest.raises(ValueError, match="dtype int64"):
        env.step(np.zeros((2, 6), dtype=np.int64))
    env.step(np.zeros((2, 6), dtype=np.float32))  # float32 actions are fine
    for mask in ([True, False], np.ones(2, int), np.ones(3, bool), np.zeros(2, bool)):
        with pytest.raises(ValueError, match="reset_mask"):
            env.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="unknown options"):
        env.reset(options={"noise": 1})
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((2, 6)))


def test_unsupported_model_refused():
    m = phalanx.Model.from_xml_path(PATH)
    m.opt.enableflags |= 16  # mjENBL_SLEEP: not supported yet
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx.VectorEnv(m, 2, obs_fn, reward_fn)
