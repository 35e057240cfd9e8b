// SPDX-License-Identifier: Apache-2.0
// MJCF -> spec for the elements outside the body tree: tendons and their paths, actuators (every
// shortcut applied with MuJoCo's mjs_setTo* semantics, in <default> classes as on elements),
// sensors, equality constraints, contact pairs and exclusions, keyframes and custom data.
//
// Attribute sets follow MuJoCo 3.12's schema per element (and its reduced rows inside <default>:
// no name, class or nodefault attributes); whatever an element does not read is an "unknown
// attribute" error from pxc_checkUnused. Presence rules of the schema (exclusive, oneof,
// together, required) are checked here with MuJoCo's wording. Valid MuJoCo input that phalanx
// cannot represent yet is PX_ERR_UNSUPPORTED naming the element or attribute. Keyframes and
// custom elements are validated here and kept as nodes: the compiler reads them when the model
// sizes are known.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/misc.h"
#include "mjcf/spec.h"

#define PXC_PI 3.14159265358979323846

static const double kSolref[2] = {0.02, 1};
static const double kSolimp[5] = {0.9, 0.95, 0.001, 0.5, 2};

//---------------------------------- helpers -------------------------------------------------------

static pxtStatus unsupported(pxcCtx* c, pxcNode* n, const char* what) {
  return PX_FAIL(c->st, PX_ERR_UNSUPPORTED, "%s:%d: <%s>: %s is not supported by phalanx yet",
                 n->file, n->line, n->name, what);
}

// inside a <default> class (reduced attribute rows: no name, class or nodefault attributes)
static int inDefault(const pxcNode* n) {
  return n->parent && !strcmp(n->parent->name, "default");
}

// attribute present (does not mark it used)
static int hasAttr(const pxcNode* n, const char* attr) {
  for (int i = 0; i < n->nattr; i++) {
    if (!strcmp(n->attr[i].name, attr)) return 1;
  }
  return 0;
}

// attribute value without marking it used, or NULL
static const char* attrValue(const pxcNode* n, const char* attr) {
  for (int i = 0; i < n->nattr; i++) {
    if (!strcmp(n->attr[i].name, attr)) return n->attr[i].value;
  }
  return NULL;
}

static void setSrc(pxcSrc* src, const pxcNode* n) {
  src->file = n->file;
  src->line = n->line;
}

static pxtStatus missing(pxcCtx* c, pxcNode* n, const char* attr) {
  return pxc_error(c, n, "required attribute missing: '%s'", attr);
}

static pxtStatus noChildren(pxcCtx* c, pxcNode* n) {
  if (n->nchild) return pxc_error(c, n->child[0], "unrecognized element in <%s>", n->name);
  return PX_OK;
}

// MuJoCo's schema: each element kind appears at most once in a default class
static pxtStatus uniqueInDefault(pxcCtx* c, pxcNode* n) {
  if (!inDefault(n)) return PX_OK;
  pxcNode* p = n->parent;
  for (int i = 0; i < p->nchild && p->child[i] != n; i++) {
    if (!strcmp(p->child[i]->name, n->name)) {
      return pxc_error(c, p, "unique element '%s' found 2 times", n->name);
    }
  }
  return PX_OK;
}

// class of a top-level element: its class attribute, else "main" (class 0)
static int elementClass(pxcCtx* c, pxcNode* n) {
  const char* cls = pxc_xmlAttr(n, "class");
  if (!cls) return 0;
  int id = pxc_findClass(c->spec, cls);
  if (id < 0) pxc_error(c, n, "unknown default class name '%s'", cls);
  return id;
}

// schema presence rules over groups of attributes ("bundles"); a bundle is a NULL-terminated
// list, the groups a NULL-terminated list of bundles
static int bundlePresent(const pxcNode* n, const char* const* b) {
  for (int i = 0; b[i]; i++) {
    if (hasAttr(n, b[i])) return 1;
  }
  return 0;
}

static int bundleComplete(const pxcNode* n, const char* const* b) {
  for (int i = 0; b[i]; i++) {
    if (!hasAttr(n, b[i])) return 0;
  }
  return 1;
}

static void bundleList(char* buf, size_t len, const char* const* const* g) {
  buf[0] = 0;
  for (int i = 0; g[i]; i++) {
    size_t k = strlen(buf);
    snprintf(buf + k, len - k, "%s%s", i ? ", " : "", g[i][1] ? "(" : "");
    for (int j = 0; g[i][j]; j++) {
      k = strlen(buf);
      snprintf(buf + k, len - k, "%s'%s'", j ? ", " : "", g[i][j]);
    }
    if (g[i][1]) {
      k = strlen(buf);
      snprintf(buf + k, len - k, ")");
    }
  }
}

static pxtStatus exclusive(pxcCtx* c, pxcNode* n, const char* const* const* g) {
  int count = 0;
  for (int i = 0; g[i]; i++) count += bundlePresent(n, g[i]);
  if (count > 1) {
    char list[256];
    bundleList(list, sizeof(list), g);
    return pxc_error(c, n, "at most one of %s can be specified", list);
  }
  return PX_OK;
}

static pxtStatus oneof(pxcCtx* c, pxcNode* n, const char* const* const* g) {
  for (int i = 0; g[i]; i++) {
    if (bundleComplete(n, g[i])) return PX_OK;
  }
  char list[256];
  bundleList(list, sizeof(list), g);
  return pxc_error(c, n, "one of %s must be specified", list);
}

static pxtStatus together(pxcCtx* c, pxcNode* n, const char* a, const char* b) {
  if (hasAttr(n, a) != hasAttr(n, b)) {
    return pxc_error(c, n, "attributes '%s', '%s' must be specified together", a, b);
  }
  return PX_OK;
}

// a name attribute that must be present
static pxtStatus requiredName(pxcCtx* c, pxcNode* n, const char* attr, char* out) {
  int r = pxc_readName(c, n, attr, out);
  if (r < 0) return c->st->code;
  if (!r) return missing(c, n, attr);
  return PX_OK;
}

// a space-separated list of keywords combined as bits (1 << value), strictly in keyword order
static int readOrderedFlags(pxcCtx* c, pxcNode* n, const char* attr, const char* const* words,
                            int* out) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  int nword = 0;
  while (words[nword]) nword++;
  int prev = -1, bits = 0, count = 0;
  const char* s = v;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) break;
    const char* e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r') e++;
    int k = -1;
    for (int i = 0; i < nword; i++) {
      if ((size_t)(e - s) == strlen(words[i]) && !strncmp(s, words[i], (size_t)(e - s))) k = i;
    }
    if (k < 0) {
      pxc_error(c, n, "attribute '%s': invalid keyword '%.*s'", attr, (int)(e - s), s);
      return -1;
    }
    if (bits & (1 << k)) {
      pxc_error(c, n, "attribute '%s': duplicate keyword '%.*s'", attr, (int)(e - s), s);
      return -1;
    }
    if (k <= prev) {
      char order[256] = "";
      for (int i = 0; i < nword; i++) {
        size_t l = strlen(order);
        snprintf(order + l, sizeof(order) - l, "%s%s", i ? ", " : "", words[i]);
      }
      pxc_error(c, n, "data attributes must be in order: %s", order);
      return -1;
    }
    prev = k;
    bits |= 1 << k;
    count++;
    s = e;
  }
  if (count) *out = bits;
  return 1;
}

//---------------------------------- MuJoCo's defaults ---------------------------------------------

void pxc_initTendon(pxcTendon* t) {
  memset(t, 0, sizeof(*t));
  t->limited = 2;
  t->actfrclimited = 0;  // mjs_defaultTendon leaves it false
  t->springlength[0] = t->springlength[1] = -1;
  memcpy(t->solref_limit, kSolref, sizeof(kSolref));
  memcpy(t->solimp_limit, kSolimp, sizeof(kSolimp));
  memcpy(t->solref_friction, kSolref, sizeof(kSolref));
  memcpy(t->solimp_friction, kSolimp, sizeof(kSolimp));
  t->width = 0.003;
  t->rgba[0] = t->rgba[1] = t->rgba[2] = 0.5f;
  t->rgba[3] = 1;
}

void pxc_initActuator(pxcActuator* a) {
  memset(a, 0, sizeof(*a));
  a->gaintype = PX_GAIN_FIXED;
  a->gainprm[0] = 1;
  a->biastype = PX_BIAS_NONE;
  a->dyntype = PX_DYN_NONE;
  a->dynprm[0] = 1;
  a->actdim = -1;
  a->trntype = PX_TRN_UNDEFINED;
  a->gear[0] = 1;
  a->ctrllimited = a->forcelimited = a->actlimited = 2;
}

void pxc_initEquality(pxcEquality* e) {
  memset(e, 0, sizeof(*e));
  e->type = PX_EQ_CONNECT;
  e->active = 1;
  memcpy(e->solref, kSolref, sizeof(kSolref));
  memcpy(e->solimp, kSolimp, sizeof(kSolimp));
  e->data[1] = 1;
  e->data[10] = 1;  // torque:force ratio of welds
}

void pxc_initPair(pxcPair* p) {
  memset(p, 0, sizeof(*p));
  p->condim = 3;
  memcpy(p->solref, kSolref, sizeof(kSolref));
  memcpy(p->solimp, kSolimp, sizeof(kSolimp));
  p->friction[0] = 1;
  p->friction[1] = 1;
  p->friction[2] = 0.005;
  p->friction[3] = 0.0001;
  p->friction[4] = 0.0001;
}

//---------------------------------- tendons -------------------------------------------------------

// <default><tendon>, <spatial> and <fixed>
pxtStatus pxc_readTendon(pxcCtx* c, pxcNode* n, pxcTendon* t) {
  int dflt = inDefault(n);
  int spatial = !strcmp(n->name, "spatial");
  TRY(uniqueInDefault(c, n));
  if (!dflt) {
    READ(pxc_readName(c, n, "name", t->name));
    READ(pxc_readTriBool(c, n, "actuatorfrclimited", &t->actfrclimited));
    READ(pxc_readNums(c, n, "actuatorfrcrange", 2, 2, t->actfrcrange, NULL));
    READ(pxc_readNum(c, n, "armature", &t->armature));
  }
  READ(pxc_readInt(c, n, "group", &t->group));
  READ(pxc_readTriBool(c, n, "limited", &t->limited));
  READ(pxc_readNums(c, n, "range", 2, 2, t->range, NULL));
  READ(pxc_readNums(c, n, "solreflimit", 1, 2, t->solref_limit, NULL));
  READ(pxc_readNums(c, n, "solimplimit", 1, 5, t->solimp_limit, NULL));
  READ(pxc_readNums(c, n, "solreffriction", 1, 2, t->solref_friction, NULL));
  READ(pxc_readNums(c, n, "solimpfriction", 1, 5, t->solimp_friction, NULL));
  READ(pxc_readNum(c, n, "frictionloss", &t->frictionloss));
  int k = 0;
  int r = pxc_readNums(c, n, "springlength", 1, 2, t->springlength, &k);
  READ(r);
  if (r && k == 1) t->springlength[1] = t->springlength[0];
  if (dflt || spatial) {
    READ(pxc_readNum(c, n, "width", &t->width));
    READ(pxc_readName(c, n, "material", t->material));
    READ(pxc_readFloats(c, n, "rgba", 4, 4, t->rgba));
  }
  READ(pxc_readNum(c, n, "margin", &t->margin));
  READ(pxc_readNums(c, n, "stiffness", 1, 3, t->stiffness, NULL));
  READ(pxc_readNums(c, n, "damping", 1, 3, t->damping, NULL));
  READ(pxc_readUser(c, n, &t->user));
  return PX_OK;
}

// one element of a tendon path
static pxtStatus parseWrap(pxcCtx* c, pxcNode* n, int spatial) {
  pxcSpec* s = c->spec;
  int id = PXC_ADD(c, s, wrap);
  if (id < 0) return c->st->code;
  pxcWrap* w = s->wrap + id;
  setSrc(&w->src, n);
  w->tag = n->name;
  if (spatial && !strcmp(n->name, "site")) {
    w->type = PX_WRAP_SITE;
    TRY(requiredName(c, n, "site", w->obj));
  } else if (spatial && !strcmp(n->name, "geom")) {
    w->type = PX_WRAP_SPHERE;  // cylinder once the geom is known
    TRY(requiredName(c, n, "geom", w->obj));
    READ(pxc_readName(c, n, "sidesite", w->sidesite));
  } else if (spatial && !strcmp(n->name, "pulley")) {
    w->type = PX_WRAP_PULLEY;
    int r = pxc_readNum(c, n, "divisor", &w->prm);
    READ(r);
    if (!r) return missing(c, n, "divisor");
  } else if (!spatial && !strcmp(n->name, "joint")) {
    w->type = PX_WRAP_JOINT;
    TRY(requiredName(c, n, "joint", w->obj));
    int r = pxc_readNum(c, n, "coef", &w->prm);
    READ(r);
    if (!r) return missing(c, n, "coef");
  } else {
    return pxc_error(c, n, "unrecognized element in <%s>", n->parent->name);
  }
  TRY(pxc_checkUnused(c, n));
  return noChildren(c, n);
}

pxtStatus pxc_parseTendons(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    int spatial = !strcmp(n->name, "spatial");
    if (!spatial && strcmp(n->name, "fixed")) {
      return pxc_error(c, n, "unrecognized element in <tendon>");
    }
    int cls = elementClass(c, n);
    if (cls < 0) return c->st->code;
    int id = PXC_ADD(c, s, tendon);
    if (id < 0) return c->st->code;
    pxcTendon* t = s->tendon + id;
    *t = s->dflt[cls].tendon;
    setSrc(&t->src, n);
    t->tag = n->name;
    t->spatial = spatial;
    TRY(pxc_readTendon(c, n, t));
    TRY(pxc_checkUnused(c, n));
    int wrapadr = s->nwrap;
    for (int k = 0; k < n->nchild; k++) TRY(parseWrap(c, n->child[k], spatial));
    t = s->tendon + id;
    t->wrapadr = wrapadr;
    t->wrapnum = s->nwrap - wrapadr;
  }
  return PX_OK;
}

//---------------------------------- actuators -----------------------------------------------------

enum {
  K_GENERAL = 0,
  K_MOTOR,
  K_POSITION,
  K_VELOCITY,
  K_INTVELOCITY,
  K_DAMPER,
  K_CYLINDER,
  K_MUSCLE,
  K_ADHESION,
  K_NKIND
};

static const char* const kKinds[] = {"general", "motor",    "position", "velocity", "intvelocity",
                                     "damper",  "cylinder", "muscle",   "adhesion", NULL};
static const char* const kUnsupportedKinds[] = {"orientation", "pid", "dcmotor", "plugin", NULL};

static int actuatorKind(const char* kind) {
  for (int i = 0; kKinds[i]; i++) {
    if (!strcmp(kind, kKinds[i])) return i;
  }
  return -1;
}

static pxtStatus checkKind(pxcCtx* c, pxcNode* n, const char* kind, int* k) {
  *k = actuatorKind(kind);
  if (*k >= 0) return PX_OK;
  for (int i = 0; kUnsupportedKinds[i]; i++) {
    if (!strcmp(kind, kUnsupportedKinds[i])) {
      char what[64];
      snprintf(what, sizeof(what), "the <%s> actuator", kind);
      return unsupported(c, n, what);
    }
  }
  return pxc_error(c, n, "unrecognized actuator type '%s'", kind);
}

// mjs_setToPosition: returns an error message or NULL (the state may be partly set, as MuJoCo's)
static const char* setToPosition(pxcActuator* a, double kp, const double* kv,
                                 const double* dampratio, const double* timeconst,
                                 double inheritrange) {
  a->gainprm[0] = kp;
  a->biasprm[1] = -kp;
  if (dampratio && kv) return "kv and dampratio cannot both be defined";
  if (kv) {
    if (*kv < 0) return "kv cannot be negative";
    a->biasprm[2] = -*kv;
  }
  if (dampratio) {
    if (*dampratio < 0) return "dampratio cannot be negative";
    a->biasprm[2] = *dampratio;  // positive: damping ratio, converted by the compiler
  }
  if (timeconst) {
    if (*timeconst < 0) return "timeconst cannot be negative";
    a->dynprm[0] = *timeconst;
    a->dyntype = *timeconst == 0 ? PX_DYN_NONE : PX_DYN_FILTEREXACT;
  }
  a->inheritrange = inheritrange;
  if (inheritrange > 0 && (a->ctrlrange[0] || a->ctrlrange[1])) {
    return "ctrlrange and inheritrange cannot both be defined";
  }
  a->gaintype = PX_GAIN_FIXED;
  a->biastype = PX_BIAS_AFFINE;
  return NULL;
}

// position and intvelocity
static const char* readServo(pxcCtx* c, pxcNode* n, pxcActuator* a, int kind, int* fail) {
  double kp = a->gainprm[0], kv = 0, dampratio = 0, timeconst = 0;
  double inheritrange = a->inheritrange;
  int r[5];
  r[0] = pxc_readNum(c, n, "kp", &kp);
  r[1] = pxc_readNum(c, n, "kv", &kv);
  r[2] = pxc_readNum(c, n, "dampratio", &dampratio);
  r[3] = kind == K_POSITION ? pxc_readNum(c, n, "timeconst", &timeconst) : 0;
  r[4] = pxc_readNum(c, n, "inheritrange", &inheritrange);
  for (int i = 0; i < 5; i++) {
    if (r[i] < 0) {
      *fail = 1;
      return NULL;
    }
  }
  const char* err = setToPosition(a, kp, r[1] ? &kv : NULL, r[2] ? &dampratio : NULL,
                                  r[3] ? &timeconst : NULL, inheritrange);
  if (kind == K_POSITION) return err;

  // mjs_setToIntVelocity ignores the errors of mjs_setToPosition
  a->dyntype = PX_DYN_INTEGRATOR;
  if (inheritrange > 0 && (a->actrange[0] || a->actrange[1])) {
    return "actrange and inheritrange cannot both be defined";
  }
  return NULL;
}

static const char* readMuscle(pxcCtx* c, pxcNode* n, pxcActuator* a, int dflt, int* fail) {
  double tausmooth = a->dynprm[2];
  double force = -1, scale = -1, lmin = -1, lmax = -1, vmax = -1, fpmax = -1, fvmax = -1;
  double range[2] = {-1, -1}, timeconst[2] = {-1, -1};
  int r = 0;
  r |= pxc_readNums(c, n, "timeconst", 2, 2, timeconst, NULL);
  if (!dflt) r |= pxc_readNum(c, n, "tausmooth", &tausmooth);
  r |= pxc_readNums(c, n, "range", 2, 2, range, NULL);
  r |= pxc_readNum(c, n, "force", &force);
  r |= pxc_readNum(c, n, "scale", &scale);
  r |= pxc_readNum(c, n, "lmin", &lmin);
  r |= pxc_readNum(c, n, "lmax", &lmax);
  r |= pxc_readNum(c, n, "vmax", &vmax);
  r |= pxc_readNum(c, n, "fpmax", &fpmax);
  r |= pxc_readNum(c, n, "fvmax", &fvmax);
  if (r < 0) {  // -1 (an error) has every bit set
    *fail = 1;
    return NULL;
  }

  // MuJoCo's muscle defaults where the parameters still have the global defaults
  double* g = a->gainprm;
  if (a->dynprm[0] == 1) a->dynprm[0] = 0.01;
  if (a->dynprm[1] == 0) a->dynprm[1] = 0.04;
  if (g[0] == 1) g[0] = 0.75;
  if (g[1] == 0) g[1] = 1.05;
  if (g[2] == 0) g[2] = -1;
  if (g[3] == 0) g[3] = 200;
  if (g[4] == 0) g[4] = 0.5;
  if (g[5] == 0) g[5] = 1.6;
  if (g[6] == 0) g[6] = 1.5;
  if (g[7] == 0) g[7] = 1.3;
  if (g[8] == 0) g[8] = 1.2;
  if (tausmooth < 0) return "muscle tausmooth cannot be negative";
  a->dynprm[2] = tausmooth;
  if (timeconst[0] >= 0) a->dynprm[0] = timeconst[0];
  if (timeconst[1] >= 0) a->dynprm[1] = timeconst[1];
  if (range[0] >= 0) g[0] = range[0];
  if (range[1] >= 0) g[1] = range[1];
  if (force >= 0) g[2] = force;
  if (scale >= 0) g[3] = scale;
  if (lmin >= 0) g[4] = lmin;
  if (lmax >= 0) g[5] = lmax;
  if (vmax >= 0) g[6] = vmax;
  if (fpmax >= 0) g[7] = fpmax;
  if (fvmax >= 0) g[8] = fvmax;
  for (int i = 0; i < 9; i++) a->biasprm[i] = g[i];
  a->dyntype = PX_DYN_MUSCLE;
  a->gaintype = PX_GAIN_MUSCLE;
  a->biastype = PX_BIAS_MUSCLE;
  return NULL;
}

// the shortcut semantics of each kind (mjXReader::OneActuator and mjs_setTo*)
static const char* applyKind(pxcCtx* c, pxcNode* n, pxcActuator* a, int kind, int dflt, int* fail) {
  *fail = 0;
  switch (kind) {
    case K_MOTOR:
      a->gainprm[0] = 1;
      a->dyntype = PX_DYN_NONE;
      a->gaintype = PX_GAIN_FIXED;
      a->biastype = PX_BIAS_NONE;
      return NULL;

    case K_POSITION:
    case K_INTVELOCITY:
      return readServo(c, n, a, kind, fail);

    case K_VELOCITY: {
      double kv = a->gainprm[0];
      if (pxc_readNum(c, n, "kv", &kv) < 0) {
        *fail = 1;
        return NULL;
      }
      memset(a->biasprm, 0, sizeof(a->biasprm));
      a->gainprm[0] = kv;
      a->biasprm[2] = -kv;
      a->dyntype = PX_DYN_NONE;
      a->gaintype = PX_GAIN_FIXED;
      a->biastype = PX_BIAS_AFFINE;
      return NULL;
    }

    case K_DAMPER: {
      double kv = a->gaintype == PX_GAIN_AFFINE ? -a->gainprm[2] : 0;
      if (pxc_readNum(c, n, "kv", &kv) < 0) {
        *fail = 1;
        return NULL;
      }
      memset(a->gainprm, 0, sizeof(a->gainprm));
      a->gainprm[2] = -kv;
      a->ctrllimited = 1;
      a->dyntype = PX_DYN_NONE;
      a->gaintype = PX_GAIN_AFFINE;
      a->biastype = PX_BIAS_NONE;
      if (kv < 0) return "damping coefficient cannot be negative";
      if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0) {
        return "damper control range cannot be negative";
      }
      return NULL;
    }

    case K_CYLINDER: {
      double timeconst = a->dynprm[0];
      double bias[3] = {a->biasprm[0], a->biasprm[1], a->biasprm[2]};
      double area = a->gainprm[0];
      double diameter = -1;
      int r = 0;
      r |= pxc_readNum(c, n, "timeconst", &timeconst);
      r |= pxc_readNums(c, n, "bias", 3, 3, bias, NULL);
      r |= pxc_readNum(c, n, "area", &area);
      r |= pxc_readNum(c, n, "diameter", &diameter);
      if (r < 0) {
        *fail = 1;
        return NULL;
      }
      a->dynprm[0] = timeconst;
      a->biasprm[0] = bias[0];
      a->gainprm[0] = area;
      if (diameter >= 0) a->gainprm[0] = PXC_PI / 4 * diameter * diameter;
      a->dyntype = PX_DYN_FILTER;
      a->gaintype = PX_GAIN_FIXED;
      a->biastype = PX_BIAS_AFFINE;
      a->biasprm[1] = bias[1];
      a->biasprm[2] = bias[2];
      return NULL;
    }

    case K_MUSCLE:
      return readMuscle(c, n, a, dflt, fail);

    case K_ADHESION: {
      double gain = a->gainprm[0];
      if (pxc_readNum(c, n, "gain", &gain) < 0) {
        *fail = 1;
        return NULL;
      }
      a->gainprm[0] = gain;
      a->ctrllimited = 1;
      a->gaintype = PX_GAIN_FIXED;
      a->biastype = PX_BIAS_NONE;
      if (gain < 0) return "adhesion gain cannot be negative";
      if (a->ctrlrange[0] < 0 || a->ctrlrange[1] < 0) {
        return "adhesion control range cannot be negative";
      }
      return NULL;
    }

    default:  // general: attributes only
      return NULL;
  }
}

// transmission attributes (not in defaults), in MuJoCo's order: a later one wins
static pxtStatus readTransmission(pxcCtx* c, pxcNode* n, pxcActuator* a, int kind) {
  static const char* const attrs[] = {"joint",     "jointinparent", "tendon",
                                      "cranksite", "site",          "body"};
  static const int types[] = {PX_TRN_JOINT,       PX_TRN_JOINTINPARENT, PX_TRN_TENDON,
                              PX_TRN_SLIDERCRANK, PX_TRN_SITE,          PX_TRN_BODY};
  for (int i = 0; i < 6; i++) {
    int allowed;
    if (kind == K_ADHESION) {
      allowed = types[i] == PX_TRN_BODY;
    } else if (kind == K_MUSCLE) {
      allowed = types[i] != PX_TRN_SITE && types[i] != PX_TRN_BODY;
    } else {
      allowed = types[i] != PX_TRN_BODY || kind == K_GENERAL;
    }
    if (!allowed) continue;
    int r = pxc_readName(c, n, attrs[i], a->target);
    READ(r);
    if (r) a->trntype = types[i];
  }
  return PX_OK;
}

// <default><general|motor|...> and actuator elements: attributes, then the shortcut semantics
pxtStatus pxc_readActuator(pxcCtx* c, pxcNode* n, const char* kind, pxcActuator* a) {
  int k;
  TRY(checkKind(c, n, kind, &k));
  int dflt = inDefault(n);
  TRY(uniqueInDefault(c, n));

  // attributes every kind has
  if (!dflt) READ(pxc_readName(c, n, "name", a->name));
  READ(pxc_readInt(c, n, "group", &a->group));
  READ(pxc_readInt(c, n, "nsample", &a->nsample));
  static const char* const interp[] = {"zoh", "linear", "cubic", NULL};
  static const int interpv[] = {0, 1, 2};
  READ(pxc_readKeyword(c, n, "interp", interp, interpv, &a->interp));
  READ(pxc_readNum(c, n, "delay", &a->delay));
  READ(pxc_readNums(c, n, "ctrlrange", 2, 2, a->ctrlrange, NULL));
  READ(pxc_readUser(c, n, &a->user));
  if (k != K_DAMPER && k != K_ADHESION) READ(pxc_readTriBool(c, n, "ctrllimited", &a->ctrllimited));
  READ(pxc_readTriBool(c, n, "forcelimited", &a->forcelimited));
  READ(pxc_readNums(c, n, "forcerange", 2, 2, a->forcerange, NULL));
  if (k == K_GENERAL || k == K_INTVELOCITY) {
    READ(pxc_readTriBool(c, n, "actlimited", &a->actlimited));
    READ(pxc_readNums(c, n, "actrange", 2, 2, a->actrange, NULL));
  }
  if (k != K_ADHESION) {
    if (!dflt) READ(pxc_readNums(c, n, "lengthrange", 2, 2, a->lengthrange, NULL));
    READ(pxc_readNums(c, n, "gear", 1, 6, a->gear, NULL));
    READ(pxc_readNums(c, n, "damping", 1, 3, a->damping, NULL));
    READ(pxc_readNum(c, n, "armature", &a->armature));
  }

  // the full set of <general>
  if (k == K_GENERAL) {
    static const char* const dyn[] = {"none",    "integrator", "filter", "filterexact", "muscle",
                                      "dcmotor", "pid",        "user",   NULL};
    static const int dynv[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const char* const gain[] = {"fixed", "affine", "muscle", "dcmotor",
                                       "so3",   "pid",    "user",   NULL};
    static const int gainv[] = {0, 1, 2, 3, 4, 5, 6};
    static const char* const bias[] = {"none", "affine", "muscle", "dcmotor", "so3", "user", NULL};
    static const int biasv[] = {0, 1, 2, 3, 4, 5};
    if (hasAttr(n, "input")) {
      pxc_xmlAttr(n, "input");
      return unsupported(c, n, "attribute 'input' (so3, pid and dcmotor inputs)");
    }
    READ(pxc_readInt(c, n, "actdim", &a->actdim));
    READ(pxc_readNums(c, n, "velrange", 2, 2, a->velrange, NULL));
    READ(pxc_readNums(c, n, "ffrange", 2, 2, a->ffrange, NULL));
    READ(pxc_readKeyword(c, n, "dyntype", dyn, dynv, &a->dyntype));
    READ(pxc_readKeyword(c, n, "gaintype", gain, gainv, &a->gaintype));
    READ(pxc_readKeyword(c, n, "biastype", bias, biasv, &a->biastype));
    READ(pxc_readNums(c, n, "dynprm", 1, 10, a->dynprm, NULL));
    READ(pxc_readNums(c, n, "gainprm", 1, 10, a->gainprm, NULL));
    READ(pxc_readNums(c, n, "biasprm", 1, 10, a->biasprm, NULL));
    READ(pxc_readBool(c, n, "actearly", &a->actearly));
  }

  // transmission and its parameters
  if (!dflt) TRY(readTransmission(c, n, a, k));
  if (k != K_ADHESION) {
    int r1 = pxc_readNum(c, n, "cranklength", &a->cranklength);
    READ(r1);
    int r2 = 0, r3 = 0;
    if (!dflt) {
      r2 = pxc_readName(c, n, "slidersite", a->slidersite);
      READ(r2);
    }
    if ((r1 || r2) && a->trntype != PX_TRN_SLIDERCRANK && a->trntype != PX_TRN_UNDEFINED) {
      return pxc_error(c, n,
                       "cranklength and slidersite can only be used in slidercrank transmission");
    }
    if (!dflt && k != K_MUSCLE) {
      r3 = pxc_readName(c, n, "refsite", a->refsite);
      READ(r3);
    }
    if (r3 && a->trntype != PX_TRN_SITE && a->trntype != PX_TRN_UNDEFINED) {
      return pxc_error(c, n, "refsite can only be used with site transmission");
    }
  }

  // shortcut semantics
  int fail = 0;
  const char* err = applyKind(c, n, a, k, dflt, &fail);
  if (fail) return c->st->code;
  if (err) return pxc_error(c, n, "%s", err);
  return PX_OK;
}

pxtStatus pxc_parseActuators(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    int k;
    TRY(checkKind(c, n, n->name, &k));
    int cls = elementClass(c, n);
    if (cls < 0) return c->st->code;
    int id = PXC_ADD(c, s, act);
    if (id < 0) return c->st->code;
    pxcActuator* a = s->act + id;
    *a = s->dflt[cls].actuator;
    setSrc(&a->src, n);
    a->kind = n->name;
    TRY(pxc_readActuator(c, n, n->name, a));
    TRY(pxc_checkUnused(c, n));
    TRY(noChildren(c, n));
  }
  return PX_OK;
}

//---------------------------------- equality constraints ------------------------------------------

static pxtStatus readConnectWeld(pxcCtx* c, pxcNode* n, pxcEquality* e) {
  int weld = e->type == PX_EQ_WELD;
  static const char* const sites[] = {"site1", "site2", NULL};
  static const char* const cbody[] = {"body1", "body2", "anchor", NULL};
  static const char* const wbody[] = {"body1", "body2", "anchor", "relpose", NULL};
  static const char* const conebody[] = {"body1", "anchor", NULL};
  static const char* const wonebody[] = {"body1", NULL};
  const char* const* excl[] = {sites, weld ? wbody : cbody, NULL};
  const char* const* one[] = {sites, weld ? wonebody : conebody, NULL};
  TRY(exclusive(c, n, excl));
  TRY(oneof(c, n, one));
  TRY(together(c, n, "site1", "site2"));

  char site1[PXC_NAME] = "", site2[PXC_NAME] = "", body1[PXC_NAME] = "", body2[PXC_NAME] = "";
  int hs1 = pxc_readName(c, n, "site1", site1);
  int hs2 = pxc_readName(c, n, "site2", site2);
  int hb1 = pxc_readName(c, n, "body1", body1);
  int hb2 = pxc_readName(c, n, "body2", body2);
  if (hs1 < 0 || hs2 < 0 || hb1 < 0 || hb2 < 0) return c->st->code;
  int anchor = pxc_readNums(c, n, "anchor", 3, 3, e->data, NULL);
  READ(anchor);
  if (weld) {
    READ(pxc_readNums(c, n, "relpose", 7, 7, e->data + 3, NULL));
    READ(pxc_readNum(c, n, "torquescale", e->data + 10));
  }

  int body = weld ? hb1 : (hb1 && anchor);
  if (body) {
    strcpy(e->name1, body1);
    strcpy(e->name2, hb2 ? body2 : "");
    e->objtype = PX_OBJ_BODY;
    if (weld && !anchor) e->data[0] = e->data[1] = e->data[2] = 0;
  } else {
    strcpy(e->name1, site1);
    strcpy(e->name2, site2);
    e->objtype = PX_OBJ_SITE;
  }
  return PX_OK;
}

// <default><equality> and <connect>, <weld>, <joint>, <tendon>
pxtStatus pxc_readEquality(pxcCtx* c, pxcNode* n, pxcEquality* e) {
  int dflt = inDefault(n);
  TRY(uniqueInDefault(c, n));
  if (!dflt) READ(pxc_readName(c, n, "name", e->name));
  READ(pxc_readBool(c, n, "active", &e->active));
  READ(pxc_readNums(c, n, "solref", 1, 2, e->solref, NULL));
  READ(pxc_readNums(c, n, "solimp", 1, 5, e->solimp, NULL));
  if (dflt) return PX_OK;

  const char* t = n->name;
  if (!strcmp(t, "connect") || !strcmp(t, "weld")) {
    e->type = !strcmp(t, "weld") ? PX_EQ_WELD : PX_EQ_CONNECT;
    return readConnectWeld(c, n, e);
  }
  if (!strcmp(t, "joint") || !strcmp(t, "tendon")) {
    int joint = !strcmp(t, "joint");
    e->type = joint ? PX_EQ_JOINT : PX_EQ_TENDON;  // objtype stays unknown, as in MuJoCo
    TRY(requiredName(c, n, joint ? "joint1" : "tendon1", e->name1));
    READ(pxc_readName(c, n, joint ? "joint2" : "tendon2", e->name2));
    READ(pxc_readNums(c, n, "polycoef", 1, 5, e->data, NULL));
    return PX_OK;
  }
  if (!strcmp(t, "flex") || !strcmp(t, "flexvert") || !strcmp(t, "flexstrain")) {
    return unsupported(c, n, "flex equality constraints");
  }
  return pxc_error(c, n, "unrecognized element in <equality>");
}

pxtStatus pxc_parseEqualities(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    static const char* const known[] = {"connect", "weld",     "joint",      "tendon",
                                        "flex",    "flexvert", "flexstrain", NULL};
    int ok = 0;
    for (int k = 0; known[k]; k++) ok |= !strcmp(n->name, known[k]);
    if (!ok) return pxc_error(c, n, "unrecognized element in <equality>");
    int cls = elementClass(c, n);
    if (cls < 0) return c->st->code;
    int id = PXC_ADD(c, s, eq);
    if (id < 0) return c->st->code;
    pxcEquality* e = s->eq + id;
    *e = s->dflt[cls].equality;
    setSrc(&e->src, n);
    e->tag = n->name;
    TRY(pxc_readEquality(c, n, e));
    TRY(pxc_checkUnused(c, n));
    TRY(noChildren(c, n));
  }
  return PX_OK;
}

//---------------------------------- contact pairs and exclusions ----------------------------------

// <default><pair> and <pair>
pxtStatus pxc_readPair(pxcCtx* c, pxcNode* n, pxcPair* p) {
  int dflt = inDefault(n);
  TRY(uniqueInDefault(c, n));
  if (!dflt) {
    READ(pxc_readName(c, n, "name", p->name));
    READ(pxc_readName(c, n, "geom1", p->geom1));
    READ(pxc_readName(c, n, "geom2", p->geom2));
  }
  READ(pxc_readInt(c, n, "condim", &p->condim));
  READ(pxc_readNums(c, n, "friction", 1, 5, p->friction, NULL));
  READ(pxc_readNums(c, n, "solref", 1, 2, p->solref, NULL));
  READ(pxc_readNums(c, n, "solreffriction", 1, 2, p->solreffriction, NULL));
  READ(pxc_readNums(c, n, "solimp", 1, 5, p->solimp, NULL));
  READ(pxc_readNum(c, n, "gap", &p->gap));
  READ(pxc_readNum(c, n, "margin", &p->margin));
  READ(pxc_readNum(c, n, "adhesion", &p->adhesion));
  return PX_OK;
}

pxtStatus pxc_parseContacts(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    if (!strcmp(n->name, "pair")) {
      int cls = elementClass(c, n);
      if (cls < 0) return c->st->code;
      int id = PXC_ADD(c, s, pair);
      if (id < 0) return c->st->code;
      pxcPair* p = s->pair + id;
      *p = s->dflt[cls].pair;
      setSrc(&p->src, n);
      TRY(pxc_readPair(c, n, p));
    } else if (!strcmp(n->name, "exclude")) {
      int id = PXC_ADD(c, s, exclude);
      if (id < 0) return c->st->code;
      pxcPair* p = s->exclude + id;
      setSrc(&p->src, n);
      READ(pxc_readName(c, n, "name", p->name));
      TRY(requiredName(c, n, "body1", p->geom1));
      TRY(requiredName(c, n, "body2", p->geom2));
    } else {
      return pxc_error(c, n, "unrecognized element in <contact>");
    }
    TRY(pxc_checkUnused(c, n));
    TRY(noChildren(c, n));
  }
  return PX_OK;
}

//---------------------------------- sensors -------------------------------------------------------

// sensor elements described by their object (and reference) attributes
enum { F_OBJ = 0, F_FRAME, F_FRAMENOREF, F_CAMPROJ, F_INSIDE, F_NONE };

typedef struct {
  const char* tag;
  int type;
  int form;
  const char* objattr;  // F_OBJ, F_CAMPROJ, F_INSIDE: the attribute naming the object
  int objtype;
} sensorDef;

static const sensorDef kSensors[] = {
    {"touch", PX_SENS_TOUCH, F_OBJ, "site", PX_OBJ_SITE},
    {"accelerometer", PX_SENS_ACCELEROMETER, F_OBJ, "site", PX_OBJ_SITE},
    {"velocimeter", PX_SENS_VELOCIMETER, F_OBJ, "site", PX_OBJ_SITE},
    {"gyro", PX_SENS_GYRO, F_OBJ, "site", PX_OBJ_SITE},
    {"force", PX_SENS_FORCE, F_OBJ, "site", PX_OBJ_SITE},
    {"torque", PX_SENS_TORQUE, F_OBJ, "site", PX_OBJ_SITE},
    {"magnetometer", PX_SENS_MAGNETOMETER, F_OBJ, "site", PX_OBJ_SITE},
    {"camprojection", PX_SENS_CAMPROJECTION, F_CAMPROJ, "site", PX_OBJ_SITE},
    {"jointpos", PX_SENS_JOINTPOS, F_OBJ, "joint", PX_OBJ_JOINT},
    {"jointvel", PX_SENS_JOINTVEL, F_OBJ, "joint", PX_OBJ_JOINT},
    {"tendonpos", PX_SENS_TENDONPOS, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"tendonvel", PX_SENS_TENDONVEL, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"actuatorpos", PX_SENS_ACTUATORPOS, F_OBJ, "actuator", PX_OBJ_ACTUATOR},
    {"actuatorvel", PX_SENS_ACTUATORVEL, F_OBJ, "actuator", PX_OBJ_ACTUATOR},
    {"actuatorfrc", PX_SENS_ACTUATORFRC, F_OBJ, "actuator", PX_OBJ_ACTUATOR},
    {"jointactuatorfrc", PX_SENS_JOINTACTFRC, F_OBJ, "joint", PX_OBJ_JOINT},
    {"tendonactuatorfrc", PX_SENS_TENDONACTFRC, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"ballquat", PX_SENS_BALLQUAT, F_OBJ, "joint", PX_OBJ_JOINT},
    {"ballangvel", PX_SENS_BALLANGVEL, F_OBJ, "joint", PX_OBJ_JOINT},
    {"jointlimitpos", PX_SENS_JOINTLIMITPOS, F_OBJ, "joint", PX_OBJ_JOINT},
    {"jointlimitvel", PX_SENS_JOINTLIMITVEL, F_OBJ, "joint", PX_OBJ_JOINT},
    {"jointlimitfrc", PX_SENS_JOINTLIMITFRC, F_OBJ, "joint", PX_OBJ_JOINT},
    {"tendonlimitpos", PX_SENS_TENDONLIMITPOS, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"tendonlimitvel", PX_SENS_TENDONLIMITVEL, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"tendonlimitfrc", PX_SENS_TENDONLIMITFRC, F_OBJ, "tendon", PX_OBJ_TENDON},
    {"framepos", PX_SENS_FRAMEPOS, F_FRAME, NULL, 0},
    {"framequat", PX_SENS_FRAMEQUAT, F_FRAME, NULL, 0},
    {"framexaxis", PX_SENS_FRAMEXAXIS, F_FRAME, NULL, 0},
    {"frameyaxis", PX_SENS_FRAMEYAXIS, F_FRAME, NULL, 0},
    {"framezaxis", PX_SENS_FRAMEZAXIS, F_FRAME, NULL, 0},
    {"framelinvel", PX_SENS_FRAMELINVEL, F_FRAME, NULL, 0},
    {"frameangvel", PX_SENS_FRAMEANGVEL, F_FRAME, NULL, 0},
    {"framelinacc", PX_SENS_FRAMELINACC, F_FRAMENOREF, NULL, 0},
    {"frameangacc", PX_SENS_FRAMEANGACC, F_FRAMENOREF, NULL, 0},
    {"subtreecom", PX_SENS_SUBTREECOM, F_OBJ, "body", PX_OBJ_BODY},
    {"subtreelinvel", PX_SENS_SUBTREELINVEL, F_OBJ, "body", PX_OBJ_BODY},
    {"subtreeangmom", PX_SENS_SUBTREEANGMOM, F_OBJ, "body", PX_OBJ_BODY},
    {"insidesite", PX_SENS_INSIDESITE, F_INSIDE, "site", PX_OBJ_SITE},
    {"e_potential", PX_SENS_E_POTENTIAL, F_NONE, NULL, 0},
    {"e_kinetic", PX_SENS_E_KINETIC, F_NONE, NULL, 0},
    {"clock", PX_SENS_CLOCK, F_NONE, NULL, 0},
    {NULL, 0, 0, NULL, 0}};

static const char* const kFrameObj[] = {"body", "xbody", "geom", "site", "camera", NULL};
static const int kFrameObjValues[] = {PX_OBJ_BODY, PX_OBJ_XBODY, PX_OBJ_GEOM, PX_OBJ_SITE,
                                      PX_OBJ_CAMERA};

// attributes shared by the sensor elements (sensor_base)
static pxtStatus readSensorBase(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char* const interp[] = {"zoh", "linear", "cubic", NULL};
  static const int interpv[] = {0, 1, 2};
  READ(pxc_readName(c, n, "name", se->name));
  READ(pxc_readInt(c, n, "nsample", &se->nsample));
  READ(pxc_readKeyword(c, n, "interp", interp, interpv, &se->interp));
  READ(pxc_readNum(c, n, "delay", &se->delay));
  READ(pxc_readNums(c, n, "interval", 1, 2, se->interval, NULL));
  READ(pxc_readNum(c, n, "cutoff", &se->cutoff));
  READ(pxc_readNum(c, n, "noise", &se->noise));
  READ(pxc_readUser(c, n, &se->user));
  return PX_OK;
}

// the attributes a <tactile> sensor has beside geom and mesh: the base ones without cutoff and
// noise (MuJoCo's schema)
static pxtStatus readTactileBase(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char* const interp[] = {"zoh", "linear", "cubic", NULL};
  static const int interpv[] = {0, 1, 2};
  READ(pxc_readName(c, n, "name", se->name));
  READ(pxc_readInt(c, n, "nsample", &se->nsample));
  READ(pxc_readKeyword(c, n, "interp", interp, interpv, &se->interp));
  READ(pxc_readNum(c, n, "delay", &se->delay));
  READ(pxc_readNums(c, n, "interval", 1, 2, se->interval, NULL));
  READ(pxc_readUser(c, n, &se->user));
  return PX_OK;
}

static pxtStatus readFrameObj(pxcCtx* c, pxcNode* n, pxcSensor* se, int withref) {
  int r = pxc_readKeyword(c, n, "objtype", kFrameObj, kFrameObjValues, &se->objtype);
  READ(r);
  if (!r) return missing(c, n, "objtype");
  TRY(requiredName(c, n, "objname", se->objname));
  if (withref) {
    TRY(together(c, n, "reftype", "refname"));
    READ(pxc_readKeyword(c, n, "reftype", kFrameObj, kFrameObjValues, &se->reftype));
    READ(pxc_readName(c, n, "refname", se->refname));
  }
  return PX_OK;
}

// <distance>, <normal>, <fromto>
static pxtStatus readGeomDist(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char* const g1[] = {"geom1", NULL};
  static const char* const b1[] = {"body1", NULL};
  static const char* const g2[] = {"geom2", NULL};
  static const char* const b2[] = {"body2", NULL};
  const char* const* side1[] = {g1, b1, NULL};
  const char* const* side2[] = {g2, b2, NULL};
  TRY(exclusive(c, n, side1));
  TRY(oneof(c, n, side1));
  TRY(exclusive(c, n, side2));
  TRY(oneof(c, n, side2));
  int hb1 = pxc_readName(c, n, "body1", se->objname);
  READ(hb1);
  READ(pxc_readName(c, n, "geom1", se->objname));
  se->objtype = hb1 ? PX_OBJ_BODY : PX_OBJ_GEOM;
  int hb2 = pxc_readName(c, n, "body2", se->refname);
  READ(hb2);
  READ(pxc_readName(c, n, "geom2", se->refname));
  se->reftype = hb2 ? PX_OBJ_BODY : PX_OBJ_GEOM;
  se->type = !strcmp(n->name, "distance") ? PX_SENS_GEOMDIST
             : !strcmp(n->name, "normal") ? PX_SENS_GEOMNORMAL
                                          : PX_SENS_GEOMFROMTO;
  return PX_OK;
}

// <contact> sensor: matching criteria, data fields, reduction and number of contacts
static pxtStatus readContactSensor(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char *const a1[] = {"geom1", NULL}, *const b1[] = {"body1", NULL};
  static const char *const s1[] = {"subtree1", NULL}, *const t1[] = {"site", NULL};
  static const char *const a2[] = {"geom2", NULL}, *const b2[] = {"body2", NULL};
  static const char* const s2[] = {"subtree2", NULL};
  const char* const* side1[] = {a1, b1, s1, t1, NULL};
  const char* const* side2[] = {a2, b2, s2, NULL};
  TRY(exclusive(c, n, side1));
  TRY(exclusive(c, n, side2));

  int site, body1, subtree1, geom1, body2, subtree2, geom2;
  READ(site = pxc_readName(c, n, "site", se->objname));
  READ(body1 = pxc_readName(c, n, "body1", se->objname));
  READ(subtree1 = pxc_readName(c, n, "subtree1", se->objname));
  READ(geom1 = pxc_readName(c, n, "geom1", se->objname));
  READ(body2 = pxc_readName(c, n, "body2", se->refname));
  READ(subtree2 = pxc_readName(c, n, "subtree2", se->refname));
  READ(geom2 = pxc_readName(c, n, "geom2", se->refname));
  se->objtype = site       ? PX_OBJ_SITE
                : body1    ? PX_OBJ_BODY
                : subtree1 ? PX_OBJ_XBODY
                : geom1    ? PX_OBJ_GEOM
                           : PX_OBJ_UNKNOWN;
  se->reftype = body2      ? PX_OBJ_BODY
                : subtree2 ? PX_OBJ_XBODY
                : geom2    ? PX_OBJ_GEOM
                           : PX_OBJ_UNKNOWN;

  static const char* const condata[] = {"found", "force",  "torque",  "dist",
                                        "pos",   "normal", "tangent", NULL};
  se->intprm[0] = 1;  // found
  READ(readOrderedFlags(c, n, "data", condata, &se->intprm[0]));

  static const char* const reduce[] = {"none", "mindist", "maxforce", "netforce", NULL};
  static const int reducev[] = {0, 1, 2, 3};
  se->intprm[1] = 0;
  READ(pxc_readKeyword(c, n, "reduce", reduce, reducev, &se->intprm[1]));
  se->intprm[2] = 1;
  READ(pxc_readInt(c, n, "num", &se->intprm[2]));
  if (se->intprm[2] <= 0) return pxc_error(c, n, "'num' must be positive in sensor");
  se->type = PX_SENS_CONTACT;
  return PX_OK;
}

// <rangefinder>: a site or a camera, with ray data fields
static pxtStatus readRangefinder(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char* const s[] = {"site", NULL};
  static const char* const k[] = {"camera", NULL};
  const char* const* g[] = {s, k, NULL};
  TRY(exclusive(c, n, g));
  TRY(oneof(c, n, g));
  int site = pxc_readName(c, n, "site", se->objname);
  READ(site);
  READ(pxc_readName(c, n, "camera", se->objname));
  se->objtype = site ? PX_OBJ_SITE : PX_OBJ_CAMERA;
  static const char* const raydata[] = {"dist", "dir", "origin", "point", "normal", "depth", NULL};
  se->intprm[0] = 1;  // dist
  READ(readOrderedFlags(c, n, "data", raydata, &se->intprm[0]));
  se->type = PX_SENS_RANGEFINDER;
  return PX_OK;
}

// <user> sensor
static pxtStatus readUserSensor(pxcCtx* c, pxcNode* n, pxcSensor* se) {
  static const char* const dt[] = {"real", "positive", "axis", "quaternion", NULL};
  static const int dtv[] = {0, 1, 2, 3};
  static const char* const stage[] = {"none", "pos", "vel", "acc", NULL};
  static const int stagev[] = {0, 1, 2, 3};
  se->type = PX_SENS_USER;
  READ(pxc_readName(c, n, "name", se->name));
  TRY(together(c, n, "objtype", "objname"));
  char type[64];
  int r = pxc_readString(c, n, "objtype", type, sizeof(type));
  READ(r);
  if (r) se->objtype = pxc_str2Type(type);
  READ(pxc_readName(c, n, "objname", se->objname));
  r = pxc_readInt(c, n, "dim", &se->dim);
  READ(r);
  if (!r) return missing(c, n, "dim");
  READ(pxc_readKeyword(c, n, "needstage", stage, stagev, &se->needstage));
  READ(pxc_readKeyword(c, n, "datatype", dt, dtv, &se->datatype));
  READ(pxc_readNum(c, n, "cutoff", &se->cutoff));
  READ(pxc_readNum(c, n, "noise", &se->noise));
  READ(pxc_readUser(c, n, &se->user));
  return PX_OK;
}

static pxtStatus parseSensor(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  if (!strcmp(n->name, "plugin")) return unsupported(c, n, "sensor plugins");
  const sensorDef* def = NULL;
  for (int i = 0; kSensors[i].tag; i++) {
    if (!strcmp(n->name, kSensors[i].tag)) def = kSensors + i;
  }
  static const char* const special[] = {"rangefinder", "distance", "normal",  "fromto",
                                        "contact",     "user",     "tactile", NULL};
  int known = def != NULL;
  for (int i = 0; special[i]; i++) known |= !strcmp(n->name, special[i]);
  if (!known) return pxc_error(c, n, "unrecognized element in <sensor>");

  int id = PXC_ADD(c, s, sensor);
  if (id < 0) return c->st->code;
  pxcSensor* se = s->sensor + id;
  setSrc(&se->src, n);
  se->tag = n->name;
  se->type = PX_SENS_TOUCH;
  se->datatype = PX_DATATYPE_REAL;
  se->needstage = PX_STAGE_ACC;

  if (!strcmp(n->name, "user")) {
    TRY(readUserSensor(c, n, se));
  } else {
    TRY(strcmp(n->name, "tactile") ? readSensorBase(c, n, se) : readTactileBase(c, n, se));
    if (def) {
      se->type = def->type;
      switch (def->form) {
        case F_OBJ:
          se->objtype = def->objtype;
          TRY(requiredName(c, n, def->objattr, se->objname));
          break;
        case F_CAMPROJ:
          se->objtype = PX_OBJ_SITE;
          se->reftype = PX_OBJ_CAMERA;
          TRY(requiredName(c, n, "site", se->objname));
          TRY(requiredName(c, n, "camera", se->refname));
          break;
        case F_INSIDE:
          se->reftype = PX_OBJ_SITE;
          TRY(requiredName(c, n, "site", se->refname));
          TRY(readFrameObj(c, n, se, 0));
          break;
        case F_FRAME:
        case F_FRAMENOREF:
          TRY(readFrameObj(c, n, se, def->form == F_FRAME));
          break;
        default:  // F_NONE
          se->objtype = PX_OBJ_UNKNOWN;
          break;
      }
    } else if (!strcmp(n->name, "rangefinder")) {
      TRY(readRangefinder(c, n, se));
    } else if (!strcmp(n->name, "contact")) {
      TRY(readContactSensor(c, n, se));
    } else if (!strcmp(n->name, "tactile")) {
      // taxels at the vertices of a mesh, placed by a geom's frame
      se->type = PX_SENS_TACTILE;
      se->reftype = PX_OBJ_GEOM;
      TRY(requiredName(c, n, "geom", se->refname));
      se->objtype = PX_OBJ_MESH;
      TRY(requiredName(c, n, "mesh", se->objname));
    } else {
      TRY(readGeomDist(c, n, se));
    }
  }
  TRY(pxc_checkUnused(c, n));
  return noChildren(c, n);
}

pxtStatus pxc_parseSensors(pxcCtx* c, pxcNode* section) {
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) TRY(parseSensor(c, section->child[i]));
  return PX_OK;
}

//---------------------------------- keyframes -----------------------------------------------------

pxtStatus pxc_parseKeyframes(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  static const char* const lists[] = {"qpos", "qvel", "act", "mpos", "mquat", "ctrl", NULL};
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    if (strcmp(n->name, "key")) return pxc_error(c, n, "unrecognized element in <keyframe>");
    char name[PXC_NAME];
    double time;
    READ(pxc_readName(c, n, "name", name));
    READ(pxc_readNum(c, n, "time", &time));
    for (int k = 0; lists[k]; k++) {
      double* v = NULL;
      int count = 0;
      int r = pxc_readList(c, n, lists[k], &v, &count);
      free(v);
      READ(r);
    }
    TRY(pxc_checkUnused(c, n));
    TRY(noChildren(c, n));
    int id = PXC_ADD(c, s, key);
    if (id < 0) return c->st->code;
    s->key[id] = n;
  }
  return PX_OK;
}

//---------------------------------- custom --------------------------------------------------------

// a <numeric>: name, size and data as MuJoCo's reader checks them (size 1..500, data not longer
// than size); the compiler reads the values again
static pxtStatus checkNumeric(pxcCtx* c, pxcNode* n) {
  char name[PXC_NAME];
  int r = pxc_readName(c, n, "name", name);
  READ(r);
  if (!r) return missing(c, n, "name");
  int sz = 0;
  r = pxc_readInt(c, n, "size", &sz);
  READ(r);
  int given = r;
  const char* v = attrValue(n, "data");
  int len = 0;
  if (v) {
    double* vals = NULL;
    READ(pxc_readList(c, n, "data", &vals, &len));
    int cap = given ? sz : 501;
    if (len > cap) {
      free(vals);
      return pxc_error(c, n, "attribute 'data' has too much data");
    }
    free(vals);
  }
  if (!given) sz = len;
  if (sz < 1 || sz > 500) return pxc_error(c, n, "custom field size must be between 1 and 500");
  return PX_OK;
}

static pxtStatus checkTuple(pxcCtx* c, pxcNode* n) {
  for (int i = 0; i < n->nchild; i++) {
    pxcNode* e = n->child[i];
    if (strcmp(e->name, "element")) return pxc_error(c, e, "unrecognized element in <tuple>");
    char type[64], name[PXC_NAME];
    double prm;
    int r = pxc_readString(c, e, "objtype", type, sizeof(type));
    READ(r);
    if (!r) return missing(c, e, "objtype");
    if (pxc_str2Type(type) == PX_OBJ_UNKNOWN) return pxc_error(c, e, "unknown object type");
    TRY(requiredName(c, e, "objname", name));
    READ(pxc_readNum(c, e, "prm", &prm));
    TRY(pxc_checkUnused(c, e));
    TRY(noChildren(c, e));
  }
  return PX_OK;
}

pxtStatus pxc_parseCustom(pxcCtx* c, pxcNode* section) {
  pxcSpec* s = c->spec;
  TRY(pxc_checkUnused(c, section));
  for (int i = 0; i < section->nchild; i++) {
    pxcNode* n = section->child[i];
    char name[PXC_NAME];
    if (!strcmp(n->name, "numeric")) {
      TRY(checkNumeric(c, n));
      TRY(noChildren(c, n));
    } else if (!strcmp(n->name, "text")) {
      TRY(requiredName(c, n, "name", name));
      const char* v = pxc_xmlAttr(n, "data");
      if (!v) return missing(c, n, "data");
      if (!v[0]) return pxc_error(c, n, "text field cannot be empty");
      TRY(noChildren(c, n));
    } else if (!strcmp(n->name, "tuple")) {
      TRY(requiredName(c, n, "name", name));
      TRY(checkTuple(c, n));
    } else {
      return pxc_error(c, n, "unrecognized element in <custom>");
    }
    TRY(pxc_checkUnused(c, n));
    int id = PXC_ADD(c, s, custom);
    if (id < 0) return c->st->code;
    s->custom[id] = n;
  }
  return PX_OK;
}
