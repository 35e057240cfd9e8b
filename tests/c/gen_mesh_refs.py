# SPDX-License-Identifier: Apache-2.0
"""Generate tests/c/mesh_refs.h: reference numbers for tests/c/test_mesh.c, taken from MuJoCo.

Every number in the generated header comes from the `mujoco` package (3.12), never from phalanx:
for each mesh case a one-mesh, one-geom MJCF is compiled and model.mesh_* and body mass/inertia
(density 1) are read back; for the eigen solver, mujoco.mju_eig3 and the compiler's fullinertia
path (mjuu_eig3) are sampled on fixed matrices.

Run from anywhere with a Python that has mujoco 3.12 installed:
    python tests/c/gen_mesh_refs.py
"""

import os
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS_REL = "../shared/models/mujoco"  # relative to the repo root, where the tests run
MODELS = os.path.normpath(os.path.join(REPO, MODELS_REL))
MODES = ["convex", "exact", "legacy", "shell"]
NSAMPLE = 8  # vertex samples per mesh

# (name, file relative to MODELS or None for inline, scale, inertia, maxhullvert, needhull,
#  refpos, refquat)
CASES = [
    ("mug_legacy", "model/mug/mug.obj", (0.01, 0.01, 0.01), 2, -1, 0, None, None),
    ("mug_convex", "model/mug/mug.obj", (0.01, 0.01, 0.01), 0, -1, 1, None, None),
    ("cube_stl_legacy", "test/user/testdata/cube.stl", (1, 1, 1), 2, -1, 1, None, None),
    ("cube_stl_shell_scaled", "test/user/testdata/cube.stl", (2, 0.5, 3), 3, -1, 0, None, None),
    ("dup_stl_hull", "test/user/testdata/duplicate_vertices.stl", (1, 1, 1), 2, -1, 1, None, None),
    ("bunny_convex_hv16", "model/replicate/bunny.obj", (1, 1, 1), 0, 16, 1, None, None),
    ("bunny_exact_ref", "test/user/testdata/stanford_bunny.obj", (1.5, 1.5, 1.5), 1, -1, 0,
     (0.01, -0.02, 0.03), (0.9, 0.1, -0.3, 0.2)),
    ("torus_shell", "test/user/testdata/torus.obj", (1, 1, 1), 3, -1, 1, None, None),
    ("cube_msh_lefthand", "test/user/testdata/cube.msh", (-1, 1, 1), 2, -1, 1, None, None),
    ("cupquad_exact", "test/user/testdata/cube_cup_quad.obj", (1, 1, 1), 1, -1, 1, None, None),
    ("cube_obj_negscale", "test/user/testdata/cube.obj", (1, -2, 1), 2, -1, 0, None, None),
    ("cloud_inline", None, (1, 1, 1), 0, -1, 0, None, None),
]


def cloud():
    rng = np.random.default_rng(12)
    v = rng.normal(size=(24, 3)) * np.array([1.0, 0.5, 0.25])
    return np.float32(np.round(v, 4))


def fnv(ints):
    h = 2166136261
    for x in np.asarray(ints, dtype=np.int64).ravel():
        h ^= int(x) & 0xFFFFFFFF
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def mesh_xml(case):
    name, rel, scale, mode, mhv, hull, refpos, refquat = case
    attrs = 'scale="%s" inertia="%s"' % (" ".join("%.17g" % s for s in scale), MODES[mode])
    if mhv != -1:
        attrs += ' maxhullvert="%d"' % mhv
    if refpos is not None:
        attrs += ' refpos="%s" refquat="%s"' % (
            " ".join("%.17g" % x for x in refpos),
            " ".join("%.17g" % x for x in refquat),
        )
    if rel is None:
        attrs += ' vertex="%s"' % " ".join("%.9g" % x for x in cloud().ravel())
    else:
        attrs += ' file="%s"' % os.path.join(MODELS, rel)
    ct = 1 if hull else 0
    return (
        '<mujoco><asset><mesh name="m" %s/></asset><worldbody><body>'
        '<geom type="mesh" mesh="m" density="1" contype="%d" conaffinity="%d"/>'
        "</body></worldbody></mujoco>" % (attrs, ct, ct)
    )


def c_double(x):
    return "%.17g" % x


def c_float(x):
    s = "%.9g" % x
    if "." not in s and "e" not in s and "n" not in s:
        s += ".0"
    return s + "f"


def mesh_case(case):
    m = mujoco.MjModel.from_xml_string(mesh_xml(case))
    va, vn = m.mesh_vertadr[0], m.mesh_vertnum[0]
    fa, fn = m.mesh_faceadr[0], m.mesh_facenum[0]
    vert = m.mesh_vert[va : va + vn]
    face = m.mesh_face[fa : fa + fn]
    graph = m.mesh_graph[m.mesh_graphadr[0] :] if m.mesh_graphadr[0] >= 0 else np.zeros(0, int)
    idx = np.unique(np.linspace(0, vn - 1, NSAMPLE).astype(int))
    idx = np.concatenate([idx, np.full(NSAMPLE - len(idx), idx[-1])])
    return dict(
        nvert=int(vn),
        nface=int(fn),
        szgraph=int(len(graph)),
        facehash=fnv(face),
        graphhash=fnv(graph),
        vertsum=float(np.sum(vert.astype(np.float64))),
        vertabs=float(np.sum(np.abs(vert.astype(np.float64)))),
        sample=idx,
        samplev=vert[idx],
        pos=m.mesh_pos[0],
        quat=m.mesh_quat[0],
        mass=float(m.body_mass[1]),
        inertia=np.sort(m.body_inertia[1])[::-1],
    )


def eig_cases():
    """Symmetric matrices: physical inertias (fullinertia path) and arbitrary ones."""
    rng = np.random.default_rng(5)
    phys, arb = [], []
    specials = [
        np.eye(3),
        np.diag([1.0, 2, 3]),
        np.diag([3.0, 2, 1]),
        np.diag([1.0, 1, 2]),
        np.diag([2.0, 1, 1]),
        np.diag([1.0, 2, 1]),
        np.array([[2.0, 0.5, 0], [0.5, 2, 0], [0, 0, 1.5]]),
        np.array([[2.0, 0, 0.5], [0, 1.5, 0], [0.5, 0, 2]]),
    ]
    phys += specials
    for i in range(12):
        q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        d = rng.uniform(0.5, 2, 3)
        if i % 3 == 1:
            d[1] = d[0]  # repeated eigenvalue
        if i % 3 == 2:
            d[:] = d[0] + np.array([0, 1e-13, -1e-13])  # nearly triple
        d = np.sort(d)[::-1]
        d[0] = min(d[0], d[1] + d[2])
        phys.append((q @ np.diag(d) @ q.T + (q @ np.diag(d) @ q.T).T) / 2)
    arb += [np.zeros((3, 3)), np.ones((3, 3)), np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 0]]), -np.eye(3)]
    for i in range(6):
        a = rng.normal(size=(3, 3)) * 10 ** rng.uniform(-3, 3)
        arb.append((a + a.T) / 2)
    out = []
    for kind, mats in (("phys", phys), ("arb", arb)):
        for mat in mats:
            ev, vec, q = np.zeros(3), np.zeros(9), np.zeros(4)
            mujoco.mju_eig3(ev, vec, q, mat.ravel().copy())
            body = None
            if kind == "phys":
                fi = [mat[0, 0], mat[1, 1], mat[2, 2], mat[0, 1], mat[0, 2], mat[1, 2]]
                xml = (
                    '<mujoco><worldbody><body><inertial pos="0 0 0" mass="1" fullinertia="%s"/>'
                    "<freejoint/></body></worldbody></mujoco>" % " ".join(c_double(x) for x in fi)
                )
                mm = mujoco.MjModel.from_xml_string(xml)
                body = (mm.body_inertia[1].copy(), mm.body_iquat[1].copy())
            out.append((mat, ev, q, body))
    return out


def arr(vals, fmt=c_double):
    return "{" + ", ".join(fmt(v) for v in np.ravel(vals)) + "}"


def main():
    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// Generated by tests/c/gen_mesh_refs.py from mujoco %s; do not edit." % mujoco.__version__,
        "// Reference values for tests/c/test_mesh.c (mesh processing and the 3x3 eigen solver).",
        "#ifndef PX_TESTS_C_MESH_REFS_H_",
        "#define PX_TESTS_C_MESH_REFS_H_",
        "",
        "// clang-format off",
        "#define MESH_REF_NSAMPLE %d" % NSAMPLE,
        "#define MESH_REF_MODELS \"%s\"" % MODELS_REL,
        "",
        "typedef struct {",
        "  const char* name;",
        "  const char* file;  // relative to MESH_REF_MODELS; NULL: inline cloud (kCloud)",
        "  double scale[3];",
        "  int mode, maxhullvert, needhull, hasref;  // mode: pxtMeshInertia",
        "  double refpos[3], refquat[4];",
        "  int nvert, nface, szgraph;",
        "  unsigned facehash, graphhash;  // FNV-1a over mesh_face / mesh_graph",
        "  double vertsum, vertabs;       // sum and sum of |.| of mesh_vert, in index order",
        "  int sample[MESH_REF_NSAMPLE];",
        "  float samplev[MESH_REF_NSAMPLE][3];",
        "  double pos[3], quat[4];",
        "  double mass;        // body mass at density 1 (volume, or area for shell)",
        "  double inertia[3];  // body inertia, decreasing",
        "} MeshRef;",
        "",
        "typedef struct {",
        "  double mat[9];",
        "  double eigval[3], quat[4];  // mujoco.mju_eig3",
        "  int hasbody;",
        "  double bodyinertia[3], bodyquat[4];  // compiler (mjuu_eig3) via <inertial fullinertia>",
        "} EigRef;",
        "",
    ]
    c = cloud()
    lines.append("static const float kCloud[%d][3] = {" % len(c))
    lines += ["  %s," % arr(v, c_float) for v in c]
    lines.append("};")
    lines.append("")
    lines.append("static const MeshRef kMeshRefs[] = {")
    for case in CASES:
        name, rel, scale, mode, mhv, hull, refpos, refquat = case
        r = mesh_case(case)
        hasref = refpos is not None
        rp = refpos if hasref else (0, 0, 0)
        rq = refquat if hasref else (1, 0, 0, 0)
        lines.append("  {\"%s\", %s, %s, %d, %d, %d, %d, %s, %s," % (
            name, '"%s"' % rel if rel else "NULL", arr(scale), mode, mhv, hull, int(hasref),
            arr(rp), arr(rq)))
        lines.append("   %d, %d, %d, %uu, %uu, %s, %s," % (
            r["nvert"], r["nface"], r["szgraph"], r["facehash"], r["graphhash"],
            c_double(r["vertsum"]), c_double(r["vertabs"])))
        lines.append("   %s," % arr(r["sample"], lambda x: "%d" % x))
        lines.append("   {%s}," % ", ".join(arr(v, c_float) for v in r["samplev"]))
        lines.append("   %s, %s, %s, %s}," % (
            arr(r["pos"]), arr(r["quat"]), c_double(r["mass"]), arr(r["inertia"])))
    lines.append("};")
    lines.append("")
    lines.append("static const EigRef kEigRefs[] = {")
    for mat, ev, q, body in eig_cases():
        b = body if body is not None else (np.zeros(3), np.zeros(4))
        lines.append("  {%s," % arr(mat))
        lines.append("   %s, %s, %d, %s, %s}," % (
            arr(ev), arr(q), int(body is not None), arr(b[0]), arr(b[1])))
    lines.append("};")
    lines += ["// clang-format on", "", "#endif  // PX_TESTS_C_MESH_REFS_H_", ""]
    path = os.path.join(HERE, "mesh_refs.h")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
