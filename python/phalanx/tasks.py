# SPDX-License-Identifier: Apache-2.0
"""Gymnasium's eleven MuJoCo v5 tasks as phalanx vector envs: ``phalanx.make_vec``.

Observation, reward, termination and the reward terms are computed in C per world
(``csrc/tasks/tasks.h``, ``csrc/batch/task.c``) after the ``frame_skip`` physics steps and
``mj_rnePostConstraint``, on the batch's thread pool. The episode logic (autoreset modes, time
limit, flagged worlds) is that of :class:`phalanx.VectorEnv`.

Each env reproduces Gymnasium 1.x's ``gymnasium.make_vec("<Task>-v5", vectorization_mode="sync")``
(spaces, observation layout, reward terms, info keys, termination, ``max_episode_steps``) except
for the random numbers: reset noise, Reacher's goal and Pusher's cylinder are drawn from each
world's own generator (xoshiro256**; world i seeded from seed + i) with Gymnasium's
distributions, not from NumPy's ``np_random`` bits.
"""

import importlib.util
import numbers
import os

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from phalanx import _core
from phalanx.vector import VectorEnv, _any, _merge

__all__ = ["make_vec", "TaskVectorEnv", "TASK_IDS"]

# the C task ids are the indices of this tuple (csrc/tasks/tasks.h PXT_*)
TASK_IDS = (
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Walker2d-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "Swimmer-v5",
    "Reacher-v5",
    "Pusher-v5",
    "InvertedPendulum-v5",
    "InvertedDoublePendulum-v5",
)

# model file of each task (Gymnasium's asset names)
MODEL_FILES = {
    "Ant-v5": "ant.xml",
    "HalfCheetah-v5": "half_cheetah.xml",
    "Hopper-v5": "hopper.xml",
    "Walker2d-v5": "walker2d_v5.xml",
    "Humanoid-v5": "humanoid.xml",
    "HumanoidStandup-v5": "humanoidstandup.xml",
    "Swimmer-v5": "swimmer.xml",
    "Reacher-v5": "reacher.xml",
    "Pusher-v5": "pusher_v5.xml",
    "InvertedPendulum-v5": "inverted_pendulum.xml",
    "InvertedDoublePendulum-v5": "inverted_double_pendulum.xml",
}

# max_episode_steps of Gymnasium's registrations
MAX_EPISODE_STEPS = {t: 1000 for t in TASK_IDS}
MAX_EPISODE_STEPS.update({"Reacher-v5": 50, "Pusher-v5": 100})

_INF = float("inf")


class _Default:
    """Marker of an argument left out (max_episode_steps: the registration's; None: no limit)."""

    def __repr__(self):
        return "<registration default>"


_DEFAULT = _Default()

# each task's keyword arguments and Gymnasium's defaults
DEFAULT_KWARGS = {
    "Ant-v5": dict(
        frame_skip=5, forward_reward_weight=1.0, ctrl_cost_weight=0.5, contact_cost_weight=5e-4,
        healthy_reward=1.0, main_body=1, terminate_when_unhealthy=True, healthy_z_range=(0.2, 1.0),
        contact_force_range=(-1.0, 1.0), reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True, include_cfrc_ext_in_observation=True),
    "HalfCheetah-v5": dict(
        frame_skip=5, forward_reward_weight=1.0, ctrl_cost_weight=0.1, reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True),
    "Hopper-v5": dict(
        frame_skip=4, forward_reward_weight=1.0, ctrl_cost_weight=1e-3, healthy_reward=1.0,
        terminate_when_unhealthy=True, healthy_state_range=(-100.0, 100.0),
        healthy_z_range=(0.7, _INF), healthy_angle_range=(-0.2, 0.2), reset_noise_scale=5e-3,
        exclude_current_positions_from_observation=True),
    "Walker2d-v5": dict(
        frame_skip=4, forward_reward_weight=1.0, ctrl_cost_weight=1e-3, healthy_reward=1.0,
        terminate_when_unhealthy=True, healthy_z_range=(0.8, 2.0),
        healthy_angle_range=(-1.0, 1.0), reset_noise_scale=5e-3,
        exclude_current_positions_from_observation=True),
    "Humanoid-v5": dict(
        frame_skip=5, forward_reward_weight=1.25, ctrl_cost_weight=0.1, contact_cost_weight=5e-7,
        contact_cost_range=(-_INF, 10.0), healthy_reward=5.0, terminate_when_unhealthy=True,
        healthy_z_range=(1.0, 2.0), reset_noise_scale=1e-2,
        exclude_current_positions_from_observation=True, include_cinert_in_observation=True,
        include_cvel_in_observation=True, include_qfrc_actuator_in_observation=True,
        include_cfrc_ext_in_observation=True),
    "HumanoidStandup-v5": dict(
        frame_skip=5, uph_cost_weight=1.0, ctrl_cost_weight=0.1, impact_cost_weight=0.5e-6,
        impact_cost_range=(-_INF, 10.0), reset_noise_scale=1e-2,
        exclude_current_positions_from_observation=True, include_cinert_in_observation=True,
        include_cvel_in_observation=True, include_qfrc_actuator_in_observation=True,
        include_cfrc_ext_in_observation=True),
    "Swimmer-v5": dict(
        frame_skip=4, forward_reward_weight=1.0, ctrl_cost_weight=1e-4, reset_noise_scale=0.1,
        exclude_current_positions_from_observation=True),
    "Reacher-v5": dict(frame_skip=2, reward_dist_weight=1.0, reward_control_weight=1.0),
    "Pusher-v5": dict(
        frame_skip=5, reward_near_weight=0.5, reward_dist_weight=1.0, reward_control_weight=0.1),
    "InvertedPendulum-v5": dict(frame_skip=2, reset_noise_scale=0.01),
    "InvertedDoublePendulum-v5": dict(
        frame_skip=5, healthy_reward=10.0, reset_noise_scale=0.1),
}
for _kw in DEFAULT_KWARGS.values():
    _kw["xml_file"] = None

# names of the infos C writes after reward and terminated (out[:, 2:]), in order
_STEP_INFOS = {
    "Ant-v5": ("x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity",
               "reward_forward", "reward_ctrl", "reward_contact", "reward_survive"),
    "HalfCheetah-v5": ("x_position", "x_velocity", "reward_forward", "reward_ctrl"),
    "Hopper-v5": ("x_position", "z_distance_from_origin", "x_velocity", "reward_forward",
                  "reward_ctrl", "reward_survive"),
    "Walker2d-v5": ("x_position", "z_distance_from_origin", "x_velocity", "reward_forward",
                    "reward_ctrl", "reward_survive"),
    "Humanoid-v5": ("x_position", "y_position", "distance_from_origin", "x_velocity",
                    "y_velocity", "reward_survive", "reward_forward", "reward_ctrl",
                    "reward_contact"),
    "HumanoidStandup-v5": ("x_position", "y_position", "z_distance_from_origin", "reward_linup",
                           "reward_quadctrl", "reward_impact"),
    "Swimmer-v5": ("x_position", "y_position", "distance_from_origin", "x_velocity",
                   "y_velocity", "reward_forward", "reward_ctrl"),
    "Reacher-v5": ("reward_dist", "reward_ctrl"),
    "Pusher-v5": ("reward_dist", "reward_ctrl", "reward_near"),
    "InvertedPendulum-v5": ("reward_survive",),
    "InvertedDoublePendulum-v5": ("reward_survive", "distance_penalty", "velocity_penalty"),
}

# the reward terms among those infos (the rest are positions and velocities)
REWARD_COMPONENTS = {
    t: tuple(k for k in names if k.startswith("reward_") or k.endswith("_penalty"))
    for t, names in _STEP_INFOS.items()
}

# Gymnasium's order of the info keys (tendon arrays included) after a step and after a reset
_INFO_ORDER = {
    "Humanoid-v5": ("x_position", "y_position", "tendon_length", "tendon_velocity",
                    "distance_from_origin", "x_velocity", "y_velocity", "reward_survive",
                    "reward_forward", "reward_ctrl", "reward_contact"),
    "HumanoidStandup-v5": ("x_position", "y_position", "z_distance_from_origin",
                           "tendon_length", "tendon_velocity", "reward_linup",
                           "reward_quadctrl", "reward_impact"),
}
_RESET_INFOS = {
    "Ant-v5": ("x_position", "y_position", "distance_from_origin"),
    "HalfCheetah-v5": ("x_position",),
    "Hopper-v5": ("x_position", "z_distance_from_origin"),
    "Walker2d-v5": ("x_position", "z_distance_from_origin"),
    "Humanoid-v5": ("x_position", "y_position", "tendon_length", "tendon_velocity",
                    "distance_from_origin"),
    "HumanoidStandup-v5": ("x_position", "y_position", "z_distance_from_origin",
                           "tendon_length", "tendon_velocity"),
    "Swimmer-v5": ("x_position", "y_position", "distance_from_origin"),
    "Reacher-v5": (),
    "Pusher-v5": (),
    "InvertedPendulum-v5": (),
    "InvertedDoublePendulum-v5": (),
}

# tasks whose control cost Gymnasium computes from the action itself, in the action's dtype
# (float32 for its action space's samples): the weight's keyword argument and the form,
# "cost" for w * sum(a^2) (reward_ctrl = -cost) or "term" for -sum(a^2) * w
_ACTION_COST = {
    "Ant-v5": ("ctrl_cost_weight", "cost"),
    "HalfCheetah-v5": ("ctrl_cost_weight", "cost"),
    "Hopper-v5": ("ctrl_cost_weight", "cost"),
    "Walker2d-v5": ("ctrl_cost_weight", "cost"),
    "Swimmer-v5": ("ctrl_cost_weight", "cost"),
    "Reacher-v5": ("reward_control_weight", "term"),
    "Pusher-v5": ("reward_control_weight", "term"),
}

# keyword arguments of Gymnasium's MujocoEnv that only concern rendering
_RENDER_KWARGS = ("render_mode", "width", "height", "camera_id", "camera_name",
                  "default_camera_config", "max_geom", "visual_options")

# parameter slots of csrc/tasks/tasks.h
_P = dict(FWD=0, CTRL=1, CONTACT=2, HEALTHY=3, TERM=4, ZLO=5, ZHI=6, ALO=7, AHI=8, SLO=9,
          SHI=10, CLO=11, CHI=12, EXCL=13, CFRC=14, CINERT=15, CVEL=16, QFRC=17, BODY=18,
          BODY2=19, BODY3=20, DT=21, NEAR=22)
_NPRM = 32


def _gymnasium_assets():
    spec = importlib.util.find_spec("gymnasium")
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "envs", "mujoco", "assets")


def model_path(env_id, xml_file=None):
    """Path of the MJCF file of a task: xml_file if given (a path, or a name in the model
    folder), else the package's copy of Gymnasium's model, else Gymnasium's own asset."""
    name = MODEL_FILES[env_id] if xml_file is None else os.path.expanduser(os.fspath(xml_file))
    if xml_file is not None and os.path.exists(name):
        return name
    packaged = os.path.join(os.path.dirname(__file__), "assets", "gymnasium", name)
    if os.path.exists(packaged):
        return packaged
    gym = _gymnasium_assets()
    if gym is not None and os.path.exists(os.path.join(gym, name)):
        return os.path.join(gym, name)
    raise FileNotFoundError(
        f"make_vec({env_id!r}): model file {name!r} not found (looked in "
        f"{os.path.dirname(packaged)} and {gym})"
    )


def _check_id(env_id):
    if not isinstance(env_id, str) or env_id not in TASK_IDS:
        raise ValueError(
            f"make_vec: unknown env id {env_id!r}; phalanx provides {', '.join(TASK_IDS)}"
        )


def _kwargs(env_id, kwargs):
    """Gymnasium's defaults updated by kwargs, each value checked."""
    defaults = DEFAULT_KWARGS[env_id]
    render = [k for k in kwargs if k in _RENDER_KWARGS]
    for k in render:
        if k == "render_mode" and kwargs[k] is None:
            continue
        raise NotImplementedError(
            f"make_vec({env_id!r}): {k} is not supported: phalanx's task envs do not render"
        )
    unknown = sorted(k for k in kwargs if k not in defaults and k not in _RENDER_KWARGS)
    if unknown:
        raise TypeError(
            f"make_vec({env_id!r}): unknown keyword argument(s) {unknown}; the valid ones are "
            f"{sorted(defaults)} and num_envs, num_threads, seed, autoreset_mode, copy, "
            f"max_episode_steps"
        )
    kw = dict(defaults)
    kw.update({k: v for k, v in kwargs.items() if k not in _RENDER_KWARGS})
    for k, v in kw.items():
        d = defaults[k]
        if k in ("xml_file", "main_body"):
            continue
        if isinstance(d, bool):
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"make_vec({env_id!r}): {k} must be a bool, got {v!r}")
        elif isinstance(d, tuple):
            ok = isinstance(v, (tuple, list, np.ndarray)) and len(v) == 2
            ok = ok and all(isinstance(x, numbers.Real) and not np.isnan(x) for x in v)
            if not ok:
                raise ValueError(
                    f"make_vec({env_id!r}): {k} must be a pair of numbers (low, high), got {v!r}"
                )
        elif k == "frame_skip":
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"make_vec({env_id!r}): frame_skip must be an int >= 1, got {v!r}")
        elif not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v):
            raise ValueError(f"make_vec({env_id!r}): {k} must be a finite number, got {v!r}")
    return kw


def _body(model, env_id, key, name):
    if isinstance(name, numbers.Integral) and not isinstance(name, bool):
        if not 0 <= name < model.nbody:
            raise ValueError(
                f"make_vec({env_id!r}): {key} must be a body index in [0, {model.nbody}) or a "
                f"body name, got {name}"
            )
        return int(name)
    if isinstance(name, str):
        i = model.name2id(1, name)  # mjOBJ_BODY
        if i < 0:
            raise ValueError(f"make_vec({env_id!r}): {key}: no body named {name!r} in the model")
        return i
    raise ValueError(f"make_vec({env_id!r}): {key} must be an int or a str, got {name!r}")


def _params(env_id, kw, model):
    """The C parameter vector, the observation size and the reset noise scale."""
    p = np.zeros(_NPRM)
    nq, nv, nb = model.nq, model.nv, model.nbody
    dt = model.opt.timestep * kw["frame_skip"]
    p[_P["DT"]] = dt

    def put(slot, key):
        if key in kw:
            v = kw[key]
            if isinstance(v, (tuple, list, np.ndarray)):
                p[_P[slot[0]]], p[_P[slot[1]]] = float(v[0]), float(v[1])
            else:
                p[_P[slot]] = float(v)

    put("FWD", "forward_reward_weight")
    put("CTRL", "ctrl_cost_weight")
    put("CONTACT", "contact_cost_weight")
    put("CONTACT", "impact_cost_weight")
    put("HEALTHY", "healthy_reward")
    put("TERM", "terminate_when_unhealthy")
    put(("ZLO", "ZHI"), "healthy_z_range")
    put(("ALO", "AHI"), "healthy_angle_range")
    put(("SLO", "SHI"), "healthy_state_range")
    put(("CLO", "CHI"), "contact_force_range")
    put(("CLO", "CHI"), "contact_cost_range")
    put(("CLO", "CHI"), "impact_cost_range")
    put("EXCL", "exclude_current_positions_from_observation")
    put("CFRC", "include_cfrc_ext_in_observation")
    put("CINERT", "include_cinert_in_observation")
    put("CVEL", "include_cvel_in_observation")
    put("QFRC", "include_qfrc_actuator_in_observation")
    put("FWD", "reward_dist_weight")
    put("CTRL", "reward_control_weight")
    put("NEAR", "reward_near_weight")
    excl = int(bool(kw.get("exclude_current_positions_from_observation", False)))
    if env_id == "Ant-v5":
        p[_P["BODY"]] = _body(model, env_id, "main_body", kw["main_body"])
        obs_dim = nq + nv - 2 * excl + 6 * (nb - 1) * kw["include_cfrc_ext_in_observation"]
    elif env_id in ("HalfCheetah-v5", "Hopper-v5", "Walker2d-v5"):
        obs_dim = nq + nv - excl
    elif env_id in ("Humanoid-v5", "HumanoidStandup-v5"):
        obs_dim = (nq + nv - 2 * excl + 10 * (nb - 1) * kw["include_cinert_in_observation"]
                   + 6 * (nb - 1) * kw["include_cvel_in_observation"]
                   + (nv - 6) * kw["include_qfrc_actuator_in_observation"]
                   + 6 * (nb - 1) * kw["include_cfrc_ext_in_observation"])
    elif env_id == "Swimmer-v5":
        obs_dim = nq + nv - 2 * excl
    elif env_id == "Reacher-v5":
        p[_P["BODY"]] = _body(model, env_id, "fingertip", "fingertip")
        p[_P["BODY2"]] = _body(model, env_id, "target", "target")
        obs_dim = nq + 6
    elif env_id == "Pusher-v5":
        p[_P["BODY"]] = _body(model, env_id, "tips_arm", "tips_arm")
        p[_P["BODY2"]] = _body(model, env_id, "object", "object")
        p[_P["BODY3"]] = _body(model, env_id, "goal", "goal")
        obs_dim = 23
    elif env_id == "InvertedPendulum-v5":
        obs_dim = nq + nv
    else:
        obs_dim = 1 + 2 * (nq - 1) + nv + 1
    return p, int(obs_dim), float(kw.get("reset_noise_scale", 0.0))


class TaskVectorEnv(VectorEnv):
    """A Gymnasium MuJoCo v5 task over a phalanx Batch (made by :func:`make_vec`)."""

    def __init__(self, env_id, num_envs=1, num_threads=None, seed=0,
                 autoreset_mode=AutoresetMode.NEXT_STEP, copy=True,
                 max_episode_steps=_DEFAULT, nconmax=None, njmax=None, **kwargs):
        from phalanx import Model

        _check_id(env_id)
        kw = _kwargs(env_id, kwargs)
        if num_threads is None:
            # one thread per CPU, at most one per env and the pool's limit of 256
            num_threads = os.cpu_count() or 1
            if isinstance(num_envs, numbers.Integral) and num_envs >= 1:
                num_threads = min(num_threads, int(num_envs))
            num_threads = min(num_threads, 256)
        if max_episode_steps is _DEFAULT:
            max_episode_steps = MAX_EPISODE_STEPS[env_id]
        self.env_id = env_id
        self.spec_kwargs = kw
        model = Model.from_xml_path(model_path(env_id, kw["xml_file"]))
        self._params, obs_dim, self._noise = _params(env_id, kw, model)
        self._task = TASK_IDS.index(env_id)
        self._obs_dim = obs_dim
        self._runner = None
        self._step_names = _STEP_INFOS[env_id]
        self._reset_names = _RESET_INFOS[env_id]
        self._order = _INFO_ORDER.get(env_id, self._step_names)
        n = int(num_envs) if isinstance(num_envs, numbers.Integral) else num_envs
        self._fresh = None
        self._f32 = None  # the step's float32 actions, for the tasks of _ACTION_COST
        super().__init__(
            model, n, self._obs_fn, self._reward_fn, self._terminated_fn,
            info_fn=None, frame_skip=kw["frame_skip"], max_episode_steps=max_episode_steps,
            autoreset_mode=autoreset_mode, num_threads=num_threads, seed=seed,
            observation_space=spaces.Box(-np.inf, np.inf, (obs_dim,), np.float64), copy=copy,
            nconmax=nconmax, njmax=njmax)
        # Gymnasium's MujocoEnv action space: the control ranges as float32
        bounds = np.asarray(model.actuator_ctrlrange, dtype=np.float64).astype(np.float32)
        self.single_action_space = spaces.Box(bounds[:, 0], bounds[:, 1], dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.dt = model.opt.timestep * self.frame_skip
        self.metadata = {"autoreset_mode": self.autoreset_mode,
                         "render_fps": int(np.round(1.0 / self.dt))}

    # ---- hooks of VectorEnv ---------------------------------------------------------------------

    def _init_worlds(self):
        self._runner = _core.TaskRunner(self.batch, self._task, self._obs_dim, self._params,
                                        self._noise)
        self._fresh = np.ones(self.num_envs, dtype=np.bool_)
        self._runner.reset()

    def _reset_worlds(self, mask):
        self._runner.reset(mask)
        sel = mask if mask is not None else slice(None)
        self._elapsed[sel] = 0
        self._fresh[sel] = True

    def _step_worlds(self, stepping):
        self._runner.step(self.frame_skip, None if stepping.all() else stepping)
        self._fresh[stepping] = False

    def _obs_fn(self, batch):
        return self._runner.obs

    def _reward_fn(self, batch, actions):
        reward = np.array(self._runner.out[:, 0])
        if self._f32 is not None:
            # Gymnasium's control cost in float32 instead of C's float64
            i = 2 + self._step_names.index("reward_ctrl")
            reward += self._ctrl32().astype(np.float64) - self._runner.out[:, i]
        return reward

    def _ctrl32(self):
        """reward_ctrl as Gymnasium computes it from float32 actions (a float32 array)."""
        key, form = _ACTION_COST[self.env_id]
        w = np.float32(self.spec_kwargs[key])
        sq = np.square(self._f32).sum(axis=1)
        return -(w * sq) if form == "cost" else -sq * w

    def step(self, actions):
        """Step every env ``frame_skip`` physics steps; returns Gymnasium's 5-tuple. With
        float32 actions the control cost (and reward_ctrl) is computed in float32 from the
        actions, as Gymnasium does; with float64 actions in float64."""
        f32 = isinstance(actions, np.ndarray) and actions.dtype == np.float32
        if f32 and self.env_id in _ACTION_COST and actions.shape == (self.num_envs,
                                                                     self.model.nu):
            self._f32 = actions
        try:
            return super().step(actions)
        finally:
            self._f32 = None

    def _terminated_fn(self, batch):
        return self._runner.out[:, 1] != 0

    def _infos(self, infos, mask):
        n = self.num_envs
        step = mask & ~self._fresh
        reset = mask & self._fresh
        if _any(step):
            _merge(infos, self._info_values(self._order, step), step, n)
        if _any(reset):
            _merge(infos, self._info_values(self._reset_names, reset), reset, n)
        return infos

    def _info_values(self, names, mask):
        out = self._runner.out
        b = self.batch
        values = {}
        stepped = not _any(mask & self._fresh)  # the step's outputs are valid for the mask
        for name in names:
            if name == "reward_ctrl" and self._f32 is not None:
                values[name] = self._ctrl32()
            elif name in self._step_names and stepped:
                v = np.array(out[:, 2 + self._step_names.index(name)])
                if self.env_id == "InvertedPendulum-v5":
                    v = v.astype(np.int64)
                values[name] = v
            elif name == "x_position":
                values[name] = np.array(b.qpos[:, 0])
            elif name == "y_position":
                values[name] = np.array(b.qpos[:, 1])
            elif name == "distance_from_origin":
                values[name] = np.linalg.norm(b.qpos[:, 0:2], axis=1)
            elif name == "z_distance_from_origin":
                z = 2 if self.env_id == "HumanoidStandup-v5" else 1
                values[name] = b.qpos[:, z] - self.model.qpos0[z]
            elif name == "tendon_length":
                values[name] = np.array(b.ten_length)
            elif name == "tendon_velocity":
                values[name] = np.array(b.ten_velocity)
        return values

    def close_extras(self, **kwargs):
        """Release the task runner and the batch."""
        self._runner = None
        super().close_extras(**kwargs)

    # ---- extras ---------------------------------------------------------------------------------

    def set_state(self, index, qpos, qvel, *, act=None, qacc_warmstart=None, ctrl=None,
                  time=None):
        """Set world ``index``'s state (as mj_setState would), run forward on it and refresh
        its observation; the world's flags are not cleared."""
        self._check_open("set_state")
        if (isinstance(index, bool) or not isinstance(index, numbers.Integral)
                or not 0 <= index < self.num_envs):
            raise ValueError(
                f"set_state: index must be an int in [0, {self.num_envs}), got {index!r}"
            )
        b = self.batch
        b.qpos[index] = qpos
        b.qvel[index] = qvel
        if act is not None:
            b.act[index] = act
        if qacc_warmstart is not None:
            b.qacc_warmstart[index] = qacc_warmstart
        if ctrl is not None:
            b.ctrl[index] = ctrl
        if time is not None:
            b.time[index] = time
        mask = np.zeros(self.num_envs, dtype=np.bool_)
        mask[index] = True
        b.forward(mask)
        self._runner.observe(mask)

    @property
    def reward_components(self):
        """The names of the reward terms this task reports in infos."""
        return REWARD_COMPONENTS[self.env_id]


def make_vec(env_id, num_envs=1, num_threads=None, seed=0,
             autoreset_mode=AutoresetMode.NEXT_STEP, copy=True, nconmax=None, njmax=None,
             **kwargs):
    """A Gymnasium vector env of ``num_envs`` copies of a Gymnasium MuJoCo v5 task on phalanx.

    Args:
        env_id: one of ``phalanx.tasks.TASK_IDS`` ("Ant-v5", ..., "InvertedDoublePendulum-v5").
        num_envs: number of envs (worlds).
        num_threads: threads of the batch's pool (None: ``os.cpu_count()``; 0: the caller's).
        seed: seed of the per-env generators (env i from seed + i).
        autoreset_mode: NEXT_STEP (default), SAME_STEP or DISABLED, as Gymnasium's SyncVectorEnv.
        copy: return fresh observation arrays (True) or a view the next call overwrites.
        nconmax, njmax: contact and constraint-row capacity of each world (None: the model's
            static bounds); smaller capacities save memory, and an env that needs more than
            them is truncated with ``infos["truncation_reason"]`` "contactfull" / "cnstrfull".
        **kwargs: the task's Gymnasium keyword arguments (reward weights, ranges,
            reset_noise_scale, the observation options, frame_skip, xml_file) and
            ``max_episode_steps`` (left out: Gymnasium's registration, 1000 or 50 for Reacher
            or 100 for Pusher; None: no time limit).
    """
    _check_id(env_id)
    return TaskVectorEnv(env_id, num_envs=num_envs, num_threads=num_threads, seed=seed,
                         autoreset_mode=autoreset_mode, copy=copy, nconmax=nconmax,
                         njmax=njmax, **kwargs)
