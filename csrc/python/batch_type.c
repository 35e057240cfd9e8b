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
  static char* kwlist[] = {"model", "num_worlds", "num_threads", "seed", NULL};
  PyObject *model, *seedobj = NULL;
  Py_ssize_t nworld;
  int nthread = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "On|iO:Batch", kwlist, &model, &nworld, &nthread,
                                   &seedobj)) {
    return -1;
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
  pxBatch* b = pxb_make(m, (int)nworld, nthread, seed, &st);
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
    if (!view && !strcmp(name, "time")) view = batch_getattro(selfobj, nameobj);
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
    {"__dir__", batch_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef batchGetSet[] = {
    {"model", batch_get_model, NULL, "the shared Model (frozen while the batch lives)", NULL},
    {"num_worlds", batch_get_int, NULL, "number of worlds", NULL},
    {"num_threads", batch_get_int, NULL, "number of pool threads (0: the caller's)", (void*)1},
    {"error", batch_get_error, NULL, "the lowest failed world's error of the last call, or None",
     NULL},
    {"error_world", batch_get_error, NULL, "that world's index, or None", (void*)1},
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
        "Batch(model, num_worlds, *, num_threads=0, seed=0): num_worlds worlds over one "
        "Model; every per-world array is a (num_worlds, ...) zero-copy NumPy view.",
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
