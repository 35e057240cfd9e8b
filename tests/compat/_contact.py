# SPDX-License-Identifier: Apache-2.0
"""Contact comparison shared by the collision tests: phalanx's data.contact against MuJoCo's
d.contact, field by field (mjContact's fields, integers exact, reals within a tolerance)."""

import numpy as np

import phalanx

INT_FIELDS = ("dim", "geom1", "geom2", "geom", "flex", "elem", "vert", "exclude", "efc_address")
REAL_FIELDS = ("dist", "pos", "frame", "includemargin", "friction", "solref", "solreffriction",
               "solimp", "adhesion", "mu", "H")


def rows(a):
    """a field of n contacts as an (n, k) array (k = 1 for scalar fields)"""
    a = np.asarray(a)
    return a.reshape(a.shape[0], int(np.prod(a.shape[1:])))


def mujoco_contacts(mjd):
    """MuJoCo's contacts as a dict of (ncon, k) arrays."""
    c = mjd.contact
    return {f: rows(getattr(c, f)) for f in INT_FIELDS + REAL_FIELDS}


def compare_contacts(pxd, mjd, tol=1e-9, what=""):
    """Assert phalanx's contacts equal MuJoCo's in number, order, integer fields, and reals within
    tol (absolute, scaled by 1 + |ref|); return the worst scaled real error."""
    ref = mujoco_contacts(mjd)
    ours = pxd.contact
    assert pxd.ncon == mjd.ncon, (
        f"{what}: ncon {pxd.ncon} != mujoco's {mjd.ncon}; ours "
        f"{[tuple(g) for g in ours.geom]} mujoco's {[tuple(g) for g in ref['geom']]}")
    worst = 0.0
    for f in INT_FIELDS:
        a = rows(ours[f])
        assert np.array_equal(a, ref[f]), f"{what}: contact {f} {a.tolist()} != {ref[f].tolist()}"
    for f in REAL_FIELDS:
        a = rows(ours[f])
        b = ref[f]
        assert np.all(np.isfinite(a)), f"{what}: non-finite contact {f}"
        err = np.abs(a - b) / (1.0 + np.abs(b))
        e = float(err.max()) if err.size else 0.0
        assert e <= tol, f"{what}: contact {f} differs by {e:.3e} (tolerance {tol})"
        worst = max(worst, e)
    return worst


def mujoco_pair(mujoco, ref, dr, g1=0, g2=1):
    """MuJoCo's contacts of geom pair (g1, g2) after mj_kinematics + mj_collision, in its order:
    (dist (n,), pos (n, 3), frame (n, 9))."""
    mujoco.mj_kinematics(ref, dr)
    mujoco.mj_collision(ref, dr)
    sel = [c for c in dr.contact[:dr.ncon] if c.geom1 == g1 and c.geom2 == g2]
    if not sel:
        return np.zeros(0), np.zeros((0, 3)), np.zeros((0, 9))
    return (np.array([c.dist for c in sel]), np.array([c.pos for c in sel]),
            np.array([c.frame for c in sel]))


def phalanx_pair(ours, do, margin, g1=0, g2=1):
    """phalanx's narrow phase of geom pair (g1, g2) after kinematics: (dist, pos, frame)."""
    phalanx.kinematics(ours, do)
    dist, pos, frame = phalanx._core._narrowphase(ours, do, g1, g2, margin)
    return np.asarray(dist), np.asarray(pos).reshape(-1, 3), np.asarray(frame).reshape(-1, 9)


def scaled_err(a, b):
    """max |a - b| / max(1, |b|) (0 for empty arrays)"""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))
