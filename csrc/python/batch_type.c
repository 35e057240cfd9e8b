// SPDX-License-Identifier: Apache-2.0
// phalanx._core.Batch: N worlds over one Model (csrc/batch), every per-world array a
// (num_worlds, ...) zero-copy NumPy view whose base is the Batch object.
//
// Arguments are validated while holding the GIL; the pool then runs with the GIL released. A
// Batch serves one call at a time: a call that finds another one running (from another Python
// thread) raises RuntimeError instead of waiting, so no two calls ever touch the C batch at
// once. The `busy` flag is only read and written with the GIL held.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <string.h>

#include "px/pxbatch.h"
#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "python/internal.h"

#define PXNPY_int NPY_INT32
#define PXNPY_pxtNum NPY_FLOAT64
#define PXNPY_pxtByte NPY_UINT8
#define PXNPY_pxtBool NPY_BOOL
#define PXNPY_float NPY_FLOAT32
#define PXNPY_char NPY_INT8

typedef struct {
  PyObject_HEAD PyObject* model;  // the Model object, kept alive and frozen by the batch
  pxBatch* b;
  int busy;  // a call is running with the GIL released
} BatchObject;

static PyTypeObject BatchType;

//---------------------------------- helpers -------------------------------------------------------

static int batchReady(BatchObject* self, const char* fn) {
  if (!self->b) {
    PyErr_Format(PyExc_RuntimeError, "Batch.%s: the Batch was not initialized", fn);
    return 0;
  }
  if (self->busy) {
    PyErr_Format(PyExc_RuntimeError,
                 "Batch.%s: the batch is in use by another thread; calls on one Batch must not "
                 "overlap",
                 fn);
    return 0;
  }
  return 1;
}

// a (num_worlds, ...) view of ptr owned by self
static PyObject* worldView(BatchObject* self, int npy, void* ptr, int nd, npy_intp* dims,
                           int writable) {
  static double dummy[1];
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
  PyObject* arr =
      PyArray_New(&PyArray_Type, nd, dims, npy, NULL, ptr ? ptr : (void*)dummy, 0, flags, NULL);
  if (!arr) return NULL;
  Py_INCREF(self);
  if (PyArray_SetBaseObject((PyArrayObject*)arr, (PyObject*)self) < 0) {
    Py_DECREF(arr);  // the base reference was stolen
    return NULL;
  }
  return arr;
}

// the view of per-world data field `name`, or NULL without an exception when there is none
static PyObject* fieldView(BatchObject* self, const char* name) {
  const pxModel* m = self->b->model;
  const pxWorlds* w = self->b->worlds;
  npy_intp dims[3] = {w->nworld, 0, 0};
#define X(type, fname, nr, nc)                                   \
  if (!strcmp(name, #fname)) {                                   \
    dims[1] = m->nr;                                             \
    dims[2] = (nc);                                              \
    int nd = strcmp(#nc, "1") ? 3 : 2;                           \
    return worldView(self, PXNPY_##type, w->fname, nd, dims, 1); \
  }
  PX_DATA_FIELDS(X)
#undef X
  return NULL;
}

// an optional world mask: None, or a bool array of shape (num_worlds,); *out is NULL for None
static int maskArg(BatchObject* self, PyObject* obj, const char* fn, PyArrayObject** out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 1;
  int n = self->b->nworld;
  if (!PyArray_Check(obj) || PyArray_TYPE((PyArrayObject*)obj) != NPY_BOOL ||
      PyArray_NDIM((PyArrayObject*)obj) != 1 || PyArray_DIM((PyArrayObject*)obj, 0) != n) {
    if (PyArray_Check(obj)) {
      PyArrayObject* a = (PyArrayObject*)obj;
      PyObject* shape = PyObject_GetAttrString(obj, "shape");
      PyObject* rs = shape ? PyObject_Repr(shape) : NULL;
      PyErr_Format(PyExc_ValueError,
                   "Batch.%s: mask must be a numpy bool array of shape (%d,); got dtype %s, "
                   "shape %s",
                   fn, n, PyArray_DESCR(a)->typeobj->tp_name, rs ? PyUnicode_AsUTF8(rs) : "?");
      Py_XDECREF(rs);
      Py_XDECREF(shape);
    } else {
      PyErr_Format(PyExc_ValueError,
                   "Batch.%s: mask must be None or a numpy bool array of shape (%d,); got %s", fn,
                   n, Py_TYPE(obj)->tp_name);
    }
    return 0;
  }
  *out = (PyArrayObject*)PyArray_FROMANY(obj, NPY_BOOL, 1, 1, NPY_ARRAY_IN_ARRAY);
  return *out != NULL;
}

static const uint8_t* maskData(PyArrayObject* a) {
  return a ? (const uint8_t*)PyArray_DATA(a) : NULL;
}

static int seedArg(PyObject* obj, const char* fn, uint64_t* seed) {
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "Batch.%s: seed must be an int, got %s", fn,
                 Py_TYPE(obj)->tp_name);
    return 0;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_Clear();
    PyObject* r = PyObject_Repr(obj);
    PyErr_Format(PyExc_ValueError, "Batch.%s: seed must be in [0, 2**64), got %s", fn,
                 r ? PyUnicode_AsUTF8(r) : "?");
    Py_XDECREF(r);
    return 0;
  }
  *seed = (uint64_t)v;
  return 1;
}

static int noiseArg(double v, const char* fn, const char* name) {
  if (!(v >= 0) || v > 1e10) {
    char buf[64];
    snprintf(buf, sizeof(buf), "%g", v);
    PyErr_Format(PyExc_ValueError, "Batch.%s: %s must be finite and >= 0, got %s", fn, name, buf);
    return 0;
  }
  return 1;
}

// after a pool call: raise nothing (worlds are flagged), return the flagged count
static PyObject* flaggedResult(int n) {
  return PyLong_FromLong(n);
}

//---------------------------------- type ----------------------------------------------------------

static int batch_init(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"model", "num_worlds", "num_threads", "seed", "nconmax", "njmax", NULL};
  PyObject *model, *seedobj = NULL, *capobj[2] = {NULL, NULL};
  Py_ssize_t nworld;
  int nthread = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "On|iO$OO:Batch", kwlist, &model, &nworld, &nthread,
                                   &seedobj, &capobj[0], &capobj[1])) {
    return -1;
  }
  // capacities: None (the model's) or an int in [0, cap]
  int cap[2] = {-1, -1};
  static const char* const capname[2] = {"nconmax", "njmax"};
  static const int capmax[2] = {PX_NCONMAX_CAP, PX_NEFCMAX_CAP};
  for (int k = 0; k < 2; k++) {
    if (!capobj[k] || capobj[k] == Py_None) continue;
    long v = PyLong_Check(capobj[k]) && !PyBool_Check(capobj[k]) ? PyLong_AsLong(capobj[k]) : -2;
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();  // beyond a long: reported as out of range below
      v = -2;
    }
    if (v < 0 || v > capmax[k]) {
      PyErr_Format(PyExc_ValueError,
                   "Batch: %s must be None (the model's capacity) or an int in [0, %d], got %R",
                   capname[k], capmax[k], capobj[k]);
      return -1;
    }
    cap[k] = (int)v;
  }
  if (self->b) {
    PyErr_SetString(PyExc_RuntimeError, "Batch is already initialized");
    return -1;
  }
  pxModel* m = py_modelOf(model, "Batch");
  if (!m) return -1;
  if (nworld < 1 || nworld > PX_MAXWORLD) {
    PyErr_Format(PyExc_ValueError, "Batch: num_worlds must be in [1, %d], got %zd", PX_MAXWORLD,
                 nworld);
    return -1;
  }
  if (nthread < 0 || nthread > PX_MAXTHREAD) {
    PyErr_Format(PyExc_ValueError, "Batch: num_threads must be in [0, %d], got %d", PX_MAXTHREAD,
                 nthread);
    return -1;
  }
  uint64_t seed = 0;
  if (seedobj && seedobj != Py_None && !seedArg(seedobj, "__init__", &seed)) return -1;
  pxStatus st;
  px_statusClear(&st);
  // with the GIL held: pxb_make freezes the model (m->frozen), which Python code reads
  pxBatch* b = pxb_makeCap(m, (int)nworld, nthread, seed, cap[0], cap[1], &st);
  if (!b) {
    py_raise(&st);
    return -1;
  }
  Py_INCREF(model);
  self->model = model;
  self->b = b;
  return 0;
}

static void batch_dealloc(PyObject* selfobj) {
  BatchObject* self = (BatchObject*)selfobj;
  pxb_free(self->b);  // joins the idle workers; unfreezes the model
  Py_XDECREF(self->model);
  Py_TYPE(selfobj)->tp_free(selfobj);
}

static PyObject* batch_getattro(PyObject* selfobj, PyObject* nameobj) {
  BatchObject* self = (BatchObject*)selfobj;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return NULL;
  if (self->b) {
    PyObject* v = fieldView(self, name);
    if (v || PyErr_Occurred()) return v;
    npy_intp dims[2] = {self->b->nworld, 4};
    if (!strcmp(name, "time")) {
      return worldView(self, NPY_FLOAT64, self->b->worlds->time, 1, dims, 1);
    }
    if (!strcmp(name, "flags")) return worldView(self, NPY_INT32, self->b->flags, 1, dims, 0);
    if (!strcmp(name, "rng_state")) {
      return worldView(self, NPY_UINT64, self->b->rng, 2, dims, 0);
    }
  }
  return PyObject_GenericGetAttr(selfobj, nameobj);
}

static int batch_setattro(PyObject* selfobj, PyObject* nameobj, PyObject* value) {
  BatchObject* self = (BatchObject*)selfobj;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return -1;
  if (self->b) {
    PyObject* view = fieldView(self, name);
    if (!view && PyErr_Occurred()) return -1;
    if (!view && !strcmp(name, "time")) {
      view = batch_getattro(selfobj, nameobj);
    }
    if (view) {
      if (!value) {
        Py_DECREF(view);
        PyErr_SetString(PyExc_AttributeError, "cannot delete batch fields");
        return -1;
      }
      int r = PyArray_CopyObject((PyArrayObject*)view, value);
      Py_DECREF(view);
      return r;
    }
    if (!strcmp(name, "flags") || !strcmp(name, "rng_state")) {
      PyErr_Format(PyExc_AttributeError,
                   "Batch.%s is read-only (reset() clears flags, seed() sets generators)", name);
      return -1;
    }
  }
  return PyObject_GenericSetAttr(selfobj, nameobj, value);
}

static PyObject* batch_step(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"nsubstep", "mask", "ctrl_noise", NULL};
  int nsubstep = 1;
  PyObject* maskobj = NULL;
  double ctrl_noise = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|i$Od:step", kwlist, &nsubstep, &maskobj,
                                   &ctrl_noise)) {
    return NULL;
  }
  if (!batchReady(self, "step")) return NULL;
  if (nsubstep < 1) {
    PyErr_Format(PyExc_ValueError, "Batch.step: nsubstep must be at least 1, got %d", nsubstep);
    return NULL;
  }
  if (!noiseArg(ctrl_noise, "step", "ctrl_noise")) return NULL;
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "step", &mask)) return NULL;
  const uint8_t* md = maskData(mask);
  int n;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS n = pxb_step(self->b, nsubstep, md, ctrl_noise);
  Py_END_ALLOW_THREADS self->busy = 0;
  Py_XDECREF(mask);
  return flaggedResult(n);
}

static PyObject* batch_reset(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"mask", "key", "qpos_noise", "qvel_noise", NULL};
  PyObject* maskobj = NULL;
  int key = -1;
  double qpos_noise = 0, qvel_noise = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$idd:reset", kwlist, &maskobj, &key, &qpos_noise,
                                   &qvel_noise)) {
    return NULL;
  }
  if (!batchReady(self, "reset")) return NULL;
  int nkey = self->b->model->nkey;
  if (key < -1 || key >= nkey) {
    PyErr_Format(PyExc_ValueError,
                 "Batch.reset: key must be -1 (no keyframe) or in [0, %d), got %d", nkey, key);
    return NULL;
  }
  if (!noiseArg(qpos_noise, "reset", "qpos_noise") ||
      !noiseArg(qvel_noise, "reset", "qvel_noise")) {
    return NULL;
  }
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "reset", &mask)) return NULL;
  const uint8_t* md = maskData(mask);
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS pxb_reset(self->b, md, key, qpos_noise, qvel_noise);
  Py_END_ALLOW_THREADS self->busy = 0;
  Py_XDECREF(mask);
  Py_RETURN_NONE;
}

static PyObject* batch_forward(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"mask", NULL};
  PyObject* maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:forward", kwlist, &maskobj)) return NULL;
  if (!batchReady(self, "forward")) return NULL;
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "forward", &mask)) return NULL;
  const uint8_t* md = maskData(mask);
  int n;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS n = pxb_forward(self->b, md);
  Py_END_ALLOW_THREADS self->busy = 0;
  Py_XDECREF(mask);
  return flaggedResult(n);
}

static PyObject* batch_seed(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"seed", "mask", NULL};
  PyObject *seedobj, *maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:seed", kwlist, &seedobj, &maskobj)) {
    return NULL;
  }
  if (!batchReady(self, "seed")) return NULL;
  uint64_t seed;
  if (!seedArg(seedobj, "seed", &seed)) return NULL;
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "seed", &mask)) return NULL;
  pxb_seed(self->b, maskData(mask), seed);
  Py_XDECREF(mask);
  Py_RETURN_NONE;
}

//---------------------------------- per-world model parameters ------------------------------------

// the id of parameter name (a str), or -1 with ValueError set
static int paramId(PyObject* nameobj, const char* fn, int settable) {
  const char* name = PyUnicode_Check(nameobj) ? PyUnicode_AsUTF8(nameobj) : NULL;
  if (!name) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "Batch.%s: the parameter name must be a str, got %s", fn,
                 Py_TYPE(nameobj)->tp_name);
    return -1;
  }
  int id = pxb_paramIndex(name);
  if (id >= 0 && (!settable || !pxb_paramReadOnly(id))) return id;
  char list[1024] = "";
  size_t len = 0;
  for (int i = 0; i < pxb_paramCount(); i++) {
    if (settable && pxb_paramReadOnly(i)) continue;
    len +=
        (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", pxb_paramName(i));
    if (len >= sizeof(list)) break;
  }
  if (id >= 0) {
    PyErr_Format(PyExc_ValueError,
                 "Batch.%s: %s is a derived constant, recomputed per world from masses, "
                 "inertias, armature and actuator gains; it cannot be set (settable: %s)",
                 fn, name, list);
  } else {
    PyErr_Format(PyExc_ValueError, "Batch.%s: unknown model parameter '%s' (%s: %s)", fn, name,
                 settable ? "settable" : "known", list);
  }
  return -1;
}

// shape (num_worlds, ...) of parameter id; returns the number of axes
static int paramDims(BatchObject* self, int id, npy_intp* dims) {
  int nrow, ncol;
  int nd = pxb_paramShape(self->b->model, id, &nrow, &ncol);
  dims[0] = self->b->nworld;
  dims[1] = nrow;
  dims[2] = ncol;
  return nd + 1;
}

static void shapeString(char* buf, size_t n, int nd, const npy_intp* dims) {
  size_t len = (size_t)snprintf(buf, n, "(");
  for (int i = 0; i < nd && len < n; i++) {
    len += (size_t)snprintf(buf + len, n - len, "%s%ld", i ? ", " : "", (long)dims[i]);
  }
  if (len < n) snprintf(buf + len, n - len, nd == 1 ? ",)" : ")");
}

// values as a C-contiguous float64 array of parameter id's shape, or NULL with ValueError set
static PyArrayObject* paramValues(BatchObject* self, int id, PyObject* obj, const char* fn) {
  npy_intp dims[3];
  int nd = paramDims(self, id, dims);
  PyArrayObject* arr = (PyArrayObject*)PyArray_FROMANY(obj, NPY_FLOAT64, 0, 0, NPY_ARRAY_IN_ARRAY);
  if (!arr) {
    PyErr_Clear();
    char want[96];
    shapeString(want, sizeof(want), nd, dims);
    PyErr_Format(PyExc_ValueError,
                 "Batch.%s: %s must be a real array of shape %s convertible to float64; got %s", fn,
                 pxb_paramName(id), want, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  int ok = PyArray_NDIM(arr) == nd;
  for (int i = 0; ok && i < nd; i++) ok = PyArray_DIM(arr, i) == dims[i];
  if (!ok) {
    char want[96], got[96];
    shapeString(want, sizeof(want), nd, dims);
    shapeString(got, sizeof(got), PyArray_NDIM(arr), PyArray_DIMS(arr));
    PyErr_Format(PyExc_ValueError, "Batch.%s: %s must have shape %s (num_worlds, ...); got %s", fn,
                 pxb_paramName(id), want, got);
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}

// set the (name, values) pairs of items for the worlds in mask, then recompute the derived
// constants once if an inertial parameter was among them; all values are checked first
static PyObject* setParams(BatchObject* self, PyObject* items, PyObject* maskobj, const char* fn) {
  if (!batchReady(self, fn)) return NULL;
  Py_ssize_t n = PyList_GET_SIZE(items);
  if (n == 0) {
    PyErr_Format(PyExc_ValueError, "Batch.%s: no parameter given", fn);
    return NULL;
  }
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, fn, &mask)) return NULL;
  PyArrayObject** vals = (PyArrayObject**)calloc((size_t)n, sizeof(PyArrayObject*));
  int* ids = (int*)calloc((size_t)n, sizeof(int));
  PyObject* result = NULL;
  int inertial = 0;
  pxStatus st;
  px_statusClear(&st);
  if (!vals || !ids) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* item = PyList_GET_ITEM(items, i);
    ids[i] = paramId(PyTuple_GET_ITEM(item, 0), fn, 1);
    if (ids[i] < 0) goto done;
    for (Py_ssize_t j = 0; j < i; j++) {
      if (ids[j] == ids[i]) {
        PyErr_Format(PyExc_ValueError, "Batch.%s: %s given twice", fn, pxb_paramName(ids[i]));
        goto done;
      }
    }
    vals[i] = paramValues(self, ids[i], PyTuple_GET_ITEM(item, 1), fn);
    if (!vals[i]) goto done;
    inertial |= pxb_paramInertial(ids[i]);
  }
  // check every value before changing anything: a parameter with a bad value changes nothing
  for (Py_ssize_t i = 0; i < n; i++) {
    if (pxb_checkParam(self->b, ids[i], (const double*)PyArray_DATA(vals[i]), maskData(mask),
                       &st) != PX_OK) {
      PyErr_Format(PyExc_ValueError, "Batch.%s: %s", fn, st.msg);
      goto done;
    }
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (pxb_setParam(self->b, ids[i], (const double*)PyArray_DATA(vals[i]), maskData(mask), &st) !=
        PX_OK) {
      PyErr_Format(st.code == PX_ERR_NOMEM ? PyExc_MemoryError : PyExc_ValueError, "Batch.%s: %s",
                   fn, st.msg);
      goto done;
    }
  }
  if (inertial) {
    pxtStatus code;
    const uint8_t* md = maskData(mask);
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS code = pxb_setConst(self->b, md, &st);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (code != PX_OK) {
      py_raise(&st);
      goto done;
    }
  }
  result = Py_None;
  Py_INCREF(result);
done:
  for (Py_ssize_t i = 0; vals && i < n; i++) Py_XDECREF(vals[i]);
  free(vals);
  free(ids);
  Py_XDECREF(mask);
  return result;
}

static PyObject* batch_set_model_param(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"name", "values", "mask", NULL};
  PyObject *name, *values, *maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$O:set_model_param", kwlist, &name, &values,
                                   &maskobj)) {
    return NULL;
  }
  PyObject* items = Py_BuildValue("[(OO)]", name, values);
  if (!items) return NULL;
  PyObject* r = setParams((BatchObject*)selfobj, items, maskobj, "set_model_param");
  Py_DECREF(items);
  return r;
}

static PyObject* batch_set_model_params(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"params", "mask", NULL};
  PyObject *params, *maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O:set_model_params", kwlist, &params,
                                   &maskobj)) {
    return NULL;
  }
  if (!PyDict_Check(params)) {
    PyErr_Format(PyExc_TypeError,
                 "Batch.set_model_params: params must be a dict {name: (num_worlds, ...) "
                 "array}, got %s",
                 Py_TYPE(params)->tp_name);
    return NULL;
  }
  PyObject* items = PyDict_Items(params);
  if (!items) return NULL;
  PyObject* r = setParams((BatchObject*)selfobj, items, maskobj, "set_model_params");
  Py_DECREF(items);
  return r;
}

static PyObject* batch_model_param(PyObject* selfobj, PyObject* nameobj) {
  BatchObject* self = (BatchObject*)selfobj;
  if (!batchReady(self, "model_param")) return NULL;
  int id = paramId(nameobj, "model_param", 0);
  if (id < 0) return NULL;
  npy_intp dims[3];
  int nd = paramDims(self, id, dims);
  PyObject* arr = PyArray_SimpleNew(nd, dims, NPY_FLOAT64);
  if (!arr) return NULL;
  pxb_getParam(self->b, id, (double*)PyArray_DATA((PyArrayObject*)arr));
  return arr;
}

static PyObject* batch_model_params_set(PyObject* selfobj, void* closure) {
  (void)closure;
  BatchObject* self = (BatchObject*)selfobj;
  PyObject* names = PyList_New(0);
  if (!names || !self->b) return names;
  for (int i = 0; i < pxb_paramCount(); i++) {
    if (pxb_paramReadOnly(i) || !pxb_paramIsSet(self->b, i)) continue;
    PyObject* s = PyUnicode_FromString(pxb_paramName(i));
    if (!s || PyList_Append(names, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(names);
      return NULL;
    }
    Py_DECREF(s);
  }
  PyObject* t = PyList_AsTuple(names);
  Py_DECREF(names);
  return t;
}

static PyObject* batch_clear_model_params(PyObject* selfobj, PyObject* unused) {
  (void)unused;
  BatchObject* self = (BatchObject*)selfobj;
  if (!batchReady(self, "clear_model_params")) return NULL;
  pxb_clearParams(self->b);
  Py_RETURN_NONE;
}

static PyObject* batch_set_autoreset(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  BatchObject* self = (BatchObject*)selfobj;
  static char* kwlist[] = {"on", "key", "qpos_noise", "qvel_noise", NULL};
  int on, key = -1;
  double qpos_noise = 0, qvel_noise = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "p|$idd:set_autoreset", kwlist, &on, &key,
                                   &qpos_noise, &qvel_noise)) {
    return NULL;
  }
  if (!batchReady(self, "set_autoreset")) return NULL;
  if (!noiseArg(qpos_noise, "set_autoreset", "qpos_noise") ||
      !noiseArg(qvel_noise, "set_autoreset", "qvel_noise")) {
    return NULL;
  }
  pxStatus st;
  px_statusClear(&st);
  if (pxb_setAutoreset(self->b, on, key, qpos_noise, qvel_noise, &st) != PX_OK) {
    PyErr_Format(st.code == PX_ERR_NOMEM ? PyExc_MemoryError : PyExc_ValueError,
                 "Batch.set_autoreset: %s", st.msg);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject* batch_get_nbytes(PyObject* selfobj, void* closure) {
  (void)closure;
  BatchObject* self = (BatchObject*)selfobj;
  if (!self->b) return PyLong_FromLong(0);
  size_t n =
      self->b->worlds->nbuffer + (size_t)self->b->nworld * (4 * sizeof(uint64_t) + sizeof(int));
  return PyLong_FromSize_t(n);
}

// the contact (closure NULL) or constraint-row capacity of every world
static PyObject* batch_get_capacity(PyObject* selfobj, void* closure) {
  BatchObject* self = (BatchObject*)selfobj;
  if (!self->b) return PyLong_FromLong(0);
  return PyLong_FromLong(closure ? self->b->worlds->nefcmax : self->b->worlds->nconmax);
}

static PyObject* batch_get_autoreset(PyObject* selfobj, void* closure) {
  (void)closure;
  BatchObject* self = (BatchObject*)selfobj;
  return PyBool_FromLong(self->b && self->b->autoreset);
}

static PyObject* batch_dir(PyObject* selfobj, PyObject* unused) {
  (void)selfobj;
  (void)unused;
  static const char* const names[] = {
#define X(type, fname, nr, nc) #fname,
      PX_DATA_FIELDS(X)
#undef X
          "time",
      "flags",
      "rng_state",
      "model",
      "num_worlds",
      "num_threads",
      "error",
      "error_world",
      "step",
      "reset",
      "forward",
      "seed",
      "set_model_param",
      "set_model_params",
      "model_param",
      "model_params_set",
      "clear_model_params",
      "set_autoreset",
      "autoreset",
      "nbytes",
      "nconmax",
      "njmax",
      NULL};
  return py_nameList(names);
}

static PyObject* batch_get_model(PyObject* selfobj, void* closure) {
  (void)closure;
  BatchObject* self = (BatchObject*)selfobj;
  if (!self->model) Py_RETURN_NONE;
  Py_INCREF(self->model);
  return self->model;
}

static PyObject* batch_get_int(PyObject* selfobj, void* closure) {
  BatchObject* self = (BatchObject*)selfobj;
  if (!self->b) return PyLong_FromLong(0);
  return PyLong_FromLong(closure ? self->b->nthread : self->b->nworld);
}

static PyObject* batch_get_error(PyObject* selfobj, void* closure) {
  BatchObject* self = (BatchObject*)selfobj;
  if (!self->b || self->b->errworld < 0) Py_RETURN_NONE;
  if (closure) return PyLong_FromLong(self->b->errworld);
  return PyUnicode_FromFormat("world %d: %s", self->b->errworld, self->b->status.msg);
}

static PyMethodDef batchMethods[] = {
    {"step", (PyCFunction)(void (*)(void))batch_step, METH_VARARGS | METH_KEYWORDS,
     "step(nsubstep=1, *, mask=None, ctrl_noise=0.0) -> int: step every healthy world (in mask) "
     "nsubstep times with phalanx.step; returns how many worlds this call flagged"},
    {"reset", (PyCFunction)(void (*)(void))batch_reset, METH_VARARGS | METH_KEYWORDS,
     "reset(mask=None, *, key=-1, qpos_noise=0.0, qvel_noise=0.0): mj_resetData (or the "
     "keyframe) of the worlds in mask, clearing their flags, plus per-world uniform noise"},
    {"forward", (PyCFunction)(void (*)(void))batch_forward, METH_VARARGS | METH_KEYWORDS,
     "forward(mask=None) -> int: phalanx.forward on the worlds in mask"},
    {"seed", (PyCFunction)(void (*)(void))batch_seed, METH_VARARGS | METH_KEYWORDS,
     "seed(seed, mask=None): reseed world w's generator from seed + w"},
    {"set_model_param", (PyCFunction)(void (*)(void))batch_set_model_param,
     METH_VARARGS | METH_KEYWORDS,
     "set_model_param(name, values, *, mask=None): per-world values (num_worlds, ...) of model "
     "parameter name (phalanx.BATCH_MODEL_PARAMS) for the worlds in mask; masses, inertias, "
     "armature and gains also recompute the worlds' derived constants (see docs/batch.md)"},
    {"set_model_params", (PyCFunction)(void (*)(void))batch_set_model_params,
     METH_VARARGS | METH_KEYWORDS,
     "set_model_params(params, *, mask=None): set_model_param for every {name: values} of "
     "params, then one recomputation of the derived constants"},
    {"model_param", batch_model_param, METH_O,
     "model_param(name) -> ndarray: a (num_worlds, ...) copy of a per-world parameter or "
     "derived constant (the shared model's value where not overridden)"},
    {"clear_model_params", batch_clear_model_params, METH_NOARGS,
     "clear_model_params(): drop every override; all worlds use the shared model again"},
    {"set_autoreset", (PyCFunction)(void (*)(void))batch_set_autoreset,
     METH_VARARGS | METH_KEYWORDS,
     "set_autoreset(on, *, key=-1, qpos_noise=0.0, qvel_noise=0.0): step() resets (reset() "
     "with these arguments, then forward()) the worlds it flags, at its end; their flags stay "
     "readable until the next step() or reset()"},
    {"__dir__", batch_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef batchGetSet[] = {
    {"model", batch_get_model, NULL, "the shared Model (frozen while the batch lives)", NULL},
    {"num_worlds", batch_get_int, NULL, "number of worlds", NULL},
    {"num_threads", batch_get_int, NULL, "number of pool threads (0: the caller's)", (void*)1},
    {"error", batch_get_error, NULL, "the lowest failed world's error of the last call, or None",
     NULL},
    {"error_world", batch_get_error, NULL, "that world's index, or None", (void*)1},
    {"model_params_set", batch_model_params_set, NULL,
     "names of the model parameters overridden per world", NULL},
    {"autoreset", batch_get_autoreset, NULL, "whether step() resets the worlds it flags", NULL},
    {"nbytes", batch_get_nbytes, NULL,
     "bytes of the worlds' storage (state, contacts, constraint rows, scratch), generators and "
     "flags; per-world parameter blocks not included",
     NULL},
    {"nconmax", batch_get_capacity, NULL,
     "contact capacity of every world (contacts beyond it flag the world: contactfull)", NULL},
    {"njmax", batch_get_capacity, NULL,
     "constraint-row capacity of every world (rows beyond it flag the world: cnstrfull)", (void*)1},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_dealloc = batch_dealloc,
    .tp_getattro = batch_getattro,
    .tp_setattro = batch_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = batchMethods,
    .tp_getset = batchGetSet,
    .tp_init = batch_init,
    .tp_new = PyType_GenericNew,
    .tp_doc =
        "Batch(model, num_worlds, num_threads=0, seed=0, *, nconmax=None, njmax=None): "
        "num_worlds worlds over one Model; every per-world array is a (num_worlds, ...) "
        "zero-copy NumPy view. nconmax, njmax: contact and constraint-row capacity of each "
        "world (None: the model's <size> or static bounds); a world beyond them is flagged.",
};

int py_addBatchType(PyObject* mod) {
  if (_import_array() < 0) return -1;  // this file's copy of the NumPy C-API table
  if (PyType_Ready(&BatchType) < 0) return -1;
  Py_INCREF(&BatchType);
  if (PyModule_AddObject(mod, "Batch", (PyObject*)&BatchType) < 0) {
    Py_DECREF(&BatchType);
    return -1;
  }
  PyObject* names = PyTuple_New(PX_NBFLAG);
  if (!names) return -1;
  for (int i = 0; i < PX_NBFLAG; i++) {
    PyObject* s = PyUnicode_FromString(pxb_flagName(i));
    if (!s) {
      Py_DECREF(names);
      return -1;
    }
    PyTuple_SET_ITEM(names, i, s);
  }
  if (PyModule_AddObject(mod, "BATCH_FLAGS", names) < 0) {
    Py_DECREF(names);
    return -1;
  }
  // the per-world model parameters: settable, then derived (read-only)
  for (int ro = 0; ro < 2; ro++) {
    PyObject* list = PyList_New(0);
    if (!list) return -1;
    for (int i = 0; i < pxb_paramCount(); i++) {
      if (pxb_paramReadOnly(i) != ro) continue;
      PyObject* s = PyUnicode_FromString(pxb_paramName(i));
      if (!s || PyList_Append(list, s) < 0) {
        Py_XDECREF(s);
        Py_DECREF(list);
        return -1;
      }
      Py_DECREF(s);
    }
    PyObject* t = PyList_AsTuple(list);
    Py_DECREF(list);
    if (!t) return -1;
    const char* nm = ro ? "BATCH_DERIVED_PARAMS" : "BATCH_MODEL_PARAMS";
    if (PyModule_AddObject(mod, nm, t) < 0) {
      Py_DECREF(t);
      return -1;
    }
  }
  return 0;
}

pxBatch* py_batchAcquire(PyObject* obj, const char* fn) {
  if (!PyObject_TypeCheck(obj, &BatchType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a phalanx._core.Batch, got %s", fn,
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  BatchObject* self = (BatchObject*)obj;
  if (!batchReady(self, fn)) return NULL;
  self->busy = 1;
  return self->b;
}

void py_batchRelease(PyObject* obj) {
  ((BatchObject*)obj)->busy = 0;
}
