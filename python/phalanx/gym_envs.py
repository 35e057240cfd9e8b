# SPDX-License-Identifier: Apache-2.0
"""Single-env Gymnasium registrations of phalanx's MuJoCo v5 tasks: gymnasium.make("phalanx/...").

Importing phalanx registers the eleven ids ``phalanx/<Task>-v5`` (Ant, HalfCheetah, Hopper,
Walker2d, Humanoid, HumanoidStandup, Swimmer, Reacher, Pusher, InvertedPendulum,
InvertedDoublePendulum) with Gymnasium, each with the ``max_episode_steps`` and
``reward_threshold`` of Gymnasium's own registration, so that ``gymnasium.make`` wraps them in
the same TimeLimit (and OrderEnforcing, PassiveEnvChecker) wrappers as ``gymnasium.make("Ant-v5")``.

Each env is a :class:`TaskEnv`: one world of :func:`phalanx.make_vec` (the task's C kernels; the
caller's thread, no pool), with Gymnasium v5's spaces, ``reset(seed=, options=)`` and ``step`` ->
``(obs, reward, terminated, truncated, info)``. ``reset(seed=s)`` seeds the world as
``make_vec(...).reset(seed=s)`` seeds its world 0, so the single env and world 0 of a vector env
give the same observations and rewards for the same seed and actions. Its reset noise comes from
phalanx's per-world generator, not NumPy's, so for a given seed the initial states differ from
Gymnasium's (the distributions are the same). Like Gymnasium's MuJoCo envs, a terminated env can
be stepped on without a reset (the episode logic is the caller's, or TimeLimit's). Only
``render_mode=None`` is supported.
"""

import numbers

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

__all__ = ["TaskEnv", "ENV_IDS", "register_envs", "make_vec_entry"]

NAMESPACE = "phalanx"

# task -> (max_episode_steps, reward_threshold) of Gymnasium 1.x's own v5 registrations
_REGISTRATION = {
    "Ant-v5": (1000, 6000.0),
    "HalfCheetah-v5": (1000, 4800.0),
    "Hopper-v5": (1000, 3800.0),
    "Walker2d-v5": (1000, None),
    "Humanoid-v5": (1000, None),
    "HumanoidStandup-v5": (1000, None),
    "Swimmer-v5": (1000, 360.0),
    "Reacher-v5": (50, -3.75),
    "Pusher-v5": (100, 0.0),
    "InvertedPendulum-v5": (1000, 950.0),
    "InvertedDoublePendulum-v5": (1000, 9100.0),
}
ENV_IDS = tuple(f"{NAMESPACE}/{task}" for task in _REGISTRATION)


class TaskEnv(gymnasium.Env):
    """One env of a Gymnasium MuJoCo v5 task on phalanx (see the module's docstring).

    Args:
        task: the task, e.g. "Ant-v5" (``gymnasium.make("phalanx/Ant-v5")`` passes it).
        render_mode: only None; phalanx's task envs do not render.
        **kwargs: the task's Gymnasium keyword arguments (reward weights, ranges,
            reset_noise_scale, observation options, frame_skip, xml_file), as for the
            Gymnasium env of the same name.
    """

    metadata = {"render_modes": []}

    def __init__(self, task, render_mode=None, **kwargs):
        if render_mode is not None:
            raise NotImplementedError(
                f"phalanx/{task}: render_mode {render_mode!r} is not supported: phalanx's task "
                f"envs do not render (only render_mode=None)"
            )
        from phalanx.tasks import make_vec

        if "max_episode_steps" in kwargs:
            raise TypeError(
                f"phalanx/{task}: pass max_episode_steps to gymnasium.make, not to the env"
            )
        vector_only = sorted(set(kwargs) & {"num_envs", "num_threads", "seed", "autoreset_mode",
                                            "copy"})
        if vector_only:
            raise TypeError(
                f"phalanx/{task}: {vector_only} are arguments of the vector env: use "
                f"gymnasium.make_vec('phalanx/{task}', ...) or phalanx.make_vec; the single env "
                f"takes the task's own keyword arguments (and seeds through reset(seed=...))"
            )
        # one world on the caller's thread; the time limit is TimeLimit's (gymnasium.make)
        self._vec = make_vec(task, num_envs=1, num_threads=0, seed=0,
                             autoreset_mode=AutoresetMode.DISABLED, copy=True,
                             max_episode_steps=None, **kwargs)
        self.task = task
        self.render_mode = None
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.frame_skip = self._vec.frame_skip
        self.dt = self._vec.dt
        self.metadata = {"render_modes": [], "render_fps": int(np.round(1.0 / self.dt))}
        self._seeded = False
        self._closed = False

    @property
    def vector_env(self):
        """The one-world phalanx vector env underneath (its ``batch`` holds the state)."""
        return self._vec

    @property
    def model(self):
        return self._vec.model

    @staticmethod
    def _unbatch(infos):
        out = {}
        for key, value in infos.items():
            if key.startswith("_"):
                continue
            mask = infos.get(f"_{key}")
            if mask is not None and not mask[0]:
                continue
            out[key] = TaskEnv._unbatch(value) if isinstance(value, dict) else value[0]
        return out

    def reset(self, *, seed=None, options=None):
        """Reset the env; ``seed`` reseeds it (as world 0 of ``make_vec(...).reset(seed=)``).
        Without a seed the first reset draws one from ``self.np_random`` (fresh entropy unless
        seeded). ``options`` are accepted and ignored, as by Gymnasium's MuJoCo envs."""
        if self._closed:
            raise RuntimeError(f"phalanx/{self.task}: reset on a closed env")
        if options is not None and not isinstance(options, dict):
            raise ValueError(
                f"phalanx/{self.task}: options must be a dict or None, got {type(options)}"
            )
        super().reset(seed=seed)
        if seed is None and not self._seeded:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
                raise ValueError(f"phalanx/{self.task}: seed must be None or an int >= 0, got "
                                 f"{seed!r}")
            self._seeded = True
        obs, infos = self._vec.reset(seed=seed)
        return obs[0], self._unbatch(infos)

    def step(self, action):
        if self._closed:
            raise RuntimeError(f"phalanx/{self.task}: step on a closed env")
        a = np.asarray(action)
        if a.shape != self.action_space.shape or a.dtype.kind not in "fiu":
            raise ValueError(
                f"phalanx/{self.task}: action must be a number array of shape "
                f"{self.action_space.shape}; got shape {a.shape}, dtype {a.dtype}"
            )
        # a terminated env steps on, as Gymnasium's MuJoCo envs do (the vector env's DISABLED
        # mode would refuse it until a reset)
        self._vec._autoreset[:] = False
        # the action keeps its dtype: Gymnasium computes the control cost in it (float32 for
        # samples of the action space)
        if a.dtype.kind != "f":
            a = a.astype(np.float64)
        obs, reward, terminated, truncated, infos = self._vec.step(a[None])
        return (obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]),
                self._unbatch(infos))

    def render(self):
        return None

    def close(self):
        if not self._closed:
            self._vec.close()
            self._closed = True


def make_vec_entry(num_envs=1, task=None, **kwargs):
    """The registrations' vector entry point: ``gymnasium.make_vec("phalanx/Ant-v5", 64)``
    returns ``phalanx.make_vec("Ant-v5", num_envs=64, ...)`` (keyword arguments such as
    num_threads, seed, autoreset_mode, copy and the task's own pass through)."""
    from phalanx.tasks import make_vec

    return make_vec(task, num_envs=num_envs, **kwargs)


def register_envs():
    """Register ``phalanx/<Task>-v5`` for the eleven tasks (done when phalanx is imported): the
    single env :class:`TaskEnv` (``gymnasium.make``) and, as the vector entry point that
    ``gymnasium.make_vec`` uses by default, phalanx's batched :func:`phalanx.make_vec`."""
    for env_id, task in zip(ENV_IDS, _REGISTRATION):
        if env_id in gymnasium.registry:
            continue
        steps, threshold = _REGISTRATION[task]
        gymnasium.register(id=env_id, entry_point="phalanx.gym_envs:TaskEnv",
                           vector_entry_point="phalanx.gym_envs:make_vec_entry",
                           max_episode_steps=steps, reward_threshold=threshold,
                           kwargs={"task": task})
