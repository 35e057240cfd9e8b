# SPDX-License-Identifier: Apache-2.0
"""Pure-Python references for the batch tests: the per-world generator (xoshiro256** seeded by
splitmix64, written here from the published algorithm, independently of csrc/batch) and a reset
with noise built from phalanx's single-world calls."""

import numpy as np

import phalanx

M64 = (1 << 64) - 1


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Xoshiro:
    """xoshiro256** with the state expanded from one 64-bit seed by splitmix64."""

    def __init__(self, seed):
        self.seed(seed)

    def seed(self, seed):
        x = seed & M64
        s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            s.append(z ^ (z >> 31))
        self.s = s

    def next(self):
        s = self.s
        result = (_rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def symmetric(self, n):
        """n draws of 2 u - 1, u = (next >> 11) 2^-53 (exact in double precision)."""
        return np.array([2.0 * ((self.next() >> 11) * 2.0**-53) - 1.0 for _ in range(n)])


def reset_with_noise(model, data, rng, qpos_noise, qvel_noise, key=-1):
    """phalanx.resetData (or the keyframe), then the batch's documented noise from rng."""
    if key >= 0:
        phalanx.resetDataKeyframe(model, data, key)
    else:
        phalanx.resetData(model, data)
    if qpos_noise > 0:
        v = qpos_noise * rng.symmetric(model.nv)
        phalanx.integratePos(model, data.qpos, v, 1.0)
    if qvel_noise > 0:
        data.qvel[:] = qvel_noise * rng.symmetric(model.nv)
