# SPDX-License-Identifier: Apache-2.0
"""Contact comparison shared by the collision tests: phalanx's data.contact against MuJoCo's
d.contact, field by field (mjContact's fields, integers exact, reals within a tolerance)."""

import numpy as np

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
