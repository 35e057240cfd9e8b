# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the compat tests (comparisons with MuJoCo)."""

import numpy as np


def rel(a, b, ravel=False):
    """The relative error ||a - b|| / max(||b||, 1e-12) of ours (a) against MuJoCo's (b): the
    tolerance measure of every compat test. The shapes must agree, or with ravel only the sizes
    (arrays flattened first, for fields whose layout differs only in shape)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if ravel:
        a, b = a.ravel(), b.ravel()
    assert a.shape == b.shape, f"shape {a.shape} != mujoco's {b.shape}"
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))
