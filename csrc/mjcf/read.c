// SPDX-License-Identifier: Apache-2.0
// Typed attribute readers for the MJCF parser. Every value is checked: count, number syntax,
// finiteness, keyword membership; errors name file, line, element and attribute.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/spec.h"
#include "util/quat.h"

#define PXC_MAXLIST (1 << 26)  // values in one list attribute

pxtStatus pxc_error(pxcCtx* c, pxcNode* n, const char* fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (n) return PX_FAIL(c->st, PX_ERR_MJCF, "%s:%d: <%s>: %s", n->file, n->line, n->name, msg);
  return PX_FAIL(c->st, PX_ERR_MJCF, "%s", msg);
}

int pxc_grow(pxcCtx* c, void** list, int* n, int* cap, size_t size) {
  if (*n >= PXC_MAX_ELEMENTS) {
    PX_FAIL(c->st, PX_ERR_MJCF, "more than %d elements of one kind (replicated or not)",
            PXC_MAX_ELEMENTS);
    return -1;
  }
  if (*n == *cap) {
    int ncap = *cap ? 2 * *cap : 8;
    void* p = realloc(*list, size * (size_t)ncap);
    if (!p) {
      PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory while parsing");
      return -1;
    }
    *list = p;
    *cap = ncap;
  }
  memset((char*)*list + size * (size_t)*n, 0, size);
  return (*n)++;
}

// parse whitespace-separated numbers; returns count or -1 on a bad token (bad set to it)
static int parseNumbers(const char* s, double* out, int max, const char** bad, int* toomany) {
  int k = 0;
  *toomany = 0;
  while (*s) {
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) break;
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || (*end && !isspace((unsigned char)*end)) || !isfinite(v) || errno == ERANGE) {
      *bad = s;
      return -1;
    }
    if (k >= max) {
      *toomany = 1;
      return k;
    }
    if (out) out[k] = v;
    k++;
    s = end;
  }
  return k;
}

// copy of the first token for messages
static void token(const char* s, char* buf, int len) {
  int i = 0;
  while (s[i] && !isspace((unsigned char)s[i]) && i < len - 1) {
    buf[i] = s[i];
    i++;
  }
  buf[i] = 0;
}

int pxc_readNums(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, double* out,
                 int* count) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  double tmp[64];
  const char* bad = NULL;
  int toomany = 0;
  int k = parseNumbers(v, tmp, nmax < 64 ? nmax : 64, &bad, &toomany);
  if (k < 0) {
    char tok[64];
    token(bad, tok, sizeof(tok));
    pxc_error(c, n, "attribute '%s': '%s' is not a finite number in double range", attr, tok);
    return -1;
  }
  if (toomany || k < nmin) {
    if (nmin == nmax) {
      pxc_error(c, n, "attribute '%s': expected %d number%s, got '%s'", attr, nmin,
                nmin == 1 ? "" : "s", v);
    } else {
      pxc_error(c, n, "attribute '%s': expected %d to %d numbers, got '%s'", attr, nmin, nmax, v);
    }
    return -1;
  }
  for (int i = 0; i < k; i++) out[i] = tmp[i];
  if (count) *count = k;
  return 1;
}

int pxc_readNum(pxcCtx* c, pxcNode* n, const char* attr, double* out) {
  return pxc_readNums(c, n, attr, 1, 1, out, NULL);
}

int pxc_readFloats(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, float* out) {
  double tmp[64];
  int k = 0;
  int r = pxc_readNums(c, n, attr, nmin, nmax, tmp, &k);
  if (r == 1) {
    for (int i = 0; i < k; i++) {
      if (fabs(tmp[i]) > 3.4e38) {
        pxc_error(c, n, "attribute '%s': %g does not fit in a float", attr, tmp[i]);
        return -1;
      }
      out[i] = (float)tmp[i];
    }
  }
  return r;
}

int pxc_readInts(pxcCtx* c, pxcNode* n, const char* attr, int nmin, int nmax, int* out) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  int k = 0;
  const char* s = v;
  while (*s) {
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) break;
    char* end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || (*end && !isspace((unsigned char)*end)) || errno || x > 2147483647L ||
        x < -2147483647L - 1) {
      char tok[64];
      token(s, tok, sizeof(tok));
      pxc_error(c, n, "attribute '%s': '%s' is not an integer", attr, tok);
      return -1;
    }
    if (k >= nmax) {
      pxc_error(c, n, "attribute '%s': expected at most %d integers, got '%s'", attr, nmax, v);
      return -1;
    }
    out[k++] = (int)x;
    s = end;
  }
  if (k < nmin) {
    pxc_error(c, n, "attribute '%s': expected %d integer%s, got '%s'", attr, nmin,
              nmin == 1 ? "" : "s", v);
    return -1;
  }
  return 1;
}

int pxc_readInt(pxcCtx* c, pxcNode* n, const char* attr, int* out) {
  return pxc_readInts(c, n, attr, 1, 1, out);
}

int pxc_readString(pxcCtx* c, pxcNode* n, const char* attr, char* out, int len) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  if ((int)strlen(v) >= len) {
    pxc_error(c, n, "attribute '%s': value longer than %d characters", attr, len - 1);
    return -1;
  }
  strcpy(out, v);
  return 1;
}

int pxc_readName(pxcCtx* c, pxcNode* n, const char* attr, char* out) {
  return pxc_readString(c, n, attr, out, PXC_NAME);
}

int pxc_readKeyword(pxcCtx* c, pxcNode* n, const char* attr, const char* const* words,
                    const int* values, int* out) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  for (int i = 0; words[i]; i++) {
    if (!strcmp(v, words[i])) {
      *out = values[i];
      return 1;
    }
  }
  char list[512] = "";
  for (int i = 0; words[i]; i++) {
    if (strlen(list) + strlen(words[i]) + 3 < sizeof(list)) {
      if (i) strcat(list, ", ");
      strcat(list, words[i]);
    }
  }
  pxc_error(c, n, "attribute '%s': '%s' is not one of: %s", attr, v, list);
  return -1;
}

int pxc_readBool(pxcCtx* c, pxcNode* n, const char* attr, int* out) {
  static const char* const words[] = {"false", "true", NULL};
  static const int values[] = {0, 1};
  return pxc_readKeyword(c, n, attr, words, values, out);
}

int pxc_readTriBool(pxcCtx* c, pxcNode* n, const char* attr, int* out) {
  static const char* const words[] = {"false", "true", "auto", NULL};
  static const int values[] = {0, 1, 2};
  return pxc_readKeyword(c, n, attr, words, values, out);
}

int pxc_readList(pxcCtx* c, pxcNode* n, const char* attr, double** out, int* count) {
  const char* v = pxc_xmlAttr(n, attr);
  if (!v) return 0;
  const char* bad = NULL;
  int toomany = 0;
  int k = parseNumbers(v, NULL, PXC_MAXLIST, &bad, &toomany);
  if (k < 0) {
    char tok[64];
    token(bad, tok, sizeof(tok));
    pxc_error(c, n, "attribute '%s': '%s' is not a finite number", attr, tok);
    return -1;
  }
  if (toomany) {
    pxc_error(c, n, "attribute '%s': more than %d values", attr, PXC_MAXLIST);
    return -1;
  }
  double* buf = (double*)malloc(sizeof(double) * (size_t)(k ? k : 1));
  if (!buf) {
    PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory");
    return -1;
  }
  parseNumbers(v, buf, k, &bad, &toomany);
  free(*out);
  *out = buf;
  *count = k;
  return 1;
}

int pxc_readUser(pxcCtx* c, pxcNode* n, pxcUser* user) {
  int k = 0;
  int r = pxc_readNums(c, n, "user", 0, PXC_MAXUSER, user->v, &k);
  if (r == 1) user->n = k;
  return r;
}

// object type of a MuJoCo object name ("body", "geom", ...; mju_str2Type), PX_OBJ_UNKNOWN if none
int pxc_str2Type(const char* s) {
  static const char* const names[] = {
      "body",  "xbody",   "joint",    "dof",    "geom",     "site",    "camera",
      "light", "flex",    "mesh",     "skin",   "hfield",   "texture", "material",
      "pair",  "exclude", "equality", "tendon", "actuator", "sensor",  "numeric",
      "text",  "tuple",   "key",      "plugin", NULL};
  for (int i = 0; names[i]; i++) {
    if (!strcmp(s, names[i])) return i + 1;
  }
  return PX_OBJ_UNKNOWN;
}

//---------------------------------- orientation ---------------------------------------------------

void pxc_normalize4(double q[4]) {
  double nrm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (nrm < 1e-14) return;  // zero quaternions are rejected where they are read
  if (fabs(nrm - 1) > 1e-14) {
    for (int i = 0; i < 4; i++) q[i] /= nrm;
  }
}

static double normVec(double* v, int n) {
  double nrm = 0;
  for (int i = 0; i < n; i++) nrm += v[i] * v[i];
  if (nrm < 1e-14) return 0;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > 1e-14) {
    for (int i = 0; i < n; i++) v[i] /= nrm;
  }
  return nrm;
}

// quaternion of a frame whose axes are the columns x, y, z
static void frame2quat(double q[4], const double* x, const double* y, const double* z) {
  const double* mat[3] = {x, y, z};  // mat[column][row]
  if (mat[0][0] + mat[1][1] + mat[2][2] > 0) {
    q[0] = 0.5 * sqrt(1 + mat[0][0] + mat[1][1] + mat[2][2]);
    q[1] = 0.25 * (mat[1][2] - mat[2][1]) / q[0];
    q[2] = 0.25 * (mat[2][0] - mat[0][2]) / q[0];
    q[3] = 0.25 * (mat[0][1] - mat[1][0]) / q[0];
  } else if (mat[0][0] > mat[1][1] && mat[0][0] > mat[2][2]) {
    q[1] = 0.5 * sqrt(1 + mat[0][0] - mat[1][1] - mat[2][2]);
    q[0] = 0.25 * (mat[1][2] - mat[2][1]) / q[1];
    q[2] = 0.25 * (mat[1][0] + mat[0][1]) / q[1];
    q[3] = 0.25 * (mat[2][0] + mat[0][2]) / q[1];
  } else if (mat[1][1] > mat[2][2]) {
    q[2] = 0.5 * sqrt(1 - mat[0][0] + mat[1][1] - mat[2][2]);
    q[0] = 0.25 * (mat[2][0] - mat[0][2]) / q[2];
    q[1] = 0.25 * (mat[1][0] + mat[0][1]) / q[2];
    q[3] = 0.25 * (mat[2][1] + mat[1][2]) / q[2];
  } else {
    q[3] = 0.5 * sqrt(1 - mat[0][0] - mat[1][1] + mat[2][2]);
    q[0] = 0.25 * (mat[0][1] - mat[1][0]) / q[3];
    q[1] = 0.25 * (mat[2][0] + mat[0][2]) / q[3];
    q[2] = 0.25 * (mat[2][1] + mat[1][2]) / q[3];
  }
  normVec(q, 4);
}

void pxc_z2quat(double q[4], const double* vec) {
  // axis = (0,0,1) x vec
  q[1] = -vec[1];
  q[2] = vec[0];
  q[3] = 0;
  double s = normVec(q + 1, 3);
  if (s < 1e-10) {
    q[1] = 1;
    q[2] = q[3] = 0;
  }
  double ang = atan2(s, vec[2]);
  q[0] = cos(ang / 2);
  q[1] *= sin(ang / 2);
  q[2] *= sin(ang / 2);
  q[3] *= sin(ang / 2);
}

void pxc_eulerQuat(const pxcSpec* sp, const double euler[3], int times, double q[4]) {
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
  for (int k = 0; k < 3; k++) {
    double e = times * euler[k];
    double a = sp->degree ? e / 180.0 * 3.14159265358979323846 : e;
    double qr[4] = {cos(a / 2), 0, 0, 0};
    double sa = sin(a / 2);
    char ch = sp->eulerseq[k];
    int axis = (ch == 'x' || ch == 'X') ? 1 : (ch == 'y' || ch == 'Y') ? 2 : 3;
    qr[axis] = sa;
    if (ch >= 'a') {
      pxu_mulQuat(q, q, qr);  // moving axes: post-multiply
    } else {
      pxu_mulQuat(q, qr, q);  // fixed axes: pre-multiply
    }
  }
}

int pxc_readOrientation(pxcCtx* c, pxcNode* n, double quat[4]) {
  static const char* const names[] = {"quat", "axisangle", "xyaxes", "zaxis", "euler"};
  static const int counts[] = {4, 4, 6, 3, 3};
  int which = -1;
  double v[6];
  for (int i = 0; i < 5; i++) {
    int r = pxc_readNums(c, n, names[i], counts[i], counts[i], v, NULL);
    if (r < 0) return -1;
    if (r == 0) continue;
    if (which >= 0) {
      pxc_error(c, n, "orientation given twice: '%s' and '%s'", names[which], names[i]);
      return -1;
    }
    which = i;
    double* q = quat;
    const pxcSpec* sp = c->spec;
    switch (i) {
      case 0:
        if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0) {
          pxc_error(c, n, "attribute 'quat': zero quaternion is not allowed");
          return -1;
        }
        memcpy(q, v, 4 * sizeof(double));
        break;
      case 1: {
        if (sp->degree) v[3] = v[3] / 180.0 * 3.14159265358979323846;
        if (normVec(v, 3) < 1e-14) {
          pxc_error(c, n, "axisangle too small");
          return -1;
        }
        double a2 = v[3] / 2;
        q[0] = cos(a2);
        q[1] = sin(a2) * v[0];
        q[2] = sin(a2) * v[1];
        q[3] = sin(a2) * v[2];
        break;
      }
      case 2: {
        if (normVec(v, 3) < 1e-14) {
          pxc_error(c, n, "xaxis too small");
          return -1;
        }
        double d = v[0] * v[3] + v[1] * v[4] + v[2] * v[5];
        v[3] -= v[0] * d;
        v[4] -= v[1] * d;
        v[5] -= v[2] * d;
        if (normVec(v + 3, 3) < 1e-14) {
          pxc_error(c, n, "yaxis too small");
          return -1;
        }
        double z[3] = {v[1] * v[5] - v[2] * v[4], v[2] * v[3] - v[0] * v[5],
                       v[0] * v[4] - v[1] * v[3]};
        if (normVec(z, 3) < 1e-14) {
          pxc_error(c, n, "cross(xaxis, yaxis) too small");
          return -1;
        }
        frame2quat(q, v, v + 3, z);
        break;
      }
      case 3:
        if (normVec(v, 3) < 1e-14) {
          pxc_error(c, n, "zaxis too small");
          return -1;
        }
        pxc_z2quat(q, v);
        break;
      case 4:
        pxc_eulerQuat(sp, v, 1, q);
        break;
    }
  }
  return which >= 0;
}

pxtStatus pxc_checkUnused(pxcCtx* c, pxcNode* n) {
  for (int i = 0; i < n->nattr; i++) {
    if (!n->attr[i].used) {
      return pxc_error(c, n, "unknown attribute '%s'", n->attr[i].name);
    }
  }
  return PX_OK;
}
