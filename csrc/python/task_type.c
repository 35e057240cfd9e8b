// SPDX-License-Identifier: Apache-2.0
// phalanx._core.TaskRunner: a Gymnasium v5 task (csrc/batch/task.c) over a phalanx._core.Batch,
// with its observation (num_worlds, obs_dim) and outputs (num_worlds, 16) as zero-copy NumPy
// views owned by the runner. The runner keeps its Batch alive; each call marks the Batch busy, so
// it never overlaps another call on the same Batch.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxbatch.h"
#include "px/pxtask.h"
#include "python/internal.h"

typedef struct {
  PyObject_HEAD PyObject* batch;
  pxTaskSpec spec;
  int nworld;
  double* pre;  // (nworld, 2)
  double* obs;  // (nworld, obs_dim)
  double* out;  // (nworld, PXT_SPEC_NOUT)
} TaskObject;

static PyTypeObject TaskType;

static int taskReady(TaskObject* self, const char* fn) {
  if (!self->batch) {
    PyErr_Format(PyExc_RuntimeError, "TaskRunner.%s: the TaskRunner was not initialized", fn);
    return 0;
  }
  return 1;
}

static PyObject* view(TaskObject* self, double* ptr, npy_intp ncol, int writable) {
  npy_intp dims[2] = {self->nworld, ncol};
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
  PyObject* arr = PyArray_New(&PyArray_Type, 2, dims, NPY_FLOAT64, NULL, ptr, 0, flags, NULL);
  if (!arr) return NULL;
  Py_INCREF(self);
  if (PyArray_SetBaseObject((PyArrayObject*)arr, (PyObject*)self) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}

// None or a bool array of shape (nworld,); *out NULL for None
static int maskArg(TaskObject* self, PyObject* obj, const char* fn, PyArrayObject** out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 1;
  if (!PyArray_Check(obj) || PyArray_TYPE((PyArrayObject*)obj) != NPY_BOOL ||
      PyArray_NDIM((PyArrayObject*)obj) != 1 ||
      PyArray_DIM((PyArrayObject*)obj, 0) != self->nworld) {
    PyErr_Format(PyExc_ValueError,
                 "TaskRunner.%s: mask must be None or a numpy bool array of shape (%d,)", fn,
                 self->nworld);
    return 0;
  }
  *out = (PyArrayObject*)PyArray_FROMANY(obj, NPY_BOOL, 1, 1, NPY_ARRAY_IN_ARRAY);
  return *out != NULL;
}

static int task_init(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  TaskObject* self = (TaskObject*)selfobj;
  static char* kwlist[] = {"batch", "task", "obs_dim", "params", "noise", NULL};
  PyObject *batch, *params;
  int task, obs_dim;
  double noise;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OiiOd:TaskRunner", kwlist, &batch, &task, &obs_dim,
                                   &params, &noise)) {
    return -1;
  }
  if (self->batch) {
    PyErr_SetString(PyExc_RuntimeError, "TaskRunner is already initialized");
    return -1;
  }
  pxBatch* b = py_batchAcquire(batch, "TaskRunner");
  if (!b) return -1;
  py_batchRelease(batch);
  PyArrayObject* p = (PyArrayObject*)PyArray_FROMANY(params, NPY_FLOAT64, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!p) return -1;
  if (PyArray_DIM(p, 0) != PXT_SPEC_NPRM) {
    PyErr_Format(PyExc_ValueError, "TaskRunner: params must have %d entries, got %zd",
                 PXT_SPEC_NPRM, (Py_ssize_t)PyArray_DIM(p, 0));
    Py_DECREF(p);
    return -1;
  }
  memset(&self->spec, 0, sizeof(self->spec));
  self->spec.task = task;
  self->spec.obs_dim = obs_dim;
  self->spec.noise = noise;
  memcpy(self->spec.prm, PyArray_DATA(p), sizeof(self->spec.prm));
  Py_DECREF(p);
  pxStatus st;
  px_statusClear(&st);
  if (pxb_taskCheck(b, &self->spec, &st) != PX_OK) {
    py_raise(&st);
    return -1;
  }
  size_t n = (size_t)b->nworld;
  self->pre = (double*)calloc(n * 2, sizeof(double));
  self->obs = (double*)calloc(n * (size_t)obs_dim, sizeof(double));
  self->out = (double*)calloc(n * PXT_SPEC_NOUT, sizeof(double));
  if (!self->pre || !self->obs || !self->out) {
    PyErr_NoMemory();
    return -1;
  }
  self->nworld = b->nworld;
  Py_INCREF(batch);
  self->batch = batch;
  return 0;
}

static void task_dealloc(PyObject* selfobj) {
  TaskObject* self = (TaskObject*)selfobj;
  free(self->pre);
  free(self->obs);
  free(self->out);
  Py_XDECREF(self->batch);
  Py_TYPE(selfobj)->tp_free(selfobj);
}

static PyObject* task_step(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  TaskObject* self = (TaskObject*)selfobj;
  static char* kwlist[] = {"frame_skip", "mask", NULL};
  int frame_skip;
  PyObject* maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|O:step", kwlist, &frame_skip, &maskobj)) {
    return NULL;
  }
  if (!taskReady(self, "step")) return NULL;
  if (frame_skip < 1) {
    PyErr_Format(PyExc_ValueError, "TaskRunner.step: frame_skip must be >= 1, got %d", frame_skip);
    return NULL;
  }
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "step", &mask)) return NULL;
  pxBatch* b = py_batchAcquire(self->batch, "step");
  if (!b) {
    Py_XDECREF(mask);
    return NULL;
  }
  const uint8_t* md = mask ? (const uint8_t*)PyArray_DATA(mask) : NULL;
  int n;
  Py_BEGIN_ALLOW_THREADS n =
      pxb_taskStep(b, &self->spec, frame_skip, md, self->pre, self->obs, self->out);
  Py_END_ALLOW_THREADS py_batchRelease(self->batch);
  Py_XDECREF(mask);
  return PyLong_FromLong(n);
}

static PyObject* task_reset(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  TaskObject* self = (TaskObject*)selfobj;
  static char* kwlist[] = {"mask", NULL};
  PyObject* maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:reset", kwlist, &maskobj)) return NULL;
  if (!taskReady(self, "reset")) return NULL;
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "reset", &mask)) return NULL;
  pxBatch* b = py_batchAcquire(self->batch, "reset");
  if (!b) {
    Py_XDECREF(mask);
    return NULL;
  }
  const uint8_t* md = mask ? (const uint8_t*)PyArray_DATA(mask) : NULL;
  int n;
  Py_BEGIN_ALLOW_THREADS n = pxb_taskReset(b, &self->spec, md, self->obs);
  Py_END_ALLOW_THREADS py_batchRelease(self->batch);
  Py_XDECREF(mask);
  return PyLong_FromLong(n);
}

static PyObject* task_observe(PyObject* selfobj, PyObject* args, PyObject* kwds) {
  TaskObject* self = (TaskObject*)selfobj;
  static char* kwlist[] = {"mask", NULL};
  PyObject* maskobj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:observe", kwlist, &maskobj)) return NULL;
  if (!taskReady(self, "observe")) return NULL;
  PyArrayObject* mask;
  if (!maskArg(self, maskobj, "observe", &mask)) return NULL;
  pxBatch* b = py_batchAcquire(self->batch, "observe");
  if (!b) {
    Py_XDECREF(mask);
    return NULL;
  }
  const uint8_t* md = mask ? (const uint8_t*)PyArray_DATA(mask) : NULL;
  Py_BEGIN_ALLOW_THREADS pxb_taskObserve(b, &self->spec, md, self->obs);
  Py_END_ALLOW_THREADS py_batchRelease(self->batch);
  Py_XDECREF(mask);
  Py_RETURN_NONE;
}

static PyObject* task_get_obs(PyObject* selfobj, void* closure) {
  TaskObject* self = (TaskObject*)selfobj;
  (void)closure;
  if (!taskReady(self, "obs")) return NULL;
  // writable: VectorEnv's SAME_STEP mode with copy=False writes reset rows into it
  return view(self, self->obs, self->spec.obs_dim, 1);
}

static PyObject* task_get_out(PyObject* selfobj, void* closure) {
  TaskObject* self = (TaskObject*)selfobj;
  (void)closure;
  if (!taskReady(self, "out")) return NULL;
  return view(self, self->out, PXT_SPEC_NOUT, 0);
}

static PyObject* task_get_batch(PyObject* selfobj, void* closure) {
  TaskObject* self = (TaskObject*)selfobj;
  (void)closure;
  if (!self->batch) Py_RETURN_NONE;
  Py_INCREF(self->batch);
  return self->batch;
}

static PyMethodDef taskMethods[] = {
    {"step", (PyCFunction)(void (*)(void))task_step, METH_VARARGS | METH_KEYWORDS,
     "step(frame_skip, mask=None) -> int: frame_skip physics steps of the healthy worlds in mask, "
     "then mj_rnePostConstraint, the observation and the reward outputs; returns how many worlds "
     "the step flagged"},
    {"reset", (PyCFunction)(void (*)(void))task_reset, METH_VARARGS | METH_KEYWORDS,
     "reset(mask=None) -> int: mj_resetData, the task's reset noise from each world's generator, "
     "forward and observation of the worlds in mask"},
    {"observe", (PyCFunction)(void (*)(void))task_observe, METH_VARARGS | METH_KEYWORDS,
     "observe(mask=None): recompute the observation of the worlds in mask from their Data"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef taskGetSet[] = {
    {"obs", task_get_obs, NULL,
     "(num_worlds, obs_dim) observations (a view of the runner's buffer)", NULL},
    {"out", task_get_out, NULL,
     "(num_worlds, 16) outputs of the last step: reward, terminated, then the task's infos", NULL},
    {"batch", task_get_batch, NULL, "the Batch", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject TaskType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.TaskRunner",
    .tp_basicsize = sizeof(TaskObject),
    .tp_dealloc = task_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "TaskRunner(batch, task, obs_dim, params, noise): a Gymnasium MuJoCo v5 task "
        "evaluated in C on a Batch (used by phalanx.make_vec)",
    .tp_methods = taskMethods,
    .tp_getset = taskGetSet,
    .tp_init = task_init,
    .tp_new = PyType_GenericNew,
};

int py_addTaskType(PyObject* mod) {
  if (_import_array() < 0) return -1;  // this file's copy of the NumPy C-API table
  if (PyType_Ready(&TaskType) < 0) return -1;
  Py_INCREF(&TaskType);
  if (PyModule_AddObject(mod, "TaskRunner", (PyObject*)&TaskType) < 0) {
    Py_DECREF(&TaskType);
    return -1;
  }
  return 0;
}
