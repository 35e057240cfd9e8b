// SPDX-License-Identifier: Apache-2.0
// MJCF -> spec: top-level sections in MuJoCo's fixed order, <default> classes, and the body
// tree (bodies, frames, inertials, joints, geoms, sites, cameras, lights) plus the assets the
// tree refers to (meshes, materials, textures, height fields). Elements and attributes that
// phalanx does not support are errors naming them, never silently ignored.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/misc.h"
#include "mjcf/spec.h"
#include "util/quat.h"

static pxtStatus unsupported(pxcCtx* c, pxcNode* n, const char* what) {
  return PX_FAIL(c->st, PX_ERR_UNSUPPORTED, "%s:%d: <%s>: %s is not supported by phalanx yet",
                 n->file, n->line, n->name, what);
}

static void copy3(double* d, double a, double b, double c) {
  d[0] = a;
  d[1] = b;
  d[2] = c;
}

static const double kSolref[2] = {0.02, 1};
static const double kSolimp[5] = {0.9, 0.95, 0.001, 0.5, 2};

//---------------------------------- MuJoCo's element defaults -------------------------------------

static void initJoint(pxcJoint* j) {
  memset(j, 0, sizeof(*j));
  j->type = PX_JNT_HINGE;
  copy3(j->axis, 0, 0, 1);
  j->limited = 2;
  j->actfrclimited = 2;
  j->align = 2;
  memcpy(j->solref_limit, kSolref, sizeof(kSolref));
  memcpy(j->solref_friction, kSolref, sizeof(kSolref));
  memcpy(j->solimp_limit, kSolimp, sizeof(kSolimp));
  memcpy(j->solimp_friction, kSolimp, sizeof(kSolimp));
}

static void initGeom(pxcGeom* g) {
  memset(g, 0, sizeof(*g));
  g->type = PX_GEOM_SPHERE;
  g->contype = 1;
  g->conaffinity = 1;
  g->condim = 3;
  copy3(g->friction, 1, 0.005, 0.0001);
  g->mass = NAN;  // not given: from density (user values are finite)
  g->density = 1000;
  g->solmix = 1;
  memcpy(g->solref, kSolref, sizeof(kSolref));
  memcpy(g->solimp, kSolimp, sizeof(kSolimp));
  g->quat[0] = 1;
  g->fitscale = 1;
  g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.5f;
  g->rgba[3] = 1;
  g->fluidcoef[0] = 0.5;
  g->fluidcoef[1] = 0.25;
  g->fluidcoef[2] = 1.5;
  g->fluidcoef[3] = 1;
  g->fluidcoef[4] = 1;
}

static void initSite(pxcSite* s) {
  memset(s, 0, sizeof(*s));
  s->type = PX_GEOM_SPHERE;
  s->quat[0] = 1;
  copy3(s->size, 0.005, 0.005, 0.005);
  s->rgba[0] = s->rgba[1] = s->rgba[2] = 0.5f;
  s->rgba[3] = 1;
}

static void initCamera(pxcCamera* k) {
  memset(k, 0, sizeof(*k));
  k->fovy = 45;
  k->ipd = 0.068;
  k->resolution[0] = k->resolution[1] = 1;
  k->output = 1;
  k->quat[0] = 1;
}

static void initLight(pxcLight* l) {
  memset(l, 0, sizeof(*l));
  l->castshadow = 1;
  l->active = 1;
  copy3(l->dir, 0, 0, -1);
  l->bulbradius = 0.02f;
  l->range = 10;
  l->attenuation[0] = 1;
  l->cutoff = 45;
  l->softness = 0.2f;
  l->exponent = 10;
  l->diffuse[0] = l->diffuse[1] = l->diffuse[2] = 0.7f;
  l->specular[0] = l->specular[1] = l->specular[2] = 0.3f;
}

static void initMaterial(pxcMaterial* m) {
  memset(m, 0, sizeof(*m));
  m->texrepeat[0] = m->texrepeat[1] = 1;
  m->specular = 0.5f;
  m->shininess = 0.5f;
  m->metallic = -1;
  m->roughness = -1;
  m->rgba[0] = m->rgba[1] = m->rgba[2] = m->rgba[3] = 1;
}

static void initMesh(pxcMeshSpec* m) {
  memset(m, 0, sizeof(*m));
  copy3(m->scale, 1, 1, 1);
  m->refquat[0] = 1;
  m->inertia = 2;  // legacy
  m->maxhullvert = -1;
}

//---------------------------------- element readers (also used by defaults) -----------------------

static const char* const kGeomWords[] = {"plane",    "hfield", "sphere", "capsule", "ellipsoid",
                                         "cylinder", "box",    "mesh",   "sdf",     NULL};
static const int kGeomValues[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};

static pxtStatus readJoint(pxcCtx* c, pxcNode* n, pxcJoint* j, int isdefault) {
  static const char* const types[] = {"free", "ball", "slide", "hinge", NULL};
  static const int typev[] = {0, 1, 2, 3};
  if (!isdefault) READ(pxc_readName(c, n, "name", j->name));
  READ(pxc_readKeyword(c, n, "type", types, typev, &j->type));
  READ(pxc_readInt(c, n, "group", &j->group));
  READ(pxc_readNums(c, n, "pos", 3, 3, j->pos, NULL));
  READ(pxc_readNums(c, n, "axis", 3, 3, j->axis, NULL));
  READ(pxc_readNums(c, n, "springdamper", 2, 2, j->springdamper, NULL));
  READ(pxc_readTriBool(c, n, "limited", &j->limited));
  READ(pxc_readTriBool(c, n, "actuatorfrclimited", &j->actfrclimited));
  READ(pxc_readNums(c, n, "solreflimit", 1, 2, j->solref_limit, NULL));
  READ(pxc_readNums(c, n, "solimplimit", 1, 5, j->solimp_limit, NULL));
  READ(pxc_readNums(c, n, "solreffriction", 1, 2, j->solref_friction, NULL));
  READ(pxc_readNums(c, n, "solimpfriction", 1, 5, j->solimp_friction, NULL));
  READ(pxc_readNums(c, n, "stiffness", 1, 3, j->stiffness, NULL));
  READ(pxc_readNums(c, n, "range", 2, 2, j->range, NULL));
  READ(pxc_readNums(c, n, "actuatorfrcrange", 2, 2, j->actfrcrange, NULL));
  READ(pxc_readBool(c, n, "actuatorgravcomp", &j->actgravcomp));
  READ(pxc_readNum(c, n, "margin", &j->margin));
  READ(pxc_readNum(c, n, "ref", &j->ref));
  READ(pxc_readNum(c, n, "springref", &j->springref));
  READ(pxc_readNum(c, n, "armature", &j->armature));
  READ(pxc_readNums(c, n, "damping", 1, 3, j->damping, NULL));
  READ(pxc_readNum(c, n, "frictionloss", &j->frictionloss));
  READ(pxc_readUser(c, n, &j->user));
  return PX_OK;
}

static pxtStatus readGeom(pxcCtx* c, pxcNode* n, pxcGeom* g, int isdefault) {
  if (!isdefault) READ(pxc_readName(c, n, "name", g->name));
  READ(pxc_readKeyword(c, n, "type", kGeomWords, kGeomValues, &g->type));
  READ(pxc_readInt(c, n, "contype", &g->contype));
  READ(pxc_readInt(c, n, "conaffinity", &g->conaffinity));
  READ(pxc_readInt(c, n, "condim", &g->condim));
  READ(pxc_readInt(c, n, "group", &g->group));
  READ(pxc_readInt(c, n, "priority", &g->priority));
  int k = 0;
  int r = pxc_readNums(c, n, "size", 1, 3, g->size, &k);
  READ(r);
  if (r) g->nsize = k;
  READ(pxc_readName(c, n, "material", g->material));
  READ(pxc_readNums(c, n, "friction", 1, 3, g->friction, NULL));
  READ(pxc_readNum(c, n, "mass", &g->mass));
  READ(pxc_readNum(c, n, "density", &g->density));
  READ(pxc_readBool(c, n, "shellinertia", &g->shellinertia));
  READ(pxc_readNum(c, n, "solmix", &g->solmix));
  READ(pxc_readNums(c, n, "solref", 1, 2, g->solref, NULL));
  READ(pxc_readNums(c, n, "solimp", 1, 5, g->solimp, NULL));
  READ(pxc_readNum(c, n, "margin", &g->margin));
  READ(pxc_readNum(c, n, "gap", &g->gap));
  READ(pxc_readNums(c, n, "surfacevel", 1, 6, g->surfacevel, NULL));
  READ(pxc_readNum(c, n, "adhesion", &g->adhesion));
  r = pxc_readNums(c, n, "fromto", 6, 6, g->fromto, NULL);
  READ(r);
  if (r) g->hasfromto = 1;
  READ(pxc_readNums(c, n, "pos", 3, 3, g->pos, NULL));
  READ(pxc_readOrientation(c, n, g->quat));
  READ(pxc_readName(c, n, "hfield", g->hfield));
  READ(pxc_readName(c, n, "mesh", g->mesh));
  READ(pxc_readNum(c, n, "fitscale", &g->fitscale));
  READ(pxc_readFloats(c, n, "rgba", 4, 4, g->rgba));
  static const char* const fluid[] = {"none", "ellipsoid", NULL};
  static const int fluidv[] = {0, 1};
  READ(pxc_readKeyword(c, n, "fluidshape", fluid, fluidv, &g->fluidshape));
  READ(pxc_readNums(c, n, "fluidcoef", 1, 5, g->fluidcoef, NULL));
  READ(pxc_readUser(c, n, &g->user));
  return PX_OK;
}

static pxtStatus readSite(pxcCtx* c, pxcNode* n, pxcSite* s, int isdefault) {
  if (!isdefault) READ(pxc_readName(c, n, "name", s->name));
  READ(pxc_readKeyword(c, n, "type", kGeomWords, kGeomValues, &s->type));
  READ(pxc_readInt(c, n, "group", &s->group));
  READ(pxc_readNums(c, n, "pos", 3, 3, s->pos, NULL));
  READ(pxc_readOrientation(c, n, s->quat));
  READ(pxc_readName(c, n, "material", s->material));
  READ(pxc_readNums(c, n, "size", 1, 3, s->size, NULL));
  int r = pxc_readNums(c, n, "fromto", 6, 6, s->fromto, NULL);
  READ(r);
  if (r) s->hasfromto = 1;
  READ(pxc_readFloats(c, n, "rgba", 4, 4, s->rgba));
  READ(pxc_readUser(c, n, &s->user));
  return PX_OK;
}

static const char* const kCamlightWords[] = {"fixed",      "track",         "trackcom",
                                             "targetbody", "targetbodycom", NULL};
static const int kCamlightValues[] = {0, 1, 2, 3, 4};

static pxtStatus readCamera(pxcCtx* c, pxcNode* n, pxcCamera* k, int isdefault) {
  static const char* const proj[] = {"perspective", "orthographic", NULL};
  static const int projv[] = {0, 1};
  if (!isdefault) {
    READ(pxc_readName(c, n, "name", k->name));
    READ(pxc_readName(c, n, "target", k->target));
  }
  READ(pxc_readKeyword(c, n, "projection", proj, projv, &k->projection));
  READ(pxc_readNum(c, n, "fovy", &k->fovy));
  READ(pxc_readNum(c, n, "ipd", &k->ipd));
  READ(pxc_readInts(c, n, "resolution", 2, 2, k->resolution));
  READ(pxc_readNums(c, n, "pos", 3, 3, k->pos, NULL));
  READ(pxc_readOrientation(c, n, k->quat));
  READ(pxc_readKeyword(c, n, "mode", kCamlightWords, kCamlightValues, &k->mode));
  int r = 0;
  r |= pxc_readFloats(c, n, "focal", 2, 2, k->focal);
  r |= pxc_readFloats(c, n, "focalpixel", 2, 2, k->focalpixel);
  r |= pxc_readFloats(c, n, "principal", 2, 2, k->principal);
  r |= pxc_readFloats(c, n, "principalpixel", 2, 2, k->principalpixel);
  r |= pxc_readFloats(c, n, "sensorsize", 2, 2, k->sensorsize);
  if (c->st->code) return c->st->code;
  if (r) k->hasintrinsic = 1;
  if (pxc_xmlAttr(n, "output")) return unsupported(c, n, "attribute 'output'");
  READ(pxc_readUser(c, n, &k->user));
  return PX_OK;
}

static pxtStatus readLight(pxcCtx* c, pxcNode* n, pxcLight* l, int isdefault) {
  static const char* const types[] = {"spot", "directional", "point", "image", NULL};
  static const int typev[] = {0, 1, 2, 3};
  if (!isdefault) {
    READ(pxc_readName(c, n, "name", l->name));
    READ(pxc_readName(c, n, "target", l->target));
    READ(pxc_readName(c, n, "texture", l->texture));
  }
  int dir = -1;
  READ(pxc_readBool(c, n, "directional", &dir));
  if (dir >= 0) l->type = dir ? PX_LIGHT_DIRECTIONAL : PX_LIGHT_SPOT;
  READ(pxc_readKeyword(c, n, "type", types, typev, &l->type));
  READ(pxc_readBool(c, n, "castshadow", &l->castshadow));
  READ(pxc_readBool(c, n, "active", &l->active));
  READ(pxc_readNums(c, n, "pos", 3, 3, l->pos, NULL));
  READ(pxc_readNums(c, n, "dir", 3, 3, l->dir, NULL));
  READ(pxc_readFloats(c, n, "bulbradius", 1, 1, &l->bulbradius));
  READ(pxc_readFloats(c, n, "intensity", 1, 1, &l->intensity));
  READ(pxc_readFloats(c, n, "range", 1, 1, &l->range));
  READ(pxc_readFloats(c, n, "attenuation", 3, 3, l->attenuation));
  READ(pxc_readFloats(c, n, "cutoff", 1, 1, &l->cutoff));
  READ(pxc_readFloats(c, n, "softness", 1, 1, &l->softness));
  READ(pxc_readFloats(c, n, "exponent", 1, 1, &l->exponent));
  READ(pxc_readFloats(c, n, "ambient", 3, 3, l->ambient));
  READ(pxc_readFloats(c, n, "diffuse", 3, 3, l->diffuse));
  READ(pxc_readFloats(c, n, "specular", 3, 3, l->specular));
  READ(pxc_readKeyword(c, n, "mode", kCamlightWords, kCamlightValues, &l->mode));
  return PX_OK;
}

static pxtStatus readMaterial(pxcCtx* c, pxcNode* n, pxcMaterial* m, int isdefault) {
  if (!isdefault) READ(pxc_readName(c, n, "name", m->name));
  READ(pxc_readName(c, n, "texture", m->texture));
  READ(pxc_readFloats(c, n, "texrepeat", 2, 2, m->texrepeat));
  READ(pxc_readBool(c, n, "texuniform", &m->texuniform));
  READ(pxc_readFloats(c, n, "emission", 1, 1, &m->emission));
  READ(pxc_readFloats(c, n, "specular", 1, 1, &m->specular));
  READ(pxc_readFloats(c, n, "shininess", 1, 1, &m->shininess));
  READ(pxc_readFloats(c, n, "reflectance", 1, 1, &m->reflectance));
  READ(pxc_readFloats(c, n, "metallic", 1, 1, &m->metallic));
  READ(pxc_readFloats(c, n, "roughness", 1, 1, &m->roughness));
  READ(pxc_readFloats(c, n, "rgba", 4, 4, m->rgba));
  for (int i = 0; i < n->nchild; i++) {
    return unsupported(c, n->child[i], "material layers");
  }
  return PX_OK;
}

static pxtStatus readMesh(pxcCtx* c, pxcNode* n, pxcMeshSpec* m, int isdefault) {
  static const char* const inert[] = {"convex", "exact", "legacy", "shell", NULL};
  static const int inertv[] = {0, 1, 2, 3};
  if (!isdefault) {
    READ(pxc_readName(c, n, "name", m->name));
    READ(pxc_readString(c, n, "file", m->file, sizeof(m->file)));
    READ(pxc_readNums(c, n, "refpos", 3, 3, m->refpos, NULL));
    READ(pxc_readNums(c, n, "refquat", 4, 4, m->refquat, NULL));
    READ(pxc_readList(c, n, "vertex", &m->vertex, &m->nvertex));
    double* face = NULL;
    int nface = 0;
    int r = pxc_readList(c, n, "face", &face, &nface);
    READ(r);
    if (r) {
      m->face = (int*)malloc(sizeof(int) * (size_t)(nface ? nface : 1));
      if (!m->face) {
        free(face);
        return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
      }
      for (int i = 0; i < nface; i++) {
        double f = face[i];
        if (!(f >= -2147483648.0 && f <= 2147483647.0) || f != (int)f) {
          free(face);
          return pxc_error(c, n, "attribute 'face': %g is not an integer vertex index", f);
        }
        m->face[i] = (int)f;
      }
      m->nface = nface;
      free(face);
    }
    // builtin meshes (MuJoCo's mjs_makeMesh, csrc/mjcf/mesh_builtin.c); "none" is kept as -1:
    // MuJoCo rejects it as an unsupported mesh type
    static const char* const builtin[] = {"none",  "sphere",     "hemisphere",
                                          "cone",  "supertorus", "supersphere",
                                          "wedge", "plate",      NULL};
    static const int builtinv[] = {-1, 1, 2, 3, 4, 5, 6, 7};
    READ(pxc_readKeyword(c, n, "builtin", builtin, builtinv, &m->builtin));
    if (m->builtin) {
      double* params = NULL;
      int nparams = 0;
      r = pxc_readList(c, n, "params", &params, &nparams);
      READ(r);
      if (!r) return pxc_error(c, n, "missing required attribute 'params'");
      for (int i = 0; i < nparams && i < 8; i++) m->params[i] = params[i];
      m->nparams = nparams;
      free(params);
    }
    static const char* const unsup[] = {"normal",       "texcoord",     "material",
                                        "content_type", "smoothnormal", NULL};
    for (int i = 0; unsup[i]; i++) {
      if (pxc_xmlAttr(n, unsup[i])) {
        char what[64];
        snprintf(what, sizeof(what), "mesh attribute '%s'", unsup[i]);
        return unsupported(c, n, what);
      }
    }
  }
  READ(pxc_readNums(c, n, "scale", 3, 3, m->scale, NULL));
  READ(pxc_readKeyword(c, n, "inertia", inert, inertv, &m->inertia));
  READ(pxc_readInt(c, n, "maxhullvert", &m->maxhullvert));
  if (m->maxhullvert != -1 && m->maxhullvert < 4) {
    return pxc_error(c, n, "maxhullvert must be larger than 3, got %d", m->maxhullvert);
  }
  return PX_OK;
}

//---------------------------------- default classes -----------------------------------------------

int pxc_findClass(const pxcSpec* s, const char* name) {
  for (int i = 0; i < s->ndflt; i++) {
    if (!strcmp(s->dflt[i].name, name)) return i;
  }
  return -1;
}

static int isActuatorKind(const char* name) {
  static const char* const kinds[] = {"general", "motor",    "position", "velocity", "intvelocity",
                                      "damper",  "cylinder", "muscle",   "adhesion", "orientation",
                                      "pid",     "dcmotor",  NULL};
  for (int i = 0; kinds[i]; i++) {
    if (!strcmp(name, kinds[i])) return 1;
  }
  return 0;
}

// class id an element uses: its class attribute, else the inherited childclass
static int elementClass(pxcCtx* c, pxcNode* n, int inherited, int* out) {
  const char* cls = pxc_xmlAttr(n, "class");
  if (!cls) {
    *out = inherited;
    return 1;
  }
  int id = pxc_findClass(c->spec, cls);
  if (id < 0) {
    pxc_error(c, n, "unknown default class '%s'", cls);
    return -1;
  }
  *out = id;
  return 1;
}

static pxtStatus parseDefault(pxcCtx* c, pxcNode* n, int parent) {
  pxcSpec* s = c->spec;
  int id = PXC_ADD(c, s, dflt);
  if (id < 0) return c->st->code;
  pxcDefault* d = s->dflt + id;
  d->src.file = n->file;
  d->src.line = n->line;
  if (parent < 0) {
    strcpy(d->name, "main");
    const char* cls = pxc_xmlAttr(n, "class");
    if (cls && strcmp(cls, "main")) {
      return pxc_error(c, n, "the top-level default class must be 'main', not '%s'", cls);
    }
    initJoint(&d->joint);
    initGeom(&d->geom);
    initSite(&d->site);
    initCamera(&d->camera);
    initLight(&d->light);
    initMaterial(&d->material);
    initMesh(&d->mesh);
    pxc_initTendon(&d->tendon);
    pxc_initActuator(&d->actuator);
    pxc_initEquality(&d->equality);
    pxc_initPair(&d->pair);
  } else {
    *d = s->dflt[parent];  // inherit everything from the parent class
    d->src.file = n->file;
    d->src.line = n->line;
    int r = pxc_readName(c, n, "class", d->name);
    if (r < 0) return c->st->code;
    if (r == 0 || !d->name[0]) return pxc_error(c, n, "a nested default needs a class name");
    for (int i = 0; i < id; i++) {
      if (!strcmp(s->dflt[i].name, d->name)) {
        return pxc_error(c, n, "repeated default class name '%s'", d->name);
      }
    }
  }
  s->dflt[id].parentid = parent;
  TRY(pxc_checkUnused(c, n));

  // element defaults first, nested classes after (they inherit the finished class)
  for (int i = 0; i < n->nchild; i++) {
    pxcNode* ch = n->child[i];
    d = s->dflt + id;
    const char* e = ch->name;
    if (!strcmp(e, "default")) continue;
    if (!strcmp(e, "joint")) {
      TRY(readJoint(c, ch, &d->joint, 1));
    } else if (!strcmp(e, "geom")) {
      TRY(readGeom(c, ch, &d->geom, 1));
    } else if (!strcmp(e, "site")) {
      TRY(readSite(c, ch, &d->site, 1));
    } else if (!strcmp(e, "camera")) {
      TRY(readCamera(c, ch, &d->camera, 1));
    } else if (!strcmp(e, "light")) {
      TRY(readLight(c, ch, &d->light, 1));
    } else if (!strcmp(e, "material")) {
      TRY(readMaterial(c, ch, &d->material, 1));
    } else if (!strcmp(e, "mesh")) {
      TRY(readMesh(c, ch, &d->mesh, 1));
    } else if (!strcmp(e, "tendon")) {
      TRY(pxc_readTendon(c, ch, &d->tendon));
    } else if (!strcmp(e, "equality")) {
      TRY(pxc_readEquality(c, ch, &d->equality));
    } else if (!strcmp(e, "pair")) {
      TRY(pxc_readPair(c, ch, &d->pair));
    } else if (isActuatorKind(e)) {
      TRY(pxc_readActuator(c, ch, e, &d->actuator));
    } else {
      return pxc_error(c, ch, "unknown element in <default>");
    }
    TRY(pxc_checkUnused(c, ch));
    if (ch->nchild && strcmp(e, "material")) {
      return pxc_error(c, ch->child[0], "unexpected child element in a default <%s>", e);
    }
  }
  for (int i = 0; i < n->nchild; i++) {
    if (!strcmp(n->child[i]->name, "default")) TRY(parseDefault(c, n->child[i], id));
  }
  return PX_OK;
}

//---------------------------------- top-level settings --------------------------------------------

static pxtStatus parseCompiler(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  static const char* const angle[] = {"radian", "degree", NULL};
  static const int anglev[] = {0, 1};
  static const char* const coord[] = {"local", "global", NULL};
  static const int coordv[] = {0, 1};
  int coordinate = 0;
  READ(pxc_readKeyword(c, n, "coordinate", coord, coordv, &coordinate));
  if (coordinate == 1) {
    return pxc_error(c, n,
                     "global coordinates are no longer supported (MuJoCo 3 rejects them); "
                     "convert the model to local coordinates");
  }
  READ(pxc_readKeyword(c, n, "angle", angle, anglev, &s->degree));
  char seq[8] = "";
  int r = pxc_readString(c, n, "eulerseq", seq, sizeof(seq));
  READ(r);
  if (r) {
    if (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3) {
      return pxc_error(c, n, "attribute 'eulerseq': expected 3 characters from xyzXYZ, got '%s'",
                       seq);
    }
    memcpy(s->eulerseq, seq, 4);
  }
  READ(pxc_readTriBool(c, n, "inertiafromgeom", &s->inertiafromgeom));
  READ(pxc_readInts(c, n, "inertiagrouprange", 2, 2, s->inertiagrouprange));
  READ(pxc_readBool(c, n, "autolimits", &s->autolimits));
  READ(pxc_readNum(c, n, "boundmass", &s->boundmass));
  READ(pxc_readNum(c, n, "boundinertia", &s->boundinertia));
  READ(pxc_readNum(c, n, "settotalmass", &s->settotalmass));
  READ(pxc_readBool(c, n, "balanceinertia", &s->balanceinertia));
  READ(pxc_readBool(c, n, "fusestatic", &s->fusestatic));
  READ(pxc_readBool(c, n, "discardvisual", &s->discardvisual));
  READ(pxc_readBool(c, n, "alignfree", &s->alignfree));
  char dir[1024];
  r = pxc_readString(c, n, "assetdir", dir, sizeof(dir));
  READ(r);
  if (r) {
    strcpy(s->meshdir, dir);
    strcpy(s->texturedir, dir);
  }
  READ(pxc_readString(c, n, "meshdir", s->meshdir, sizeof(s->meshdir)));
  READ(pxc_readString(c, n, "texturedir", s->texturedir, sizeof(s->texturedir)));
  int dummy;
  READ(pxc_readBool(c, n, "fitaabb", &s->fitaabb));
  static const char* const conflict[] = {"warning", "merge", "error", NULL};
  static const int conflictv[] = {0, 1, 2};
  READ(pxc_readKeyword(c, n, "conflict", conflict, conflictv, &s->conflict));
  READ(pxc_readBool(c, n, "strippath", &s->strippath));
  READ(pxc_readBool(c, n, "usethread", &dummy));
  READ(pxc_readBool(c, n, "saveinertial", &dummy));
  if (s->fusestatic) return unsupported(c, n, "fusestatic=\"true\"");
  if (s->discardvisual) return unsupported(c, n, "discardvisual=\"true\"");
  for (int i = 0; i < n->nchild; i++) {
    return unsupported(c, n->child[i], "<lengthrange> options");
  }
  return pxc_checkUnused(c, n);
}

// flag names in bit order: the 20 disable flags, then the 6 enable flags
static const char* const kDisableNames[] = {
    "constraint", "equality",  "frictionloss", "limit",        "contact",   "spring",   "damper",
    "gravity",    "clampctrl", "warmstart",    "filterparent", "actuation", "refsafe",  "sensor",
    "midphase",   "eulerdamp", "autoreset",    "nativeccd",    "island",    "multiccd", NULL};
static const char* const kEnableNames[] = {"override", "energy",    "fwdinv", "invdiscrete",
                                           "sleep",    "diagexact", NULL};

static pxtStatus parseOption(pxcCtx* c, pxcNode* n) {
  pxOption* o = &c->spec->opt;
  READ(pxc_readNum(c, n, "timestep", &o->timestep));
  READ(pxc_readNum(c, n, "impratio", &o->impratio));
  READ(pxc_readNum(c, n, "tolerance", &o->tolerance));
  READ(pxc_readNum(c, n, "ls_tolerance", &o->ls_tolerance));
  READ(pxc_readNum(c, n, "noslip_tolerance", &o->noslip_tolerance));
  READ(pxc_readNum(c, n, "ccd_tolerance", &o->ccd_tolerance));
  READ(pxc_readNum(c, n, "sleep_tolerance", &o->sleep_tolerance));
  READ(pxc_readNums(c, n, "gravity", 3, 3, o->gravity, NULL));
  READ(pxc_readNums(c, n, "wind", 3, 3, o->wind, NULL));
  READ(pxc_readNums(c, n, "magnetic", 3, 3, o->magnetic, NULL));
  READ(pxc_readNum(c, n, "density", &o->density));
  READ(pxc_readNum(c, n, "viscosity", &o->viscosity));
  READ(pxc_readNum(c, n, "o_margin", &o->o_margin));
  READ(pxc_readNums(c, n, "o_solref", 1, 2, o->o_solref, NULL));
  READ(pxc_readNums(c, n, "o_solimp", 1, 5, o->o_solimp, NULL));
  READ(pxc_readNums(c, n, "o_friction", 1, 5, o->o_friction, NULL));
  static const char* const integ[] = {"Euler", "RK4", "implicit", "implicitfast", NULL};
  static const int integv[] = {0, 1, 2, 3};
  static const char* const cone[] = {"pyramidal", "elliptic", NULL};
  static const int conev[] = {0, 1};
  static const char* const jac[] = {"dense", "sparse", "auto", NULL};
  static const int jacv[] = {0, 1, 2};
  static const char* const solver[] = {"PGS", "CG", "Newton", NULL};
  static const int solverv[] = {0, 1, 2};
  READ(pxc_readKeyword(c, n, "integrator", integ, integv, &o->integrator));
  READ(pxc_readKeyword(c, n, "cone", cone, conev, &o->cone));
  READ(pxc_readKeyword(c, n, "jacobian", jac, jacv, &o->jacobian));
  READ(pxc_readKeyword(c, n, "solver", solver, solverv, &o->solver));
  READ(pxc_readInt(c, n, "iterations", &o->iterations));
  READ(pxc_readInt(c, n, "ls_iterations", &o->ls_iterations));
  READ(pxc_readInt(c, n, "noslip_iterations", &o->noslip_iterations));
  READ(pxc_readInt(c, n, "ccd_iterations", &o->ccd_iterations));
  READ(pxc_readInt(c, n, "sdf_iterations", &o->sdf_iterations));
  READ(pxc_readInt(c, n, "sdf_initpoints", &o->sdf_initpoints));
  int groups[32];
  const char* agd = pxc_xmlAttr(n, "actuatorgroupdisable");
  if (agd) {
    for (int i = 0; i < n->nattr; i++) {
      if (!strcmp(n->attr[i].name, "actuatorgroupdisable")) n->attr[i].used = 0;
    }
    int cnt = 0;
    for (const char* p = agd; *p;) {
      while (*p == ' ') p++;
      if (*p) cnt++;
      while (*p && *p != ' ') p++;
    }
    READ(pxc_readInts(c, n, "actuatorgroupdisable", 0, 31, groups));
    o->disableactuator = 0;
    for (int i = 0; i < cnt && i < 31; i++) {
      if (groups[i] < 0 || groups[i] > 30) {
        return pxc_error(c, n, "actuatorgroupdisable: group %d is outside 0..30", groups[i]);
      }
      o->disableactuator |= 1 << groups[i];
    }
  }
  TRY(pxc_checkUnused(c, n));
  for (int i = 0; i < n->nchild; i++) {
    pxcNode* f = n->child[i];
    if (strcmp(f->name, "flag")) return pxc_error(c, f, "unknown element in <option>");
    static const char* const en[] = {"disable", "enable", NULL};
    static const int env[] = {0, 1};
    for (int k = 0; kDisableNames[k]; k++) {
      int v = -1;
      READ(pxc_readKeyword(c, f, kDisableNames[k], en, env, &v));
      if (v == 0) o->disableflags |= 1 << k;
      if (v == 1) o->disableflags &= ~(1 << k);
    }
    for (int k = 0; kEnableNames[k]; k++) {
      int v = -1;
      READ(pxc_readKeyword(c, f, kEnableNames[k], en, env, &v));
      if (v == 1 && (1 << k) != PX_ENBL_ENERGY && (1 << k) != PX_ENBL_OVERRIDE) {
        // these enable flags change stages phalanx does not run yet (docs/features.md)
        char what[96];
        snprintf(what, sizeof(what), "<flag %s=\"enable\">", kEnableNames[k]);
        return unsupported(c, f, what);
      }
      if (v == 1) o->enableflags |= 1 << k;
      if (v == 0) o->enableflags &= ~(1 << k);
    }
    TRY(pxc_checkUnused(c, f));
  }
  return PX_OK;
}

static pxtStatus parseSize(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  READ(pxc_readInt(c, n, "njmax", &s->njmax));
  READ(pxc_readInt(c, n, "nconmax", &s->nconmax));
  READ(pxc_readInt(c, n, "nkey", &s->sizekey));
  if (s->sizekey > PXC_MAX_ELEMENTS) {
    return pxc_error(c, n, "attribute 'nkey': %d keyframes exceed phalanx's limit of %d",
                     s->sizekey, PXC_MAX_ELEMENTS);
  }
  struct {
    const char* name;
    int* dst;
  } users[] = {{"nuser_body", &s->nuser_body},         {"nuser_jnt", &s->nuser_jnt},
               {"nuser_geom", &s->nuser_geom},         {"nuser_site", &s->nuser_site},
               {"nuser_cam", &s->nuser_cam},           {"nuser_tendon", &s->nuser_tendon},
               {"nuser_actuator", &s->nuser_actuator}, {"nuser_sensor", &s->nuser_sensor}};
  for (int i = 0; i < 8; i++) {
    READ(pxc_readInt(c, n, users[i].name, users[i].dst));
    if (*users[i].dst < -1) {
      return pxc_error(c, n, "attribute '%s' must be -1 or larger, got %d", users[i].name,
                       *users[i].dst);
    }
  }
  // memory, nstack and nuserdata size the arena, which phalanx sizes by its own rule
  char buf[64];
  READ(pxc_readString(c, n, "memory", buf, sizeof(buf)));
  int nstack = -1, nuserdata = 0;
  READ(pxc_readInt(c, n, "nstack", &nstack));
  READ(pxc_readInt(c, n, "nuserdata", &nuserdata));
  if (nuserdata > 0) return unsupported(c, n, "nuserdata (user data arrays)");
  return pxc_checkUnused(c, n);
}

static pxtStatus parseStatistic(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  int r;
  READ(r = pxc_readNum(c, n, "meaninertia", &s->stat.meaninertia));
  if (r) s->stat_given |= 1;
  READ(r = pxc_readNum(c, n, "meanmass", &s->stat.meanmass));
  if (r) s->stat_given |= 2;
  READ(r = pxc_readNum(c, n, "meansize", &s->stat.meansize));
  if (r) s->stat_given |= 4;
  READ(r = pxc_readNum(c, n, "extent", &s->stat.extent));
  if (r && s->stat.extent <= 0) return pxc_error(c, n, "attribute 'extent' must be positive");
  if (r) s->stat_given |= 8;
  READ(r = pxc_readNums(c, n, "center", 3, 3, s->stat.center, NULL));
  if (r) s->stat_given |= 16;
  return pxc_checkUnused(c, n);
}

//---------------------------------- rendering-only elements -------------------------------------

// a checked-but-not-stored attribute: name, kind (i int, f float, b bool, s string, k keyword),
// value count (ints and floats) or keyword list
typedef struct {
  const char* name;
  char kind;
  int count;
  const char* const* words;
} attrSpec;

static pxtStatus checkAttrs(pxcCtx* c, pxcNode* n, const attrSpec* spec) {
  static const int kValues[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; spec[i].name; i++) {
    const attrSpec* a = spec + i;
    int ibuf[8];
    float fbuf[8];
    int word;
    char sbuf[1024];
    switch (a->kind) {
      case 'i':
        READ(pxc_readInts(c, n, a->name, a->count, a->count, ibuf));
        break;
      case 'f':
        READ(pxc_readFloats(c, n, a->name, a->count, a->count, fbuf));
        break;
      case 'b':
        READ(pxc_readBool(c, n, a->name, &word));
        break;
      case 's':
        READ(pxc_readString(c, n, a->name, sbuf, sizeof(sbuf)));
        break;
      default:
        READ(pxc_readKeyword(c, n, a->name, a->words, kValues, &word));
        break;
    }
  }
  return pxc_checkUnused(c, n);
}

// <visual> only affects rendering: every attribute is checked as MuJoCo checks it; only znear
// (the default of camera intrinsics) is kept
static pxtStatus parseVisual(pxcCtx* c, pxcNode* n) {
  static const attrSpec global[] = {{"cameraid", 'i', 1, 0},  {"orthographic", 'b', 1, 0},
                                    {"fovy", 'f', 1, 0},      {"ipd", 'f', 1, 0},
                                    {"azimuth", 'f', 1, 0},   {"elevation", 'f', 1, 0},
                                    {"linewidth", 'f', 1, 0}, {"glow", 'f', 1, 0},
                                    {"offwidth", 'i', 1, 0},  {"offheight", 'i', 1, 0},
                                    {"realtime", 'f', 1, 0},  {"ellipsoidinertia", 'b', 1, 0},
                                    {"bvactive", 'b', 1, 0},  {0, 0, 0, 0}};
  static const attrSpec quality[] = {{"shadowsize", 'i', 1, 0}, {"offsamples", 'i', 1, 0},
                                     {"numslices", 'i', 1, 0},  {"numstacks", 'i', 1, 0},
                                     {"numquads", 'i', 1, 0},   {0, 0, 0, 0}};
  static const attrSpec headlight[] = {{"ambient", 'f', 3, 0},
                                       {"diffuse", 'f', 3, 0},
                                       {"specular", 'f', 3, 0},
                                       {"active", 'i', 1, 0},
                                       {0, 0, 0, 0}};
  static const attrSpec map[] = {{"stiffness", 'f', 1, 0},
                                 {"stiffnessrot", 'f', 1, 0},
                                 {"force", 'f', 1, 0},
                                 {"torque", 'f', 1, 0},
                                 {"alpha", 'f', 1, 0},
                                 {"fogstart", 'f', 1, 0},
                                 {"fogend", 'f', 1, 0},
                                 {"zfar", 'f', 1, 0},
                                 {"haze", 'f', 1, 0},
                                 {"shadowclip", 'f', 1, 0},
                                 {"shadowscale", 'f', 1, 0},
                                 {"actuatortendon", 'f', 1, 0},
                                 {0, 0, 0, 0}};
  static const attrSpec scale[] = {{"forcewidth", 'f', 1, 0},
                                   {"contactwidth", 'f', 1, 0},
                                   {"contactheight", 'f', 1, 0},
                                   {"connect", 'f', 1, 0},
                                   {"com", 'f', 1, 0},
                                   {"camera", 'f', 1, 0},
                                   {"light", 'f', 1, 0},
                                   {"selectpoint", 'f', 1, 0},
                                   {"jointlength", 'f', 1, 0},
                                   {"jointwidth", 'f', 1, 0},
                                   {"actuatorlength", 'f', 1, 0},
                                   {"actuatorwidth", 'f', 1, 0},
                                   {"framelength", 'f', 1, 0},
                                   {"framewidth", 'f', 1, 0},
                                   {"constraint", 'f', 1, 0},
                                   {"slidercrank", 'f', 1, 0},
                                   {"frustum", 'f', 1, 0},
                                   {0, 0, 0, 0}};
  static const attrSpec rgba[] = {{"fog", 'f', 4, 0},
                                  {"haze", 'f', 4, 0},
                                  {"force", 'f', 4, 0},
                                  {"inertia", 'f', 4, 0},
                                  {"joint", 'f', 4, 0},
                                  {"actuator", 'f', 4, 0},
                                  {"actuatornegative", 'f', 4, 0},
                                  {"actuatorpositive", 'f', 4, 0},
                                  {"com", 'f', 4, 0},
                                  {"camera", 'f', 4, 0},
                                  {"light", 'f', 4, 0},
                                  {"selectpoint", 'f', 4, 0},
                                  {"connect", 'f', 4, 0},
                                  {"contactpoint", 'f', 4, 0},
                                  {"contactforce", 'f', 4, 0},
                                  {"contactfriction", 'f', 4, 0},
                                  {"contacttorque", 'f', 4, 0},
                                  {"contactgap", 'f', 4, 0},
                                  {"rangefinder", 'f', 4, 0},
                                  {"constraint", 'f', 4, 0},
                                  {"slidercrank", 'f', 4, 0},
                                  {"crankbroken", 'f', 4, 0},
                                  {"frustum", 'f', 4, 0},
                                  {"bv", 'f', 4, 0},
                                  {"bvactive", 'f', 4, 0},
                                  {0, 0, 0, 0}};
  static const char* const kids[] = {"global", "quality", "headlight", "map",
                                     "scale",  "rgba",    NULL};
  const attrSpec* specs[] = {global, quality, headlight, map, scale, rgba};
  TRY(pxc_checkUnused(c, n));
  for (int i = 0; i < n->nchild; i++) {
    pxcNode* ch = n->child[i];
    int k = 0;
    while (kids[k] && strcmp(ch->name, kids[k])) k++;
    if (!kids[k]) return pxc_error(c, ch, "unknown element in <visual>");
    if (ch->nchild) return pxc_error(c, ch->child[0], "unexpected child element");
    if (specs[k] == map) {
      int r = pxc_readFloats(c, ch, "znear", 1, 1, &c->spec->znear);
      READ(r);
      if (r && c->spec->znear <= 0) return pxc_error(c, ch, "attribute 'znear' must be positive");
    }
    TRY(checkAttrs(c, ch, specs[k]));
  }
  return PX_OK;
}

// a <texture>: the name, file and kind are kept; every other attribute is checked
static pxtStatus parseTexture(pxcCtx* c, pxcNode* n) {
  static const char* const type[] = {"2d", "cube", "skybox", NULL};
  static const char* const colorspace[] = {"auto", "linear", "sRGB", NULL};
  static const char* const builtin[] = {"none", "gradient", "checker", "flat", NULL};
  static const char* const mark[] = {"none", "edge", "cross", "random", NULL};
  static const attrSpec spec[] = {{"colorspace", 'k', 0, colorspace},
                                  {"content_type", 's', 0, 0},
                                  {"gridsize", 'i', 2, 0},
                                  {"gridlayout", 's', 0, 0},
                                  {"fileright", 's', 0, 0},
                                  {"fileleft", 's', 0, 0},
                                  {"fileup", 's', 0, 0},
                                  {"filedown", 's', 0, 0},
                                  {"filefront", 's', 0, 0},
                                  {"fileback", 's', 0, 0},
                                  {"builtin", 'k', 0, builtin},
                                  {"rgb1", 'f', 3, 0},
                                  {"rgb2", 'f', 3, 0},
                                  {"mark", 'k', 0, mark},
                                  {"markrgb", 'f', 3, 0},
                                  {"random", 'f', 1, 0},
                                  {"width", 'i', 1, 0},
                                  {"height", 'i', 1, 0},
                                  {"hflip", 'b', 1, 0},
                                  {"vflip", 'b', 1, 0},
                                  {"nchannel", 'i', 1, 0},
                                  {0, 0, 0, 0}};
  pxcSpec* s = c->spec;
  int id = PXC_ADD(c, s, texture);
  if (id < 0) return c->st->code;
  pxcTexture* t = s->texture + id;
  t->src.file = n->file;
  t->src.line = n->line;
  READ(pxc_readName(c, n, "name", t->name));
  READ(pxc_readString(c, n, "file", t->file, sizeof(t->file)));
  static const int typev[] = {0, 1, 2};
  int kind = 1;
  READ(pxc_readKeyword(c, n, "type", type, typev, &kind));
  t->skybox = kind == 2;
  return checkAttrs(c, n, spec);
}

//---------------------------------- assets --------------------------------------------------------

#define PXC_MAX_HFIELD (1 << 26)  // samples in one height field

static pxtStatus parseHfield(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  int id = PXC_ADD(c, s, hfield);
  if (id < 0) return c->st->code;
  pxcHfield* h = s->hfield + id;
  h->src.file = n->file;
  h->src.line = n->line;
  READ(pxc_readName(c, n, "name", h->name));
  int hasfile = pxc_readString(c, n, "file", h->file, sizeof(h->file));
  READ(hasfile);
  READ(pxc_readInt(c, n, "nrow", &h->nrow));
  READ(pxc_readInt(c, n, "ncol", &h->ncol));
  int r = pxc_readNums(c, n, "size", 4, 4, h->size, NULL);
  READ(r);
  if (!r) return pxc_error(c, n, "missing required attribute 'size'");
  char type[128] = "";
  READ(pxc_readString(c, n, "content_type", type, sizeof(type)));
  if (type[0] && strcmp(type, "image/vnd.mujoco.hfield")) {
    return unsupported(c, n, "height field content types other than image/vnd.mujoco.hfield");
  }
  if (h->nrow < 0 || h->ncol < 0 || (h->nrow && h->ncol && h->nrow > PXC_MAX_HFIELD / h->ncol)) {
    return pxc_error(c, n, "nrow x ncol = %d x %d is negative or larger than %d samples", h->nrow,
                     h->ncol, PXC_MAX_HFIELD);
  }

  // inline elevation (MuJoCo reads it only without a file and with both dimensions)
  if (!hasfile && h->nrow > 0 && h->ncol > 0) {
    int ns = h->nrow * h->ncol;
    h->data = (float*)calloc((size_t)ns, sizeof(float));
    if (!h->data) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
    double* v = NULL;
    int nv = 0;
    r = pxc_readList(c, n, "elevation", &v, &nv);
    READ(r);
    if (r) {
      if (nv != ns) {
        free(v);
        return pxc_error(c, n, "elevation data length must match nrow*ncol (%d values for %d x %d)",
                         nv, h->nrow, h->ncol);
      }
      // rows reversed, so that the XML reads top to bottom
      for (int i = 0; i < h->nrow; i++) {
        for (int j = 0; j < h->ncol; j++) {
          h->data[(h->nrow - 1 - i) * h->ncol + j] = (float)v[i * h->ncol + j];
        }
      }
      free(v);
    }
  } else {
    pxc_xmlAttr(n, "elevation");  // ignored here, as MuJoCo ignores it
  }
  return PX_OK;
}

static pxtStatus parseAsset(pxcCtx* c, pxcNode* sec) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, sec));
  for (int i = 0; i < sec->nchild; i++) {
    pxcNode* n = sec->child[i];
    int cls = 0;
    if (!strcmp(n->name, "mesh")) {
      READ(elementClass(c, n, 0, &cls));
      int id = PXC_ADD(c, s, mesh);
      if (id < 0) return c->st->code;
      s->mesh[id] = s->dflt[cls].mesh;
      s->mesh[id].src.file = n->file;
      s->mesh[id].src.line = n->line;
      TRY(readMesh(c, n, s->mesh + id, 0));
      if (n->nchild) return unsupported(c, n->child[0], "mesh plugins");
    } else if (!strcmp(n->name, "material")) {
      READ(elementClass(c, n, 0, &cls));
      int id = PXC_ADD(c, s, mat);
      if (id < 0) return c->st->code;
      s->mat[id] = s->dflt[cls].material;
      s->mat[id].src.file = n->file;
      s->mat[id].src.line = n->line;
      TRY(readMaterial(c, n, s->mat + id, 0));
    } else if (!strcmp(n->name, "texture")) {
      TRY(parseTexture(c, n));
    } else if (!strcmp(n->name, "hfield")) {
      TRY(parseHfield(c, n));
    } else if (!strcmp(n->name, "skin")) {
      return unsupported(c, n, "skins");
    } else if (!strcmp(n->name, "model")) {
      TRY(pxc_parseModelAsset(c, n));
    } else {
      return pxc_error(c, n, "unknown element in <asset>");
    }
    TRY(pxc_checkUnused(c, n));
  }
  return PX_OK;
}

//---------------------------------- body tree -----------------------------------------------------

// append the replicate suffix in force to a non-empty name
static pxtStatus suffixName(pxcCtx* c, pxcNode* n, char* name) {
  if (!name[0] || !c->suffix[0]) return PX_OK;
  if (strlen(name) + strlen(c->suffix) >= PXC_NAME) {
    return pxc_error(c, n, "name '%s' with replicate suffix '%s' is longer than %d characters",
                     name, c->suffix, PXC_NAME - 1);
  }
  strcat(name, c->suffix);
  return PX_OK;
}

// a frame transform applied to everything declared inside <frame> elements
typedef struct {
  double pos[3];
  double quat[4];
  int identity;
} frameTf;

static void rotVec(double res[3], const double q[4], const double v[3]) {
  double mat[9], r[3];
  pxu_quat2Mat(mat, q);
  for (int i = 0; i < 3; i++)
    r[i] = mat[3 * i] * v[0] + mat[3 * i + 1] * v[1] + mat[3 * i + 2] * v[2];
  memcpy(res, r, sizeof(r));
}

// pos, quat (either may be NULL) := frame * (pos, quat)
static void applyFrame(const frameTf* f, double* pos, double* quat) {
  if (f->identity) return;
  if (pos) {
    double v[3];
    rotVec(v, f->quat, pos);
    for (int i = 0; i < 3; i++) pos[i] = f->pos[i] + v[i];
  }
  if (quat) pxu_mulQuat(quat, f->quat, quat);
}

// place a geom or site: fold the frame into pos and quat, except for fromto elements, whose
// segment is converted first (by the compiler) and the frame applied after, as MuJoCo does
static void placeFromto(const frameTf* f, int hasfromto, double* pos, double* quat,
                        double* framepos, double* framequat) {
  framepos[0] = framepos[1] = framepos[2] = 0;
  framequat[0] = 1;
  framequat[1] = framequat[2] = framequat[3] = 0;
  if (!hasfromto) {
    applyFrame(f, pos, quat);
  } else if (!f->identity) {
    memcpy(framepos, f->pos, 3 * sizeof(double));
    memcpy(framequat, f->quat, 4 * sizeof(double));
  }
}

static pxtStatus parseChildren(pxcCtx* c, pxcNode* n, int body, int childclass,
                               const frameTf* frame);

static pxtStatus parseBody(pxcCtx* c, pxcNode* n, int parent, int childclass,
                           const frameTf* frame) {
  pxcSpec* s = c->spec;
  int id = PXC_ADD(c, s, body);
  if (id < 0) return c->st->code;
  pxcBody* b = s->body + id;
  b->src.file = n->file;
  b->src.line = n->line;
  b->parent = parent;
  b->quat[0] = 1;
  b->iquat[0] = 1;
  READ(pxc_readName(c, n, "name", b->name));
  TRY(suffixName(c, n, b->name));
  const char* cc = pxc_xmlAttr(n, "childclass");
  if (cc) {
    childclass = pxc_findClass(s, cc);
    if (childclass < 0) return pxc_error(c, n, "unknown default class '%s' in childclass", cc);
  }
  READ(pxc_readNums(c, n, "pos", 3, 3, b->pos, NULL));
  READ(pxc_readOrientation(c, n, b->quat));
  READ(pxc_readBool(c, n, "mocap", &b->mocap));
  READ(pxc_readNum(c, n, "gravcomp", &b->gravcomp));
  READ(pxc_readUser(c, n, &b->user));
  static const char* const sleep[] = {"auto", "never", "allowed", "init", NULL};
  static const int sleepv[] = {0, 1, 2, 3};
  READ(pxc_readKeyword(c, n, "sleep", sleep, sleepv, &b->sleep));
  static const char* const simple[] = {"false", "auto", NULL};
  static const int simplev[] = {0, 1};
  b->simple = 1;
  READ(pxc_readKeyword(c, n, "simple", simple, simplev, &b->simple));
  TRY(pxc_checkUnused(c, n));
  applyFrame(frame, b->pos, b->quat);

  frameTf none;
  memset(&none, 0, sizeof(none));
  none.identity = 1;
  return parseChildren(c, n, id, childclass, &none);
}

static pxtStatus parseInertial(pxcCtx* c, pxcNode* n, int body, const frameTf* frame) {
  pxcBody* b = c->spec->body + body;
  if (b->hasinertial) return pxc_error(c, n, "a body can have only one <inertial>");
  if (body == 0) return pxc_error(c, n, "the world body cannot have an <inertial>");
  b->hasinertial = 1;
  int r = pxc_readNums(c, n, "pos", 3, 3, b->ipos, NULL);
  READ(r);
  if (!r) return pxc_error(c, n, "missing required attribute 'pos'");
  r = pxc_readNum(c, n, "mass", &b->mass);
  READ(r);
  if (!r) return pxc_error(c, n, "missing required attribute 'mass'");
  int q = pxc_readOrientation(c, n, b->iquat);
  READ(q);
  int d = pxc_readNums(c, n, "diaginertia", 3, 3, b->inertia, NULL);
  READ(d);
  int f = pxc_readNums(c, n, "fullinertia", 6, 6, b->fullinertia6, NULL);
  READ(f);
  if (f && q) return pxc_error(c, n, "fullinertia and an orientation cannot be combined");
  if (f && d) return pxc_error(c, n, "fullinertia and diaginertia cannot be combined");
  if (!f && !d) return pxc_error(c, n, "needs diaginertia or fullinertia");
  b->fullinertia = f;
  applyFrame(frame, b->ipos, f ? NULL : b->iquat);
  if (f && !frame->identity) return unsupported(c, n, "fullinertia inside a rotated <frame>");
  return pxc_checkUnused(c, n);
}

// <replicate>: count copies of the children, the i-th in the frame reached by i steps of
// (offset, euler) from the replicate's frame, names suffixed by sep and the zero-padded index
static pxtStatus parseReplicate(pxcCtx* c, pxcNode* n, int body, int childclass,
                                const frameTf* frame) {
  if (!c->spec->replicate.file) {
    c->spec->replicate.file = n->file;
    c->spec->replicate.line = n->line;
  }
  int count = 0;
  double offset[3] = {0, 0, 0};
  double euler[3] = {0, 0, 0};
  char sep[PXC_NAME] = "";
  int r = pxc_readInt(c, n, "count", &count);
  READ(r);
  if (!r) return pxc_error(c, n, "missing required attribute 'count'");
  if (count < 1 || count > 100000) {
    return pxc_error(c, n, "attribute 'count' must be between 1 and 100000, got %d", count);
  }
  READ(pxc_readNums(c, n, "offset", 3, 3, offset, NULL));
  READ(pxc_readNums(c, n, "euler", 3, 3, euler, NULL));
  READ(pxc_readName(c, n, "sep", sep));
  char ignored[PXC_NAME];
  READ(pxc_readName(c, n, "prefix", ignored));  // accepted and ignored, as MuJoCo 3.12 does
  const char* cc = pxc_xmlAttr(n, "childclass");
  if (cc) {
    childclass = pxc_findClass(c->spec, cc);
    if (childclass < 0) return pxc_error(c, n, "unknown default childclass '%s'", cc);
  }
  TRY(pxc_checkUnused(c, n));

  // the rotation of one step
  double step[4];
  pxc_eulerQuat(c->spec, euler, 1, step);
  char saved[PXC_NAME];
  strcpy(saved, c->suffix);
  int ndigits = snprintf(NULL, 0, "%d", count);
  double pos[3] = {0, 0, 0};
  double quat[4] = {1, 0, 0, 0};
  pxtStatus status = PX_OK;
  for (int i = 0; i < count && status == PX_OK; i++) {
    // orientation of copy i from i * euler (as MuJoCo, for precision), then its frame
    pxc_eulerQuat(c->spec, euler, i, quat);
    frameTf f;
    memcpy(f.pos, pos, sizeof(pos));
    memcpy(f.quat, quat, sizeof(quat));
    applyFrame(frame, f.pos, f.quat);
    f.identity = 0;

    // suffix: separator, index padded to the digits of count, then the enclosing suffix
    char suffix[2 * PXC_NAME + 32];
    snprintf(suffix, sizeof(suffix), "%s%0*d%s", sep, ndigits, i, saved);
    if (strlen(suffix) >= PXC_NAME) {
      strcpy(c->suffix, saved);
      return pxc_error(c, n, "replicate suffix '%s' is too long", suffix);
    }
    strcpy(c->suffix, suffix);
    status = parseChildren(c, n, body, childclass, &f);

    // next position: pos += quat * offset
    double v[3];
    rotVec(v, quat, offset);
    for (int k = 0; k < 3; k++) pos[k] += v[k];
  }
  strcpy(c->suffix, saved);
  return status;
}

static pxtStatus parseChildren(pxcCtx* c, pxcNode* n, int body, int childclass,
                               const frameTf* frame) {
  pxcSpec* s = c->spec;
  for (int i = 0; i < n->nchild; i++) {
    pxcNode* ch = n->child[i];
    const char* e = ch->name;
    int cls = childclass;
    if (!strcmp(e, "body")) {
      TRY(parseBody(c, ch, body, childclass, frame));
    } else if (!strcmp(e, "frame")) {
      frameTf f;
      memset(&f, 0, sizeof(f));
      f.quat[0] = 1;
      char name[PXC_NAME];
      READ(pxc_readName(c, ch, "name", name));
      READ(pxc_readNums(c, ch, "pos", 3, 3, f.pos, NULL));
      READ(pxc_readOrientation(c, ch, f.quat));
      pxc_normalize4(f.quat);
      int fcls = childclass;
      const char* cc = pxc_xmlAttr(ch, "childclass");
      if (cc) {
        fcls = pxc_findClass(s, cc);
        if (fcls < 0) return pxc_error(c, ch, "unknown default class '%s' in childclass", cc);
      }
      TRY(pxc_checkUnused(c, ch));
      // compose with the enclosing frame: outer * inner
      if (!frame->identity) {
        applyFrame(frame, f.pos, f.quat);
      }
      f.identity = 0;
      TRY(parseChildren(c, ch, body, fcls, &f));
    } else if (!strcmp(e, "inertial")) {
      TRY(parseInertial(c, ch, body, frame));
    } else if (!strcmp(e, "joint") || !strcmp(e, "freejoint")) {
      if (body == 0) return pxc_error(c, ch, "joints cannot be attached to the world body");
      int id = PXC_ADD(c, s, jnt);
      if (id < 0) return c->st->code;
      pxcJoint* j = s->jnt + id;
      if (!strcmp(e, "joint")) {
        READ(elementClass(c, ch, childclass, &cls));
        *j = s->dflt[cls].joint;
        TRY(readJoint(c, ch, j, 0));
      } else {
        initJoint(j);
        j->freeelem = 1;
        j->type = PX_JNT_FREE;
        j->limited = 0;
        READ(pxc_readName(c, ch, "name", j->name));
        READ(pxc_readInt(c, ch, "group", &j->group));
        READ(pxc_readTriBool(c, ch, "align", &j->align));
      }
      j->src.file = ch->file;
      j->src.line = ch->line;
      j->body = body;
      TRY(suffixName(c, ch, j->name));
      applyFrame(frame, j->pos, NULL);
      if (!frame->identity) {
        double zero[3] = {0, 0, 0};
        frameTf rot = *frame;
        memcpy(rot.pos, zero, sizeof(zero));
        applyFrame(&rot, j->axis, NULL);
      }
      TRY(pxc_checkUnused(c, ch));
    } else if (!strcmp(e, "geom")) {
      READ(elementClass(c, ch, childclass, &cls));
      int id = PXC_ADD(c, s, geom);
      if (id < 0) return c->st->code;
      pxcGeom* g = s->geom + id;
      *g = s->dflt[cls].geom;
      TRY(readGeom(c, ch, g, 0));
      g->src.file = ch->file;
      g->src.line = ch->line;
      g->body = body;
      TRY(suffixName(c, ch, g->name));
      placeFromto(frame, g->hasfromto, g->pos, g->quat, g->framepos, g->framequat);
      if (ch->nchild) return unsupported(c, ch->child[0], "geom plugins");
      TRY(pxc_checkUnused(c, ch));
    } else if (!strcmp(e, "site")) {
      READ(elementClass(c, ch, childclass, &cls));
      int id = PXC_ADD(c, s, site);
      if (id < 0) return c->st->code;
      pxcSite* st = s->site + id;
      *st = s->dflt[cls].site;
      TRY(readSite(c, ch, st, 0));
      st->src.file = ch->file;
      st->src.line = ch->line;
      st->body = body;
      TRY(suffixName(c, ch, st->name));
      placeFromto(frame, st->hasfromto, st->pos, st->quat, st->framepos, st->framequat);
      TRY(pxc_checkUnused(c, ch));
    } else if (!strcmp(e, "camera")) {
      READ(elementClass(c, ch, childclass, &cls));
      int id = PXC_ADD(c, s, cam);
      if (id < 0) return c->st->code;
      pxcCamera* k = s->cam + id;
      *k = s->dflt[cls].camera;
      TRY(readCamera(c, ch, k, 0));
      k->src.file = ch->file;
      k->src.line = ch->line;
      k->body = body;
      TRY(suffixName(c, ch, k->name));
      applyFrame(frame, k->pos, k->quat);
      TRY(pxc_checkUnused(c, ch));
    } else if (!strcmp(e, "light")) {
      READ(elementClass(c, ch, childclass, &cls));
      int id = PXC_ADD(c, s, light);
      if (id < 0) return c->st->code;
      pxcLight* l = s->light + id;
      *l = s->dflt[cls].light;
      TRY(readLight(c, ch, l, 0));
      l->src.file = ch->file;
      l->src.line = ch->line;
      l->body = body;
      TRY(suffixName(c, ch, l->name));
      applyFrame(frame, l->pos, NULL);
      if (!frame->identity) {
        frameTf rot = *frame;
        rot.pos[0] = rot.pos[1] = rot.pos[2] = 0;
        applyFrame(&rot, l->dir, NULL);
      }
      TRY(pxc_checkUnused(c, ch));
    } else if (!strcmp(e, "replicate")) {
      TRY(parseReplicate(c, ch, body, childclass, frame));
    } else if (!strcmp(e, "attach")) {
      int root = pxc_attach(c, ch, body);
      if (root < 0) return c->st->code;
      applyFrame(frame, s->body[root].pos, s->body[root].quat);
    } else if (!strcmp(e, "plugin")) {
      return unsupported(c, ch, "plugins");
    } else if (!strcmp(e, "composite") || !strcmp(e, "flexcomp")) {
      return unsupported(c, ch, "composite and flex objects");
    } else {
      return pxc_error(c, ch, "unknown element in <%s>", n->name);
    }
  }
  return PX_OK;
}

//---------------------------------- the document --------------------------------------------------

pxtStatus pxc_parse(pxcCtx* c, pxcNode* root) {
  pxcSpec* s = c->spec;
  if (strcmp(root->name, "mujoco")) {
    return pxc_error(c, root, "the root element must be <mujoco>");
  }
  READ(pxc_readName(c, root, "model", s->modelname));
  TRY(pxc_checkUnused(c, root));

  // MuJoCo's defaults for what the sections set
  s->degree = 1;
  strcpy(s->eulerseq, "xyz");
  s->inertiafromgeom = 2;
  s->inertiagrouprange[0] = 0;
  s->inertiagrouprange[1] = 5;
  s->autolimits = 1;
  s->settotalmass = -1;
  px_defaultOption(&s->opt);
  s->nuser_body = s->nuser_jnt = s->nuser_geom = s->nuser_site = s->nuser_cam = -1;
  s->nuser_tendon = s->nuser_actuator = s->nuser_sensor = -1;
  s->nconmax = s->njmax = -1;
  s->znear = 0.01f;

  // every top-level element is known
  static const char* const known[] = {"compiler",   "option",    "size",   "statistic", "visual",
                                      "default",    "extension", "custom", "asset",     "worldbody",
                                      "deformable", "contact",   "tendon", "equality",  "actuator",
                                      "sensor",     "keyframe",  NULL};
  for (int i = 0; i < root->nchild; i++) {
    int ok = 0;
    for (int k = 0; known[k]; k++) ok |= !strcmp(root->child[i]->name, known[k]);
    if (!ok) return pxc_error(c, root->child[i], "unknown element in <mujoco>");
  }

  // sections in MuJoCo's fixed order, whatever their order in the file
  for (int i = 0; i < root->nchild; i++) {
    if (!strcmp(root->child[i]->name, "compiler")) TRY(parseCompiler(c, root->child[i]));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "option")) TRY(parseOption(c, n));
    if (!strcmp(n->name, "size")) TRY(parseSize(c, n));
    if (!strcmp(n->name, "statistic")) TRY(parseStatistic(c, n));
    if (!strcmp(n->name, "visual")) TRY(parseVisual(c, n));
    if (!strcmp(n->name, "extension")) return unsupported(c, n, "plugins (<extension>)");
    if (!strcmp(n->name, "deformable")) return unsupported(c, n, "deformable objects");
  }

  // default classes: one root "main" class (repeated <default> sections extend it)
  int ndefault = 0;
  for (int i = 0; i < root->nchild; i++) {
    if (!strcmp(root->child[i]->name, "default")) {
      if (ndefault++) return unsupported(c, root->child[i], "a second top-level <default>");
      TRY(parseDefault(c, root->child[i], -1));
    }
  }
  if (!ndefault) {
    pxcNode dummy;
    memset(&dummy, 0, sizeof(dummy));
    dummy.name = (char*)"default";
    dummy.file = root->file;
    dummy.line = root->line;
    TRY(parseDefault(c, &dummy, -1));
  }

  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "custom")) TRY(pxc_parseCustom(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    if (!strcmp(root->child[i]->name, "asset")) TRY(parseAsset(c, root->child[i]));
  }

  // the world body, then the tree
  int world = PXC_ADD(c, s, body);
  if (world < 0) return c->st->code;
  strcpy(s->body[0].name, "world");
  s->body[0].quat[0] = 1;
  s->body[0].iquat[0] = 1;
  s->body[0].parent = -1;
  frameTf none;
  memset(&none, 0, sizeof(none));
  none.identity = 1;
  none.quat[0] = 1;
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (strcmp(n->name, "worldbody")) continue;
    int cls = 0;
    const char* cc = pxc_xmlAttr(n, "childclass");
    if (cc) {
      cls = pxc_findClass(s, cc);
      if (cls < 0) return pxc_error(c, n, "unknown default class '%s' in childclass", cc);
    }
    TRY(pxc_checkUnused(c, n));
    for (int k = 0; k < n->nchild; k++) {
      if (!strcmp(n->child[k]->name, "inertial") || !strcmp(n->child[k]->name, "joint") ||
          !strcmp(n->child[k]->name, "freejoint")) {
        return pxc_error(c, n->child[k], "the world body cannot have <%s>", n->child[k]->name);
      }
    }
    TRY(parseChildren(c, n, 0, cls, &none));
  }

  // sections after the tree
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "contact")) TRY(pxc_parseContacts(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "tendon")) TRY(pxc_parseTendons(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "equality")) TRY(pxc_parseEqualities(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "actuator")) TRY(pxc_parseActuators(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "sensor")) TRY(pxc_parseSensors(c, n));
  }
  for (int i = 0; i < root->nchild; i++) {
    pxcNode* n = root->child[i];
    if (!strcmp(n->name, "keyframe")) TRY(pxc_parseKeyframes(c, n));
  }
  if (s->nkey && s->replicate.file) {
    // MuJoCo 3.12 expands <replicate> with the keyframes already read, checking their sizes
    // against the partial model and copying each once per replica, suffixed
    return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                   "%s:%d: <replicate>: keyframes in a model with <replicate> (MuJoCo replicates "
                   "them) are not supported by phalanx yet",
                   s->replicate.file, s->replicate.line);
  }
  return pxc_attachMisc(c);
}

void pxc_freeSpec(pxcSpec* s) {
  pxc_freeAttach(s);
  for (int i = 0; i < s->nmesh; i++) {
    free(s->mesh[i].vertex);
    free(s->mesh[i].face);
  }
  for (int i = 0; i < s->nhfield; i++) free(s->hfield[i].data);
  free(s->hfield);
  free(s->dflt);
  free(s->body);
  free(s->jnt);
  free(s->geom);
  free(s->site);
  free(s->cam);
  free(s->light);
  free(s->mat);
  free(s->mesh);
  free(s->tendon);
  free(s->wrap);
  free(s->act);
  free(s->sensor);
  free(s->eq);
  free(s->pair);
  free(s->exclude);
  free(s->pairorder);
  free(s->exclorder);
  free(s->key);
  free(s->custom);
  free(s->texture);
  memset(s, 0, sizeof(*s));
}
