// SPDX-License-Identifier: Apache-2.0
// Model composition: <model> assets and <attach model=... body=... prefix=...>.
//
// A <model> asset is read and parsed into a spec of its own (its own compiler settings and
// default classes, already applied to every element it holds). <attach> copies the subtree of
// one of its bodies into the parent's body tree at the point of the <attach> (the enclosing
// frame applied to the subtree root), as MuJoCo 3.12's mjs_attach does:
//   - names become prefix + name + the replicate suffix in force; unnamed elements stay unnamed;
//   - the child's assets (textures, materials, meshes, height fields) are copied once per
//     (model, prefix), named prefix + name;
//   - tendons, equality constraints, actuators, sensors, contact pairs and exclusions of the
//     child whose every reference lies in the copied subtree are copied after the parent's own
//     elements of that kind (pxc_attachMisc, at the end of the parse), attachment by attachment;
//   - each keyframe of the child becomes a keyframe named prefix + name holding the child's
//     values for the attached joints, actuators and mocap bodies and the parent's defaults
//     elsewhere; a second attachment with the same key name adds nothing to it (as MuJoCo does
//     for replicated attachments).
// Compiler settings that act at compile time (angle unit, inertia, limits, ...) must agree
// between child and parent; otherwise the attach is rejected as not supported, naming the
// setting.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/misc.h"
#include "mjcf/spec.h"
#include "mjcf/xml.h"

#define PXC_MAX_ATTACH_DEPTH 8  // nested model assets

static pxtStatus unsupportedAt(pxcCtx* c, pxcNode* n, const char* what) {
  return PX_FAIL(c->st, PX_ERR_UNSUPPORTED, "%s:%d: <%s>: %s is not supported by phalanx yet",
                 n->file, n->line, n->name, what);
}

// dst := prefix + name + suffix (an empty name stays empty)
static pxtStatus rename3(pxcCtx* c, const pxcSrc* src, char* dst, const char* prefix,
                         const char* name, const char* suffix) {
  if (!name[0]) {
    dst[0] = 0;
    return PX_OK;
  }
  char buf[3 * PXC_NAME];
  snprintf(buf, sizeof(buf), "%s%s%s", prefix, name, suffix);
  if (strlen(buf) >= PXC_NAME) {
    return PX_FAIL(c->st, PX_ERR_MJCF, "%s:%d: attached name '%s' is longer than %d characters",
                   src->file, src->line, buf, PXC_NAME - 1);
  }
  strcpy(dst, buf);
  return PX_OK;
}

//---------------------------------- <model> assets ------------------------------------------------

static void freeChild(pxcChild* ch) {
  if (ch->spec) {
    pxc_freeSpec(ch->spec);
    free(ch->spec);
  }
  if (ch->doc) {
    pxc_xmlFree(ch->doc);
    free(ch->doc);
  }
  px_freeModel(ch->model);
  memset(ch, 0, sizeof(*ch));
}

void pxc_freeAttach(pxcSpec* s) {
  for (int i = 0; i < s->nchild; i++) freeChild(s->child + i);
  for (int i = 0; i < s->nattach; i++) {
    pxcAttach* a = s->attach + i;
    free(a->bodymap);
    free(a->jntmap);
    free(a->geommap);
    free(a->sitemap);
    free(a->tenmap);
    free(a->actmap);
  }
  free(s->child);
  free(s->attach);
  free(s->akey);
}

// read and parse one model file into ch (and compile it when it has keyframes)
static pxtStatus loadChild(pxcCtx* c, pxcNode* n, const char* path, pxcChild* ch) {
  ch->doc = (pxcDoc*)calloc(1, sizeof(pxcDoc));
  ch->spec = (pxcSpec*)calloc(1, sizeof(pxcSpec));
  if (!ch->doc || !ch->spec) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
  pxcCtx cc;
  memset(&cc, 0, sizeof(cc));
  cc.st = c->st;
  cc.spec = ch->spec;
  cc.doc = ch->doc;
  cc.depth = c->depth + 1;
  if (cc.depth > PXC_MAX_ATTACH_DEPTH) {
    return PX_FAIL(c->st, PX_ERR_MJCF, "%s:%d: <model>: model assets nested deeper than %d",
                   n->file, n->line, PXC_MAX_ATTACH_DEPTH);
  }
  if (pxc_xmlRead(ch->doc, path, NULL, c->st) != PX_OK) {
    // name the <model> element that asked for the file
    char inner[sizeof(c->st->msg)];
    snprintf(inner, sizeof(inner), "%s", c->st->msg);
    return PX_FAIL(c->st, c->st->code, "%s:%d: <model>: %.900s", n->file, n->line, inner);
  }
  TRY(pxc_parse(&cc, ch->doc->root));
  strcpy(ch->meshdir, ch->spec->meshdir);
  for (int i = 0; i < ch->doc->root->nchild; i++) {
    ch->hasoption |= !strcmp(ch->doc->root->child[i]->name, "option");
  }
  snprintf(ch->dir, sizeof(ch->dir), "%s", ch->doc->dir);
  if (ch->spec->nkey || ch->spec->sizekey) {
    // keyframe values come from the compiled child (qpos layout, padding, normalization); the
    // compiler may rewrite the spec, so it gets a second parse of its own
    pxcDoc doc2;
    pxcSpec spec2;
    memset(&doc2, 0, sizeof(doc2));
    memset(&spec2, 0, sizeof(spec2));
    pxcCtx c2 = cc;
    c2.spec = &spec2;
    c2.doc = &doc2;
    pxtStatus code = pxc_xmlRead(&doc2, path, NULL, c->st);
    if (code == PX_OK) code = pxc_parse(&c2, doc2.root);
    if (code == PX_OK) code = pxc_compile(&c2, &ch->model);
    pxc_freeSpec(&spec2);
    pxc_xmlFree(&doc2);
    TRY(code);
  }
  return PX_OK;
}

pxtStatus pxc_parseModelAsset(pxcCtx* c, pxcNode* n) {
  pxcSpec* s = c->spec;
  char name[PXC_NAME] = "";
  char file[1024] = "";
  READ(pxc_readName(c, n, "name", name));
  int r = pxc_readString(c, n, "file", file, sizeof(file));
  READ(r);
  if (!r || !file[0]) return pxc_error(c, n, "missing required attribute 'file'");
  TRY(pxc_checkUnused(c, n));
  if (n->nchild) return pxc_error(c, n->child[0], "unknown element in <model>");

  // the file is resolved against the directory of the parent model
  char path[2048];
  const char* dir = c->doc->dir ? c->doc->dir : "";
  if (file[0] == '/' || !dir[0]) {
    snprintf(path, sizeof(path), "%s", file);
  } else {
    snprintf(path, sizeof(path), "%s/%s", dir, file);
  }
  int id = PXC_ADD(c, s, child);
  if (id < 0) return c->st->code;
  pxcChild* ch = s->child + id;
  ch->src.file = n->file;
  ch->src.line = n->line;
  TRY(loadChild(c, n, path, ch));
  // the asset's name, else the child's model name
  strcpy(ch->name, name[0] ? name : ch->spec->modelname);
  for (int i = 0; i < id; i++) {
    if (!strcmp(s->child[i].name, ch->name)) {
      return pxc_error(c, n, "repeated model asset name '%s'", ch->name);
    }
  }
  return PX_OK;
}

//---------------------------------- <attach>: assets and body tree --------------------------------

// compile-time settings of the child that phalanx would apply with the parent's values
static const char* settingConflict(const pxcSpec* p, const pxcSpec* k) {
  if (p->inertiafromgeom != k->inertiafromgeom) return "compiler inertiafromgeom";
  if (p->inertiagrouprange[0] != k->inertiagrouprange[0] ||
      p->inertiagrouprange[1] != k->inertiagrouprange[1]) {
    return "compiler inertiagrouprange";
  }
  if (p->autolimits != k->autolimits) return "compiler autolimits";
  if (p->boundmass != k->boundmass) return "compiler boundmass";
  if (p->boundinertia != k->boundinertia) return "compiler boundinertia";
  if (p->balanceinertia != k->balanceinertia) return "compiler balanceinertia";
  if (p->alignfree != k->alignfree) return "compiler alignfree";
  if (p->fitaabb != k->fitaabb) return "compiler fitaabb";
  if (p->fusestatic != k->fusestatic) return "compiler fusestatic";
  if (p->discardvisual != k->discardvisual) return "compiler discardvisual";
  if (p->degree != k->degree) return "a compiler angle unit different from the parent's";
  return NULL;
}

// the options of a child that has an <option> element, by the compiler's conflict policy:
// warning (0) keeps the parent's; merge (1) takes the smaller timestep, the larger iteration
// count and the union of the flags, other differences being errors; error (2) refuses any
// difference
static pxtStatus mergeOptions(pxcCtx* c, pxcNode* n, const pxOption* k, const char* model) {
  pxOption* p = &c->spec->opt;
  if (c->spec->conflict == 0 || !memcmp(p, k, sizeof(pxOption))) return PX_OK;
  const char* what = NULL;
  if (c->spec->conflict == 1) {
    pxOption merged = *p;
    merged.timestep = k->timestep < p->timestep ? k->timestep : p->timestep;
    merged.iterations = k->iterations > p->iterations ? k->iterations : p->iterations;
    merged.disableflags |= k->disableflags;
    merged.enableflags |= k->enableflags;
    pxOption kk = *k;
    kk.timestep = merged.timestep;
    kk.iterations = merged.iterations;
    kk.disableflags = merged.disableflags;
    kk.enableflags = merged.enableflags;
    if (!memcmp(&merged, &kk, sizeof(pxOption))) {
      *p = merged;
      return PX_OK;
    }
    what = "merge";
  }
  return pxc_error(c, n,
                   "attach conflict when attaching '%s' to '%s': <option> values differ "
                   "and the compiler's conflict policy is '%s'",
                   model, c->spec->modelname, what ? what : "error");
}

// assets of child `ci`, once per prefix
static pxtStatus copyAssets(pxcCtx* c, pxcNode* n, int ci, const char* prefix) {
  pxcSpec* s = c->spec;
  for (int i = 0; i < s->nattach; i++) {
    if (s->attach[i].child == ci && !strcmp(s->attach[i].prefix, prefix)) return PX_OK;
  }
  const pxcChild* ch = s->child + ci;
  const pxcSpec* k = ch->spec;
  int samedir =
      !strcmp(ch->dir, c->doc->dir ? c->doc->dir : "") && !strcmp(ch->meshdir, s->meshdir);
  if (k->ncustom) return unsupportedAt(c, n, "an attached model with <custom> data");
  for (int i = 0; i < k->ntexture; i++) {
    int id = PXC_ADD(c, s, texture);
    if (id < 0) return c->st->code;
    s->texture[id] = k->texture[i];
    TRY(rename3(c, &k->texture[i].src, s->texture[id].name, prefix, k->texture[i].name, ""));
  }
  for (int i = 0; i < k->nmat; i++) {
    int id = PXC_ADD(c, s, mat);
    if (id < 0) return c->st->code;
    pxcMaterial* m = s->mat + id;
    *m = k->mat[i];
    TRY(rename3(c, &m->src, m->name, prefix, k->mat[i].name, ""));
    TRY(rename3(c, &m->src, m->texture, prefix, k->mat[i].texture, ""));
  }
  for (int i = 0; i < k->nmesh; i++) {
    const pxcMeshSpec* km = k->mesh + i;
    if (!km->name[0]) return unsupportedAt(c, n, "an unnamed mesh in an attached model");
    if (km->file[0] && !samedir) {
      return unsupportedAt(c, n, "mesh files of an attached model in another directory");
    }
    int id = PXC_ADD(c, s, mesh);
    if (id < 0) return c->st->code;
    pxcMeshSpec* m = s->mesh + id;
    *m = *km;
    m->vertex = NULL;
    m->face = NULL;
    TRY(rename3(c, &m->src, m->name, prefix, km->name, ""));
    if (km->nvertex) {
      m->vertex = (double*)malloc(sizeof(double) * (size_t)km->nvertex);
      if (!m->vertex) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
      memcpy(m->vertex, km->vertex, sizeof(double) * (size_t)km->nvertex);
    }
    if (km->nface) {
      m->face = (int*)malloc(sizeof(int) * (size_t)km->nface);
      if (!m->face) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
      memcpy(m->face, km->face, sizeof(int) * (size_t)km->nface);
    }
  }
  for (int i = 0; i < k->nhfield; i++) {
    const pxcHfield* kh = k->hfield + i;
    if (!kh->name[0]) return unsupportedAt(c, n, "an unnamed height field in an attached model");
    if (kh->file[0] && !samedir) {
      return unsupportedAt(c, n, "height field files of an attached model in another directory");
    }
    int id = PXC_ADD(c, s, hfield);
    if (id < 0) return c->st->code;
    pxcHfield* h = s->hfield + id;
    *h = *kh;
    h->data = NULL;
    TRY(rename3(c, &h->src, h->name, prefix, kh->name, ""));
    if (kh->data) {
      size_t nd = (size_t)kh->nrow * (size_t)kh->ncol;
      h->data = (float*)malloc(sizeof(float) * nd);
      if (!h->data) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
      memcpy(h->data, kh->data, sizeof(float) * nd);
    }
  }
  return PX_OK;
}

static int* newMap(pxcCtx* c, int n) {
  int* map = (int*)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!map) {
    PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
    return NULL;
  }
  for (int i = 0; i < n; i++) map[i] = -1;
  return map;
}

// the subtree bodies, joints, geoms, sites, cameras and lights
static pxtStatus copyTree(pxcCtx* c, pxcAttach* a, int parent, int root) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  const char* p = a->prefix;
  const char* x = a->suffix;
  for (int b = root; b < k->nbody; b++) {
    if (b != root && (k->body[b].parent < 0 || a->bodymap[k->body[b].parent] < 0)) continue;
    int id = PXC_ADD(c, s, body);
    if (id < 0) return c->st->code;
    pxcBody* nb = s->body + id;
    *nb = k->body[b];
    nb->parent = b == root ? parent : a->bodymap[k->body[b].parent];
    TRY(rename3(c, &nb->src, nb->name, p, k->body[b].name, x));
    for (int o = 0; nb->name[0] && o < id; o++) {
      if (!strcmp(s->body[o].name, nb->name)) {
        return PX_FAIL(c->st, PX_ERR_MJCF,
                       "%s:%d: <attach>: body '%s' already exists (prefix '%s' reused?)",
                       a->src.file, a->src.line, nb->name, p);
      }
    }
    a->bodymap[b] = id;
  }
  for (int i = 0; i < k->njnt; i++) {
    if (a->bodymap[k->jnt[i].body] < 0) continue;
    int id = PXC_ADD(c, s, jnt);
    if (id < 0) return c->st->code;
    pxcJoint* j = s->jnt + id;
    *j = k->jnt[i];
    j->body = a->bodymap[j->body];
    TRY(rename3(c, &j->src, j->name, p, k->jnt[i].name, x));
    a->jntmap[i] = id;
  }
  for (int i = 0; i < k->ngeom; i++) {
    if (a->bodymap[k->geom[i].body] < 0) continue;
    int id = PXC_ADD(c, s, geom);
    if (id < 0) return c->st->code;
    pxcGeom* g = s->geom + id;
    *g = k->geom[i];
    g->body = a->bodymap[g->body];
    TRY(rename3(c, &g->src, g->name, p, k->geom[i].name, x));
    TRY(rename3(c, &g->src, g->material, p, k->geom[i].material, ""));
    TRY(rename3(c, &g->src, g->mesh, p, k->geom[i].mesh, ""));
    TRY(rename3(c, &g->src, g->hfield, p, k->geom[i].hfield, ""));
    a->geommap[i] = id;
  }
  for (int i = 0; i < k->nsite; i++) {
    if (a->bodymap[k->site[i].body] < 0) continue;
    int id = PXC_ADD(c, s, site);
    if (id < 0) return c->st->code;
    pxcSite* st = s->site + id;
    *st = k->site[i];
    st->body = a->bodymap[st->body];
    TRY(rename3(c, &st->src, st->name, p, k->site[i].name, x));
    TRY(rename3(c, &st->src, st->material, p, k->site[i].material, ""));
    a->sitemap[i] = id;
  }
  for (int i = 0; i < k->ncam; i++) {
    if (a->bodymap[k->cam[i].body] < 0) continue;
    if (k->cam[i].target[0])
      return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                     "%s:%d: <camera>: a target in an attached model is "
                     "not supported by phalanx yet",
                     k->cam[i].src.file, k->cam[i].src.line);
    int id = PXC_ADD(c, s, cam);
    if (id < 0) return c->st->code;
    s->cam[id] = k->cam[i];
    s->cam[id].body = a->bodymap[k->cam[i].body];
    TRY(rename3(c, &s->cam[id].src, s->cam[id].name, p, k->cam[i].name, x));
  }
  for (int i = 0; i < k->nlight; i++) {
    if (a->bodymap[k->light[i].body] < 0) continue;
    if (k->light[i].target[0])
      return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                     "%s:%d: <light>: a target in an attached model is "
                     "not supported by phalanx yet",
                     k->light[i].src.file, k->light[i].src.line);
    int id = PXC_ADD(c, s, light);
    if (id < 0) return c->st->code;
    s->light[id] = k->light[i];
    s->light[id].body = a->bodymap[k->light[i].body];
    TRY(rename3(c, &s->light[id].src, s->light[id].name, p, k->light[i].name, x));
    TRY(rename3(c, &s->light[id].src, s->light[id].texture, p, k->light[i].texture, ""));
  }
  return PX_OK;
}

int pxc_attach(pxcCtx* c, pxcNode* n, int parent) {
  pxcSpec* s = c->spec;
  char model[PXC_NAME] = "", body[PXC_NAME] = "", prefix[PXC_NAME] = "";
  if (pxc_readName(c, n, "model", model) < 0 || pxc_readName(c, n, "body", body) < 0 ||
      pxc_readName(c, n, "prefix", prefix) < 0) {
    return -1;
  }
  if (pxc_xmlAttr(n, "frame")) {
    unsupportedAt(c, n, "attaching a frame");
    return -1;
  }
  if (pxc_checkUnused(c, n) != PX_OK) return -1;
  if (!model[0]) {
    unsupportedAt(c, n, "<attach> without a model asset");
    return -1;
  }
  if (!body[0]) {
    unsupportedAt(c, n, "attaching a whole model (<attach> without body)");
    return -1;
  }
  int ci = -1;
  for (int i = 0; i < s->nchild; i++) {
    if (!strcmp(s->child[i].name, model)) ci = i;
  }
  if (ci < 0) {
    pxc_error(c, n, "unknown model asset '%s'", model);
    return -1;
  }
  const pxcSpec* k = s->child[ci].spec;
  int root = -1;
  for (int i = 1; i < k->nbody; i++) {
    if (!strcmp(k->body[i].name, body)) root = i;
  }
  if (root < 0) {
    pxc_error(c, n, "body '%s' not found in model '%s'", body, model);
    return -1;
  }
  const char* conflict = settingConflict(s, k);
  if (conflict) {
    unsupportedAt(c, n, conflict);
    return -1;
  }
  if (s->child[ci].hasoption && mergeOptions(c, n, &k->opt, model) != PX_OK) return -1;
  if (copyAssets(c, n, ci, prefix) != PX_OK) return -1;

  int id = PXC_ADD(c, s, attach);
  if (id < 0) return -1;
  pxcAttach* a = s->attach + id;
  a->src.file = n->file;
  a->src.line = n->line;
  a->child = ci;
  strcpy(a->prefix, prefix);
  strcpy(a->suffix, c->suffix);
  a->bodymap = newMap(c, k->nbody);
  a->jntmap = newMap(c, k->njnt);
  a->geommap = newMap(c, k->ngeom);
  a->sitemap = newMap(c, k->nsite);
  a->tenmap = newMap(c, k->ntendon);
  a->actmap = newMap(c, k->nact);
  if (!a->bodymap || !a->jntmap || !a->geommap || !a->sitemap || !a->tenmap || !a->actmap) {
    return -1;
  }
  if (copyTree(c, a, parent, root) != PX_OK) return -1;
  return a->bodymap[root];
}

//---------------------------------- <attach>: the rest, after the parent's own --------------------

// index of the child element named `name` in a list of structs with a leading pxcSrc and name
#define FIND(list, count, nm, out)                    \
  do {                                                \
    (out) = -1;                                       \
    for (int i_ = 0; (nm)[0] && i_ < (count); i_++) { \
      if (!strcmp((list)[i_].name, (nm))) (out) = i_; \
    }                                                 \
  } while (0)

// parent index of the child object (type, name) copied by attachment a, or -1 (not copied);
// an empty name is "no object" and maps to -2
static int mapped(const pxcAttach* a, const pxcSpec* k, int type, const char* name) {
  if (!name[0]) return -2;
  int i;
  switch (type) {
    case PX_OBJ_BODY:
    case PX_OBJ_XBODY:
      if (!strcmp(name, "world")) return -1;
      FIND(k->body, k->nbody, name, i);
      return i < 0 ? -1 : a->bodymap[i];
    case PX_OBJ_JOINT:
      FIND(k->jnt, k->njnt, name, i);
      return i < 0 ? -1 : a->jntmap[i];
    case PX_OBJ_GEOM:
      FIND(k->geom, k->ngeom, name, i);
      return i < 0 ? -1 : a->geommap[i];
    case PX_OBJ_SITE:
      FIND(k->site, k->nsite, name, i);
      return i < 0 ? -1 : a->sitemap[i];
    case PX_OBJ_TENDON:
      FIND(k->tendon, k->ntendon, name, i);
      return i < 0 ? -1 : a->tenmap[i];
    case PX_OBJ_ACTUATOR:
      FIND(k->act, k->nact, name, i);
      return i < 0 ? -1 : a->actmap[i];
    default:
      return -1;
  }
}

static int wrapObjType(int wraptype) {
  switch (wraptype) {
    case PX_WRAP_JOINT:
      return PX_OBJ_JOINT;
    case PX_WRAP_SITE:
      return PX_OBJ_SITE;
    case PX_WRAP_SPHERE:
    case PX_WRAP_CYLINDER:
      return PX_OBJ_GEOM;
    default:
      return PX_OBJ_UNKNOWN;
  }
}

static int trnObjType(int trntype) {
  switch (trntype) {
    case PX_TRN_JOINT:
    case PX_TRN_JOINTINPARENT:
      return PX_OBJ_JOINT;
    case PX_TRN_TENDON:
      return PX_OBJ_TENDON;
    case PX_TRN_SITE:
    case PX_TRN_SLIDERCRANK:
      return PX_OBJ_SITE;
    case PX_TRN_BODY:
      return PX_OBJ_BODY;
    default:
      return PX_OBJ_UNKNOWN;
  }
}

static pxtStatus copyTendons(pxcCtx* c, pxcAttach* a) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  for (int t = 0; t < k->ntendon; t++) {
    const pxcTendon* kt = k->tendon + t;
    int ok = 1;
    for (int w = kt->wrapadr; w < kt->wrapadr + kt->wrapnum; w++) {
      const pxcWrap* kw = k->wrap + w;
      if (kw->type == PX_WRAP_PULLEY) continue;
      ok &= mapped(a, k, wrapObjType(kw->type), kw->obj) >= 0;
      if (kw->sidesite[0]) ok &= mapped(a, k, PX_OBJ_SITE, kw->sidesite) >= 0;
    }
    if (!ok) continue;
    int id = PXC_ADD(c, s, tendon);
    if (id < 0) return c->st->code;
    pxcTendon* nt = s->tendon + id;
    *nt = *kt;
    TRY(rename3(c, &nt->src, nt->name, a->prefix, kt->name, a->suffix));
    TRY(rename3(c, &nt->src, nt->material, a->prefix, kt->material, ""));
    nt->wrapadr = s->nwrap;
    for (int w = kt->wrapadr; w < kt->wrapadr + kt->wrapnum; w++) {
      int wid = PXC_ADD(c, s, wrap);
      if (wid < 0) return c->st->code;
      pxcWrap* nw = s->wrap + wid;
      *nw = k->wrap[w];
      TRY(rename3(c, &nw->src, nw->obj, a->prefix, k->wrap[w].obj, a->suffix));
      TRY(rename3(c, &nw->src, nw->sidesite, a->prefix, k->wrap[w].sidesite, a->suffix));
    }
    a->tenmap[t] = id;
  }
  return PX_OK;
}

static pxtStatus copyEqualities(pxcCtx* c, pxcAttach* a) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  for (int i = 0; i < k->neq; i++) {
    const pxcEquality* ke = k->eq + i;
    int type = ke->type == PX_EQ_JOINT    ? PX_OBJ_JOINT
               : ke->type == PX_EQ_TENDON ? PX_OBJ_TENDON
                                          : ke->objtype;
    int m1 = mapped(a, k, type, ke->name1), m2 = mapped(a, k, type, ke->name2);
    if (m1 < 0 || m2 == -1) continue;
    int id = PXC_ADD(c, s, eq);
    if (id < 0) return c->st->code;
    pxcEquality* ne = s->eq + id;
    *ne = *ke;
    TRY(rename3(c, &ne->src, ne->name, a->prefix, ke->name, a->suffix));
    TRY(rename3(c, &ne->src, ne->name1, a->prefix, ke->name1, a->suffix));
    TRY(rename3(c, &ne->src, ne->name2, a->prefix, ke->name2, a->suffix));
  }
  return PX_OK;
}

static pxtStatus copyActuators(pxcCtx* c, pxcAttach* a) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  for (int i = 0; i < k->nact; i++) {
    const pxcActuator* ka = k->act + i;
    if (mapped(a, k, trnObjType(ka->trntype), ka->target) < 0) continue;
    if (mapped(a, k, PX_OBJ_SITE, ka->slidersite) == -1) continue;
    if (mapped(a, k, PX_OBJ_SITE, ka->refsite) == -1) continue;
    int id = PXC_ADD(c, s, act);
    if (id < 0) return c->st->code;
    pxcActuator* na = s->act + id;
    *na = *ka;
    TRY(rename3(c, &na->src, na->name, a->prefix, ka->name, a->suffix));
    TRY(rename3(c, &na->src, na->target, a->prefix, ka->target, a->suffix));
    TRY(rename3(c, &na->src, na->slidersite, a->prefix, ka->slidersite, a->suffix));
    TRY(rename3(c, &na->src, na->refsite, a->prefix, ka->refsite, a->suffix));
    a->actmap[i] = id;
  }
  return PX_OK;
}

static pxtStatus copySensors(pxcCtx* c, pxcAttach* a) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  for (int i = 0; i < k->nsensor; i++) {
    const pxcSensor* ks = k->sensor + i;
    int mo = ks->objtype == PX_OBJ_UNKNOWN ? -2 : mapped(a, k, ks->objtype, ks->objname);
    int mr = ks->reftype == PX_OBJ_UNKNOWN ? -2 : mapped(a, k, ks->reftype, ks->refname);
    if (mo == -1 || mr == -1) continue;
    int id = PXC_ADD(c, s, sensor);
    if (id < 0) return c->st->code;
    pxcSensor* ns = s->sensor + id;
    *ns = *ks;
    TRY(rename3(c, &ns->src, ns->name, a->prefix, ks->name, a->suffix));
    TRY(rename3(c, &ns->src, ns->objname, a->prefix, ks->objname, a->suffix));
    TRY(rename3(c, &ns->src, ns->refname, a->prefix, ks->refname, a->suffix));
  }
  return PX_OK;
}

static pxtStatus copyContacts(pxcCtx* c, pxcAttach* a) {
  pxcSpec* s = c->spec;
  const pxcSpec* k = s->child[a->child].spec;
  for (int i = 0; i < k->npair; i++) {
    const pxcPair* kp = k->pair + i;
    if (mapped(a, k, PX_OBJ_GEOM, kp->geom1) < 0 || mapped(a, k, PX_OBJ_GEOM, kp->geom2) < 0) {
      continue;
    }
    int id = PXC_ADD(c, s, pair);
    if (id < 0) return c->st->code;
    pxcPair* np = s->pair + id;
    *np = *kp;
    TRY(rename3(c, &np->src, np->name, a->prefix, kp->name, a->suffix));
    TRY(rename3(c, &np->src, np->geom1, a->prefix, kp->geom1, a->suffix));
    TRY(rename3(c, &np->src, np->geom2, a->prefix, kp->geom2, a->suffix));
  }
  for (int i = 0; i < k->nexclude; i++) {
    const pxcPair* kp = k->exclude + i;
    if (mapped(a, k, PX_OBJ_BODY, kp->geom1) < 0 || mapped(a, k, PX_OBJ_BODY, kp->geom2) < 0) {
      continue;
    }
    int id = PXC_ADD(c, s, exclude);
    if (id < 0) return c->st->code;
    pxcPair* np = s->exclude + id;
    *np = *kp;
    TRY(rename3(c, &np->src, np->name, a->prefix, kp->name, a->suffix));
    TRY(rename3(c, &np->src, np->geom1, a->prefix, kp->geom1, a->suffix));
    TRY(rename3(c, &np->src, np->geom2, a->prefix, kp->geom2, a->suffix));
  }
  return PX_OK;
}

static int keyNameUsed(const pxcSpec* s, const char* name) {
  for (int i = 0; i < s->nkey; i++) {
    const char* v = NULL;
    for (int j = 0; j < s->key[i]->nattr; j++) {
      if (!strcmp(s->key[i]->attr[j].name, "name")) v = s->key[i]->attr[j].value;
    }
    if (v && !strcmp(v, name)) return 1;
  }
  for (int i = 0; i < s->nakey; i++) {
    if (!strcmp(s->akey[i].name, name)) return 1;
  }
  return 0;
}

static pxtStatus copyKeys(pxcCtx* c, int ai) {
  pxcSpec* s = c->spec;
  const pxcAttach* a = s->attach + ai;
  const pxModel* km = s->child[a->child].model;
  if (!km) return PX_OK;
  for (int i = 0; i < km->nkey; i++) {
    const char* kn = km->names + km->name_keyadr[i];
    char name[PXC_NAME];
    TRY(rename3(c, &a->src, name, a->prefix, kn, ""));
    if (!name[0]) {
      return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                     "%s:%d: <attach>: an unnamed keyframe in an attached model is not "
                     "supported by phalanx yet",
                     a->src.file, a->src.line);
    }
    if (keyNameUsed(s, name)) continue;
    if (i >= s->child[a->child].spec->nkey) {
      return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                     "%s:%d: <attach>: keyframes the attached model did not declare itself "
                     "(from <size nkey> or its own attachments) are not supported by phalanx yet",
                     a->src.file, a->src.line);
    }
    if (a->suffix[0]) {
      // inside <replicate>, MuJoCo 3.12 orders and fills keyframes by rules of its own (the
      // parent's keys are replicated too, attached controls and activations are dropped)
      int given = 0;
      for (int u = 0; u < km->nu; u++) {
        given |= a->actmap[u] >= 0 && km->key_ctrl[(size_t)i * km->nu + u] != 0;
        int adr = km->actuator_actadr[u];
        for (int k = 0; a->actmap[u] >= 0 && adr >= 0 && k < km->actuator_actnum[u]; k++) {
          given |= km->key_act[(size_t)i * km->na + adr + k] != 0;
        }
      }
      if (s->nkey || given) {
        return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                       "%s:%d: <attach>: keyframes of a model attached inside <replicate>, with "
                       "keyframes of the parent's own or keyframe controls/activations of the "
                       "attached actuators, are not supported by phalanx yet",
                       a->src.file, a->src.line);
      }
    }
    int id = PXC_ADD(c, s, akey);
    if (id < 0) return c->st->code;
    strcpy(s->akey[id].name, name);
    s->akey[id].attach = ai;
    s->akey[id].key = i;
  }
  return PX_OK;
}

pxtStatus pxc_attachMisc(pxcCtx* c) {
  pxcSpec* s = c->spec;
  for (int i = 0; i < s->nattach; i++) {
    pxcAttach* a = s->attach + i;
    TRY(copyTendons(c, a));
    TRY(copyEqualities(c, a));
    TRY(copyActuators(c, a));
    TRY(copySensors(c, a));
    TRY(copyContacts(c, a));
  }
  for (int i = 0; i < s->nattach; i++) TRY(copyKeys(c, i));
  return PX_OK;
}

//---------------------------------- keyframes of attached models ----------------------------------

// compiled index of each child joint: joints ordered by body, then declaration
static void compiledJointOrder(const pxcSpec* k, int* order) {
  int next = 0;
  for (int b = 0; b < k->nbody; b++) {
    for (int j = 0; j < k->njnt; j++) {
      if (k->jnt[j].body == b) order[j] = next++;
    }
  }
}

pxtStatus pxc_fillAttachedKey(pxcCtx* c, const pxModel* m, int akey, int key) {
  const pxcSpec* s = c->spec;
  const pxcAttach* a = s->attach + s->akey[akey].attach;
  const pxcSpec* k = s->child[a->child].spec;
  const pxModel* km = s->child[a->child].model;
  int ck = s->akey[akey].key;
  // only the lists the child's keyframe gives replace the parent's defaults
  const pxcNode* kn = k->key[ck];
  int has[6] = {0, 0, 0, 0, 0, 0};
  static const char* const lists[6] = {"qpos", "qvel", "act", "ctrl", "mpos", "mquat"};
  for (int i = 0; i < kn->nattr; i++) {
    for (int l = 0; l < 6; l++) has[l] |= !strcmp(kn->attr[i].name, lists[l]);
  }
  if (m->nbody != s->nbody) {
    return PX_FAIL(c->st, PX_ERR_UNSUPPORTED,
                   "%s:%d: <attach>: keyframes of attached models with fused bodies are not "
                   "supported by phalanx yet",
                   a->src.file, a->src.line);
  }
  int* order = (int*)malloc(sizeof(int) * (size_t)(k->njnt > 0 ? k->njnt : 1));
  if (!order) return PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
  compiledJointOrder(k, order);

  m->key_time[key] = km->key_time[ck];
  for (int j = 0; j < k->njnt; j++) {
    int pj = a->jntmap[j];
    if (pj < 0) continue;
    int cj = order[j];
    // the parent's compiled joint: the joint of the mapped body with the same rank
    int pb = s->jnt[pj].body, rank = 0;
    for (int i = 0; i < pj; i++) rank += s->jnt[i].body == pb;
    int cid = m->body_jntadr[pb] + rank;
    int t = km->jnt_type[cj];
    int nq = t == PX_JNT_FREE ? 7 : t == PX_JNT_BALL ? 4 : 1;
    int nv = t == PX_JNT_FREE ? 6 : t == PX_JNT_BALL ? 3 : 1;
    if (has[0]) {
      memcpy(m->key_qpos + (size_t)key * m->nq + m->jnt_qposadr[cid],
             km->key_qpos + (size_t)ck * km->nq + km->jnt_qposadr[cj], sizeof(double) * (size_t)nq);
    }
    if (has[1]) {
      memcpy(m->key_qvel + (size_t)key * m->nv + m->jnt_dofadr[cid],
             km->key_qvel + (size_t)ck * km->nv + km->jnt_dofadr[cj], sizeof(double) * (size_t)nv);
    }
  }
  free(order);
  for (int i = 0; i < k->nact; i++) {
    int pa = a->actmap[i];
    if (pa < 0) continue;
    if (has[3]) m->key_ctrl[(size_t)key * m->nu + pa] = km->key_ctrl[(size_t)ck * km->nu + i];
    int n = km->actuator_actnum[i];
    if (has[2] && n > 0 && m->actuator_actnum[pa] == n) {
      memcpy(m->key_act + (size_t)key * m->na + m->actuator_actadr[pa],
             km->key_act + (size_t)ck * km->na + km->actuator_actadr[i],
             sizeof(double) * (size_t)n);
    }
  }
  for (int b = 1; b < k->nbody; b++) {
    int pb = a->bodymap[b];
    int cm = km->body_mocapid[b];
    if (pb < 0 || cm < 0) continue;
    int pm = m->body_mocapid[pb];
    if (pm < 0) continue;
    if (has[4]) {
      memcpy(m->key_mpos + (size_t)key * 3 * m->nmocap + 3 * pm,
             km->key_mpos + (size_t)ck * 3 * km->nmocap + 3 * cm, 3 * sizeof(double));
    }
    if (has[5]) {
      memcpy(m->key_mquat + (size_t)key * 4 * m->nmocap + 4 * pm,
             km->key_mquat + (size_t)ck * 4 * km->nmocap + 4 * cm, 4 * sizeof(double));
    }
  }
  return PX_OK;
}
