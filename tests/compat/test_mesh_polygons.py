# SPDX-License-Identifier: Apache-2.0
"""Mesh polygons (MuJoCo 3.12's MakePolygons: coplanar hull triangles merged into polygons, their
normals, the vertex-to-polygon map, npolygonmax and nmeshdegmax) against MuJoCo on generated
meshes: random clouds, subdivided boxes, prisms and spheres, with scale (negative too), refquat,
refpos, maxhullvert, explicit faces, and meshes without a hull. The polygon order is the
iteration order of MuJoCo's std::unordered_map (libc++), so every array must match exactly,
normals included (measured: bit-equal). The corpus models are compared in test_conformance."""

import numpy as np
import pytest

import phalanx
from tests.conftest import fast_subset

mujoco = pytest.importorskip("mujoco")

ARRAYS = ("mesh_polynum", "mesh_polyadr", "mesh_polynormal", "mesh_polyvertadr",
          "mesh_polyvertnum", "mesh_polyvert", "mesh_polymapadr", "mesh_polymapnum",
          "mesh_polymap")
SIZES = ("nmeshpoly", "nmeshpolyvert", "nmeshpolymap", "npolygonmax", "nmeshdegmax")


def _fmt(a):
    return " ".join(f"{v:.9g}" for v in np.asarray(a).ravel())


def cloud(rng, n):
    return rng.normal(size=(n, 3)) * rng.uniform(0.05, 0.3, 3)


def grid_box(k, size=(0.1, 0.2, 0.15)):
    """points of a box's surface on a k x k grid per face (many coplanar triangles)"""
    t = np.linspace(-1, 1, k + 1)
    pts = set()
    for a in t:
        for b in t:
            for s in (-1.0, 1.0):
                pts.add((s, a, b))
                pts.add((a, s, b))
                pts.add((a, b, s))
    return np.array(sorted(pts)) * np.array(size)


def prism(n, r=0.1, h=0.08, twist=0.0):
    ang = np.arange(n) * 2 * np.pi / n
    return np.array([[r * np.cos(a + twist * z), r * np.sin(a + twist * z), z * h]
                     for a in ang for z in (-1, 1)])


def sphere(nlat, nlon, r=0.1):
    pts = [[0, 0, r], [0, 0, -r]]
    for i in range(1, nlat):
        th = np.pi * i / nlat
        for j in range(nlon):
            ph = 2 * np.pi * j / nlon
            pts.append([r * np.sin(th) * np.cos(ph), r * np.sin(th) * np.sin(ph), r * np.cos(th)])
    return np.array(pts)


def _cases():
    rng = np.random.default_rng(3)
    yield "cloud8", cloud(rng, 8), ""
    yield "cloud40", cloud(rng, 40), ""
    yield "cloud300", cloud(rng, 300), ""
    yield "box", grid_box(1), ""
    yield "gridbox3", grid_box(3), ""
    yield "gridbox6", grid_box(6), ""
    for n in (3, 5, 16, 37, 64):
        yield f"prism{n}", prism(n), ""
    yield "twisted", prism(12, twist=0.3), ""
    yield "sphere", sphere(8, 12), ""
    yield "finesphere", sphere(30, 60), ""
    yield "scaled", grid_box(2), 'scale="2 0.5 1.5"'
    yield "negscale", grid_box(2), 'scale="-1 1 1"'
    yield "negscale_prism", prism(9), 'scale="1 -2 -0.5"'
    yield "refquat", prism(7), 'refquat="0.9 0.1 0.3 -0.2" refpos="0.01 0.02 -0.03"'
    yield "maxhullvert", sphere(10, 16), 'maxhullvert="12"'
    yield "convexinertia", cloud(rng, 30), 'inertia="convex"'
    yield "shellinertia", grid_box(2), 'inertia="shell"'


CASES = list(_cases())


def _model(meshes, collide=True):
    assets = "".join(f'<mesh name="{name}" vertex="{_fmt(v)}" {attr}/>'
                     for name, v, attr in meshes)
    ct = "" if collide else 'contype="0" conaffinity="0"'
    bodies = "".join(f'<body pos="{i} 0 0"><freejoint/><geom type="mesh" mesh="{name}" {ct}/>'
                     f'</body>' for i, (name, _, _) in enumerate(meshes))
    return f"<mujoco><asset>{assets}</asset><worldbody>{bodies}</worldbody></mujoco>"


def _compare(xml):
    mm = mujoco.MjModel.from_xml_string(xml)
    pm = phalanx.Model.from_xml_string(xml)
    for s in SIZES:
        assert getattr(pm, s) == getattr(mm, s), s
    for f in ARRAYS:
        a, b = np.asarray(getattr(pm, f)), getattr(mm, f)
        assert a.shape == b.shape, f
        assert np.array_equal(a, b), f"{f}: first difference at {np.argwhere(a != b)[:3]}"
    return mm


@pytest.mark.parametrize("name,vert,attr", CASES, ids=[c[0] for c in CASES])
def test_mesh_polygons(name, vert, attr):
    mm = _compare(_model([(name, vert, attr)]))
    assert mm.nmeshpoly > 0


def test_several_meshes():
    # addresses across meshes, with a mesh no geom collides with and one no geom uses
    meshes = [CASES[i] for i in (0, 4, 7, 12)]
    _compare(_model(meshes))
    extra = ('<body pos="5 0 0"><geom type="mesh" mesh="extra" contype="0" conaffinity="0"/>'
             '</body></worldbody>')
    xml = _model(meshes[:2]).replace("</worldbody>", extra)
    xml = xml.replace("</asset>", f'<mesh name="extra" vertex="{_fmt(prism(6))}"/>'
                      f'<mesh name="unused" vertex="{_fmt(prism(5))}"/></asset>')
    mm = _compare(xml)
    assert mm.nmesh == 4


def test_explicit_faces():
    # the polygons come from the hull, whatever faces the mesh lists
    v = grid_box(1)
    faces = "0 1 2  0 2 3  4 5 6  1 5 7"
    xml = (f'<mujoco><asset><mesh name="m" vertex="{_fmt(v)}" face="{faces}"/></asset>'
           '<worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>')
    try:
        mujoco.MjModel.from_xml_string(xml)
    except Exception:
        pytest.skip("MuJoCo rejects this mesh")
    _compare(xml)


@fast_subset(lambda seed: seed < 5)
@pytest.mark.parametrize("seed", range(20))
def test_random_clouds(seed):
    rng = np.random.default_rng(100 + seed)
    # points on random planes, so that many hull triangles share a normal
    pts = cloud(rng, 20)
    for _ in range(4):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        u = np.cross(n, rng.normal(size=3))
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        c = n * 0.3
        k = rng.integers(3, 12)
        pts = np.vstack([pts, c + np.outer(rng.uniform(-0.1, 0.1, k), u) +
                         np.outer(rng.uniform(-0.1, 0.1, k), w)])
    _compare(_model([("m", pts, "")]))


@pytest.mark.parametrize("collide", [True, False], ids=["hull", "nohull"])
def test_faces_with_and_without_hull(collide):
    # a mesh with its own faces gets a hull (and polygons) only when a geom collides with it;
    # without one, its vertices map to no polygon but still take their polymap addresses
    faces = "0 1 3  0 3 2  4 5 7  4 7 6"
    ct = "" if collide else 'contype="0" conaffinity="0"'
    xml = (f'<mujoco><asset><mesh name="m" vertex="{_fmt(grid_box(1))}" face="{faces}" '
           f'inertia="shell"/><mesh name="n" vertex="{_fmt(prism(5))}"/></asset><worldbody>'
           f'<body><freejoint/><geom type="mesh" mesh="m" {ct} mass="1"/>'
           f'<geom type="mesh" mesh="n" {ct}/></body></worldbody></mujoco>')
    mm = _compare(xml)
    assert (mm.mesh_graphadr[0] >= 0) == collide
