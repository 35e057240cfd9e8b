# SPDX-License-Identifier: Apache-2.0
"""gymnasium.make("phalanx/<Task>-v5"): the single-env registrations of phalanx.gym_envs.

Against Gymnasium: the registrations carry Gymnasium's max_episode_steps and reward_threshold
and the same wrappers; Gymnasium's env checker passes with exactly the warnings it gives
Gymnasium's own env; the spaces are Gymnasium's; started from a state copied out of Gymnasium's
env, the single env steps to Gymnasium's observations and rewards. Against phalanx's vector env:
for the same seed and actions the single env is world 0 of make_vec, bit for bit. Then the edges:
render modes, bad actions, stepping on after termination, the time limit, gymnasium.make_vec."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import phalanx
import phalanx.tasks
from phalanx.gym_envs import ENV_IDS, TaskEnv

TASKS = [i.split("/")[1] for i in ENV_IDS]


def make(task, **kw):
    return gymnasium.make(f"phalanx/{task}", **kw)


def test_eleven_tasks_registered_like_gymnasiums():
    assert len(ENV_IDS) == 11
    assert sorted(TASKS) == sorted(phalanx.tasks.TASK_IDS)
    for task in TASKS:
        ours, theirs = gymnasium.spec(f"phalanx/{task}"), gymnasium.spec(task)
        assert ours.max_episode_steps == theirs.max_episode_steps, task
        assert ours.reward_threshold == theirs.reward_threshold, task
        assert ours.order_enforce and not ours.disable_env_checker
        env = make(task)
        assert isinstance(env.unwrapped, TaskEnv)
        assert isinstance(env, gymnasium.wrappers.TimeLimit)
        assert env.spec.max_episode_steps == theirs.max_episode_steps
        env.close()


def _checker_warnings(env, skip_render_check=False):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=skip_render_check)
    return sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("task", TASKS)
def test_check_env_as_for_gymnasium(task):
    """check_env passes, warning only what it warns about Gymnasium's own env (the unbounded
    observation boxes, Pusher's and InvertedPendulum's non-normalized actions). Gymnasium's env
    is checked without its render check, which opens an OpenGL context."""
    ours = make(task)
    theirs = gymnasium.make(task)
    expected = _checker_warnings(theirs.unwrapped, skip_render_check=True)
    assert _checker_warnings(ours.unwrapped) == expected
    ours.close()
    theirs.close()


@pytest.mark.parametrize("task", TASKS)
def test_spaces_are_gymnasiums(task):
    ours, theirs = make(task), gymnasium.make(task)
    for a, b in ((ours.observation_space, theirs.observation_space),
                 (ours.action_space, theirs.action_space)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a.low, b.low)
        np.testing.assert_array_equal(a.high, b.high)
    obs, info = ours.reset(seed=3)
    assert ours.observation_space.contains(obs)
    assert sorted(info) == sorted(theirs.reset(seed=3)[1])


@pytest.mark.parametrize("task", TASKS)
def test_single_env_is_vector_world_0(task):
    """Same seed and actions: the single env's obs, reward, flags and infos are world 0's."""
    single = make(task)
    vec = phalanx.make_vec(task, num_envs=3, num_threads=1, seed=0)
    rng = np.random.default_rng(1)
    obs1, info1 = single.reset(seed=11)
    obsv, infov = vec.reset(seed=11)
    np.testing.assert_array_equal(obs1, obsv[0])
    assert sorted(info1) == sorted(k for k in infov if not k.startswith("_"))
    low, high = single.action_space.low, single.action_space.high
    for t in range(60):
        actions = rng.uniform(low, high, (3,) + low.shape).astype(np.float32)
        o1, r1, term1, trunc1, i1 = single.step(actions[0])
        ov, rv, termv, truncv, iv = vec.step(actions)
        np.testing.assert_array_equal(o1, ov[0])
        assert r1 == rv[0] and term1 == termv[0] and trunc1 == truncv[0], t
        for key, value in i1.items():
            np.testing.assert_array_equal(value, iv[key][0], err_msg=key)
        if term1 or trunc1:
            break
    single.close()
    vec.close()


@pytest.mark.parametrize("task", TASKS)
def test_steps_like_gymnasium_from_the_same_state(task):
    """Gymnasium's env, reset, lends its state to ours; the same actions then give Gymnasium's
    observations and rewards (to round-off: the solvers sum in their own order)."""
    ours, theirs = make(task), gymnasium.make(task)
    ours.reset(seed=0)
    theirs.reset(seed=5)
    g = theirs.unwrapped
    ours.unwrapped.vector_env.set_state(0, g.data.qpos, g.data.qvel)
    rng = np.random.default_rng(2)
    low, high = ours.action_space.low, ours.action_space.high
    for t in range(10):
        a = rng.uniform(low, high).astype(np.float32)
        o1, r1, term1, _, i1 = ours.step(a)
        o2, r2, term2, _, i2 = theirs.step(a)
        # seen: obs within 2e-12 (Humanoid's contact forces), rewards within 1e-14
        np.testing.assert_allclose(o1, o2, rtol=1e-10, atol=1e-10, err_msg=f"step {t}")
        np.testing.assert_allclose(r1, r2, rtol=0, atol=1e-12, err_msg=f"step {t}")
        assert term1 == term2
        assert sorted(i1) == sorted(i2)
        if term1:
            break


@pytest.mark.filterwarnings("ignore:.*render_mode")  # gymnasium.make's own note on the mode
def test_render_modes_refused():
    env = make("Hopper-v5", render_mode=None)
    env.reset(seed=0)
    assert env.render_mode is None and env.render() is None
    for mode in ("human", "rgb_array", "depth_array"):
        with pytest.raises((NotImplementedError, gymnasium.error.Error), match="render"):
            make("Hopper-v5", render_mode=mode)
    with pytest.raises(NotImplementedError, match="render_mode"):
        TaskEnv("Hopper-v5", render_mode="rgb_array")


def test_bad_input_is_a_clear_error():
    env = make("Ant-v5")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        env.unwrapped.step(np.zeros(7))
    with pytest.raises((ValueError, gymnasium.error.Error), match="[Ss]eed"):
        env.unwrapped.reset(seed=-1)
    with pytest.raises(TypeError, match="no_such_option"):  # as gymnasium.make("Ant-v5", ...)
        gymnasium.make("phalanx/Ant-v5", no_such_option=1)
    with pytest.raises(ValueError, match="unknown env id"):
        TaskEnv("Ant-v4")
    with pytest.raises(TypeError, match="make_vec"):
        gymnasium.make("phalanx/Ant-v5", num_threads=4)


def test_task_kwargs_reach_the_task():
    env = make("Ant-v5", include_cfrc_ext_in_observation=False,
               exclude_current_positions_from_observation=False)
    assert env.observation_space.shape == gymnasium.make(
        "Ant-v5", include_cfrc_ext_in_observation=False,
        exclude_current_positions_from_observation=False).observation_space.shape
    assert make("Ant-v5", max_episode_steps=7).spec.max_episode_steps == 7


def test_time_limit_truncates():
    env = make("Reacher-v5")  # never terminates; 50 steps per episode
    env.reset(seed=0)
    for t in range(50):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        assert not terminated
        assert truncated == (t == 49)


def test_steps_on_after_termination_like_gymnasium():
    env = make("Hopper-v5").unwrapped
    env.reset(seed=0)
    for _ in range(1000):
        terminated = env.step(np.ones(3, dtype=np.float32))[2]
        if terminated:
            break
    assert terminated
    qpos = np.array(env.vector_env.batch.qpos[0])
    obs, _, terminated, _, _ = env.step(np.ones(3, dtype=np.float32))  # no error, no reset
    assert terminated and not np.array_equal(env.vector_env.batch.qpos[0], qpos)


def test_unseeded_first_reset_draws_a_seed():
    a, b = TaskEnv("Hopper-v5"), TaskEnv("Hopper-v5")
    assert not np.array_equal(a.reset()[0], b.reset()[0])
    c, d = TaskEnv("Hopper-v5"), TaskEnv("Hopper-v5")
    np.testing.assert_array_equal(c.reset(seed=4)[0], d.reset(seed=4)[0])


def test_make_vec_uses_phalanx_batch():
    vec = gymnasium.make_vec("phalanx/HalfCheetah-v5", num_envs=4, num_threads=1, seed=0)
    assert isinstance(vec, phalanx.tasks.TaskVectorEnv) and vec.num_envs == 4
    assert vec.max_episode_steps == 1000
    sync = gymnasium.make_vec("phalanx/HalfCheetah-v5", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    o1, _ = vec.reset(seed=0)
    o2, _ = sync.reset(seed=0)
    np.testing.assert_array_equal(o1[:2], o2)
