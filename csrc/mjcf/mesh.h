// SPDX-License-Identifier: Apache-2.0
// The mesh part of the MJCF compiler: load a mesh asset (STL, OBJ, MSH or inline data) and
// process it the way MuJoCo 3.12's compiler does (mjCMesh::Process):
//
//   1. apply refpos, refquat and scale to the vertices (in double, from the float input);
//   2. if needed, build the convex hull with Qhull ("qhull Qt", plus "Q9 TA<maxhullvert-4>")
//      on the untransformed vertices and lay it out as MuJoCo's mesh_graph; a mesh without
//      faces takes the hull's triangles as its faces;
//      the hull's coplanar triangles are merged into polygons (MuJoCo's MakePolygons, in its
//      order), whose normals are computed on the final vertices;
//   3. compute the volume (or, for inertia="shell", the surface area), the center of mass and
//      the inertia per unit density: from the hull for inertia="convex", from the faces with
//      signed volumes for "exact", with absolute volumes for "legacy" (MuJoCo's default);
//   4. diagonalize the inertia with MuJoCo's Jacobi solver (pxu_eig3) and move the vertices into
//      the principal frame; mesh_pos and mesh_quat record that frame relative to the mesh's
//      original frame (after refpos/refquat/scale), and the vertices are rounded to float.
//
// Usage (the compiler owns one pxcMesh per mesh asset):
//
//   pxcMesh mesh;
//   pxc_meshInit(&mesh);
//   pxc_meshLoadFile(&mesh, path, st);            // or pxc_meshSetInline(&mesh, ...)
//   pxcMeshDef def;
//   pxc_defaultMeshDef(&def);                      // then copy scale, inertia, ... from the spec
//   def.needhull = <a geom of type mesh collides>;
//   pxc_meshProcess(&mesh, &def, st);
//   ... copy mesh.vert, mesh.face, mesh.graph, mesh.poly*, mesh.pos, mesh.quat into the model ...
//   pxc_meshFree(&mesh);
//
// Geom mass and inertia (MuJoCo's mjCGeom for type="mesh"): volume = pxc_meshVolumeRef(&mesh),
// mass = density * volume, geom_inertia = mass * (boxsz[1]^2 + boxsz[2]^2) / 3 (and cyclic), and
// the geom frame absorbs the mesh frame: geom_pos += geom_quat * mesh.pos, geom_quat *= mesh.quat.
#ifndef PX_MJCF_MESH_H_
#define PX_MJCF_MESH_H_

#include "px/pxstatus.h"

// MuJoCo's mjtMeshInertia (same values)
typedef enum {
  PX_MESH_INERTIA_CONVEX = 0,  // volume inertia of the convex hull
  PX_MESH_INERTIA_EXACT,       // volume inertia of the (closed, consistently oriented) mesh
  PX_MESH_INERTIA_LEGACY,      // face volumes taken as positive (MuJoCo's default)
  PX_MESH_INERTIA_SHELL        // surface inertia of the faces
} pxtMeshInertia;

// MuJoCo's mjtMeshBuiltin (same values)
typedef enum {
  PX_MESH_BUILTIN_NONE = 0,
  PX_MESH_BUILTIN_SPHERE,
  PX_MESH_BUILTIN_HEMISPHERE,
  PX_MESH_BUILTIN_CONE,
  PX_MESH_BUILTIN_SUPERTORUS,
  PX_MESH_BUILTIN_SUPERSPHERE,
  PX_MESH_BUILTIN_WEDGE,
  PX_MESH_BUILTIN_PLATE
} pxtMeshBuiltin;

// processing options, from the <mesh> element and the geoms that use it
typedef struct {
  double scale[3];    // per-axis scale (default 1 1 1); a negative product flips face winding
  double refpos[3];   // reference position subtracted from the vertices (default 0 0 0)
  double refquat[4];  // reference orientation (default 1 0 0 0)
  int inertia;        // pxtMeshInertia (default PX_MESH_INERTIA_LEGACY, as in MuJoCo 3.12)
  int maxhullvert;    // -1: no limit; otherwise at least 4
  int needhull;       // build mesh_graph: a mesh geom with contype/conaffinity or in a <pair>
                      // (forced on for inertia="convex" and for meshes without faces)
  const char* name;   // mesh name for messages (may be NULL)
} pxcMeshDef;

// one mesh asset; every array is owned and freed by pxc_meshFree
typedef struct {
  // geometry: as loaded before pxc_meshProcess, as stored in the model after it
  int nvert;    // number of vertices (mesh_vertnum)
  float* vert;  // vertex positions                                     (nvert x 3)
  int nface;    // number of triangles (mesh_facenum); 0 before processing: faces from the hull
  int* face;    // vertex indices of the triangles, counterclockwise     (nface x 3)

  // user normals (builtin wedge and plate only: a frame of 3 unit vectors per vertex, normal
  // then two tangents); transformed like MuJoCo's mesh_normal (refquat, inverse scale,
  // normalized in float, then into the principal frame). nnormal = 0, normal = NULL otherwise.
  int nnormal;    // number of 3-vectors (3 * nvert for per-vertex frames)
  float* normal;  // (nnormal x 3)

  // convex hull, MuJoCo's mesh_graph layout (szgraph = 0: no graph, mesh_graphadr = -1):
  //   numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
  //   edge_localid[numvert + 3*numface], face_globalid[3*numface]
  int szgraph;
  int* graph;  // (szgraph x 1)

  // polygons: coplanar hull triangles merged (MuJoCo's MakePolygons), in MuJoCo's order; only
  // for meshes with a graph (npoly = 0 and the arrays NULL otherwise)
  int npoly;           // number of polygons (mesh_polynum)
  int npolyvert;       // vertices over all polygons
  int* polyvertnum;    // vertices per polygon                             (npoly)
  int* polyvert;       // vertex ids of each polygon, one after the other  (npolyvert)
  double* polynormal;  // unit normal per polygon, in the final frame      (npoly x 3)
  int npolymap;        // entries of polymap (= npolyvert)
  int* polymapnum;     // polygons at each vertex                          (nvert)
  int* polymap;        // polygon ids per vertex, vertex after vertex      (npolymap)

  // results of pxc_meshProcess
  int processed;     // 1 after a successful pxc_meshProcess
  int inertia;       // pxtMeshInertia used
  double pos[3];     // mesh_pos: center of mass in the scaled mesh frame
  double quat[4];    // mesh_quat: principal axes in the scaled mesh frame
  double volume;     // volume (0 for shell inertia)
  double surface;    // surface area (shell inertia only, else 0)
  double eigval[3];  // principal moments of inertia per unit density (decreasing)
  double boxsz[3];   // half-sizes of the box with the same inertia (MuJoCo's inertia box)
  double aamm[6];    // axis-aligned bounds in the principal frame: min xyz, max xyz

  // provenance
  int msh;  // loaded from a MuJoCo .msh file (its winding is flipped at load for negative scale)
  char file[1024];  // file the mesh came from ("" for inline data)
} pxcMesh;

// Set mesh to the empty state (no allocation).
void pxc_meshInit(pxcMesh* mesh);

// Free every array of mesh and return it to the empty state; accepts partially built meshes.
void pxc_meshFree(pxcMesh* mesh);

// Default processing options (MuJoCo's mjs_defaultMesh).
void pxc_defaultMeshDef(pxcMeshDef* def);

// Load a mesh file into an empty mesh, chosen by extension (case-insensitive):
//   .stl  binary STL as MuJoCo reads it: 1 to 200000 triangles, coordinates within 2^30,
//         vertices merged when bitwise equal; ASCII STL ("solid ...") is also read, with the
//         same merging, although MuJoCo 3.12 rejects it;
//   .obj  v and f lines as MuJoCo 3.12.0's tinyobjloader reads them (strtold clamped to float
//         range, relative indices, ear-clipping triangulation of polygons, first shape only);
//         vt, vn, mtllib, usemtl, s are ignored; a file without faces gives a hull mesh;
//   .msh  MuJoCo's binary MSH format.
// Errors name the file and what is wrong (PX_ERR_MJCF; PX_ERR_UNSUPPORTED for other formats).
pxtStatus pxc_meshLoadFile(pxcMesh* mesh, const char* path, pxStatus* st);

// Set inline mesh data (MJCF vertex="..." face="...") into an empty mesh. Vertices are rounded
// to float, as MuJoCo stores them; nface may be 0 (the hull then gives the faces).
pxtStatus pxc_meshSetInline(pxcMesh* mesh, const double* vert, int nvert, const int* face,
                            int nface, pxStatus* st);

// Generate a builtin mesh (MuJoCo's mjs_makeMesh: builtin is a pxtMeshBuiltin, params as given
// in the MJCF) into an empty mesh: vertices, faces (none for wedge and cone: the hull gives them)
// and, for wedge and plate, per-vertex frames. plate sets *inertia to PX_MESH_INERTIA_SHELL as
// MuJoCo does. Errors carry MuJoCo's messages (PX_ERR_MJCF).
pxtStatus pxc_meshBuiltin(pxcMesh* mesh, int builtin, const double* params, int nparams,
                          int* inertia, const char* name, pxStatus* st);

// Process a loaded mesh (see the top of this file). On success mesh->vert, face, graph, pos,
// quat, volume/surface, eigval, boxsz and aamm hold MuJoCo's compiled values; on failure the
// mesh must be freed. Errors carry MuJoCo's messages (PX_ERR_MJCF) or PX_ERR_ARG for bad options.
pxtStatus pxc_meshProcess(pxcMesh* mesh, const pxcMeshDef* def, pxStatus* st);

// Volume, or surface area for shell inertia: what multiplies density into geom mass.
static inline double pxc_meshVolumeRef(const pxcMesh* mesh) {
  return mesh->inertia == PX_MESH_INERTIA_SHELL ? mesh->surface : mesh->volume;
}

#endif  // PX_MJCF_MESH_H_
