# SPDX-License-Identifier: Apache-2.0
"""A Gymnasium vector env over a phalanx.Batch, for any MJCF model.

Observation, reward, termination (and optional extra infos) are functions written by the user in
Python over the batch's ``(num_envs, ...)`` arrays; the physics of every env is phalanx.step, run
``frame_skip`` times per env step on the batch's thread pool with the GIL released.

The behaviour is Gymnasium 1.x's ``SyncVectorEnv`` over an equivalent single env, in each of the
three autoreset modes (``metadata["autoreset_mode"]``):

* ``NEXT_STEP`` (default): an env that finished is reset on the next ``step`` call, which ignores
  its action and returns its reset observation with reward 0 and both flags False.
* ``SAME_STEP``: a finished env is reset within the same call; its last observation and info go
  to ``infos["final_obs"]`` / ``infos["final_info"]`` (masked by ``_final_obs`` / ``_final_info``).
* ``DISABLED``: nothing is reset automatically; stepping a finished env before resetting it with
  ``reset(options={"reset_mask": mask})`` is an error.

An env whose world the batch flags (NaN or beyond 1e10 state, a bad control, an error, contacts
or constraint rows beyond the model's capacity: see ``phalanx.BATCH_FLAGS``) is truncated, with
reward 0 and ``infos["truncation_reason"]`` naming the reasons (``"badqvel|badqacc"``,
``"contactfull"``); its neighbours are not disturbed.

Finished envs are reset from Python (``Batch.reset(mask)``), not by the batch's own
``set_autoreset``: that resets inside the step, before the final observation could be read, and
knows neither ``terminated_fn`` nor the time limit, so it cannot reproduce ``SyncVectorEnv``.
Per-world model parameters (domain randomization) are set on ``env.batch``
(``env.batch.set_model_param("body_mass", masses)``); they persist across resets.
"""

import numbers
import os

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from phalanx import _core

__all__ = ["VectorEnv", "AutoresetMode"]

MAX_ENVS = 1 << 24


class _MaskError(ValueError, TypeError):
    """A bad ``reset_mask``: a ValueError (and a TypeError, as Gymnasium raises for some)."""


def _flag_reasons(flags):
    """The '|'-joined names of the set bits of each flag word, for the flagged worlds."""
    names = _core.BATCH_FLAGS
    out = []
    for f in flags:
        out.append("|".join(n for i, n in enumerate(names) if int(f) >> i & 1))
    return out


def _any(mask):
    """Whether a bool array has a True element (np.count_nonzero: 3x faster than .any() on the
    small arrays of a step)."""
    return np.count_nonzero(mask) != 0


def _merge(infos, values, mask, num_envs):
    """Add per-env info arrays (num_envs, ...) for the envs in mask, exactly as Gymnasium's
    VectorEnv._add_info would env by env: numeric scalars in an array of their dtype, arrays of
    shape k in a (num_envs, k) array, anything else (bools and strings included) in an object
    array filled with None; each key with its ``_key`` bool mask."""
    full = np.count_nonzero(mask) == num_envs
    if full:
        idx = slice(None)
    else:
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            return infos
    for key, value in values.items():
        if isinstance(value, dict):
            infos[key] = _merge(infos.get(key, {}), value, mask, num_envs)
        else:
            value = value if isinstance(value, np.ndarray) else np.asarray(value)
            if full and key not in infos and value.dtype.kind in "iufc" and value.ndim >= 1:
                # every env, a new numeric key: the values themselves (a copy)
                infos[key] = np.array(value, copy=True)
                infos[f"_{key}"] = np.ones(num_envs, dtype=np.bool_)
                continue
            if key in infos:
                array = infos[key]
            elif value.ndim == 1 and value.dtype.kind in "iufc":
                array = np.zeros(num_envs, dtype=value.dtype)
            elif value.ndim > 1:
                array = np.zeros(value.shape, dtype=value.dtype)
            else:
                array = np.full(num_envs, fill_value=None, dtype=object)
            if array.dtype == object:
                each = range(num_envs) if isinstance(idx, slice) else idx
                for i in each:  # element by element: keeps each value's own type
                    array[i] = value[i]
            else:
                array[idx] = value[idx]
            infos[key] = array
        keymask = infos.get(f"_{key}")
        if keymask is None:
            keymask = np.zeros(num_envs, dtype=np.bool_)
        keymask[idx] = True
        infos[f"_{key}"] = keymask
    return infos


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of one MJCF model, stepped together by phalanx.

    Args:
        model_or_path: a phalanx.Model (shared and frozen while the env lives) or an MJCF path.
        num_envs: number of envs (worlds), 1 to 2**24.
        obs_fn: ``obs_fn(batch) -> (num_envs, obs_dim)`` from the batch's arrays (``batch.qpos``,
            ``batch.xpos``, ...); it must depend only on the worlds' state.
        reward_fn: ``reward_fn(batch, actions) -> (num_envs,)`` after the step.
        terminated_fn: ``terminated_fn(batch) -> (num_envs,) bool`` after the step (None: never).
        info_fn: optional ``info_fn(batch) -> dict of (num_envs, ...) arrays``, reported in
            ``infos`` after every step and reset.
        frame_skip: physics steps per env step.
        max_episode_steps: truncate an episode after this many env steps (None: never).
        autoreset_mode: an AutoresetMode or its value ("NextStep", "SameStep", "Disabled").
        num_threads: threads of the batch's pool (0: the calling thread).
        seed: seed of the per-env generators (env i from seed + i); None draws one.
        qpos_noise, qvel_noise: reset noise: qpos moved by a velocity of nv uniform draws in
            [-qpos_noise, qpos_noise) over unit time, qvel uniform in [-qvel_noise, qvel_noise).
        ctrl_noise: uniform noise in [-ctrl_noise, ctrl_noise) added to each control every step.
        observation_space: the single env's observation space (default: an unbounded Box of the
            shape and dtype obs_fn returns).
        copy: return fresh observation arrays (True, as Gymnasium) or obs_fn's own result.
        nconmax, njmax: contact and constraint-row capacity of each world (None: the model's;
            see ``phalanx.Batch``); an env beyond them is truncated ("contactfull",
            "cnstrfull").
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, model_or_path, num_envs, obs_fn, reward_fn, terminated_fn=None, *,
                 info_fn=None, frame_skip=1, max_episode_steps=None,
                 autoreset_mode=AutoresetMode.NEXT_STEP, num_threads=0, seed=None,
                 qpos_noise=0.0, qvel_noise=0.0, ctrl_noise=0.0, observation_space=None,
                 copy=True, nconmax=None, njmax=None):
        from phalanx import Model

        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral):
            raise ValueError(f"VectorEnv: num_envs must be an int, got {type(num_envs).__name__}")
        if not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"VectorEnv: num_envs must be in [1, {MAX_ENVS}], got {num_envs}")
        for name, v in (("frame_skip", frame_skip),):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"VectorEnv: {name} must be a positive int, got {v!r}")
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, numbers.Integral)
            or max_episode_steps < 1
        ):
            raise ValueError(
                f"VectorEnv: max_episode_steps must be None or a positive int, got "
                f"{max_episode_steps!r}"
            )
        for name, v in (("qpos_noise", qpos_noise), ("qvel_noise", qvel_noise),
                        ("ctrl_noise", ctrl_noise)):
            if not (isinstance(v, numbers.Real) and np.isfinite(v) and v >= 0):
                raise ValueError(f"VectorEnv: {name} must be a finite number >= 0, got {v!r}")
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(
                f"VectorEnv: autoreset_mode must be one of {[m.value for m in AutoresetMode]}, "
                f"got {autoreset_mode!r}"
            ) from None
        for name, fn in (("obs_fn", obs_fn), ("reward_fn", reward_fn)):
            if not callable(fn):
                raise ValueError(f"VectorEnv: {name} must be callable")

        if isinstance(model_or_path, (str, os.PathLike)):
            model = Model.from_xml_path(os.fspath(model_or_path))
        elif isinstance(model_or_path, _core.Model):
            model = model_or_path
        else:
            raise ValueError(
                f"VectorEnv: model_or_path must be a phalanx.Model or a path, got "
                f"{type(model_or_path).__name__}"
            )
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.batch = _core.Batch(model, int(num_envs), int(num_threads), seed=seed,
                                 nconmax=nconmax, njmax=njmax)
        self.model = model
        self.num_envs = int(num_envs)
        self.frame_skip = int(frame_skip)
        self.max_episode_steps = max_episode_steps
        self.obs_fn, self.reward_fn = obs_fn, reward_fn
        self.terminated_fn, self.info_fn = terminated_fn, info_fn
        self.qpos_noise, self.qvel_noise = float(qpos_noise), float(qvel_noise)
        self.ctrl_noise = float(ctrl_noise)
        self.copy = copy
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.closed = False

        # spaces: actions in the control ranges (unbounded where not ctrllimited)
        nu = model.nu
        low = np.full(nu, -np.inf)
        high = np.full(nu, np.inf)
        lim = np.asarray(model.actuator_ctrllimited, dtype=bool)
        if nu:
            low[lim] = model.actuator_ctrlrange[lim, 0]
            high[lim] = model.actuator_ctrlrange[lim, 1]
        self.single_action_space = spaces.Box(low, high, (nu,), np.float64)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._everyone = np.ones(self.num_envs, dtype=np.bool_)  # never written
        self._init_worlds()
        obs = np.asarray(obs_fn(self.batch))
        if obs.ndim < 1 or obs.shape[0] != self.num_envs:
            raise ValueError(
                f"VectorEnv: obs_fn must return an array of shape (num_envs, ...) = "
                f"({self.num_envs}, ...), got shape {obs.shape}"
            )
        if observation_space is None:
            observation_space = spaces.Box(-np.inf, np.inf, obs.shape[1:], obs.dtype)
        self.single_observation_space = observation_space
        self.observation_space = batch_space(observation_space, self.num_envs)

    # ---- helpers ------------------------------------------------------------------------------

    def _check_open(self, fn):
        if self.closed:
            raise RuntimeError(f"VectorEnv.{fn}: the env is closed")

    def _seed(self, seed, mask):
        if seed is None:
            return
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            if seed < 0:
                raise ValueError(f"VectorEnv.reset: seed must be >= 0, got {seed}")
            self.batch.seed(int(seed), mask)
            return
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(
                f"VectorEnv.reset: a list of seeds must have num_envs = {self.num_envs} entries, "
                f"got {len(seeds)}"
            )
        one = np.zeros(self.num_envs, dtype=np.bool_)
        for i, s in enumerate(seeds):
            if s is None or (mask is not None and not mask[i]):
                continue
            if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0:
                raise ValueError(f"VectorEnv.reset: seed {i} must be None or an int >= 0, got {s!r}")
            one[i] = True
            self.batch.seed((int(s) - i) % (1 << 64), one)  # world i draws from seed + i
            one[i] = False

    def _init_worlds(self):
        self.batch.reset(qpos_noise=self.qpos_noise, qvel_noise=self.qvel_noise)
        self.batch.forward()

    def _step_worlds(self, stepping):
        self.batch.step(self.frame_skip, mask=None if stepping.all() else stepping,
                        ctrl_noise=self.ctrl_noise)

    def _reset_worlds(self, mask):
        self.batch.reset(mask, qpos_noise=self.qpos_noise, qvel_noise=self.qvel_noise)
        self.batch.forward(mask)
        self._elapsed[mask if mask is not None else slice(None)] = 0

    def _observe(self):
        obs = self.obs_fn(self.batch)
        return np.array(obs, copy=True) if self.copy else obs

    def _infos(self, infos, mask):
        if self.info_fn is not None:
            _merge(infos, self.info_fn(self.batch), mask, self.num_envs)
        return infos

    def _actions(self, actions):
        want = (self.num_envs, self.model.nu)
        if not isinstance(actions, np.ndarray):
            try:
                actions = np.asarray(actions)
            except Exception as e:  # ragged lists and the like
                raise ValueError(f"VectorEnv.step: actions must be an array of shape {want}: {e}")
        if actions.shape != want or actions.dtype.kind != "f":
            raise ValueError(
                f"VectorEnv.step: actions must be a float array of shape (num_envs, nu) = {want}; "
                f"got shape {actions.shape}, dtype {actions.dtype}"
            )
        return actions.astype(np.float64, copy=False)

    # ---- Gymnasium API ------------------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        """Reset every env, or those of ``options["reset_mask"]``; returns (obs, infos)."""
        self._check_open("reset")
        mask = None
        if options is not None:
            if not isinstance(options, dict):
                raise ValueError(f"VectorEnv.reset: options must be a dict, got {type(options)}")
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(
                    f"VectorEnv.reset: unknown options {sorted(unknown)}; the only option is "
                    f"'reset_mask'"
                )
            if "reset_mask" in options:
                mask = options["reset_mask"]
                if not isinstance(mask, np.ndarray):
                    raise _MaskError(
                        f"VectorEnv.reset: options['reset_mask'] must be a numpy array, got "
                        f"{type(mask).__name__}"
                    )
                if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                    raise _MaskError(
                        f"VectorEnv.reset: options['reset_mask'] must be a bool array of shape "
                        f"({self.num_envs},); got dtype {mask.dtype}, shape {mask.shape}"
                    )
                if not mask.any():
                    raise _MaskError(
                        "VectorEnv.reset: options['reset_mask'] must select at least one env"
                    )
                mask = np.ascontiguousarray(mask)
        self._seed(seed, mask)
        self._reset_worlds(mask)
        sel = mask if mask is not None else np.ones(self.num_envs, dtype=np.bool_)
        self._autoreset[sel] = False
        return self._observe(), self._infos({}, sel)

    def step(self, actions):
        """Step every env ``frame_skip`` physics steps; returns Gymnasium's 5-tuple."""
        self._check_open("step")
        actions = self._actions(actions)
        n = self.num_envs
        mode = self.autoreset_mode
        # resetting is None when no env resets at the start of this step (the common case,
        # taken without masks)
        resetting = None
        if _any(self._autoreset):
            if mode == AutoresetMode.NEXT_STEP:
                resetting = self._autoreset.copy()
                self._reset_worlds(resetting)
            elif mode == AutoresetMode.DISABLED:
                raise ValueError(
                    f"VectorEnv.step: envs {np.flatnonzero(self._autoreset).tolist()} finished "
                    f"and autoreset_mode is DISABLED: reset them first with "
                    f"reset(options={{'reset_mask': mask}})"
                )
        everyone = self._everyone
        b = self.batch
        ctrl = b.ctrl
        if resetting is None:
            stepping = everyone
            ctrl[...] = actions
            self._step_worlds(stepping)
            self._elapsed += 1
        else:
            stepping = ~resetting
            ctrl[stepping] = actions[stepping]
            self._step_worlds(stepping)
            self._elapsed[stepping] += 1

        obs = self._observe()
        rewards = np.array(self.reward_fn(b, actions), dtype=np.float64).reshape(n)
        if self.terminated_fn is not None:
            terminated = np.array(self.terminated_fn(b), dtype=np.bool_).reshape(n)
        else:
            terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        if self.max_episode_steps is not None:
            truncated |= self._elapsed >= self.max_episode_steps
        flags = np.array(b.flags)
        bad = (flags != 0) & stepping
        anybad = _any(bad)
        if anybad:
            truncated |= bad
            terminated &= ~bad
            rewards[bad] = 0.0
        if resetting is not None:
            rewards[resetting] = 0.0
            terminated[resetting] = False
            truncated[resetting] = False

        # infos of the step (and of the resets done at its start, in NEXT_STEP mode)
        step_infos = self._infos({}, everyone)
        if anybad:
            reasons = np.full(n, fill_value=None, dtype=object)
            reasons[bad] = _flag_reasons(flags[bad])
            _merge(step_infos, {"truncation_reason": reasons}, bad, n)

        done = terminated | truncated
        if mode == AutoresetMode.SAME_STEP and _any(done):
            infos = {}
            final_obs = np.full(n, fill_value=None, dtype=object)
            for i in np.flatnonzero(done):
                final_obs[i] = np.array(obs[i], copy=True)
            infos["final_obs"] = final_obs
            infos["_final_obs"] = done.copy()
            infos["final_info"] = _select(step_infos, done, n)
            infos["_final_info"] = done.copy()
            self._reset_worlds(done)
            new_obs = self._observe()
            if self.copy or not isinstance(obs, np.ndarray):
                obs = np.array(obs, copy=True)
            obs[done] = np.asarray(new_obs)[done]
            # the envs that went on keep their step infos; the reset ones report the reset's
            kept = _select(step_infos, ~done, n)
            infos.update(kept)
            self._infos(infos, done)
            self._autoreset[:] = False
        else:
            infos = step_infos
            self._autoreset = done.copy()
        return obs, rewards, terminated, truncated, infos

    def close_extras(self, **kwargs):
        """Release the batch (its threads are joined once no array view of it remains)."""
        self.batch = None

    @property
    def elapsed_steps(self):
        """Env steps taken in the current episode of each env (a copy)."""
        return self._elapsed.copy()


def _select(infos, mask, n):
    """The part of vectorized infos that belongs to the envs in mask, as _add_info would have
    built it from those envs alone."""
    out = {}
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        keymask = infos[f"_{key}"] & mask
        if not keymask.any():
            continue
        if isinstance(value, dict):
            out[key] = _select(value, mask, n)
        else:
            if value.dtype == object:
                array = np.full(n, fill_value=None, dtype=object)
            else:
                array = np.zeros_like(value)
            array[keymask] = value[keymask]
            out[key] = array
        out[f"_{key}"] = keymask
    return out
