// SPDX-License-Identifier: Apache-2.0
// spec -> pxModel for the elements outside the body tree: the Compile() of MuJoCo 3.12's
// mjCPair, mjCBodyPair, mjCEquality, mjCTendon/mjCWrap, mjCActuator, mjCSensor, mjCNumeric,
// mjCText, mjCTuple and mjCKey, their part of mjCModel::CopyObjects, and the constants that
// mj_setConst derives for them without dynamics:
//   tendon_lengthspring when springlength is -1  tendon lengths at qpos_spring (setSpring),
//                                                 spatial paths wrapped with mju_wrap's math.
// The sparse structures and sizes (nC, nJten, nJmom, ten_J_*, tendon trees, actuator ids of
// joints and tendons) are compile_sparse.c's.
// Two passes: pxc_sizeMisc resolves what the sizes depend on (nuser_*, actuator activations,
// sensor dimensions, custom data) before the model is allocated; pxc_fillMisc resolves names
// against the model's name table and fills every X-macro array of these objects, checking in
// MuJoCo's order and with MuJoCo's messages. Pairs and exclusions are sorted by body signature
// as MuJoCo does; pxc_miscName uses the same order.
//   reads:  c->spec, and in the fill pass m's body-tree arrays, names, qpos0 and qpos_spring
//   writes: sizes nu, na, nout, ntendon, nwrap, nsensor, nsensordata, nhistory, neq, nemax,
//           npair, nexclude, nkey, nnumeric(data), ntext(data), ntuple(data), nuser_tendon/
//           actuator/sensor; arrays tendon_*, wrap_*, actuator_*, sensor_*, eq_*, pair_*,
//           exclude_*, key_*, numeric_*, text_*, tuple_*
// Values MuJoCo computes by running dynamics (invweights, acc0, length0, dampratio, lengthrange)
// are csrc/engine/setconst.c's, run by the compiler once the model exists.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/misc.h"
#include "mjcf/spec.h"
#include "px/pxdata.h"
#include "px/pxmodel.h"

#define PXC_MAX_SENSORDATA (1 << 28)  // values in sensordata

static const double kMinVal = 1e-15;  // mjMINVAL
static const double kEps = 1e-14;     // mjEPS of the compiler
static const double kPi = 3.14159265358979323846;

// sizes of the contact (mjCONDATA_SIZE) and rangefinder (mjRAYDATA_SIZE) data fields
static const int kConDataSize[7] = {1, 3, 3, 1, 3, 3, 3};
static const int kRayDataSize[6] = {1, 3, 3, 3, 3, 1};

//---------------------------------- errors --------------------------------------------------------

// "file:line: <tag>: message" with the element's source
static pxtStatus failAt(pxcCtx* c, pxtStatus code, const pxcSrc* src, const char* tag,
                        const char* fmt, ...) __attribute__((format(printf, 5, 6)));
static pxtStatus failAt(pxcCtx* c, pxtStatus code, const pxcSrc* src, const char* tag,
                        const char* fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return PX_FAIL(c->st, code, "%s:%d: <%s>: %s", src->file ? src->file : "?", src->line,
                 tag ? tag : "?", msg);
}

#define ERR(src, tag, ...) failAt(c, PX_ERR_MJCF, src, tag, __VA_ARGS__)
#define UNSUPPORTED(src, tag, what) \
  failAt(c, PX_ERR_UNSUPPORTED, src, tag, "%s is not supported by phalanx yet", what)

// an element of the document, at any depth, with this name
static int hasElement(const pxcNode* n, const char* name) {
  if (!strcmp(n->name, name)) return 1;
  for (int i = 0; i < n->nchild; i++) {
    if (hasElement(n->child[i], name)) return 1;
  }
  return 0;
}

// a referenced name is missing: invalid MJCF, unless the document has a <replicate>, whose
// copies MuJoCo also makes of the elements outside it that refer into it
static pxtStatus notFound(pxcCtx* c, const pxcSrc* src, const char* tag, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static pxtStatus notFound(pxcCtx* c, const pxcSrc* src, const char* tag, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (c->doc && c->doc->root && hasElement(c->doc->root, "replicate")) {
    return failAt(c, PX_ERR_UNSUPPORTED, src, tag,
                  "%s; references to elements copied by <replicate> (MuJoCo copies the referring "
                  "element too) are not supported by phalanx yet",
                  msg);
  }
  return failAt(c, PX_ERR_MJCF, src, tag, "%s", msg);
}

#define NOTFOUND(src, tag, ...) notFound(c, src, tag, __VA_ARGS__)

//---------------------------------- small helpers -------------------------------------------------

// mjCBase limited semantics: true, or auto with a range
static int isLimited(int limited, const double range[2]) {
  return limited == 1 || (limited == 2 && range[0] < range[1]);
}

// checklimited of MuJoCo's compiler (auto limits without compiler autolimits)
static pxtStatus checkLimited(pxcCtx* c, const pxcSrc* src, const char* tag, const char* entity,
                              const char* attr, int limited, const double range[2]) {
  int hasrange = !(range[0] == 0 && range[1] == 0);
  if (!c->spec->autolimits && limited == 2 && hasrange) {
    return ERR(src, tag,
               "%s has `%srange` but not `%slimited`. set the autolimits=\"true\" compiler "
               "option, specify `%slimited` explicitly (\"true\" or \"false\"), or remove the "
               "`%srange` attribute.",
               entity, attr, attr, attr, attr);
  }
  return PX_OK;
}

// value of an attribute without marking it used, or NULL
static const char* attrValue(const pxcNode* n, const char* attr) {
  for (int i = 0; i < n->nattr; i++) {
    if (!strcmp(n->attr[i].name, attr)) return n->attr[i].value;
  }
  return NULL;
}

// model id of a named object (xbody: body), or -1
static int findObject(const pxModel* m, int type, const char* name) {
  if (!name || !name[0]) return -1;
  return px_name2id(m, type == PX_OBJ_XBODY ? PX_OBJ_BODY : type, name);
}

// spec index of a named element, or -1
static int specBody(const pxcSpec* s, const char* name) {
  for (int i = 0; i < s->nbody; i++) {
    if (!strcmp(s->body[i].name, name)) return i;
  }
  return -1;
}

static int specGeomBody(const pxcSpec* s, const char* name) {
  if (!name[0]) return -1;
  for (int i = 0; i < s->ngeom; i++) {
    if (!strcmp(s->geom[i].name, name)) return s->geom[i].body;
  }
  return -1;
}

// the id-th custom node with element name `tag`, or NULL
static pxcNode* customNode(const pxcSpec* s, const char* tag, int id) {
  for (int i = 0; i < s->ncustom; i++) {
    if (!strcmp(s->custom[i]->name, tag) && id-- == 0) return s->custom[i];
  }
  return NULL;
}

static int customCount(const pxcSpec* s, const char* tag) {
  int n = 0;
  for (int i = 0; i < s->ncustom; i++) n += !strcmp(s->custom[i]->name, tag);
  return n;
}

static int nkeyOf(const pxcSpec* s) {
  int n = s->nkey + s->nakey;
  return n > s->sizekey ? n : s->sizekey;
}

//---------------------------------- pair order ----------------------------------------------------

// body signature of a pair or exclusion from the spec ((body1 << 16) + body2, sorted), or -1
static int specSignature(const pxcSpec* s, int exclude, int i) {
  const pxcPair* p = exclude ? s->exclude + i : s->pair + i;
  int b1 = exclude ? specBody(s, p->geom1) : specGeomBody(s, p->geom1);
  int b2 = exclude ? specBody(s, p->geom2) : specGeomBody(s, p->geom2);
  if (b1 < 0 || b2 < 0) return -1;
  if (b1 > b2) {
    int t = b1;
    b1 = b2;
    b2 = t;
  }
  return (b1 << 16) + b2;
}

// MuJoCo's stable sort of the pairs (exclusions) by signature into order (spec index of each
// rank): the signatures once, then an insertion sort that keeps equal ones in spec order
static void pairOrder(const pxcSpec* s, int exclude, int* order, int* sig) {
  int n = exclude ? s->nexclude : s->npair;
  for (int i = 0; i < n; i++) {
    int si = specSignature(s, exclude, i);
    int j = i;
    for (; j > 0 && sig[j - 1] > si; j--) {
      sig[j] = sig[j - 1];
      order[j] = order[j - 1];
    }
    sig[j] = si;
    order[j] = i;
  }
}

// spec index of the pair (exclusion) at position `rank` of MuJoCo's stable sort by signature
// (the order pxc_sizeMisc sets before any name or array is filled; -1 without it)
static int sortedPair(const pxcSpec* s, int exclude, int rank) {
  int n = exclude ? s->nexclude : s->npair;
  const int* order = exclude ? s->exclorder : s->pairorder;
  if (!order || rank < 0 || rank >= n) return -1;
  return order[rank];
}

//---------------------------------- names ---------------------------------------------------------

const char* pxc_miscName(const pxcSpec* s, int objtype, int id) {
  const char* name = NULL;
  switch (objtype) {
    case PX_OBJ_TENDON:
      if (id >= 0 && id < s->ntendon) name = s->tendon[id].name;
      break;
    case PX_OBJ_ACTUATOR:
      if (id >= 0 && id < s->nact) name = s->act[id].name;
      break;
    case PX_OBJ_SENSOR:
      if (id >= 0 && id < s->nsensor) name = s->sensor[id].name;
      break;
    case PX_OBJ_EQUALITY:
      if (id >= 0 && id < s->neq) name = s->eq[id].name;
      break;
    case PX_OBJ_PAIR:
    case PX_OBJ_EXCLUDE: {
      int exclude = objtype == PX_OBJ_EXCLUDE;
      int k = sortedPair(s, exclude, id);
      if (k >= 0) name = exclude ? s->exclude[k].name : s->pair[k].name;
      break;
    }
    case PX_OBJ_NUMERIC:
    case PX_OBJ_TEXT:
    case PX_OBJ_TUPLE: {
      const char* tag = objtype == PX_OBJ_NUMERIC ? "numeric"
                        : objtype == PX_OBJ_TEXT  ? "text"
                                                  : "tuple";
      pxcNode* n = customNode(s, tag, id);
      if (n) name = attrValue(n, "name");
      break;
    }
    case PX_OBJ_KEY:
      if (id >= 0 && id < s->nkey) name = attrValue(s->key[id], "name");
      if (id >= s->nkey && id < s->nkey + s->nakey) name = s->akey[id - s->nkey].name;
      break;
    default:
      break;
  }
  return name && name[0] ? name : NULL;
}

//---------------------------------- sizes ---------------------------------------------------------

// nuser_*: -1 means the longest user array of the elements (SetNuser)
static int nuserOf(int given, int longest) {
  return given == -1 ? longest : given;
}

// mjtNums of one history buffer: [user, cursor, times(n), values(n*dim)]; none without samples
// history buffer length (MuJoCo's sizes; the engine runs the buffers in csrc/engine/history.c), so
// an absurd length only needs to stay defined (clamped, no signed overflow)
static int historyLen(int nsample, int dim) {
  if (nsample <= 0) return 0;
  long long n = 2 + (long long)nsample + (long long)nsample * dim;
  return n > (1 << 30) ? (1 << 30) : (int)n;
}

// activation dimension of an actuator (mjCActuator::Compile), with its checks
static pxtStatus actuatorDim(pxcCtx* c, const pxcActuator* a, int* actdim) {
  const char* tag = a->kind;
  int dyn = a->dyntype;
  if (dyn == PX_DYN_DCMOTOR || dyn == PX_DYN_PID) {  // unsupported: reported after the checks
    *actdim = a->actdim > 0 ? a->actdim : 0;
    return PX_OK;
  }
  if (a->actdim > 1 && dyn != PX_DYN_USER) {
    return ERR(&a->src, tag, "actdim > 1 is only allowed for dyntype 'user' and 'dcmotor'");
  }
  if (a->actdim == 1 && dyn == PX_DYN_NONE) {
    return ERR(&a->src, tag, "invalid actdim 1 in stateless actuator");
  }
  if (a->actdim == 0 && dyn != PX_DYN_NONE) {
    return ERR(&a->src, tag, "invalid actdim 0 in stateful actuator");
  }
  *actdim = a->actdim < 0 ? dyn != PX_DYN_NONE : a->actdim;
  return PX_OK;
}

// what phalanx cannot model of an actuator, checked once MuJoCo's compiler accepted the model:
// input/output/state types, history buffers, and what MuJoCo computes with dynamics at qpos0
static pxtStatus actuatorUnsupported(pxcCtx* c, const pxcActuator* a) {
  static const char* const gain[] = {"fixed", "affine", "muscle", "dcmotor", "so3", "pid", "user"};
  static const char* const bias[] = {"none", "affine", "muscle", "dcmotor", "so3", "user"};
  static const char* const dyn[] = {"none",   "integrator", "filter", "filterexact",
                                    "muscle", "dcmotor",    "pid",    "user"};
  char what[96];
  if (a->gaintype == PX_GAIN_DCMOTOR || a->gaintype == PX_GAIN_SO3 || a->gaintype == PX_GAIN_PID) {
    snprintf(what, sizeof(what), "gaintype '%s'", gain[a->gaintype]);
    return UNSUPPORTED(&a->src, a->kind, what);
  }
  if (a->biastype == PX_BIAS_DCMOTOR || a->biastype == PX_BIAS_SO3) {
    snprintf(what, sizeof(what), "biastype '%s'", bias[a->biastype]);
    return UNSUPPORTED(&a->src, a->kind, what);
  }
  if (a->dyntype == PX_DYN_DCMOTOR || a->dyntype == PX_DYN_PID) {
    snprintf(what, sizeof(what), "dyntype '%s'", dyn[a->dyntype]);
    return UNSUPPORTED(&a->src, a->kind, what);
  }
  // dampratio (biasprm[2] > 0 of a position-like actuator) is converted to kv by px_setConst
  // and a muscle's missing lengthrange computed by px_setLengthRange (csrc/engine/setconst.c)
  return PX_OK;
}

// the unsupported-feature checks of every element, after all of MuJoCo's checks passed
static pxtStatus unsupportedMisc(pxcCtx* c) {
  const pxcSpec* s = c->spec;
  for (int i = 0; i < s->nact; i++) TRY(actuatorUnsupported(c, s->act + i));
  return PX_OK;
}

// datatype, needstage and dimension of each sensor type (sensorDatatype, sensorNeedstage and
// mjs_sensorDim of MuJoCo's compiler); dim -1: computed from the sensor's parameters
typedef struct {
  signed char datatype, needstage, dim;
} sensorInfo;

// clang-format off
static const sensorInfo kSensorInfo[PX_SENS_USER + 1] = {
  {PX_DATATYPE_POSITIVE,         PX_STAGE_ACC,   1},  // touch
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   3},  // accelerometer
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // velocimeter
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // gyro
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   3},  // force
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   3},  // torque
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   3},  // magnetometer
  {PX_DATATYPE_REAL,             PX_STAGE_POS,  -1},  // rangefinder
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   2},  // camprojection
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // jointpos
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   1},  // jointvel
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // tendonpos
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   1},  // tendonvel
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // actuatorpos
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   1},  // actuatorvel
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   1},  // actuatorfrc
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   1},  // jointactuatorfrc
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   1},  // tendonactuatorfrc
  {PX_DATATYPE_QUATERNION,       PX_STAGE_POS,   4},  // ballquat
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // ballangvel
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // jointlimitpos
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   1},  // jointlimitvel
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   1},  // jointlimitfrc
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // tendonlimitpos
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   1},  // tendonlimitvel
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   1},  // tendonlimitfrc
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   3},  // framepos
  {PX_DATATYPE_QUATERNION,       PX_STAGE_POS,   4},  // framequat
  {PX_DATATYPE_AXIS,             PX_STAGE_POS,   3},  // framexaxis
  {PX_DATATYPE_AXIS,             PX_STAGE_POS,   3},  // frameyaxis
  {PX_DATATYPE_AXIS,             PX_STAGE_POS,   3},  // framezaxis
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // framelinvel
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // frameangvel
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   3},  // framelinacc
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,   3},  // frameangacc
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   3},  // subtreecom
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // subtreelinvel
  {PX_DATATYPE_REAL,             PX_STAGE_VEL,   3},  // subtreeangmom
  {PX_DATATYPE_POSITIVE,         PX_STAGE_POS,   1},  // insidesite
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // distance
  {PX_DATATYPE_AXIS,             PX_STAGE_POS,   3},  // normal
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   6},  // fromto
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,  -1},  // contact
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // e_potential
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // e_kinetic
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   1},  // clock
  {PX_DATATYPE_REAL,             PX_STAGE_ACC,  -1},  // tactile
  {PX_DATATYPE_REAL,             PX_STAGE_POS,   0},  // plugin
  {PX_DATATYPE_REAL,             PX_STAGE_POS,  -1},  // user
};
// clang-format on

// sensor dimension (mjs_sensorDim); cameras of rangefinders are looked up in the spec
static int sensorDim(const pxcCtx* c, const pxModel* m, const pxcSensor* se) {
  const pxcSpec* s = c->spec;
  switch (se->type) {
    case PX_SENS_CONTACT: {
      int size = 0;
      for (int i = 0; i < 7; i++) size += (se->intprm[0] >> i & 1) * kConDataSize[i];
      return se->intprm[2] * size;
    }
    case PX_SENS_RANGEFINDER: {
      int size = 0;
      for (int i = 0; i < 6; i++) size += (se->intprm[0] >> i & 1) * kRayDataSize[i];
      int nray = 1;
      if (se->objtype == PX_OBJ_CAMERA) {
        for (int i = 0; i < s->ncam; i++) {
          if (!strcmp(s->cam[i].name, se->objname)) {
            nray = s->cam[i].resolution[0] * s->cam[i].resolution[1];
          }
        }
      }
      return size * nray;
    }
    case PX_SENS_USER:
      return se->dim;
    case PX_SENS_TACTILE:  // 3 channels per vertex of the mesh
      if (m) {
        int id = findObject(m, PX_OBJ_MESH, se->objname);
        return id >= 0 ? 3 * m->mesh_vertnum[id] : 0;
      }
      for (int i = 0; i < c->nmeshc; i++) {
        if (c->meshname[i] && !strcmp(c->meshname[i], se->objname)) return 3 * c->meshnvert[i];
      }
      return 0;
    default:  // actuator sensors: one value per force output, here 1
      return se->type >= 0 && se->type <= PX_SENS_USER ? kSensorInfo[se->type].dim : 0;
  }
}

pxtStatus pxc_sizeMisc(pxcCtx* c, pxModel* sz) {
  // the pairs' and exclusions' order, once per compile (name lookups and the arrays follow it)
  pxcSpec* ms = c->spec;
  free(ms->pairorder);
  free(ms->exclorder);
  ms->pairorder = ms->exclorder = NULL;
  {
    int n = ms->npair > ms->nexclude ? ms->npair : ms->nexclude;
    int* sig = (int*)malloc(sizeof(int) * (size_t)(n + 1));
    ms->pairorder = (int*)malloc(sizeof(int) * (size_t)(ms->npair + 1));
    ms->exclorder = (int*)malloc(sizeof(int) * (size_t)(ms->nexclude + 1));
    if (!sig || !ms->pairorder || !ms->exclorder) {
      free(sig);
      free(ms->pairorder);
      free(ms->exclorder);
      ms->pairorder = ms->exclorder = NULL;
      return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory ordering %d pairs", n);
    }
    pairOrder(ms, 0, ms->pairorder, sig);
    pairOrder(ms, 1, ms->exclorder, sig);
    free(sig);
  }
  const pxcSpec* s = c->spec;

  // nuser_*
  int ut = 0, ua = 0, us = 0;
  for (int i = 0; i < s->ntendon; i++) ut = s->tendon[i].user.n > ut ? s->tendon[i].user.n : ut;
  for (int i = 0; i < s->nact; i++) ua = s->act[i].user.n > ua ? s->act[i].user.n : ua;
  for (int i = 0; i < s->nsensor; i++) us = s->sensor[i].user.n > us ? s->sensor[i].user.n : us;
  sz->nuser_tendon = nuserOf(s->nuser_tendon, ut);
  sz->nuser_actuator = nuserOf(s->nuser_actuator, ua);
  sz->nuser_sensor = nuserOf(s->nuser_sensor, us);

  // equality constraints: rows of each type
  sz->neq = s->neq;
  sz->nemax = 0;
  for (int i = 0; i < s->neq; i++) {
    int t = s->eq[i].type;
    sz->nemax += t == PX_EQ_CONNECT ? 3 : t == PX_EQ_WELD ? 7 : 1;
  }
  sz->npair = s->npair;
  sz->nexclude = s->nexclude;
  sz->ntendon = s->ntendon;
  sz->nwrap = s->nwrap;

  // actuators: one control and one force output each; activations from dyntype
  sz->nu = s->nact;
  sz->nout = s->nact;
  sz->na = 0;
  for (int i = 0; i < s->nact; i++) {
    int actdim;
    TRY(actuatorDim(c, s->act + i, &actdim));
    sz->na += actdim;
  }

  // sensors
  sz->nsensor = s->nsensor;
  sz->nsensordata = 0;
  for (int i = 0; i < s->nsensor; i++) {
    const pxcSensor* se = s->sensor + i;
    if (se->type == PX_SENS_USER && se->dim < 0) {
      return ERR(&se->src, se->tag, "sensor dim must be non-negative in sensor");
    }
    int dim = sensorDim(c, NULL, se);
    if ((long long)sz->nsensordata + dim > PXC_MAX_SENSORDATA) {
      return ERR(&se->src, se->tag, "sensor data exceeds phalanx's limit of %d values",
                 PXC_MAX_SENSORDATA);
    }
    sz->nsensordata += dim;
  }

  // history buffers: actuators (one value per sample), then sensors
  long long nhistory = 0;
  for (int i = 0; i < s->nact; i++) nhistory += historyLen(s->act[i].nsample, 1);
  for (int i = 0; i < s->nsensor; i++) {
    nhistory += historyLen(s->sensor[i].nsample, sensorDim(c, NULL, s->sensor + i));
  }
  sz->nhistory = nhistory > (1 << 30) ? (1 << 30) : (int)nhistory;

  // keyframes (<size nkey> adds default keyframes) and custom data
  sz->nkey = nkeyOf(s);
  sz->nnumeric = customCount(s, "numeric");
  sz->ntext = customCount(s, "text");
  sz->ntuple = customCount(s, "tuple");
  sz->nnumericdata = sz->ntextdata = sz->ntupledata = 0;
  for (int i = 0; i < s->ncustom; i++) {
    pxcNode* n = s->custom[i];
    if (!strcmp(n->name, "numeric")) {
      const char* size = attrValue(n, "size");
      if (size) {
        sz->nnumericdata += atoi(size);
      } else {
        double* v = NULL;
        int k = 0;
        if (pxc_readList(c, n, "data", &v, &k) < 0) return c->st->code;
        free(v);
        sz->nnumericdata += k;
      }
    } else if (!strcmp(n->name, "text")) {
      const char* data = attrValue(n, "data");
      sz->ntextdata += (int)strlen(data ? data : "") + 1;
    } else {
      sz->ntupledata += n->nchild;
    }
  }
  return PX_OK;
}

//---------------------------------- pairs and exclusions ------------------------------------------

static pxtStatus fillPairs(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;

  // MuJoCo compiles pairs in document order, then sorts them by signature
  for (int i = 0; i < s->npair; i++) {
    const pxcPair* p = s->pair + i;
    if (p->condim != 1 && p->condim != 3 && p->condim != 4 && p->condim != 6) {
      return ERR(&p->src, "pair", "invalid condim in contact pair");
    }
    int g1 = findObject(m, PX_OBJ_GEOM, p->geom1);
    int g2 = findObject(m, PX_OBJ_GEOM, p->geom2);
    if (g1 < 0)
      return NOTFOUND(&p->src, "pair", "geom '%s' not found in collision %d", p->geom1, i);
    if (g2 < 0)
      return NOTFOUND(&p->src, "pair", "geom '%s' not found in collision %d", p->geom2, i);
  }
  for (int i = 0; i < s->nexclude; i++) {
    const pxcPair* p = s->exclude + i;
    if (findObject(m, PX_OBJ_BODY, p->geom1) < 0) {
      return NOTFOUND(&p->src, "exclude", "body '%s' not found in bodypair %d", p->geom1, i);
    }
    if (findObject(m, PX_OBJ_BODY, p->geom2) < 0) {
      return NOTFOUND(&p->src, "exclude", "body '%s' not found in bodypair %d", p->geom2, i);
    }
  }

  for (int r = 0; r < s->npair; r++) {
    int i = sortedPair(s, 0, r);
    const pxcPair* p = s->pair + i;
    int g1 = findObject(m, PX_OBJ_GEOM, p->geom1);
    int g2 = findObject(m, PX_OBJ_GEOM, p->geom2);
    if (m->geom_bodyid[g1] > m->geom_bodyid[g2]) {
      int t = g1;
      g1 = g2;
      g2 = t;
    }
    int sig = (m->geom_bodyid[g1] << 16) + m->geom_bodyid[g2];
    if (sig != specSignature(s, 0, i)) {
      return UNSUPPORTED(&p->src, "pair", "contact pairs whose bodies were fused or reordered");
    }
    m->pair_dim[r] = p->condim;
    m->pair_geom1[r] = g1;
    m->pair_geom2[r] = g2;
    m->pair_signature[r] = sig;
    memcpy(m->pair_solref + 2 * r, p->solref, 2 * sizeof(double));
    memcpy(m->pair_solreffriction + 2 * r, p->solreffriction, 2 * sizeof(double));
    memcpy(m->pair_solimp + 5 * r, p->solimp, 5 * sizeof(double));
    m->pair_margin[r] = p->margin;
    m->pair_gap[r] = p->gap;
    m->pair_adhesion[r] = p->adhesion;
    memcpy(m->pair_friction + 5 * r, p->friction, 5 * sizeof(double));
  }
  for (int r = 0; r < s->nexclude; r++) {
    int i = sortedPair(s, 1, r);
    const pxcPair* p = s->exclude + i;
    int b1 = findObject(m, PX_OBJ_BODY, p->geom1);
    int b2 = findObject(m, PX_OBJ_BODY, p->geom2);
    if (b1 > b2) {
      int t = b1;
      b1 = b2;
      b2 = t;
    }
    int sig = (b1 << 16) + b2;
    if (sig != specSignature(s, 1, i)) {
      return UNSUPPORTED(&p->src, "exclude", "excluded pairs whose bodies were reordered");
    }
    m->exclude_signature[r] = sig;
  }
  return PX_OK;
}

//---------------------------------- equality constraints ------------------------------------------

static pxtStatus fillEqualities(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;
  for (int i = 0; i < s->neq; i++) {
    const pxcEquality* e = s->eq + i;
    int type;
    switch (e->type) {
      case PX_EQ_CONNECT:
      case PX_EQ_WELD:
        type = e->objtype;
        break;
      case PX_EQ_JOINT:
        type = PX_OBJ_JOINT;
        break;
      default:
        type = PX_OBJ_TENDON;
        break;
    }
    int id1 = findObject(m, type, e->name1);
    if (id1 < 0) {
      return NOTFOUND(&e->src, e->tag, "unknown element '%s' in equality constraint", e->name1);
    }
    int id2 = -1;
    if (e->name2[0]) {
      id2 = findObject(m, type, e->name2);
      if (id2 < 0) {
        return NOTFOUND(&e->src, e->tag, "unknown element '%s' in equality constraint %d", e->name2,
                        i);
      }
    }
    if (type == PX_OBJ_BODY && id2 == -1) id2 = 0;
    if (id1 == id2) {
      return ERR(&e->src, e->tag, "element '%s' is repeated in equality constraint %d", e->name1,
                 i);
    }
    if (e->type == PX_EQ_JOINT) {
      int t1 = m->jnt_type[id1];
      int t2 = id2 >= 0 ? m->jnt_type[id2] : PX_JNT_HINGE;
      if ((t1 != PX_JNT_HINGE && t1 != PX_JNT_SLIDE) ||
          (t2 != PX_JNT_HINGE && t2 != PX_JNT_SLIDE)) {
        return ERR(&e->src, e->tag, "only HINGE and SLIDE joint allowed in constraint");
      }
    }
    m->eq_type[i] = e->type;
    m->eq_obj1id[i] = id1;
    m->eq_obj2id[i] = id2;
    m->eq_objtype[i] = e->objtype;
    m->eq_active0[i] = (pxtBool)(e->active != 0);
    memcpy(m->eq_solref + 2 * i, e->solref, 2 * sizeof(double));
    memcpy(m->eq_solimp + 5 * i, e->solimp, 5 * sizeof(double));
    memcpy(m->eq_data + 11 * i, e->data, 11 * sizeof(double));

    // site-based connect: eq_data is unused and zeroed (mj_setConst)
    if (e->type == PX_EQ_CONNECT && e->objtype == PX_OBJ_SITE) {
      memset(m->eq_data + 11 * i, 0, 11 * sizeof(double));
    }
  }
  return PX_OK;
}

// mju_normalize4
static void normalize4(double* v) {
  double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  if (norm < kMinVal) {
    v[0] = 1;
    v[1] = v[2] = v[3] = 0;
  } else if (fabs(norm - 1) > kMinVal) {
    double inv = 1 / norm;
    for (int k = 0; k < 4; k++) v[k] *= inv;
  }
}

// mju_mulMatVec3, mju_mulMatTVec3
static void mulMatVec3(double* res, const double* mat, const double* v) {
  double t[3] = {mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
                 mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
                 mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2]};
  memcpy(res, t, sizeof(t));
}

static void mulMatTVec3(double* res, const double* mat, const double* v) {
  double t[3] = {mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2],
                 mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2],
                 mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2]};
  memcpy(res, t, sizeof(t));
}

//---------------------------------- tendons -------------------------------------------------------

// resolve the elements of a tendon's path into the wrap arrays (mjCWrap::ResolveReferences)
static pxtStatus resolveWraps(pxcCtx* c, pxModel* m, int i) {
  const pxcSpec* s = c->spec;
  const pxcTendon* t = s->tendon + i;
  int sz = t->wrapnum, adr = t->wrapadr;
  int npulley = 0;
  for (int j = 0; j < sz; j++) {
    const pxcWrap* w = s->wrap + adr + j;
    int k = adr + j;
    m->wrap_type[k] = w->type;
    m->wrap_objid[k] = -1;
    m->wrap_prm[k] = w->prm;
    switch (w->type) {
      case PX_WRAP_JOINT:
        m->wrap_objid[k] = findObject(m, PX_OBJ_JOINT, w->obj);
        if (m->wrap_objid[k] < 0) {
          return NOTFOUND(&w->src, w->tag, "joint '%s' not found in tendon %d, wrap %d", w->obj, i,
                          j);
        }
        break;
      case PX_WRAP_SPHERE: {
        int g = findObject(m, PX_OBJ_GEOM, w->obj);
        if (g < 0) {
          return NOTFOUND(&w->src, w->tag, "geom '%s' not found in tendon %d, wrap %d", w->obj, i,
                          j);
        }
        if (m->geom_type[g] == PX_GEOM_CYLINDER) {
          m->wrap_type[k] = PX_WRAP_CYLINDER;
        } else if (m->geom_type[g] != PX_GEOM_SPHERE) {
          return ERR(&w->src, w->tag, "geom '%s' in tendon %d, wrap %d is not sphere or cylinder",
                     w->obj, i, j);
        }
        m->wrap_objid[k] = g;
        int side = -1;
        if (w->sidesite[0]) {
          side = findObject(m, PX_OBJ_SITE, w->sidesite);
          if (side < 0) {
            return NOTFOUND(&w->src, w->tag, "side site '%s' not found in tendon %d, wrap %d",
                            w->sidesite, i, j);
          }
        }
        m->wrap_prm[k] = side;
        break;
      }
      case PX_WRAP_PULLEY:
        npulley++;
        if (w->prm < 0) {
          return ERR(&w->src, w->tag, "pulley has negative divisor in tendon %d, wrap %d", i, j);
        }
        break;
      default:  // site
        m->wrap_objid[k] = findObject(m, PX_OBJ_SITE, w->obj);
        if (m->wrap_objid[k] < 0) {
          return NOTFOUND(&w->src, w->tag, "site '%s' not found in wrap %d", w->obj, j);
        }
        break;
    }
  }
  if (npulley == sz) {
    return ERR(&t->src, t->tag, "tendon '%s' (id = %d): no attached reference found", t->name, i);
  }

  return PX_OK;
}

// the rules of a path (mjCTendon::Compile)
static pxtStatus checkPath(pxcCtx* c, const pxModel* m, int i, int spatial) {
  const pxcTendon* t = c->spec->tendon + i;
  const char* tag = t->tag;
  const char* nm = t->name;
  int sz = t->wrapnum, adr = t->wrapadr;
  for (int j = 0; j < sz; j++) {
    int type = m->wrap_type[adr + j];
    int prev = j > 0 ? m->wrap_type[adr + j - 1] : -1;
    int next = j < sz - 1 ? m->wrap_type[adr + j + 1] : -1;
    if (!spatial) {
      if (type != PX_WRAP_JOINT) {
        return ERR(&t->src, tag,
                   "tendon '%s' (id = %d): spatial object found in fixed path at pos %d", nm, i, j);
      }
      continue;
    }
    if (t->armature < 0) {
      return ERR(&t->src, tag, "tendon '%s' (id = %d): tendon armature cannot be negative", nm, i);
    }
    switch (type) {
      case PX_WRAP_PULLEY:
        if (prev == PX_WRAP_PULLEY) {
          return ERR(&t->src, tag, "tendon '%s' (id = %d): consecutive pulleys (pos %d)", nm, i, j);
        }
        if (j == sz - 1) {
          return ERR(&t->src, tag, "tendon '%s' (id = %d): path ends with pulley", nm, i);
        }
        break;
      case PX_WRAP_SITE:
        if ((j == 0 || prev == PX_WRAP_PULLEY) && (j == sz - 1 || next == PX_WRAP_PULLEY)) {
          return ERR(&t->src, tag,
                     "tendon '%s' (id = %d): site %d needs a neighbor that is not a pulley", nm, i,
                     j);
        }
        if (next == PX_WRAP_SITE && m->wrap_objid[adr + j] == m->wrap_objid[adr + j + 1]) {
          return ERR(&t->src, tag, "tendon '%s' (id = %d): site %d is repeated", nm, i, j);
        }
        break;
      case PX_WRAP_SPHERE:
      case PX_WRAP_CYLINDER:
        if (j == 0 || j == sz - 1 || prev != PX_WRAP_SITE || next != PX_WRAP_SITE) {
          return ERR(&t->src, tag, "tendon '%s' (id = %d): geom at pos %d not bracketed by sites",
                     nm, i, j);
        }
        if (t->armature > 0) {
          return ERR(&t->src, tag,
                     "tendon '%s' (id = %d): geom wrapping not supported by tendon armature", nm,
                     i);
        }
        break;
      default:
        return ERR(&t->src, tag,
                   "tendon '%s (id = %d)': joint wrap found in spatial path at pos %d", nm, i, j);
    }
  }

  return PX_OK;
}

// a tendon: its path resolved and checked, then its limits, as mjCTendon::Compile does
static pxtStatus resolveTendon(pxcCtx* c, pxModel* m, int i) {
  const pxcSpec* s = c->spec;
  const pxcTendon* t = s->tendon + i;
  const char* tag = t->tag;
  const char* nm = t->name;
  int sz = t->wrapnum, adr = t->wrapadr;

  if (t->user.n > m->nuser_tendon) {
    return ERR(&t->src, tag, "user has more values than nuser_tendon in tendon");
  }
  if (!sz) return ERR(&t->src, tag, "tendon '%s' (id = %d): path cannot be empty", nm, i);
  int spatial = s->wrap[adr].type != PX_WRAP_JOINT;
  if (spatial && sz < 2) {
    return ERR(&t->src, tag,
               "tendon '%s' (id = %d): spatial path must contain at least two objects", nm, i);
  }
  if (spatial && t->width <= 0) {
    return ERR(&t->src, tag, "tendon '%s' (id = %d) must have positive width", nm, i);
  }

  TRY(resolveWraps(c, m, i));
  TRY(checkPath(c, m, i, spatial));

  // limits
  if (t->limited == 2) TRY(checkLimited(c, &t->src, tag, "tendon", "", t->limited, t->range));
  if (t->range[0] >= t->range[1] && isLimited(t->limited, t->range)) {
    return ERR(&t->src, tag, "invalid limits in tendon");
  }
  if (t->actfrclimited == 2) {
    TRY(checkLimited(c, &t->src, tag, "tendon", "", t->actfrclimited, t->actfrcrange));
  }
  if (isLimited(t->actfrclimited, t->actfrcrange) &&
      (t->actfrcrange[0] >= t->actfrcrange[1] || t->actfrcrange[0] > 0 || t->actfrcrange[1] < 0)) {
    return ERR(&t->src, tag, "invalid actuatorfrcrange in tendon");
  }
  if (t->springlength[0] > t->springlength[1]) {
    return ERR(&t->src, tag, "invalid springlength in tendon");
  }
  return PX_OK;
}

static pxtStatus fillTendons(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;

  // materials are resolved before anything else is compiled (IndexAssets)
  for (int i = 0; i < s->ntendon; i++) {
    const pxcTendon* t = s->tendon + i;
    m->tendon_matid[i] = -1;
    if (t->material[0]) {
      m->tendon_matid[i] = findObject(m, PX_OBJ_MATERIAL, t->material);
      if (m->tendon_matid[i] < 0) {
        return ERR(&t->src, t->tag, "material '%s' not found in tendon %d", t->material, i);
      }
    }
  }

  for (int i = 0; i < s->ntendon; i++) {
    const pxcTendon* t = s->tendon + i;
    TRY(resolveTendon(c, m, i));
    m->tendon_adr[i] = t->wrapadr;
    m->tendon_num[i] = t->wrapnum;
    m->tendon_group[i] = t->group;
    m->tendon_limited[i] = (pxtBool)isLimited(t->limited, t->range);
    m->tendon_actfrclimited[i] = (pxtBool)isLimited(t->actfrclimited, t->actfrcrange);
    m->tendon_width[i] = t->width;
    memcpy(m->tendon_solref_lim + 2 * i, t->solref_limit, 2 * sizeof(double));
    memcpy(m->tendon_solimp_lim + 5 * i, t->solimp_limit, 5 * sizeof(double));
    memcpy(m->tendon_solref_fri + 2 * i, t->solref_friction, 2 * sizeof(double));
    memcpy(m->tendon_solimp_fri + 5 * i, t->solimp_friction, 5 * sizeof(double));
    memcpy(m->tendon_range + 2 * i, t->range, 2 * sizeof(double));
    memcpy(m->tendon_actfrcrange + 2 * i, t->actfrcrange, 2 * sizeof(double));
    m->tendon_margin[i] = t->margin;
    m->tendon_stiffness[i] = t->stiffness[0];
    m->tendon_stiffnesspoly[2 * i] = t->stiffness[1];
    m->tendon_stiffnesspoly[2 * i + 1] = t->stiffness[2];
    m->tendon_damping[i] = t->damping[0];
    m->tendon_dampingpoly[2 * i] = t->damping[1];
    m->tendon_dampingpoly[2 * i + 1] = t->damping[2];
    m->tendon_armature[i] = t->armature;
    m->tendon_frictionloss[i] = t->frictionloss;
    memcpy(m->tendon_lengthspring + 2 * i, t->springlength, 2 * sizeof(double));
    for (int k = 0; k < m->nuser_tendon; k++) {
      m->tendon_user[m->nuser_tendon * i + k] = k < t->user.n ? t->user.v[k] : 0;
    }
    memcpy(m->tendon_rgba + 4 * i, t->rgba, 4 * sizeof(float));
  }
  return PX_OK;
}

//---------------------------------- tendon wrapping (mju_wrap) ------------------------------------

// mju_normalize for 2-vectors
static void normalize2(double* v) {
  double norm = sqrt(v[0] * v[0] + v[1] * v[1]);
  if (norm < kMinVal) {
    v[0] = 1;
    v[1] = 0;
  } else {
    double inv = 1 / norm;
    v[0] *= inv;
    v[1] *= inv;
  }
}

// mju_normalize3
static double normalize3(double* v) {
  double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (norm < kMinVal) {
    v[0] = 1;
    v[1] = v[2] = 0;
  } else {
    double inv = 1 / norm;
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
  }
  return norm;
}

static void cross3(double* res, const double* a, const double* b) {
  double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(res, t, sizeof(t));
}

static double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double* a) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static double dist3(const double* a, const double* b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

// intersection of two 2D segments
static int isIntersect(const double* p1, const double* p2, const double* p3, const double* p4) {
  double det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
  if (fabs(det) < kMinVal) return 0;
  double a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
  double b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
  return a >= 0 && a <= 1 && b >= 0 && b <= 1;
}

// curve length along a circle
static double lengthCircle(const double* p0, const double* p1, int ind, double radius) {
  double p0n[2] = {p0[0], p0[1]};
  double p1n[2] = {p1[0], p1[1]};
  normalize2(p0n);
  normalize2(p1n);
  double angle = acos(p0n[0] * p1n[0] + p0n[1] * p1n[1]);
  double cross = p0[1] * p1[0] - p0[0] * p1[1];
  if ((cross > 0 && ind) || (cross < 0 && !ind)) angle = 2 * kPi - angle;
  return radius * angle;
}

// 2D circle wrap: length or -1, tangent points in pnt
static double wrapCircle(double pnt[4], const double end[4], const double* side, double radius) {
  double sqlen0 = end[0] * end[0] + end[1] * end[1];
  double sqlen1 = end[2] * end[2] + end[3] * end[3];
  double sqrad = radius * radius;
  if (sqlen0 < sqrad || sqlen1 < sqrad || radius < kMinVal) return -1;
  double dif[2] = {end[2] - end[0], end[3] - end[1]};
  double dd = dif[0] * dif[0] + dif[1] * dif[1];
  if (dd < kMinVal) return -1;
  double a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
  if (a < 0) {
    a = 0;
  } else if (a > 1) {
    a = 1;
  }
  double tmp[2] = {a * dif[0] + end[0], a * dif[1] + end[1]};
  if (tmp[0] * tmp[0] + tmp[1] * tmp[1] > sqrad &&
      (!side || side[0] * tmp[0] + side[1] * tmp[1] >= 0)) {
    return -1;
  }
  double sqrt0 = sqrt(sqlen0 - sqrad);
  double sqrt1 = sqrt(sqlen1 - sqrad);
  double sol[2][2][2], good[2];
  for (int i = 0; i < 2; i++) {
    int sgn = i == 0 ? 1 : -1;
    sol[i][0][0] = (end[0] * sqrad + sgn * radius * end[1] * sqrt0) / sqlen0;
    sol[i][0][1] = (end[1] * sqrad - sgn * radius * end[0] * sqrt0) / sqlen0;
    sol[i][1][0] = (end[2] * sqrad - sgn * radius * end[3] * sqrt1) / sqlen1;
    sol[i][1][1] = (end[3] * sqrad + sgn * radius * end[2] * sqrt1) / sqlen1;
    if (side) {
      tmp[0] = sol[i][0][0] + sol[i][1][0];
      tmp[1] = sol[i][0][1] + sol[i][1][1];
      normalize2(tmp);
      good[i] = tmp[0] * side[0] + tmp[1] * side[1];
    } else {
      tmp[0] = sol[i][0][0] - sol[i][1][0];
      tmp[1] = sol[i][0][1] - sol[i][1][1];
      good[i] = -(tmp[0] * tmp[0] + tmp[1] * tmp[1]);
    }
    if (isIntersect(end, sol[i][0], end + 2, sol[i][1])) good[i] = -10000;
  }
  int i = good[0] > good[1] ? 0 : 1;
  pnt[0] = sol[i][0][0];
  pnt[1] = sol[i][0][1];
  pnt[2] = sol[i][1][0];
  pnt[3] = sol[i][1][1];
  if (isIntersect(end, pnt, end + 2, pnt + 2)) return -1;
  return lengthCircle(sol[i][0], sol[i][1], i, radius);
}

// 2D inside wrap: 0 wrap, -1 none
static double wrapInside(double pnt[4], const double end[4], double radius) {
  const int maxiter = 20;
  const double zinit = 1 - 1e-7;
  const double tolerance = 1e-6;
  double len0 = sqrt(end[0] * end[0] + end[1] * end[1]);
  double len1 = sqrt(end[2] * end[2] + end[3] * end[3]);
  double dif[2] = {end[2] - end[0], end[3] - end[1]};
  double dd = dif[0] * dif[0] + dif[1] * dif[1];
  if (len0 <= radius || len1 <= radius || radius < kMinVal || len0 < kMinVal || len1 < kMinVal) {
    return -1;
  }
  if (dd > kMinVal) {
    double a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
    if (a > 0 && a < 1) {
      double tmp[2] = {end[0] + a * dif[0], end[1] + a * dif[1]};
      if (sqrt(tmp[0] * tmp[0] + tmp[1] * tmp[1]) <= radius) return -1;
    }
  }
  pnt[0] = 0.5 * (end[0] + end[2]);
  pnt[1] = 0.5 * (end[1] + end[3]);
  normalize2(pnt);
  pnt[0] *= radius;
  pnt[1] *= radius;
  pnt[2] = pnt[0];
  pnt[3] = pnt[1];
  double A = radius / len0;
  double B = radius / len1;
  double cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1);
  if (cosG < -1 + kMinVal) {
    return -1;
  } else if (cosG > 1 - kMinVal) {
    return 0;
  }
  double G = acos(cosG);
  double z = zinit;
  double f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
  if (f > 0) return 0;
  int iter;
  for (iter = 0; iter < maxiter && fabs(f) > tolerance; iter++) {
    double da = sqrt(1 - z * z * A * A), db = sqrt(1 - z * z * B * B), dz = sqrt(1 - z * z);
    double df = A / (da > kMinVal ? da : kMinVal) + B / (db > kMinVal ? db : kMinVal) -
                2 / (dz > kMinVal ? dz : kMinVal);
    if (df > -kMinVal) return 0;
    double z1 = z - f / df;
    if (z1 > z) return 0;
    z = z1;
    f = asin(A * z) + asin(B * z) - 2 * asin(z) + G;
    if (f > tolerance) return 0;
  }
  if (iter >= maxiter) return 0;
  double vec[2], ang;
  if (end[0] * end[3] - end[1] * end[2] > 0) {
    vec[0] = end[0];
    vec[1] = end[1];
    ang = asin(z) - asin(A * z);
  } else {
    vec[0] = end[2];
    vec[1] = end[3];
    ang = asin(z) - asin(B * z);
  }
  normalize2(vec);
  pnt[0] = radius * (cos(ang) * vec[0] - sin(ang) * vec[1]);
  pnt[1] = radius * (sin(ang) * vec[0] + cos(ang) * vec[1]);
  pnt[2] = pnt[0];
  pnt[3] = pnt[1];
  return 0;
}

// wrap a segment around a sphere or cylinder: length or -1, wrap points in wpnt
static double wrap(double wpnt[6], const double x0[3], const double x1[3], const double xpos[3],
                   const double xmat[9], double radius, int type, const double* side) {
  double tmp[3], p[2][3];
  for (int k = 0; k < 3; k++) tmp[k] = x0[k] - xpos[k];
  mulMatTVec3(p[0], xmat, tmp);
  for (int k = 0; k < 3; k++) tmp[k] = x1[k] - xpos[k];
  mulMatTVec3(p[1], xmat, tmp);
  if (norm3(p[0]) < kMinVal || norm3(p[1]) < kMinVal) return -1;

  // 2D frame of the wrap
  double axis[2][3];
  if (type == PX_WRAP_SPHERE) {
    memcpy(axis[0], p[0], sizeof(axis[0]));
    normalize3(axis[0]);
    double normal[3];
    cross3(normal, p[0], p[1]);
    double nrm = normalize3(normal);
    if (nrm < kMinVal) {
      int i = 0;
      if (fabs(axis[0][1]) > fabs(axis[0][0]) && fabs(axis[0][1]) > fabs(axis[0][2])) i = 1;
      if (fabs(axis[0][2]) > fabs(axis[0][0]) && fabs(axis[0][2]) > fabs(axis[0][1])) i = 2;
      axis[1][0] = axis[1][1] = axis[1][2] = 1;
      axis[1][i] = 0;
      cross3(normal, axis[0], axis[1]);
      normalize3(normal);
    }
    cross3(axis[1], normal, axis[0]);
    normalize3(axis[1]);
  } else {
    axis[0][0] = 1;
    axis[0][1] = axis[0][2] = 0;
    axis[1][1] = 1;
    axis[1][0] = axis[1][2] = 0;
  }
  double s[3] = {0, 0, 0}, d[4], sd[2];
  d[0] = dot3(p[0], axis[0]);
  d[1] = dot3(p[0], axis[1]);
  d[2] = dot3(p[1], axis[0]);
  d[3] = dot3(p[1], axis[1]);
  if (side) {
    for (int k = 0; k < 3; k++) tmp[k] = side[k] - xpos[k];
    mulMatTVec3(s, xmat, tmp);
    sd[0] = dot3(s, axis[0]);
    sd[1] = dot3(s, axis[1]);
    normalize2(sd);
    sd[0] *= radius;
    sd[1] *= radius;
  }
  double wlen, pnt[4];
  if (side && norm3(s) < radius) {
    wlen = wrapInside(pnt, d, radius);
  } else {
    wlen = wrapCircle(pnt, d, side ? sd : NULL, radius);
  }
  if (wlen < 0) return -1;

  // 3D points in the local frame
  double res[6];
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 3; k++) res[3 * i + k] = axis[0][k] * pnt[2 * i];
    for (int k = 0; k < 3; k++) tmp[k] = axis[1][k] * pnt[2 * i + 1];
    for (int k = 0; k < 3; k++) res[3 * i + k] += tmp[k];
  }
  if (type == PX_WRAP_CYLINDER) {
    double L0 =
        sqrt((p[0][0] - res[0]) * (p[0][0] - res[0]) + (p[0][1] - res[1]) * (p[0][1] - res[1]));
    double L1 =
        sqrt((p[1][0] - res[3]) * (p[1][0] - res[3]) + (p[1][1] - res[4]) * (p[1][1] - res[4]));
    res[2] = p[0][2] + (p[1][2] - p[0][2]) * L0 / (L0 + wlen + L1);
    res[5] = p[0][2] + (p[1][2] - p[0][2]) * (L0 + wlen) / (L0 + wlen + L1);
    double height = fabs(res[5] - res[2]);
    wlen = sqrt(wlen * wlen + height * height);
  }
  mulMatVec3(wpnt, xmat, res);
  mulMatVec3(wpnt + 3, xmat, res + 3);
  for (int k = 0; k < 3; k++) {
    wpnt[k] += xpos[k];
    wpnt[3 + k] += xpos[k];
  }
  return wlen;
}

// length of a spatial tendon (mj_tendon) from site and geom frames
static double spatialLength(const pxModel* m, const pxData* d, int i) {
  int adr = m->tendon_adr[i], num = m->tendon_num[i];
  double L = 0, divisor = 1;
  int j = 0;
  while (j < num - 1) {
    int type0 = m->wrap_type[adr + j], type1 = m->wrap_type[adr + j + 1];
    int id0 = m->wrap_objid[adr + j], id1 = m->wrap_objid[adr + j + 1];
    if (type0 == PX_WRAP_PULLEY || type1 == PX_WRAP_PULLEY) {
      if (type0 == PX_WRAP_PULLEY) divisor = m->wrap_prm[adr + j];
      j++;
      continue;
    }
    double wlen = -1, wpnt[12];
    memcpy(wpnt, d->site_xpos + 3 * id0, 3 * sizeof(double));
    int wraptype = PX_WRAP_NONE;
    if (type1 == PX_WRAP_SPHERE || type1 == PX_WRAP_CYLINDER) {
      int wrapid = id1;
      wraptype = type1;
      id1 = m->wrap_objid[adr + j + 2];
      int sideid = (int)lround(m->wrap_prm[adr + j + 1]);
      wlen = wrap(wpnt + 3, d->site_xpos + 3 * id0, d->site_xpos + 3 * id1,
                  d->geom_xpos + 3 * wrapid, d->geom_xmat + 9 * wrapid, m->geom_size[3 * wrapid],
                  wraptype, sideid >= 0 ? d->site_xpos + 3 * sideid : NULL);
    }
    if (wlen < 0) {
      L += dist3(wpnt, d->site_xpos + 3 * id1) / divisor;
    } else {
      memcpy(wpnt + 9, d->site_xpos + 3 * id1, 3 * sizeof(double));
      L += (dist3(wpnt, wpnt + 3) + wlen + dist3(wpnt + 6, wpnt + 9)) / divisor;
    }
    j += wraptype != PX_WRAP_NONE ? 2 : 1;
  }
  return L;
}

//---------------------------------- actuators -----------------------------------------------------

// resolve an actuator's transmission target (mjCActuator::ResolveReferences)
static pxtStatus actuatorTransmission(pxcCtx* c, const pxModel* m, const pxcActuator* a, int i,
                                      int trnid[2]) {
  const pxcSrc* src = &a->src;
  const char* tag = a->kind;
  const char* nm = a->name;
  switch (a->trntype) {
    case PX_TRN_JOINT:
    case PX_TRN_JOINTINPARENT:
      trnid[0] = findObject(m, PX_OBJ_JOINT, a->target);
      if (trnid[0] < 0) {
        return NOTFOUND(src, tag, "unknown transmission target '%s' for actuator id = %d",
                        a->target, i);
      }
      break;
    case PX_TRN_SLIDERCRANK:
      if (!a->slidersite[0]) {
        return ERR(src, tag, "missing base site for slider-crank '%s' (id = %d)", nm, i);
      }
      trnid[1] = findObject(m, PX_OBJ_SITE, a->slidersite);
      if (trnid[1] < 0) {
        return NOTFOUND(src, tag, "base site '%s' not found for actuator %d", a->slidersite, i);
      }
      if (a->cranklength <= 0) {
        return ERR(src, tag, "crank length must be positive in actuator '%s' (id = %d)", nm, i);
      }
      trnid[0] = findObject(m, PX_OBJ_SITE, a->target);
      break;
    case PX_TRN_TENDON:
      trnid[0] = findObject(m, PX_OBJ_TENDON, a->target);
      break;
    case PX_TRN_SITE:
      if (a->refsite[0]) {
        trnid[1] = findObject(m, PX_OBJ_SITE, a->refsite);
        if (trnid[1] < 0) {
          return NOTFOUND(src, tag, "reference site '%s' not found for actuator %d", a->refsite, i);
        }
      }
      trnid[0] = findObject(m, PX_OBJ_SITE, a->target);
      break;
    case PX_TRN_BODY:
      trnid[0] = findObject(m, PX_OBJ_BODY, a->target);
      break;
    default:
      return ERR(src, tag, "invalid transmission type in actuator");
  }
  if (trnid[0] < 0) {
    return NOTFOUND(src, tag, "transmission target '%s' not found in actuator %d", a->target, i);
  }
  return PX_OK;
}

// inheritrange: the control (activation) range from the range of the joint or tendon
static pxtStatus actuatorInheritRange(pxcCtx* c, const pxModel* m, pxcActuator* a, int i, int id) {
  const pxcSrc* src = &a->src;
  const char* tag = a->kind;
  if (a->gaintype == PX_GAIN_FIXED && a->gainprm[0] == -a->biasprm[1] &&
      a->biastype == PX_BIAS_AFFINE && a->inheritrange > 0) {
    double* range;
    if (a->dyntype == PX_DYN_NONE || a->dyntype == PX_DYN_FILTEREXACT) {
      range = a->ctrlrange;
    } else if (a->dyntype == PX_DYN_INTEGRATOR) {
      range = a->actrange;
    } else {
      return ERR(src, tag, "inheritrange only available for position and intvelocity actuators");
    }
    const double* target;
    if (a->trntype == PX_TRN_JOINT) {
      int t = m->jnt_type[id];
      if (t != PX_JNT_HINGE && t != PX_JNT_SLIDE) {
        return ERR(src, tag, "inheritrange can only be used with hinge and slide joints, actuator");
      }
      target = m->jnt_range + 2 * id;
    } else if (a->trntype == PX_TRN_TENDON) {
      target = m->tendon_range + 2 * id;
    } else {
      return ERR(src, tag,
                 "inheritrange can only be used with joint and tendon transmission, actuator");
    }
    if (target[0] == target[1]) {
      return ERR(src, tag, "inheritrange used but target '%s' has no range defined in actuator %d",
                 a->target, i);
    }
    double mean = 0.5 * (target[1] + target[0]);
    double radius = 0.5 * (target[1] - target[0]) * a->inheritrange;
    range[0] = mean - radius;
    range[1] = mean + radius;
  }
  return PX_OK;
}

// limit flags (autolimits) and ranges, then the muscle parameters and the history buffer
static pxtStatus actuatorChecks(pxcCtx* c, const pxcActuator* a, int i, int limited[3]) {
  const pxcSrc* src = &a->src;
  const char* tag = a->kind;
  const char* nm = a->name;
  if (a->forcelimited == 2) {
    TRY(checkLimited(c, src, tag, "actuator", "force", a->forcelimited, a->forcerange));
  }
  if (a->ctrllimited == 2) {
    TRY(checkLimited(c, src, tag, "actuator", "ctrl", a->ctrllimited, a->ctrlrange));
  }
  if (a->actlimited == 2) {
    TRY(checkLimited(c, src, tag, "actuator", "act", a->actlimited, a->actrange));
  }
  limited[0] = isLimited(a->forcelimited, a->forcerange);
  limited[1] = isLimited(a->ctrllimited, a->ctrlrange);
  limited[2] = isLimited(a->actlimited, a->actrange);
  if (a->forcerange[0] >= a->forcerange[1] && limited[0]) {
    return ERR(src, tag, "invalid force range for actuator");
  }
  if (a->ctrlrange[0] >= a->ctrlrange[1] && limited[1]) {
    return ERR(src, tag, "invalid control range for actuator");
  }
  if (a->actrange[0] >= a->actrange[1] && limited[2]) {
    return ERR(src, tag, "invalid actrange for actuator");
  }
  if (limited[2] && a->dyntype == PX_DYN_NONE) {
    return ERR(src, tag, "actrange specified but dyntype is 'none' in actuator");
  }

  // muscle parameters
  for (int k = 0; k < 2; k++) {
    const double* prm = k == 0 && a->gaintype == PX_GAIN_MUSCLE   ? a->gainprm
                        : k == 1 && a->biastype == PX_BIAS_MUSCLE ? a->biasprm
                                                                  : NULL;
    if (!prm) continue;
    if (prm[0] >= prm[1]) return ERR(src, tag, "range[0]<range[1] required in muscle");
    if (prm[4] >= 1 || prm[5] <= 1) return ERR(src, tag, "lmin<1<lmax required in muscle");
    if (prm[3] <= 0 || prm[6] <= 0 || prm[7] <= 0 || prm[8] <= 0) {
      return ERR(src, tag, "positive scale, vmax, fpmax, fvmax required in muscle '%s' (id = %d)",
                 nm, i);
    }
  }

  // history buffer
  if (a->delay > 0 && a->nsample <= 0) {
    return ERR(src, tag, "setting delay > 0 without a history buffer");
  }
  if (a->nsample > 16777216) {
    return ERR(src, tag, "at most 2^24 samples in history buffer, got %d", a->nsample);
  }

  return PX_OK;
}

static pxtStatus fillActuators(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;
  int actadr = 0, histadr = 0;
  for (int i = 0; i < s->nact; i++) {
    pxcActuator a = s->act[i];  // compiled copy (inheritrange sets ranges)
    const pxcSrc* src = &s->act[i].src;
    const char* tag = a.kind;
    const char* nm = a.name;

    if (a.user.n > m->nuser_actuator) {
      return ERR(src, tag, "user has more values than nuser_actuator in actuator '%s' (id = %d)",
                 nm, i);
    }
    if (!a.target[0]) return ERR(src, tag, "missing transmission target for actuator");
    int trnid[2] = {-1, -1};
    TRY(actuatorTransmission(c, m, &a, i, trnid));

    // damping and armature need a joint or tendon
    int jt = a.trntype == PX_TRN_JOINT || a.trntype == PX_TRN_JOINTINPARENT ||
             a.trntype == PX_TRN_TENDON;
    if ((a.damping[0] || a.damping[1] || a.damping[2]) && !jt) {
      return ERR(src, tag,
                 "damping requires joint or tendon transmission in actuator '%s' (id = %d)", nm, i);
    }
    if (a.armature != 0 && !jt) {
      return ERR(src, tag,
                 "armature requires joint or tendon transmission in actuator '%s' (id = %d)", nm,
                 i);
    }
    TRY(actuatorInheritRange(c, m, &a, i, trnid[0]));
    int limited[3], actdim;  // force, ctrl, act
    TRY(actuatorChecks(c, &a, i, limited));
    TRY(actuatorDim(c, &a, &actdim));

    // arrays
    m->actuator_trntype[i] = a.trntype;
    m->actuator_dyntype[i] = a.dyntype;
    m->actuator_gaintype[i] = a.gaintype;
    m->actuator_biastype[i] = a.biastype;
    m->actuator_trnid[2 * i] = trnid[0];
    m->actuator_trnid[2 * i + 1] = trnid[1];
    m->actuator_ctrladr[i] = i;  // one control and one force output each (the supported kinds)
    m->actuator_ctrlnum[i] = 1;
    m->actuator_ctrlspec[i] = 0;
    m->actuator_outadr[i] = i;
    m->actuator_outnum[i] = 1;
    m->actuator_actnum[i] = actdim;
    m->actuator_actadr[i] = actdim ? actadr : -1;
    actadr += actdim;
    m->actuator_group[i] = a.group;
    m->actuator_ctrllimited[i] = (pxtBool)limited[1];
    m->actuator_forcelimited[i] = (pxtBool)limited[0];
    m->actuator_actlimited[i] = (pxtBool)limited[2];
    memcpy(m->actuator_dynprm + 10 * i, a.dynprm, 10 * sizeof(double));
    memcpy(m->actuator_gainprm + 10 * i, a.gainprm, 10 * sizeof(double));
    memcpy(m->actuator_biasprm + 10 * i, a.biasprm, 10 * sizeof(double));
    m->actuator_actearly[i] = (pxtBool)(a.actearly != 0);
    m->actuator_history[2 * i] = a.nsample;
    m->actuator_history[2 * i + 1] = a.interp;
    m->actuator_historyadr[i] = a.nsample > 0 ? histadr : -1;
    histadr += historyLen(a.nsample, 1);
    m->actuator_delay[i] = a.delay;
    memcpy(m->actuator_ctrlrange + 2 * i, a.ctrlrange, 2 * sizeof(double));
    memcpy(m->actuator_forcerange + 2 * i, a.forcerange, 2 * sizeof(double));
    memcpy(m->actuator_actrange + 2 * i, a.actrange, 2 * sizeof(double));
    memcpy(m->actuator_gear + 6 * i, a.gear, 6 * sizeof(double));
    // as given (MuJoCo computes it by simulation for muscles without one: not done here)
    memcpy(m->actuator_lengthrange + 2 * i, a.lengthrange, 2 * sizeof(double));
    m->actuator_cranklength[i] = a.cranklength;
    m->actuator_damping[i] = a.damping[0];
    m->actuator_dampingpoly[2 * i] = a.damping[1];
    m->actuator_dampingpoly[2 * i + 1] = a.damping[2];
    m->actuator_armature[i] = a.armature;
    memcpy(m->actuator_lengthrange + 2 * i, a.lengthrange, 2 * sizeof(double));
    for (int k = 0; k < m->nuser_actuator; k++) {
      m->actuator_user[m->nuser_actuator * i + k] = k < a.user.n ? a.user.v[k] : 0;
    }
    m->actuator_plugin[i] = -1;
  }
  return PX_OK;
}

//---------------------------------- sensors -------------------------------------------------------

static int isFrameObj(int t) {
  return t == PX_OBJ_BODY || t == PX_OBJ_XBODY || t == PX_OBJ_GEOM || t == PX_OBJ_SITE ||
         t == PX_OBJ_CAMERA;
}

// 1 if path ends with ext (case-insensitive)
static int hasExt(const char* path, const char* ext) {
  size_t n = strlen(path), k = strlen(ext);
  if (n < k) return 0;
  for (size_t i = 0; i < k; i++) {
    char a = path[n - k + i], b = ext[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

// the tactile sensor: MuJoCo's checks (mjCSensor::Compile, mj_checkModel), then what phalanx
// refuses: a mesh whose MuJoCo normals come from its file (OBJ, MSH: they decide whether the
// taxels have tangent frames) and colliding height fields (MuJoCo has no signed distance for
// them and raises an error when one touches the sensor's body)
static pxtStatus checkTactile(pxcCtx* c, const pxModel* m, const pxcSensor* se, int obj, int ref) {
  const pxcSrc* src = &se->src;
  const char* tag = se->tag;
  if (se->objtype != PX_OBJ_MESH) return ERR(src, tag, "sensor must be associated with a mesh");
  if (se->reftype != PX_OBJ_GEOM) return ERR(src, tag, "sensor must be associated with a geom");
  int body = m->geom_bodyid[ref], ncol = 0;
  for (int g = 0; g < m->body_geomnum[body]; g++) {
    int id = m->body_geomadr[body] + g;
    if (m->geom_contype[id] || m->geom_conaffinity[id]) ncol++;
  }
  if (ncol == 0) {
    return ERR(src, tag, "Touch sensor requires a body with at least one collision geom");
  }
  int pa = m->mesh_pathadr[obj];
  if (pa >= 0 && (hasExt(m->paths + pa, ".obj") || hasExt(m->paths + pa, ".msh"))) {
    return failAt(c, PX_ERR_UNSUPPORTED, src, tag,
                  "a tactile sensor on a mesh loaded from an OBJ or MSH file (MuJoCo takes its "
                  "taxel frames from the file's normals, which phalanx does not read) is not "
                  "supported by phalanx yet");
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] != PX_GEOM_HFIELD) continue;
    int inpair = 0;
    for (int p = 0; p < m->npair; p++) {
      inpair |= m->pair_geom1[p] == g || m->pair_geom2[p] == g;
    }
    if (m->geom_contype[g] || m->geom_conaffinity[g] || inpair) {
      return failAt(c, PX_ERR_UNSUPPORTED, src, tag,
                    "a tactile sensor in a model with a colliding height field (MuJoCo has no "
                    "signed distance for height fields: it raises an error when one touches the "
                    "sensor) is not supported by phalanx");
    }
  }
  return PX_OK;
}

// the type-specific checks of mjCSensor::Compile
static pxtStatus checkSensor(pxcCtx* c, const pxModel* m, const pxcSensor* se, int obj, int ref) {
  const pxcSrc* src = &se->src;
  const char* tag = se->tag;
  int ot = se->objtype, rt = se->reftype;
  switch (se->type) {
    case PX_SENS_TOUCH:
    case PX_SENS_ACCELEROMETER:
    case PX_SENS_VELOCIMETER:
    case PX_SENS_GYRO:
    case PX_SENS_FORCE:
    case PX_SENS_TORQUE:
    case PX_SENS_MAGNETOMETER:
    case PX_SENS_CAMPROJECTION:
      if (ot != PX_OBJ_SITE) return ERR(src, tag, "sensor must be attached to site");
      if (se->type == PX_SENS_CAMPROJECTION &&
          (!m->cam_resolution[2 * ref] || !m->cam_resolution[2 * ref + 1])) {
        return ERR(src, tag, "camera projection sensor requires camera resolution");
      }
      return PX_OK;
    case PX_SENS_RANGEFINDER:
      if (ot != PX_OBJ_SITE && ot != PX_OBJ_CAMERA) {
        return ERR(src, tag, "sensor must be attached to site or camera");
      }
      return PX_OK;
    case PX_SENS_JOINTPOS:
    case PX_SENS_JOINTVEL:
    case PX_SENS_JOINTACTFRC:
      if (ot != PX_OBJ_JOINT) return ERR(src, tag, "sensor must be attached to joint");
      if (m->jnt_type[obj] != PX_JNT_SLIDE && m->jnt_type[obj] != PX_JNT_HINGE) {
        return ERR(src, tag, "joint must be slide or hinge in sensor");
      }
      return PX_OK;
    case PX_SENS_TENDONACTFRC:
    case PX_SENS_TENDONPOS:
    case PX_SENS_TENDONVEL:
      if (ot != PX_OBJ_TENDON) return ERR(src, tag, "sensor must be attached to tendon");
      return PX_OK;
    case PX_SENS_ACTUATORPOS:
    case PX_SENS_ACTUATORVEL:
    case PX_SENS_ACTUATORFRC:
      if (ot != PX_OBJ_ACTUATOR) return ERR(src, tag, "sensor must be attached to actuator");
      return PX_OK;
    case PX_SENS_BALLQUAT:
    case PX_SENS_BALLANGVEL:
      if (ot != PX_OBJ_JOINT) return ERR(src, tag, "sensor must be attached to joint");
      if (m->jnt_type[obj] != PX_JNT_BALL) return ERR(src, tag, "joint must be ball in sensor");
      return PX_OK;
    case PX_SENS_JOINTLIMITPOS:
    case PX_SENS_JOINTLIMITVEL:
    case PX_SENS_JOINTLIMITFRC:
      if (ot != PX_OBJ_JOINT) return ERR(src, tag, "sensor must be attached to joint");
      if (!m->jnt_limited[obj]) return ERR(src, tag, "joint must be limited in sensor");
      return PX_OK;
    case PX_SENS_TENDONLIMITPOS:
    case PX_SENS_TENDONLIMITVEL:
    case PX_SENS_TENDONLIMITFRC:
      if (ot != PX_OBJ_TENDON) return ERR(src, tag, "sensor must be attached to tendon");
      if (!m->tendon_limited[obj]) return ERR(src, tag, "tendon must be limited in sensor");
      return PX_OK;
    case PX_SENS_FRAMEPOS:
    case PX_SENS_FRAMEQUAT:
    case PX_SENS_FRAMEXAXIS:
    case PX_SENS_FRAMEYAXIS:
    case PX_SENS_FRAMEZAXIS:
    case PX_SENS_FRAMELINVEL:
    case PX_SENS_FRAMEANGVEL:
    case PX_SENS_FRAMELINACC:
    case PX_SENS_FRAMEANGACC:
      if (!isFrameObj(ot)) {
        return ERR(src, tag, "sensor must be attached to (x)body, geom, site or camera");
      }
      return PX_OK;
    case PX_SENS_SUBTREECOM:
    case PX_SENS_SUBTREELINVEL:
    case PX_SENS_SUBTREEANGMOM:
      if (ot != PX_OBJ_BODY) return ERR(src, tag, "sensor must be attached to body");
      return PX_OK;
    case PX_SENS_INSIDESITE:
      if (!isFrameObj(ot)) {
        return ERR(src, tag, "sensor must be attached to (x)body, geom, site or camera");
      }
      if (rt != PX_OBJ_SITE) return ERR(src, tag, "sensor must be associated with a site");
      return PX_OK;
    case PX_SENS_GEOMDIST:
    case PX_SENS_GEOMNORMAL:
    case PX_SENS_GEOMFROMTO:
      if ((ot != PX_OBJ_BODY && ot != PX_OBJ_GEOM) || (rt != PX_OBJ_BODY && rt != PX_OBJ_GEOM)) {
        return ERR(src, tag, "sensor must be attached to body or geom");
      }
      if (ot == rt && obj == ref) {
        return ERR(src, tag, "1st body/geom must be different from 2nd body/geom");
      }
      if ((ot == PX_OBJ_GEOM && m->geom_type[obj] == PX_GEOM_HFIELD) ||
          (rt == PX_OBJ_GEOM && m->geom_type[ref] == PX_GEOM_HFIELD)) {
        return ERR(src, tag, "height fields are not supported in geom distance sensors");
      }
      return PX_OK;
    case PX_SENS_CONTACT:
      if (ot != PX_OBJ_SITE && ot != PX_OBJ_BODY && ot != PX_OBJ_XBODY && ot != PX_OBJ_GEOM &&
          ot != PX_OBJ_UNKNOWN) {
        return ERR(src, tag, "first matching criterion: if set, must be (x)body, geom or site");
      }
      if (rt != PX_OBJ_BODY && rt != PX_OBJ_XBODY && rt != PX_OBJ_GEOM && rt != PX_OBJ_UNKNOWN) {
        return ERR(src, tag, "second matching criterion: if set, must be (x)body or geom");
      }
      return PX_OK;
    case PX_SENS_USER:
      if (se->dim < 0) return ERR(src, tag, "sensor dim must be non-negative in sensor");
      if (se->datatype == PX_DATATYPE_AXIS && se->dim != 3) {
        return ERR(src, tag, "datatype AXIS requires dim=3 in sensor");
      }
      if (se->datatype == PX_DATATYPE_QUATERNION && se->dim != 4) {
        return ERR(src, tag, "datatype QUATERNION requires dim=4 in sensor");
      }
      return PX_OK;
    case PX_SENS_E_POTENTIAL:
    case PX_SENS_E_KINETIC:
    case PX_SENS_CLOCK:
      return PX_OK;
    case PX_SENS_TACTILE:
      return checkTactile(c, m, se, obj, ref);
    default:
      return ERR(src, tag, "invalid type in sensor '%s'", se->name);
  }
}

static pxtStatus fillSensors(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;
  int adr = 0, histadr = 0;  // history buffers of sensors follow those of the actuators
  for (int i = 0; i < s->nact; i++) histadr += historyLen(s->act[i].nsample, 1);
  for (int i = 0; i < s->nsensor; i++) {
    const pxcSensor* se = s->sensor + i;
    const pxcSrc* src = &se->src;
    const char* tag = se->tag;
    if (se->user.n > m->nuser_sensor) {
      return ERR(src, tag, "user has more values than nuser_sensor in sensor");
    }
    if (se->noise < 0) return ERR(src, tag, "negative noise in sensor");
    if (se->cutoff < 0) return ERR(src, tag, "negative cutoff in sensor");
    if (se->interval[0] < 0) return ERR(src, tag, "negative interval in sensor");
    if (se->interval[1] > 0) return ERR(src, tag, "positive phase in sensor");
    if (se->interval[0] > 0 && se->interval[1] <= -se->interval[0]) {
      return ERR(src, tag, "phase must be greater than -period in sensor");
    }
    if (se->delay > 0 && se->nsample <= 0) {
      return ERR(src, tag, "setting delay > 0 without a history buffer");
    }
    if (se->nsample > 16777216) {
      return ERR(src, tag, "at most 2^24 samples in sensor history buffer, got %d", se->nsample);
    }

    // referenced objects
    int obj = -1, ref = -1;
    if (se->objtype != PX_OBJ_UNKNOWN) {
      if (!se->objname[0]) return ERR(src, tag, "missing name of sensorized object in sensor");
      obj = findObject(m, se->objtype, se->objname);
      if (obj < 0) {
        return NOTFOUND(src, tag, "unrecognized name '%s' of sensorized object", se->objname);
      }
    } else if (se->type != PX_SENS_E_POTENTIAL && se->type != PX_SENS_E_KINETIC &&
               se->type != PX_SENS_CLOCK && se->type != PX_SENS_CONTACT &&
               se->type != PX_SENS_USER) {
      return ERR(src, tag, "invalid type in sensor");
    }
    if (se->reftype != PX_OBJ_UNKNOWN) {
      if (!se->refname[0]) {
        return ERR(src, tag, "missing name of reference frame object in sensor");
      }
      ref = findObject(m, se->reftype, se->refname);
      if (ref < 0) return NOTFOUND(src, tag, "unrecognized name '%s' of object", se->refname);
      if (!isFrameObj(se->reftype)) {
        return ERR(src, tag,
                   "reference frame object must be (x)body, geom, site or camera in sensor");
      }
    }

    // type, stage, dimension
    pxcSensor x = *se;
    if (x.type != PX_SENS_USER) {
      x.datatype = kSensorInfo[x.type].datatype;
      x.needstage = kSensorInfo[x.type].needstage;
    }
    TRY(checkSensor(c, m, &x, obj, ref));
    int dim = sensorDim(c, m, &x);
    if (x.cutoff > 0 && (x.datatype == PX_DATATYPE_QUATERNION ||
                         (x.datatype == PX_DATATYPE_AXIS && x.type != PX_SENS_GEOMNORMAL))) {
      return ERR(src, tag, "cutoff applied to axis or quaternion datatype in sensor");
    }

    m->sensor_type[i] = x.type;
    m->sensor_datatype[i] = x.datatype;
    m->sensor_needstage[i] = x.needstage;
    m->sensor_objtype[i] = x.objtype;
    m->sensor_objid[i] = obj;
    m->sensor_reftype[i] = x.reftype;
    m->sensor_refid[i] = ref;
    memcpy(m->sensor_intprm + 3 * i, x.intprm, 3 * sizeof(int));
    m->sensor_dim[i] = dim;
    m->sensor_adr[i] = adr;
    adr += dim;
    m->sensor_cutoff[i] = x.cutoff;
    m->sensor_noise[i] = x.noise;
    m->sensor_history[2 * i] = x.nsample;
    m->sensor_history[2 * i + 1] = x.interp;
    m->sensor_historyadr[i] = x.nsample > 0 ? histadr : -1;
    histadr += historyLen(x.nsample, dim);
    m->sensor_delay[i] = x.delay;
    memcpy(m->sensor_interval + 2 * i, x.interval, 2 * sizeof(double));
    for (int k = 0; k < m->nuser_sensor; k++) {
      m->sensor_user[m->nuser_sensor * i + k] = k < x.user.n ? x.user.v[k] : 0;
    }
    m->sensor_plugin[i] = -1;
  }
  return PX_OK;
}

//---------------------------------- custom data ---------------------------------------------------

static pxtStatus fillCustom(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;
  int inum = 0, itext = 0, ituple = 0, anum = 0, atext = 0, atuple = 0;
  for (int i = 0; i < s->ncustom; i++) {
    pxcNode* n = s->custom[i];
    if (!strcmp(n->name, "numeric")) {
      // data padded with zeros to size (validated by the parser)
      const char* size = attrValue(n, "size");
      double* v = NULL;
      int k = 0;
      if (attrValue(n, "data") && pxc_readList(c, n, "data", &v, &k) < 0) return c->st->code;
      int sz = size ? atoi(size) : k;
      m->numeric_adr[inum] = anum;
      m->numeric_size[inum] = sz;
      for (int j = 0; j < sz; j++) m->numeric_data[anum + j] = j < k ? v[j] : 0;
      free(v);
      anum += sz;
      inum++;
    } else if (!strcmp(n->name, "text")) {
      const char* data = attrValue(n, "data");
      int len = (int)strlen(data ? data : "");
      m->text_adr[itext] = atext;
      m->text_size[itext] = len + 1;
      memcpy(m->text_data + atext, data ? data : "", (size_t)len + 1);
      atext += len + 1;
      itext++;
    } else {
      const char* tname = attrValue(n, "name");
      if (!n->nchild) {
        return PX_FAIL(c->st, PX_ERR_MJCF, "%s:%d: <tuple>: tuple '%s' (id = %d) is empty", n->file,
                       n->line, tname ? tname : "", ituple);
      }
      m->tuple_adr[ituple] = atuple;
      m->tuple_size[ituple] = n->nchild;
      for (int j = 0; j < n->nchild; j++) {
        pxcNode* e = n->child[j];
        const char* type = attrValue(e, "objtype");
        const char* name = attrValue(e, "objname");
        const char* prm = attrValue(e, "prm");
        int t = pxc_str2Type(type ? type : "");
        int id = findObject(m, t, name);
        if (id < 0) {
          pxcSrc src = {e->file, e->line};
          return NOTFOUND(&src, "element", "unrecognized object '%s' in tuple %d", name ? name : "",
                          ituple);
        }
        m->tuple_objtype[atuple + j] = t;
        m->tuple_objid[atuple + j] = id;
        m->tuple_objprm[atuple + j] = prm ? strtod(prm, NULL) : 0;
      }
      atuple += n->nchild;
      ituple++;
    }
  }
  return PX_OK;
}

//---------------------------------- keyframes -----------------------------------------------------

// mjuu_normvec of the compiler (divides; leaves vectors shorter than mjEPS unchanged)
static void normvec(double* v, int n) {
  double nrm = 0;
  for (int i = 0; i < n; i++) nrm += v[i] * v[i];
  if (nrm < kEps) return;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > kEps) {
    for (int i = 0; i < n; i++) v[i] /= nrm;
  }
}

// MuJoCo pads a short keyframe qpos from the uncompiled joints (ExpandKeyframe): ref of hinges
// and slides (in the file's units), the identity of balls, the spec frame of free joints; 1 when
// that equals qpos0 at index k (phalanx pads with it), 0 otherwise
static int padFromQpos0(pxcCtx* c, const pxModel* m, int k) {
  for (int j = 0; j < m->njnt; j++) {
    int a = m->jnt_qposadr[j];
    int t = m->jnt_type[j];
    int n = t == PX_JNT_FREE ? 7 : t == PX_JNT_BALL ? 4 : 1;
    if (k < a || k >= a + n) continue;
    if (t == PX_JNT_BALL || t == PX_JNT_SLIDE) return 1;
    if (t == PX_JNT_HINGE) return !c->spec->degree || m->qpos0[k] == 0;
    return 0;
  }
  return 0;
}

// one list of a keyframe: given values (checked against the size, short lists padded as MuJoCo
// does) over the defaults already in out
static pxtStatus keyList(pxcCtx* c, const pxModel* m, pxcNode* n, int id, const char* attr,
                         int size, double* out) {
  if (!n || !attrValue(n, attr)) return PX_OK;
  double* v = NULL;
  int k = 0;
  if (pxc_readList(c, n, attr, &v, &k) < 0) return c->st->code;
  const char* name = attrValue(n, "name");
  int isq = !strcmp(attr, "qpos"), ism = attr[0] == 'm';
  if (k > size) {
    free(v);
    if (isq || !strcmp(attr, "qvel") || !strcmp(attr, "act")) {
      return PX_FAIL(c->st, PX_ERR_MJCF,
                     "%s:%d: <key>: keyframe '%s': invalid %s size, expected %d, got %d", n->file,
                     n->line, name ? name : "", attr, size, k);
    }
    return PX_FAIL(c->st, PX_ERR_MJCF,
                   "%s:%d: <key>: keyframe %d: invalid %s size, expected length %d", n->file,
                   n->line, id, attr, size);
  }
  if (k && k < size) {
    int exact = !ism;
    for (int i = k; isq && i < size; i++) exact &= padFromQpos0(c, m, i);
    if (!exact) {
      free(v);
      return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                     "%s:%d: <key>: keyframe '%s': a %s shorter than %d values (MuJoCo pads it "
                     "from the uncompiled bodies and joints) is not supported by phalanx yet",
                     n->file, n->line, name ? name : "", attr, size);
    }
    if (!isq) memset(out, 0, sizeof(double) * (size_t)size);  // qvel, act, ctrl: zeros
  }
  if (k) memcpy(out, v, sizeof(double) * (size_t)k);
  free(v);
  return PX_OK;
}

static pxtStatus fillKeys(pxcCtx* c, pxModel* m) {
  const pxcSpec* s = c->spec;
  int nq = m->nq, nv = m->nv, na = m->na, nu = m->nu, nmocap = m->nmocap;
  for (int i = 0; i < m->nkey; i++) {
    pxcNode* n = i < s->nkey ? s->key[i] : NULL;
    double* qpos = m->key_qpos + (size_t)i * nq;
    double* qvel = m->key_qvel + (size_t)i * nv;
    double* act = m->key_act + (size_t)i * na;
    double* ctrl = m->key_ctrl + (size_t)i * nu;
    double* mpos = m->key_mpos + (size_t)i * 3 * nmocap;
    double* mquat = m->key_mquat + (size_t)i * 4 * nmocap;
    const char* time = n ? attrValue(n, "time") : NULL;
    m->key_time[i] = time ? strtod(time, NULL) : 0;

    // defaults: qpos0, zeros, mocap bodies at their model frames
    if (nq) memcpy(qpos, m->qpos0, sizeof(double) * (size_t)nq);
    if (nv) memset(qvel, 0, sizeof(double) * (size_t)nv);
    if (na) memset(act, 0, sizeof(double) * (size_t)na);
    if (nu) memset(ctrl, 0, sizeof(double) * (size_t)nu);
    for (int b = 0; b < m->nbody; b++) {
      int id = m->body_mocapid[b];
      if (id < 0) continue;
      memcpy(mpos + 3 * id, m->body_pos + 3 * b, 3 * sizeof(double));
      memcpy(mquat + 4 * id, m->body_quat + 4 * b, 4 * sizeof(double));
    }
    TRY(keyList(c, m, n, i, "qpos", nq, qpos));
    TRY(keyList(c, m, n, i, "qvel", nv, qvel));
    TRY(keyList(c, m, n, i, "act", na, act));
    TRY(keyList(c, m, n, i, "mpos", 3 * nmocap, mpos));
    TRY(keyList(c, m, n, i, "mquat", 4 * nmocap, mquat));
    TRY(keyList(c, m, n, i, "ctrl", nu, ctrl));
    if (i >= s->nkey && i < s->nkey + s->nakey) TRY(pxc_fillAttachedKey(c, m, i - s->nkey, i));

    // quaternions: the compiler's normalization, then mj_normalizeQuat's
    for (int j = 0; j < m->njnt; j++) {
      int t = m->jnt_type[j];
      if (t == PX_JNT_BALL || t == PX_JNT_FREE) {
        normvec(qpos + m->jnt_qposadr[j] + 3 * (t == PX_JNT_FREE), 4);
      }
    }
    for (int j = 0; j < nmocap; j++) normvec(mquat + 4 * j, 4);
    for (int j = 0; j < m->njnt; j++) {
      int t = m->jnt_type[j];
      if (t == PX_JNT_BALL || t == PX_JNT_FREE) {
        normalize4(qpos + m->jnt_qposadr[j] + 3 * (t == PX_JNT_FREE));
      }
    }
  }
  return PX_OK;
}

//---------------------------------- derived constants ---------------------------------------------

// tendon lengths at qpos_spring where springlength is -1 (setSpring); eq_data: px_setConst
static pxtStatus kinematicConstants(pxcCtx* c, pxModel* m) {
  int needspring = 0;
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_lengthspring[2 * i] == -1 && m->tendon_lengthspring[2 * i + 1] == -1) {
      if (m->wrap_type[m->tendon_adr[i]] == PX_WRAP_JOINT) {
        // fixed tendon: linear in qpos
        double L = 0;
        for (int j = 0; j < m->tendon_num[i]; j++) {
          int k = m->tendon_adr[i] + j;
          L += m->wrap_prm[k] * m->qpos_spring[m->jnt_qposadr[m->wrap_objid[k]]];
        }
        m->tendon_lengthspring[2 * i] = m->tendon_lengthspring[2 * i + 1] = L;
      } else {
        needspring = 1;
      }
    }
  }
  if (!needspring) return PX_OK;

  pxWorlds* w = px_makeWorlds(m, 1, c->st);
  if (!w) return c->st->code;
  pxData d;
  px_worldView(w, 0, &d);
  if (m->nq) memcpy(d.qpos, m->qpos_spring, sizeof(double) * (size_t)m->nq);
  px_kinematics(m, &d);
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_lengthspring[2 * i] == -1 && m->tendon_lengthspring[2 * i + 1] == -1) {
      double L = spatialLength(m, &d, i);
      m->tendon_lengthspring[2 * i] = m->tendon_lengthspring[2 * i + 1] = L;
    }
  }
  px_freeWorlds(w);
  return PX_OK;
}

//---------------------------------- entry point ---------------------------------------------------

pxtStatus pxc_fillMisc(pxcCtx* c, pxModel* m) {
  // MuJoCo's compile order: pairs, exclusions, equalities, tendons, actuators, sensors, custom
  TRY(fillPairs(c, m));
  TRY(fillEqualities(c, m));
  TRY(fillTendons(c, m));
  TRY(fillActuators(c, m));
  TRY(fillSensors(c, m));
  TRY(fillCustom(c, m));
  TRY(fillKeys(c, m));
  TRY(unsupportedMisc(c));
  return kinematicConstants(c, m);
}
