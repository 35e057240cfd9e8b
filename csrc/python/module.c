// SPDX-License-Identifier: Apache-2.0
// The CPython module phalanx._core: Model and Data types whose arrays are zero-copy NumPy
// views generated from the X-macro tables, status -> exception mapping, and the stage calls.
//
// Ownership: every view's base is the Model or Data object, so C memory lives as long as any
// view. A Model is writable while it stands alone; a frozen Model (shared by a batch or a GPU
// upload) refuses writes. Arguments are validated before any C work.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <string.h>
#include <time.h>

#include "mjcf/mjcf.h"
#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxray.h"
#include "px/pxstatus.h"
#include "px/pxvulkan.h"
#include "python/internal.h"

//---------------------------------- module state and errors ---------------------------------------

typedef struct {
  PyObject* MJCFError;
  PyObject* ArenaError;
  PyObject* VulkanError;
  PyObject* InternalError;
} moduleState;

static struct PyModuleDef moduleDef;

static moduleState* getState(void) {
  PyObject* mod = PyState_FindModule(&moduleDef);
  return mod ? (moduleState*)PyModule_GetState(mod) : NULL;
}

// a new list of the strings of a NULL-terminated array (the __dir__ methods)
PyObject* py_nameList(const char* const* names) {
  PyObject* list = PyList_New(0);
  if (!list) return NULL;
  for (int i = 0; names[i]; i++) {
    PyObject* n = PyUnicode_FromString(names[i]);
    if (!n || PyList_Append(list, n) < 0) {
      Py_XDECREF(n);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(n);
  }
  return list;
}

// raise the Python exception matching a failed status; returns NULL for `return py_raise(..)`
PyObject* py_raise(const pxStatus* st) {
  moduleState* s = getState();
  PyObject* type = PyExc_RuntimeError;
  switch (st->code) {
    case PX_ERR_ARG:
      type = PyExc_ValueError;
      break;
    case PX_ERR_NOMEM:
      type = PyExc_MemoryError;
      break;
    case PX_ERR_MJCF:
      type = s ? s->MJCFError : PyExc_ValueError;
      break;
    case PX_ERR_ARENA:
      type = s ? s->ArenaError : PyExc_RuntimeError;
      break;
    case PX_ERR_UNSUPPORTED:
      type = PyExc_NotImplementedError;
      break;
    case PX_ERR_VULKAN:
      type = s ? s->VulkanError : PyExc_RuntimeError;
      break;
    default:
      type = s ? s->InternalError : PyExc_RuntimeError;
      break;
  }
  PyErr_SetString(type, st->msg[0] ? st->msg : "unknown error");
  return NULL;
}

//---------------------------------- field tables --------------------------------------------------

// NumPy type of each X-macro element type
#define PXNPY_int NPY_INT32
#define PXNPY_pxtNum NPY_FLOAT64
#define PXNPY_pxtByte NPY_UINT8
#define PXNPY_pxtBool NPY_BOOL
#define PXNPY_float NPY_FLOAT32
#define PXNPY_char NPY_INT8

typedef struct {
  int npy;
  void* ptr;
  npy_intp nrow, ncol;
  int flat;  // ncol is the constant 1: a 1-D view, as MuJoCo's (n,) arrays
} fieldInfo;

static int modelField(const pxModel* m, const char* name, fieldInfo* f) {
#define X(type, fname, nr, nc)   \
  if (!strcmp(name, #fname)) {   \
    f->npy = PXNPY_##type;       \
    f->ptr = (void*)m->fname;    \
    f->nrow = m->nr;             \
    f->ncol = (nc);              \
    f->flat = !strcmp(#nc, "1"); \
    return 1;                    \
  }
  PX_MODEL_FIELDS(X)
#undef X
  return 0;
}

// nonzeros of efc_J in the sparse layout (mjData.nJ): the end of the last row; nefc * nv for
// the dense one
static npy_intp efcNJ(const pxModel* m, const pxData* d) {
  int nefc = d->efc_n ? d->efc_n[PX_EFC_NEFC] : 0;
  if (!px_efcSparse(m) || !d->efcsparse) return (npy_intp)nefc * m->nv;
  return nefc ? (npy_intp)d->efc_J_rowadr[nefc - 1] + d->efc_J_rownnz[nefc - 1] : 0;
}

// the sparse layout's shapes, as MuJoCo's: efc_J and efc_J_colind (nJ,), the row arrays (nefc,)
// (empty in storage without the sparse layout)
static void sparseView(const pxModel* m, const pxData* d, const char* name, fieldInfo* f) {
  int sparse = px_efcSparse(m) && d->efcsparse;
  if (!sparse) {
    // none in storage without the layout, stale while the model is dense
    if (!strncmp(name, "efc_J_", 6)) f->nrow = 0;
  } else if (!strcmp(name, "efc_J") || !strcmp(name, "efc_J_colind")) {
    f->nrow = efcNJ(m, d);
    f->ncol = 1;
    f->flat = 1;
  }
}

static int dataField(const pxModel* m, const pxData* d, const char* name, fieldInfo* f) {
#define X(type, fname, nr, nc)   \
  if (!strcmp(name, #fname)) {   \
    f->npy = PXNPY_##type;       \
    f->ptr = (void*)d->fname;    \
    f->nrow = m->nr;             \
    f->ncol = (nc);              \
    f->flat = !strcmp(#nc, "1"); \
    return 1;                    \
  }
  PX_DATA_FIELDS(X)
#undef X
  // the constraint rows: views of the nefc rows of the last constraint stage (MuJoCo's shapes)
  if (!strncmp(name, "efc_", 4) && strncmp(name, "efc_sv_", 7) && strncmp(name, "efc_cn_", 7) &&
      strncmp(name, "efc_is_", 7) && strncmp(name, "efc_pg_", 7)) {
    npy_intp nefc = d->efc_n ? d->efc_n[PX_EFC_NEFC] : 0;
#define X(type, fname, n)                                                             \
  if (!strcmp(name, #fname)) {                                                        \
    f->npy = PXNPY_##type;                                                            \
    f->ptr = (void*)d->fname;                                                         \
    f->nrow = nefc;                                                                   \
    f->ncol = !strcmp(#fname, "efc_J") ? m->nv : !strcmp(#fname, "efc_KBIP") ? 4 : 1; \
    f->flat = f->ncol == 1 && strcmp(#fname, "efc_J");                                \
    sparseView(m, d, #fname, f);                                                      \
    return 1;                                                                         \
  }
    PX_EFC_FIELDS_CPU(X)
#undef X
  }
  return 0;
}

// a NumPy view of a field owned by `owner`: shape (nrow,) or (nrow, ncol)
static PyObject* makeView(PyObject* owner, const fieldInfo* f, int writable) {
  static double dummy[1];
  npy_intp dims[2] = {f->nrow, f->ncol};
  int nd = f->flat ? 1 : 2;
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
  void* ptr = f->ptr ? f->ptr : (void*)dummy;  // empty arrays still need a pointer
  PyObject* arr = PyArray_New(&PyArray_Type, nd, dims, f->npy, NULL, ptr, 0, flags, NULL);
  if (!arr) return NULL;
  Py_INCREF(owner);
  if (PyArray_SetBaseObject((PyArrayObject*)arr, owner) < 0) {
    Py_DECREF(arr);  // the base reference was stolen
    return NULL;
  }
  return arr;
}

// copy value into a view (shape-checked by NumPy broadcasting rules, like MuJoCo's bindings) of
// an array another thread may be using: value is converted to the view's type first (Python code,
// and so other threads, may run during a conversion), then idle(ctx, what) is asked right before
// the copy, which runs no Python code; idle returns 0 with an exception set to refuse
typedef int (*idleFn)(void* ctx, const char* what);
static int assignViewIdle(PyObject* view, PyObject* value, idleFn idle, void* ctx,
                          const char* what) {
  PyArray_Descr* dt = PyArray_DESCR((PyArrayObject*)view);
  Py_INCREF(dt);  // stolen by PyArray_FromAny
  PyObject* src = PyArray_FromAny(value, dt, 0, 0, NPY_ARRAY_FORCECAST, NULL);
  if (!src) return -1;
  int r = idle(ctx, what) ? PyArray_CopyInto((PyArrayObject*)view, (PyArrayObject*)src) : -1;
  Py_DECREF(src);
  return r;
}

//---------------------------------- Option and Statistic ------------------------------------------

typedef struct ModelObject_ ModelObject;

struct ModelObject_ {
  PyObject_HEAD pxModel* m;
  int busy;              // calls running on this Model with the GIL released (see claimData)
  const char* busyName;  // the latest of them, for the error message
};

// a RuntimeError refusing an edit (`what`, e.g. "Model.opt.timestep") of a Model while calls run
// on it in other threads
static int modelIdle(void* ctx, const char* what) {
  ModelObject* mo = (ModelObject*)ctx;
  if (mo->busy == 0) return 1;
  PyErr_Format(PyExc_RuntimeError,
               "%s: this Model is in use by phalanx.%s running in another thread; edit it when "
               "no call is running on it",
               what, mo->busyName ? mo->busyName : "?");
  return 0;
}

typedef struct {
  PyObject_HEAD ModelObject* model;
  int which;  // 0 option, 1 statistic
} SubObject;

static PyTypeObject SubType;

typedef struct {
  const char* name;
  int isint;
  size_t offset;
  int n;  // values (1: scalar)
} subField;

#define OPTF(name, isint, n) \
  { #name, isint, offsetof(pxOption, name), n }
static const subField kOptionFields[] = {OPTF(timestep, 0, 1),
                                         OPTF(impratio, 0, 1),
                                         OPTF(tolerance, 0, 1),
                                         OPTF(ls_tolerance, 0, 1),
                                         OPTF(noslip_tolerance, 0, 1),
                                         OPTF(ccd_tolerance, 0, 1),
                                         OPTF(sleep_tolerance, 0, 1),
                                         OPTF(gravity, 0, 3),
                                         OPTF(wind, 0, 3),
                                         OPTF(magnetic, 0, 3),
                                         OPTF(density, 0, 1),
                                         OPTF(viscosity, 0, 1),
                                         OPTF(o_margin, 0, 1),
                                         OPTF(o_solref, 0, 2),
                                         OPTF(o_solimp, 0, 5),
                                         OPTF(o_friction, 0, 5),
                                         OPTF(integrator, 1, 1),
                                         OPTF(cone, 1, 1),
                                         OPTF(jacobian, 1, 1),
                                         OPTF(solver, 1, 1),
                                         OPTF(iterations, 1, 1),
                                         OPTF(ls_iterations, 1, 1),
                                         OPTF(noslip_iterations, 1, 1),
                                         OPTF(ccd_iterations, 1, 1),
                                         OPTF(disableflags, 1, 1),
                                         OPTF(enableflags, 1, 1),
                                         OPTF(disableactuator, 1, 1),
                                         OPTF(sdf_initpoints, 1, 1),
                                         OPTF(sdf_iterations, 1, 1),
                                         {NULL, 0, 0, 0}};
#define STATF(name, n) \
  { #name, 0, offsetof(pxStatistic, name), n }
static const subField kStatFields[] = {STATF(meaninertia, 1), STATF(meanmass, 1),
                                       STATF(meansize, 1),    STATF(extent, 1),
                                       STATF(center, 3),      {NULL, 0, 0, 0}};

static const subField* subLookup(const SubObject* s, const char* name, char** base) {
  const subField* t = s->which ? kStatFields : kOptionFields;
  *base = s->which ? (char*)&s->model->m->stat : (char*)&s->model->m->opt;
  for (int i = 0; t[i].name; i++) {
    if (!strcmp(t[i].name, name)) return t + i;
  }
  return NULL;
}

static PyObject* sub_getattro(PyObject* self, PyObject* nameobj) {
  SubObject* s = (SubObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return NULL;
  char* base;
  const subField* f = subLookup(s, name, &base);
  if (!f) return PyObject_GenericGetAttr(self, nameobj);
  if (f->isint) return PyLong_FromLong(*(int*)(void*)(base + f->offset));
  if (f->n == 1) return PyFloat_FromDouble(*(double*)(void*)(base + f->offset));
  fieldInfo fi = {NPY_FLOAT64, base + f->offset, f->n, 1, 1};
  return makeView((PyObject*)s->model, &fi, !s->model->m->frozen);
}

static int sub_setattro(PyObject* self, PyObject* nameobj, PyObject* value) {
  SubObject* s = (SubObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return -1;
  char* base;
  const subField* f = subLookup(s, name, &base);
  if (!f) {
    PyErr_Format(PyExc_AttributeError, "%s has no field '%s'", s->which ? "Statistic" : "Option",
                 name);
    return -1;
  }
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete model fields");
    return -1;
  }
  char what[96];
  snprintf(what, sizeof(what), "Model.%s.%s", s->which ? "stat" : "opt", name);
  if (!modelIdle(s->model, what)) return -1;
  if (s->model->m->frozen) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this Model is shared by a batch and frozen; use per-world parameters");
    return -1;
  }
  if (f->isint) {
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (!modelIdle(s->model, what)) return -1;  // again: the conversion may have run Python code
    *(int*)(void*)(base + f->offset) = (int)v;
    return 0;
  }
  if (f->n == 1) {
    double v = PyFloat_AsDouble(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (!modelIdle(s->model, what)) return -1;
    *(double*)(void*)(base + f->offset) = v;
    return 0;
  }
  fieldInfo fi = {NPY_FLOAT64, base + f->offset, f->n, 1, 1};
  PyObject* view = makeView((PyObject*)s->model, &fi, 1);
  if (!view) return -1;
  int r = assignViewIdle(view, value, modelIdle, s->model, what);
  Py_DECREF(view);
  return r;
}

static void sub_dealloc(PyObject* self) {
  Py_XDECREF(((SubObject*)self)->model);
  Py_TYPE(self)->tp_free(self);
}

static PyObject* sub_dir(PyObject* self, PyObject* unused) {
  (void)unused;
  SubObject* s = (SubObject*)self;
  const subField* t = s->which ? kStatFields : kOptionFields;
  PyObject* list = PyList_New(0);
  if (!list) return NULL;
  for (int i = 0; t[i].name; i++) {
    PyObject* n = PyUnicode_FromString(t[i].name);
    if (!n || PyList_Append(list, n) < 0) {
      Py_XDECREF(n);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(n);
  }
  return list;
}

static PyMethodDef subMethods[] = {{"__dir__", sub_dir, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};

static PyTypeObject SubType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.ModelOptions",
    .tp_basicsize = sizeof(SubObject),
    .tp_dealloc = sub_dealloc,
    .tp_getattro = sub_getattro,
    .tp_setattro = sub_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = subMethods,
    .tp_doc = "physics options (model.opt) or statistics (model.stat), as MuJoCo's",
};

//---------------------------------- Model ---------------------------------------------------------

static PyTypeObject ModelType;

pxModel* py_modelOf(PyObject* obj, const char* fn) {
  if (!PyObject_TypeCheck(obj, &ModelType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a phalanx Model, got %s", fn,
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return ((ModelObject*)obj)->m;
}

static PyObject* modelFromStatus(PyTypeObject* type, pxModel* m, const pxStatus* st) {
  if (!m) return py_raise(st);
  ModelObject* self = (ModelObject*)type->tp_alloc(type, 0);
  if (!self) {
    px_freeModel(m);
    return NULL;
  }
  self->m = m;
  return (PyObject*)self;
}

static PyObject* model_from_xml_path(PyObject* cls, PyObject* args) {
  PyObject* pathobj;
  if (!PyArg_ParseTuple(args, "O&:from_xml_path", PyUnicode_FSConverter, &pathobj)) return NULL;
  pxStatus st;
  px_statusClear(&st);
  pxModel* m = NULL;
  const char* path = PyBytes_AS_STRING(pathobj);
  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS code = pxc_loadXML(path, NULL, &m, &st);
  Py_END_ALLOW_THREADS Py_DECREF(pathobj);
  if (code != PX_OK) return py_raise(&st);
  return modelFromStatus((PyTypeObject*)cls, m, &st);
}

static PyObject* model_from_xml_string(PyObject* cls, PyObject* args) {
  const char* text;
  if (!PyArg_ParseTuple(args, "s:from_xml_string", &text)) return NULL;
  pxStatus st;
  px_statusClear(&st);
  pxModel* m = NULL;
  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS code = pxc_loadXML(NULL, text, &m, &st);
  Py_END_ALLOW_THREADS if (code != PX_OK) return py_raise(&st);
  return modelFromStatus((PyTypeObject*)cls, m, &st);
}

static void model_dealloc(PyObject* self) {
  px_freeModel(((ModelObject*)self)->m);
  Py_TYPE(self)->tp_free(self);
}

static PyObject* model_getattro(PyObject* self, PyObject* nameobj) {
  ModelObject* mo = (ModelObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return NULL;
  const pxModel* m = mo->m;
#define X(sname) \
  if (!strcmp(name, #sname)) return PyLong_FromLong(m->sname);
  PX_MODEL_SIZES(X)
#undef X
  fieldInfo f;
  if (modelField(m, name, &f)) {
    if (f.npy == NPY_INT8) {
      // names and text are bytes, as in MuJoCo's bindings
      return PyBytes_FromStringAndSize((const char*)f.ptr, (Py_ssize_t)(f.nrow * f.ncol));
    }
    return makeView(self, &f, !m->frozen);
  }
  if (!strcmp(name, "opt") || !strcmp(name, "stat")) {
    SubObject* s = PyObject_New(SubObject, &SubType);
    if (!s) return NULL;
    Py_INCREF(self);
    s->model = mo;
    s->which = name[0] == 's';
    return (PyObject*)s;
  }
  return PyObject_GenericGetAttr(self, nameobj);
}

static int model_setattro(PyObject* self, PyObject* nameobj, PyObject* value) {
  ModelObject* mo = (ModelObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return -1;
  fieldInfo f;
  if (!modelField(mo->m, name, &f)) {
#define X(sname)                                                                          \
  if (!strcmp(name, #sname)) {                                                            \
    PyErr_Format(PyExc_AttributeError, "Model.%s is a size and cannot be changed", name); \
    return -1;                                                                            \
  }
    PX_MODEL_SIZES(X)
#undef X
    return PyObject_GenericSetAttr(self, nameobj, value);
  }
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete model fields");
    return -1;
  }
  char what[96];
  snprintf(what, sizeof(what), "Model.%s", name);
  if (!modelIdle(mo, what)) return -1;
  if (mo->m->frozen) {
    PyErr_Format(PyExc_RuntimeError,
                 "Model.%s: this Model is shared by a batch and frozen; use per-world parameters",
                 name);
    return -1;
  }
  if (f.npy == NPY_INT8) {
    PyErr_Format(PyExc_AttributeError, "Model.%s is read-only", name);
    return -1;
  }
  PyObject* view = makeView(self, &f, 1);
  if (!view) return -1;
  int r = assignViewIdle(view, value, modelIdle, mo, what);
  Py_DECREF(view);
  return r;
}

static PyObject* model_dir(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  static const char* const names[] = {
#define X(sname) #sname,
      PX_MODEL_SIZES(X)
#undef X
#define X(type, fname, nr, nc) #fname,
          PX_MODEL_FIELDS(X)
#undef X
              "opt",
      "stat",
      "from_xml_path",
      "from_xml_string",
      "name2id",
      "id2name",
      "frozen",
      NULL};
  return py_nameList(names);
}

static PyObject* model_name2id(PyObject* self, PyObject* args) {
  int type;
  const char* name;
  if (!PyArg_ParseTuple(args, "is:name2id", &type, &name)) return NULL;
  if (type <= 0 || type >= PX_NOBJECT) {
    PyErr_Format(PyExc_ValueError, "name2id: object type %d is not a valid mjtObj value", type);
    return NULL;
  }
  return PyLong_FromLong(px_name2id(((ModelObject*)self)->m, type, name));
}

static PyObject* model_id2name(PyObject* self, PyObject* args) {
  int type, id;
  if (!PyArg_ParseTuple(args, "ii:id2name", &type, &id)) return NULL;
  const char* n = px_id2name(((ModelObject*)self)->m, type, id);
  if (!n) Py_RETURN_NONE;
  return PyUnicode_FromString(n);
}

static PyObject* model_get_frozen(PyObject* self, void* closure) {
  (void)closure;
  return PyBool_FromLong(((ModelObject*)self)->m->frozen);
}

static PyObject* model_to_bytes(PyObject* self, PyObject* unused);
static PyObject* model_from_bytes(PyObject* cls, PyObject* args);
static PyObject* model_copy(PyObject* self, PyObject* unused);

static PyMethodDef modelMethods[] = {
    {"from_xml_path", model_from_xml_path, METH_VARARGS | METH_CLASS,
     "from_xml_path(path) -> Model: compile an MJCF file"},
    {"from_xml_string", model_from_xml_string, METH_VARARGS | METH_CLASS,
     "from_xml_string(xml) -> Model: compile MJCF text"},
    {"name2id", model_name2id, METH_VARARGS, "name2id(objtype, name) -> id or -1"},
    {"id2name", model_id2name, METH_VARARGS, "id2name(objtype, id) -> name or None"},
    {"__dir__", model_dir, METH_NOARGS, NULL},
    {"_to_bytes", model_to_bytes, METH_NOARGS, "the model serialized (for pickling)"},
    {"_from_bytes", model_from_bytes, METH_VARARGS | METH_CLASS,
     "_from_bytes(b) -> Model: a model serialized by _to_bytes in this build"},
    {"__copy__", model_copy, METH_NOARGS, "a deep copy (unfrozen)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef modelGetSet[] = {
    {"frozen", model_get_frozen, NULL, "True while a batch or GPU upload shares this model", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_dealloc = model_dealloc,
    .tp_getattro = model_getattro,
    .tp_setattro = model_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = modelMethods,
    .tp_getset = modelGetSet,
    .tp_doc = "A compiled model with MuJoCo's field names; arrays are zero-copy NumPy views.",
};

//---------------------------------- Data ----------------------------------------------------------

typedef struct {
  PyObject_HEAD ModelObject* model;
  pxWorlds* worlds;
  pxData d;
  const char* busy;  // the call running on this Data with the GIL released, or NULL
} DataObject;

static PyTypeObject DataType;

// Thread safety. A call that releases the GIL on a Data claims it first (claimData) and gives it
// back after taking the GIL again (releaseData); both happen while holding the GIL, so at most
// one call holds a Data. Every other entry on a Data (stage calls, utilities, field assignment,
// copies) asks dataIdle right before its C work, after any argument conversion that could run
// Python code. A call that finds the Data in use raises RuntimeError naming both calls. A claim
// also counts a call on the Model passed in, whose edits (Model fields, opt, stat) are refused
// while calls run on it. In-place writes through NumPy views (data.qpos[:] = ...) are not
// intercepted: writing the arrays of a Data while a call runs on it gives unspecified results.
static int dataIdle(void* ctx, const char* fn) {
  DataObject* dob = (DataObject*)ctx;
  if (!dob->busy) return 1;
  PyErr_Format(PyExc_RuntimeError,
               "%s: this Data is in use by phalanx.%s running in another thread; a Data serves "
               "one call at a time (give each thread its own Data)",
               fn, dob->busy);
  return 0;
}

static int claimData(DataObject* dob, ModelObject* mo, const char* fn) {
  if (!dataIdle(dob, fn)) return 0;
  dob->busy = fn;
  mo->busy++;
  mo->busyName = fn;
  return 1;
}

static void releaseData(DataObject* dob, ModelObject* mo) {
  dob->busy = NULL;
  mo->busy--;
}

// run `stmt` with the GIL released on a claimed Data (return NULL from the caller if in use)
#define PX_RUN_CLAIMED(dob, mo, fn, stmt)   \
  if (!claimData(dob, mo, fn)) return NULL; \
  Py_BEGIN_ALLOW_THREADS stmt;              \
  Py_END_ALLOW_THREADS releaseData(dob, mo);

static int data_init(PyObject* self, PyObject* args, PyObject* kwds) {
  DataObject* dob = (DataObject*)self;
  static char* kwlist[] = {"model", NULL};
  PyObject* model;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!:Data", kwlist, &ModelType, &model)) return -1;
  if (dob->worlds) {
    PyErr_SetString(PyExc_RuntimeError, "Data is already initialized");
    return -1;
  }
  pxStatus st;
  px_statusClear(&st);
  pxWorlds* w = px_makeWorlds(((ModelObject*)model)->m, 1, &st);
  if (!w) {
    py_raise(&st);
    return -1;
  }
  Py_INCREF(model);
  dob->model = (ModelObject*)model;
  dob->worlds = w;
  px_worldView(w, 0, &dob->d);
  return 0;
}

static void data_dealloc(PyObject* self) {
  DataObject* dob = (DataObject*)self;
  px_freeWorlds(dob->worlds);
  Py_XDECREF(dob->model);
  Py_TYPE(self)->tp_free(self);
}

static int dataReady(DataObject* dob) {
  if (!dob->worlds) {
    PyErr_SetString(PyExc_RuntimeError, "Data was not initialized with a Model");
    return 0;
  }
  return 1;
}

static PyObject* data_getattro(PyObject* self, PyObject* nameobj) {
  DataObject* dob = (DataObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return NULL;
  fieldInfo f;
  if (dob->worlds && dataField(dob->model->m, &dob->d, name, &f)) return makeView(self, &f, 1);
  if (dob->worlds && !strcmp(name, "time")) return PyFloat_FromDouble(dob->worlds->time[0]);
  return PyObject_GenericGetAttr(self, nameobj);
}

static int data_setattro(PyObject* self, PyObject* nameobj, PyObject* value) {
  DataObject* dob = (DataObject*)self;
  const char* name = PyUnicode_AsUTF8(nameobj);
  if (!name) return -1;
  fieldInfo f;
  if (!dob->worlds) return PyObject_GenericSetAttr(self, nameobj, value);
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete data fields");
    return -1;
  }
  char what[96];
  snprintf(what, sizeof(what), "Data.%s", name);
  if (!strcmp(name, "time")) {
    double t = PyFloat_AsDouble(value);
    if (t == -1 && PyErr_Occurred()) return -1;
    if (!dataIdle(dob, what)) return -1;
    dob->worlds->time[0] = t;
    return 0;
  }
  if (!dataField(dob->model->m, &dob->d, name, &f)) {
    return PyObject_GenericSetAttr(self, nameobj, value);
  }
  if (!dataIdle(dob, what)) return -1;
  PyObject* view = makeView(self, &f, 1);
  if (!view) return -1;
  int r = assignViewIdle(view, value, dataIdle, dob, what);
  Py_DECREF(view);
  return r;
}

static PyObject* data_dir(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  static const char* const names[] = {
#define X(type, fname, nr, nc) #fname,
      PX_DATA_FIELDS(X)
#undef X
          "time",
      "model", NULL};
  return py_nameList(names);
}

static PyObject* data_get_model(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  Py_INCREF(dob->model);
  return (PyObject*)dob->model;
}

static PyObject* data_to_bytes(PyObject* self, PyObject* unused);
static PyObject* data_set_bytes(PyObject* self, PyObject* args);

static PyMethodDef dataMethods[] = {
    {"__dir__", data_dir, METH_NOARGS, NULL},
    {"_to_bytes", data_to_bytes, METH_NOARGS, "time and every array, as bytes (for pickling)"},
    {"_set_bytes", data_set_bytes, METH_VARARGS, "_set_bytes(b): restore what _to_bytes gave"},
    {NULL, NULL, 0, NULL}};
static PyObject* data_get_ncon(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  return PyLong_FromLong(*dob->d.ncon);
}

// nefc, ne, nf, nl and the solver's iterations (closure: the efc_n entry)
static PyObject* data_get_efcn(PyObject* self, void* closure) {
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  return PyLong_FromLong(dob->d.efc_n[(int)(intptr_t)closure]);
}

static PyObject* data_get_nJ(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  return PyLong_FromSsize_t((Py_ssize_t)efcNJ(dob->model->m, &dob->d));
}

static PyObject* data_get_nefcmax(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  return PyLong_FromLong(dob->d.nefcmax);
}

static PyObject* data_get_nconmax(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  return PyLong_FromLong(dob->d.nconmax);
}

// the contact records (capacity and narrow-phase room) as bytes; phalanx.Data.contact views
// the first ncon of them through CONTACT_DTYPE
static PyObject* data_get_contact_bytes(PyObject* self, void* closure) {
  (void)closure;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  fieldInfo f = {0};
  f.ptr = dob->d.contact;
  f.npy = NPY_UINT8;
  f.nrow = (npy_intp)(dob->d.nconmax + PX_MAXCONPAIR) * (npy_intp)sizeof(pxContact);
  f.ncol = 1;
  f.flat = 1;
  return makeView(self, &f, 1);
}

static PyGetSetDef dataGetSet[] = {
    {"model", data_get_model, NULL, "the Model this Data belongs to", NULL},
    {"ncon", data_get_ncon, NULL, "number of detected contacts (mjData.ncon)", NULL},
    {"nconmax", data_get_nconmax, NULL,
     "contact capacity of this Data (<size nconmax>, else the static bound, at most 10000)", NULL},
    {"nefc", data_get_efcn, NULL, "number of constraint rows (mjData.nefc)",
     (void*)(intptr_t)PX_EFC_NEFC},
    {"ne", data_get_efcn, NULL, "number of equality rows (mjData.ne)", (void*)(intptr_t)PX_EFC_NE},
    {"nf", data_get_efcn, NULL, "number of friction loss rows (mjData.nf)",
     (void*)(intptr_t)PX_EFC_NF},
    {"nl", data_get_efcn, NULL, "number of limit rows (mjData.nl)", (void*)(intptr_t)PX_EFC_NL},
    {"solver_niter", data_get_efcn, NULL,
     "iterations of the last constraint solve of island 0, or of the single solve "
     "(mjData.solver_niter[0])",
     (void*)(intptr_t)PX_EFC_NITER},
    {"nisland", data_get_efcn, NULL,
     "number of constraint islands of the last solve (mjData.nisland; 0 with the island flag "
     "disabled)",
     (void*)(intptr_t)PX_EFC_NISLAND},
    {"nidof", data_get_efcn, NULL, "number of dofs in constraint islands (mjData.nidof)",
     (void*)(intptr_t)PX_EFC_NIDOF},
    {"nJ", data_get_nJ, NULL,
     "number of nonzeros of efc_J (mjData.nJ; nefc * nv with the dense Jacobian)", NULL},
    {"nefcmax", data_get_nefcmax, NULL,
     "constraint row capacity of this Data (<size njmax>, else the static bound)", NULL},
    {"_contact_bytes", data_get_contact_bytes, NULL,
     "the contact records as a uint8 array (sizeof(pxContact) bytes each)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject DataType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.Data",
    .tp_basicsize = sizeof(DataObject),
    .tp_dealloc = data_dealloc,
    .tp_getattro = data_getattro,
    .tp_setattro = data_setattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = dataMethods,
    .tp_getset = dataGetSet,
    .tp_init = data_init,
    .tp_new = PyType_GenericNew,
    .tp_doc = "Data(model): the state of one world; arrays are zero-copy NumPy views.",
};

//---------------------------------- stage calls ---------------------------------------------------

static int checkPair(PyObject* model, PyObject* data, const char* fn) {
  if (!PyObject_TypeCheck(model, &ModelType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a phalanx Model as first argument, got %s", fn,
                 Py_TYPE(model)->tp_name);
    return 0;
  }
  if (!PyObject_TypeCheck(data, &DataType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a phalanx Data as second argument, got %s", fn,
                 Py_TYPE(data)->tp_name);
    return 0;
  }
  DataObject* dob = (DataObject*)data;
  if (!dataReady(dob)) return 0;
  if (!dataIdle(dob, fn)) return 0;
  if (dob->model != (ModelObject*)model) {
    pxModel* a = ((ModelObject*)model)->m;
    pxModel* b = dob->model->m;
    int same = 1;
#define X(sname) same &= a->sname == b->sname;
    PX_MODEL_SIZES(X)
#undef X
    if (!same) {
      PyErr_Format(PyExc_ValueError, "%s: the Data was made for a Model of different sizes", fn);
      return 0;
    }
  }
  return 1;
}

// the (model, data) stage entry points: arguments parsed and checked (checkPair), the Data
// claimed, the stage run with the GIL released, the Data given back; runStatusStage raises the
// stage's error status
typedef void (*voidStageFn)(const pxModel*, pxData*);
typedef pxtStatus (*statusStageFn)(const pxModel*, pxData*, pxStatus*);

static PyObject* runStage(PyObject* args, const char* fn, voidStageFn f) {
  PyObject *model, *data;
  if (!PyArg_UnpackTuple(args, fn, 2, 2, &model, &data)) return NULL;
  if (!checkPair(model, data, fn)) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, fn, f(m, &dob->d))
  Py_RETURN_NONE;
}

static PyObject* runStatusStage(PyObject* args, const char* fn, statusStageFn f) {
  PyObject *model, *data;
  if (!PyArg_UnpackTuple(args, fn, 2, 2, &model, &data)) return NULL;
  if (!checkPair(model, data, fn)) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  dob->d.time = dob->worlds->time[0];  // the clock sensor reads it
  PX_RUN_CLAIMED(dob, (ModelObject*)model, fn, code = f(m, &dob->d, &st))
  if (code != PX_OK) return py_raise(&st);
  Py_RETURN_NONE;
}

// kinematics(model, data); _passive(model, data): the passive-force stage alone (private: tests
// fill its inputs)
static PyObject* py_kinematics(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStage(args, "kinematics", px_kinematics);
}

// _passive(model, data): the passive-force stage alone (private: tests fill its inputs)
static PyObject* py_passive(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  if (!PyArg_ParseTuple(args, "OO:_passive", &model, &data)) return NULL;
  if (!checkPair(model, data, "_passive")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "_passive", px_passive(m, &dob->d))
  Py_RETURN_NONE;
}

// _actuation(model, data): the actuation stage alone (private: tests fill its inputs); raises
// NotImplementedError for actuators it does not implement, and a RuntimeWarning the first time
// the world's BADCTRL warning is counted (as MuJoCo prints it once)
static PyObject* py_actuation(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  if (!PyArg_ParseTuple(args, "OO:_actuation", &model, &data)) return NULL;
  if (!checkPair(model, data, "_actuation")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  pxStatus st;
  px_statusClear(&st);
  if (px_actuationCheck(m, &st) != PX_OK) return py_raise(&st);
  int* w = dob->d.warning + 2 * PX_WARN_BADCTRL;
  int before = w[1];
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "_actuation", px_actuation(m, &dob->d))
  if (before == 0 && w[1] > 0) {
    if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                         "Nan, Inf or huge value in CTRL at ACTUATOR %d. The simulation is "
                         "unstable. Time = %.4f.",
                         w[0], dob->worlds->time[0]) < 0) {
      return NULL;
    }
  }
  Py_RETURN_NONE;
}

// private stage hooks for the tests: _tendon, _transmission, _tendonVelocity (model, data)
static PyObject* py_tendon(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStage(args, "_tendon", px_tendon);
}

static PyObject* py_transmission(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "_transmission", px_transmission);
}

static PyObject* py_tendonVelocity(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStage(args, "_tendonVelocity", px_tendonVelocity);
}

//---------------------------------- integration and state -----------------------------------------

//---------------------------------- smooth dynamics and utilities --------------------------------

// model and data of a (model, data, ...) call, or NULL with an exception
static const pxModel* pairArgs(PyObject* model, PyObject* data, const char* fn, pxData** d) {
  if (!checkPair(model, data, fn)) return NULL;
  *d = &((DataObject*)data)->d;
  return ((ModelObject*)model)->m;
}

// the one array-argument validator: a float64 array of exactly n elements, as a new reference.
// An output (out != 0) is written in place, as MuJoCo's bindings do, so it must already be a
// writable C-contiguous float64 numpy.ndarray; an input is converted to a C-contiguous float64
// array (a copy where needed). NULL with a TypeError or ValueError naming fn and name otherwise.
static PyArrayObject* arrayArg(PyObject* obj, const char* fn, const char* name, npy_intp n,
                               int out) {
  PyArrayObject* a;
  if (out) {
    if (!PyArray_Check(obj)) {
      PyErr_Format(PyExc_TypeError, "%s: %s must be a numpy.ndarray of float64, got %s", fn, name,
                   Py_TYPE(obj)->tp_name);
      return NULL;
    }
    a = (PyArrayObject*)obj;
    if (PyArray_TYPE(a) != NPY_FLOAT64 || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a)) {
      PyErr_Format(PyExc_TypeError, "%s: %s must be a writable C-contiguous float64 array", fn,
                   name);
      return NULL;
    }
    Py_INCREF(a);
  } else {
    a = (PyArrayObject*)PyArray_FROMANY(obj, NPY_FLOAT64, 0, 0, NPY_ARRAY_IN_ARRAY);
    if (!a) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s: %s must be convertible to a float64 array", fn, name);
      return NULL;
    }
  }
  if (PyArray_SIZE(a) != n) {
    PyErr_Format(PyExc_ValueError, "%s: %s has %zd elements; expected %zd", fn, name,
                 (Py_ssize_t)PyArray_SIZE(a), (Py_ssize_t)n);
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

// an output array (arrayArg with out = 1; None allowed when maybeNone) as a pointer to its data
// (NULL for None): the caller's argument tuple keeps the array alive for the call
static int outArg(PyObject* obj, const char* fn, const char* name, npy_intp n, int maybeNone,
                  double** ptr) {
  *ptr = NULL;
  if (obj == Py_None && maybeNone) return 1;
  PyArrayObject* a = arrayArg(obj, fn, name, n, 1);
  if (!a) return 0;
  *ptr = (double*)PyArray_DATA(a);
  Py_DECREF(a);
  return 1;
}

static const pxModel* modelArg(PyObject* model, const char* fn) {
  if (!PyObject_TypeCheck(model, &ModelType)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a phalanx Model, got %s", fn,
                 Py_TYPE(model)->tp_name);
    return NULL;
  }
  return ((ModelObject*)model)->m;
}

static PyObject* py_integratePos(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *qposobj, *qvelobj;
  double dt;
  if (!PyArg_ParseTuple(args, "OOOd:integratePos", &model, &qposobj, &qvelobj, &dt)) return NULL;
  const pxModel* m = modelArg(model, "integratePos");
  if (!m) return NULL;
  PyArrayObject* qpos = arrayArg(qposobj, "integratePos", "qpos", m->nq, 1);
  if (!qpos) return NULL;
  PyArrayObject* qvel = arrayArg(qvelobj, "integratePos", "qvel", m->nv, 0);
  if (!qvel) {
    Py_DECREF(qpos);
    return NULL;
  }
  px_integratePos(m, (pxtNum*)PyArray_DATA(qpos), (const pxtNum*)PyArray_DATA(qvel), dt);
  Py_DECREF(qpos);
  Py_DECREF(qvel);
  Py_RETURN_NONE;
}

static PyObject* py_normalizeQuat(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *qposobj;
  if (!PyArg_ParseTuple(args, "OO:normalizeQuat", &model, &qposobj)) return NULL;
  const pxModel* m = modelArg(model, "normalizeQuat");
  if (!m) return NULL;
  PyArrayObject* qpos = arrayArg(qposobj, "normalizeQuat", "qpos", m->nq, 1);
  if (!qpos) return NULL;
  px_normalizeQuat(m, (pxtNum*)PyArray_DATA(qpos));
  Py_DECREF(qpos);
  Py_RETURN_NONE;
}

static PyObject* py_differentiatePos(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *qvelobj, *q1obj, *q2obj;
  double dt;
  if (!PyArg_ParseTuple(args, "OOdOO:differentiatePos", &model, &qvelobj, &dt, &q1obj, &q2obj)) {
    return NULL;
  }
  const pxModel* m = modelArg(model, "differentiatePos");
  if (!m) return NULL;
  PyArrayObject *qvel = NULL, *q1 = NULL, *q2 = NULL;
  qvel = arrayArg(qvelobj, "differentiatePos", "qvel", m->nv, 1);
  if (qvel) q1 = arrayArg(q1obj, "differentiatePos", "qpos1", m->nq, 0);
  if (q1) q2 = arrayArg(q2obj, "differentiatePos", "qpos2", m->nq, 0);
  if (q2) {
    px_differentiatePos(m, (pxtNum*)PyArray_DATA(qvel), dt, (const pxtNum*)PyArray_DATA(q1),
                        (const pxtNum*)PyArray_DATA(q2));
  }
  Py_XDECREF(qvel);
  Py_XDECREF(q1);
  Py_XDECREF(q2);
  if (!q2) return NULL;
  Py_RETURN_NONE;
}

// run one C entry point on a Data: time copied in and out of the world storage, status checked
typedef pxtStatus (*dataFn)(const pxModel*, pxData*);

static PyObject* runOnData(PyObject* args, const char* fn, dataFn f) {
  PyObject *model, *data;
  if (!PyArg_ParseTuple(args, "OO", &model, &data)) return NULL;
  if (!checkPair(model, data, fn)) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  if (!claimData(dob, (ModelObject*)model, fn)) return NULL;
  px_statusClear(&dob->d.status);
  dob->d.time = dob->worlds->time[0];
  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS code = f(m, &dob->d);
  Py_END_ALLOW_THREADS dob->worlds->time[0] = dob->d.time;
  releaseData(dob, (ModelObject*)model);
  if (code != PX_OK) return py_raise(&dob->d.status);
  Py_RETURN_NONE;
}

static pxtStatus resetFn(const pxModel* m, pxData* d) {
  px_resetData(m, d);
  return PX_OK;
}

static PyObject* py_euler(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "_euler", px_euler);
}

static PyObject* py_implicit(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "_implicit", px_implicit);
}

static PyObject* py_step(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "step", px_step);
}

static PyObject* py_step1(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "step1", px_step1);
}

static PyObject* py_step2(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "step2", px_step2);
}

static PyObject* py_resetData(PyObject* mod, PyObject* args) {
  (void)mod;
  return runOnData(args, "resetData", resetFn);
}

static PyObject* py_resetDataKeyframe(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  int key;
  if (!PyArg_ParseTuple(args, "OOi:resetDataKeyframe", &model, &data, &key)) return NULL;
  if (!checkPair(model, data, "resetDataKeyframe")) return NULL;
  DataObject* dob = (DataObject*)data;
  px_resetDataKeyframe(((ModelObject*)model)->m, &dob->d, key);
  dob->worlds->time[0] = dob->d.time;
  Py_RETURN_NONE;
}

//---------------------------------- copies and pickling -------------------------------------------

// serialized model: magic, sizeof checks, the size table, options, statistics, the buffer
#define PX_MODEL_MAGIC "phalanx-model-1"

static PyObject* model_to_bytes(PyObject* self, PyObject* unused) {
  (void)unused;
  const pxModel* m = ((ModelObject*)self)->m;
  int nsize = 0;
#define X(sname) nsize++;
  PX_MODEL_SIZES(X)
#undef X
  size_t head = sizeof(PX_MODEL_MAGIC) + 2 * sizeof(int) + nsize * sizeof(int) + sizeof(pxOption) +
                sizeof(pxStatistic);
  PyObject* out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(head + m->nbuffer));
  if (!out) return NULL;
  char* p = PyBytes_AS_STRING(out);
  memcpy(p, PX_MODEL_MAGIC, sizeof(PX_MODEL_MAGIC));
  p += sizeof(PX_MODEL_MAGIC);
  int hdr[2] = {nsize, (int)(sizeof(pxOption) + sizeof(pxStatistic))};
  memcpy(p, hdr, sizeof(hdr));
  p += sizeof(hdr);
#define X(sname)                     \
  memcpy(p, &m->sname, sizeof(int)); \
  p += sizeof(int);
  PX_MODEL_SIZES(X)
#undef X
  memcpy(p, &m->opt, sizeof(pxOption));
  p += sizeof(pxOption);
  memcpy(p, &m->stat, sizeof(pxStatistic));
  p += sizeof(pxStatistic);
  memcpy(p, m->buffer, m->nbuffer);
  return out;
}

static PyObject* model_from_bytes(PyObject* cls, PyObject* args) {
  Py_buffer b;
  if (!PyArg_ParseTuple(args, "y*:_from_bytes", &b)) return NULL;
  const char* p = (const char*)b.buf;
  size_t left = (size_t)b.len;
  pxModel sizes;
  memset(&sizes, 0, sizeof(sizes));
  int hdr[2], nsize = 0;
#define X(sname) nsize++;
  PX_MODEL_SIZES(X)
#undef X
  pxModel* m = NULL;
  if (left < sizeof(PX_MODEL_MAGIC) + sizeof(hdr) ||
      memcmp(p, PX_MODEL_MAGIC, sizeof(PX_MODEL_MAGIC)) != 0) {
    goto bad;
  }
  p += sizeof(PX_MODEL_MAGIC);
  left -= sizeof(PX_MODEL_MAGIC);
  memcpy(hdr, p, sizeof(hdr));
  p += sizeof(hdr);
  left -= sizeof(hdr);
  if (hdr[0] != nsize || hdr[1] != (int)(sizeof(pxOption) + sizeof(pxStatistic)) ||
      left < nsize * sizeof(int) + sizeof(pxOption) + sizeof(pxStatistic)) {
    goto bad;
  }
#define X(sname)                        \
  memcpy(&sizes.sname, p, sizeof(int)); \
  p += sizeof(int);                     \
  left -= sizeof(int);
  PX_MODEL_SIZES(X)
#undef X
  memcpy(&sizes.opt, p, sizeof(pxOption));
  p += sizeof(pxOption);
  memcpy(&sizes.stat, p, sizeof(pxStatistic));
  p += sizeof(pxStatistic);
  left -= sizeof(pxOption) + sizeof(pxStatistic);
  if (sizes.nq < 0 || sizes.nv < 0 || sizes.nbody < 0 || px_modelBytes(&sizes) != left) goto bad;
  m = px_makeModel(&sizes);
  if (!m) {
    PyBuffer_Release(&b);
    return PyErr_NoMemory();
  }
  memcpy(m->buffer, p, left);
  PyBuffer_Release(&b);
  pxStatus st;
  px_statusClear(&st);
  return modelFromStatus((PyTypeObject*)cls, m, &st);
bad:
  PyBuffer_Release(&b);
  PyErr_SetString(PyExc_ValueError,
                  "Model._from_bytes: not a serialized phalanx model of this "
                  "build");
  return NULL;
}

static PyObject* model_copy(PyObject* self, PyObject* unused) {
  (void)unused;
  pxModel* m = px_copyModel(((ModelObject*)self)->m);
  if (!m) return PyErr_NoMemory();
  pxStatus st;
  px_statusClear(&st);
  return modelFromStatus(Py_TYPE(self), m, &st);
}

// every per-world array and the time of a Data, as one blob
// elements per row of a MuJoCo-visible efc array (efc_J: nv, efc_KBIP: 4), 0 for phalanx scratch
static size_t efcRowWidth(const char* name, int nv, int sparse) {
  if (!strncmp(name, "efc_sv_", 7) || !strncmp(name, "efc_cn_", 7) ||
      !strncmp(name, "efc_is_", 7) || !strncmp(name, "efc_pg_", 7)) {
    return 0;
  }
  if (!strcmp(name, "efc_J")) return (size_t)nv;
  if (!strcmp(name, "efc_KBIP")) return 4;
  // the sparse layout's arrays: none in storage without it; efc_J_colind as efc_J (nv per row
  // bounds what the rows hold)
  if (!strncmp(name, "efc_J_", 6))
    return sparse ? (strcmp(name, "efc_J_colind") ? 1 : (size_t)nv) : 0;
  return 1;
}

// bytes of the constraint rows in _to_bytes: the counts, then nefc rows of each visible array
static size_t efcBytes(const pxModel* m, int nefc, int sparse) {
  size_t n = PX_EFC_NCOUNT * sizeof(int);
#define X(type, name, sz) n += (size_t)nefc * efcRowWidth(#name, m->nv, sparse) * sizeof(type);
  PX_EFC_FIELDS_CPU(X)
#undef X
  return n;
}

static PyObject* data_to_bytes(PyObject* self, PyObject* unused) {
  (void)unused;
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob) || !dataIdle(dob, "Data._to_bytes (pickling, copies)")) return NULL;
  const pxModel* m = dob->model->m;
  size_t n = sizeof(pxtNum);
#define X(type, name, nrow, ncol) n += (size_t)m->nrow * (size_t)(ncol) * sizeof(type);
  PX_DATA_FIELDS(X)
#undef X
  int ncon = *dob->d.ncon;
  n += sizeof(int) + (size_t)ncon * sizeof(pxContact);
  int nefc = dob->d.efc_n[PX_EFC_NEFC];
  n += efcBytes(m, nefc, dob->d.efcsparse);
  PyObject* out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
  if (!out) return NULL;
  char* p = PyBytes_AS_STRING(out);
  memcpy(p, &dob->worlds->time[0], sizeof(pxtNum));
  p += sizeof(pxtNum);
#define X(type, name, nrow, ncol)                                \
  {                                                              \
    size_t k_ = (size_t)m->nrow * (size_t)(ncol) * sizeof(type); \
    memcpy(p, dob->d.name, k_);                                  \
    p += k_;                                                     \
  }
  PX_DATA_FIELDS(X)
#undef X
  memcpy(p, &ncon, sizeof(int));
  memcpy(p + sizeof(int), dob->d.contact, (size_t)ncon * sizeof(pxContact));
  p += sizeof(int) + (size_t)ncon * sizeof(pxContact);
  memcpy(p, dob->d.efc_n, PX_EFC_NCOUNT * sizeof(int));
  p += PX_EFC_NCOUNT * sizeof(int);
#define X(type, name, sz)                                                                  \
  {                                                                                        \
    size_t k_ = (size_t)nefc * efcRowWidth(#name, m->nv, dob->d.efcsparse) * sizeof(type); \
    memcpy(p, dob->d.name, k_);                                                            \
    p += k_;                                                                               \
  }
  PX_EFC_FIELDS_CPU(X)
#undef X
  return out;
}

static PyObject* data_set_bytes(PyObject* self, PyObject* args) {
  DataObject* dob = (DataObject*)self;
  if (!dataReady(dob)) return NULL;
  Py_buffer b;
  if (!PyArg_ParseTuple(args, "y*:_set_bytes", &b)) return NULL;
  const pxModel* m = dob->model->m;
  size_t n = sizeof(pxtNum);
#define X(type, name, nrow, ncol) n += (size_t)m->nrow * (size_t)(ncol) * sizeof(type);
  PX_DATA_FIELDS(X)
#undef X
  // the arrays, then the contact count and that many contact records
  int ncon = -1, nefc = -1;
  if ((size_t)b.len >= n + sizeof(int)) memcpy(&ncon, (const char*)b.buf + n, sizeof(int));
  size_t ne = n + sizeof(int) + (size_t)(ncon > 0 ? ncon : 0) * sizeof(pxContact);
  if (ncon >= 0 && (size_t)b.len >= ne + sizeof(int)) {
    memcpy(&nefc, (const char*)b.buf + ne, sizeof(int));
  }
  if (ncon < 0 || ncon > dob->d.nconmax || nefc < 0 || nefc > dob->d.nefcmax ||
      (size_t)b.len != ne + efcBytes(m, nefc, dob->d.efcsparse)) {
    PyBuffer_Release(&b);
    PyErr_Format(PyExc_ValueError,
                 "Data._set_bytes: %zd bytes; this model's Data has %zu, then the contact count "
                 "(at most %d), the contacts and the constraint rows",
                 (Py_ssize_t)b.len, n, dob->d.nconmax);
    return NULL;
  }
  if (!dataIdle(dob, "Data._set_bytes (copyData, unpickling)")) {
    PyBuffer_Release(&b);
    return NULL;
  }
  const char* p = (const char*)b.buf;
  memcpy(&dob->worlds->time[0], p, sizeof(pxtNum));
  dob->d.time = dob->worlds->time[0];
  p += sizeof(pxtNum);
#define X(type, name, nrow, ncol)                                \
  {                                                              \
    size_t k_ = (size_t)m->nrow * (size_t)(ncol) * sizeof(type); \
    memcpy(dob->d.name, p, k_);                                  \
    p += k_;                                                     \
  }
  PX_DATA_FIELDS(X)
#undef X
  memcpy(dob->d.contact, p + sizeof(int), (size_t)ncon * sizeof(pxContact));
  *dob->d.ncon = ncon;
  p += sizeof(int) + (size_t)ncon * sizeof(pxContact);
  memcpy(dob->d.efc_n, p, PX_EFC_NCOUNT * sizeof(int));
  p += PX_EFC_NCOUNT * sizeof(int);
#define X(type, name, sz)                                                                  \
  {                                                                                        \
    size_t k_ = (size_t)nefc * efcRowWidth(#name, m->nv, dob->d.efcsparse) * sizeof(type); \
    memcpy(dob->d.name, p, k_);                                                            \
    p += k_;                                                                               \
  }
  PX_EFC_FIELDS_CPU(X)
#undef X
  PyBuffer_Release(&b);
  Py_RETURN_NONE;
}

static int idArg(int id, int n, const char* fn, const char* what) {
  if (id < 0 || id >= n) {
    PyErr_Format(PyExc_IndexError, "%s: %s id %d out of range [0, %d)", fn, what, id, n);
    return 0;
  }
  return 1;
}

// collision(model, data): mj_collision
static PyObject* py_collision(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "collision", px_collision);
}

// _narrowphase(model, data, g1, g2, margin) -> (dist (n,), pos (n, 3), frame (n, 9)): the
// narrow-phase routine of one geom pair (types ascending) with its frames completed (tests)
static PyObject* py_narrowphase(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  int g1, g2;
  double margin;
  if (!PyArg_ParseTuple(args, "OOiid:_narrowphase", &model, &data, &g1, &g2, &margin)) {
    return NULL;
  }
  if (!checkPair(model, data, "_narrowphase")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  if (g1 < 0 || g2 < 0 || g1 >= m->ngeom || g2 >= m->ngeom) {
    PyErr_Format(PyExc_ValueError, "_narrowphase: geom ids must be in [0, %d), got %d and %d",
                 m->ngeom, g1, g2);
    return NULL;
  }
  if (m->geom_type[g1] > m->geom_type[g2]) {
    PyErr_Format(PyExc_ValueError,
                 "_narrowphase: geom types must ascend (MuJoCo's order), got %d then %d",
                 m->geom_type[g1], m->geom_type[g2]);
    return NULL;
  }
  int n = 0;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "_narrowphase",
                 n = px_narrowphase(m, &dob->d, g1, g2, margin))
  npy_intp d1[1] = {n}, d3[2] = {n, 3}, d9[2] = {n, 9};
  PyObject* dist = PyArray_ZEROS(1, d1, NPY_FLOAT64, 0);
  PyObject* pos = PyArray_ZEROS(2, d3, NPY_FLOAT64, 0);
  PyObject* frame = PyArray_ZEROS(2, d9, NPY_FLOAT64, 0);
  if (!dist || !pos || !frame) {
    Py_XDECREF(dist);
    Py_XDECREF(pos);
    Py_XDECREF(frame);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    const pxContact* c = dob->d.contact + dob->d.nconmax + i;
    ((double*)PyArray_DATA((PyArrayObject*)dist))[i] = c->dist;
    memcpy((double*)PyArray_DATA((PyArrayObject*)pos) + 3 * i, c->pos, sizeof(c->pos));
    memcpy((double*)PyArray_DATA((PyArrayObject*)frame) + 9 * i, c->frame, sizeof(c->frame));
  }
  return Py_BuildValue("(NNN)", dist, pos, frame);
}

// geomDistance(model, data, geom1, geom2, distmax, fromto=None) -> float: mj_geomDistance; a
// given fromto (a writable C-contiguous float64 array of 6 elements, any shape, as MuJoCo's
// bindings accept) gets the closest points on geom1 and geom2
static PyObject* py_geomDistance(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *ftobj = Py_None;
  int g1, g2;
  double distmax;
  if (!PyArg_ParseTuple(args, "OOiid|O:geomDistance", &model, &data, &g1, &g2, &distmax, &ftobj)) {
    return NULL;
  }
  if (!checkPair(model, data, "geomDistance")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  if (!idArg(g1, m->ngeom, "geomDistance", "geom1")) return NULL;
  if (!idArg(g2, m->ngeom, "geomDistance", "geom2")) return NULL;
  double* fromto = NULL;
  if (ftobj != Py_None) {
    PyArrayObject* a = PyArray_Check(ftobj) ? (PyArrayObject*)ftobj : NULL;
    if (!a || PyArray_TYPE(a) != NPY_FLOAT64 || !PyArray_IS_C_CONTIGUOUS(a) ||
        !PyArray_ISWRITEABLE(a) || PyArray_SIZE(a) != 6) {
      PyObject* shape = a ? PyObject_GetAttrString(ftobj, "shape") : NULL;
      PyObject* dtype = a ? PyObject_GetAttrString(ftobj, "dtype") : NULL;
      if (a && (!shape || !dtype)) {
        Py_XDECREF(shape);
        Py_XDECREF(dtype);
        return NULL;
      }
      if (a) {
        PyErr_Format(PyExc_ValueError,
                     "geomDistance: fromto must be a writable C-contiguous float64 array of 6 "
                     "elements, got %S %S array%s%s",
                     dtype, shape, PyArray_IS_C_CONTIGUOUS(a) ? "" : " (not C-contiguous)",
                     PyArray_ISWRITEABLE(a) ? "" : " (read-only)");
      } else {
        PyErr_Format(PyExc_ValueError,
                     "geomDistance: fromto must be a writable C-contiguous float64 array of 6 "
                     "elements or None, got %s",
                     Py_TYPE(ftobj)->tp_name);
      }
      Py_XDECREF(shape);
      Py_XDECREF(dtype);
      return NULL;
    }
    fromto = (double*)PyArray_DATA(a);
  }
  double ft[6], dist = distmax;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "geomDistance",
                 code = px_geomDistance(m, &dob->d, g1, g2, distmax, ft, &dist, &st))
  if (code != PX_OK) return py_raise(&st);
  if (fromto) memcpy(fromto, ft, sizeof(ft));
  return PyFloat_FromDouble(dist);
}

//---------------------------------- rays ----------------------------------------------------------

// a 3-element float64 input (pnt, vec, pos, size) copied into out
static int rayVecArg(PyObject* obj, const char* fn, const char* name, int n, double* out) {
  PyArrayObject* a = arrayArg(obj, fn, name, n, 0);
  if (!a) return 0;
  memcpy(out, PyArray_DATA(a), (size_t)n * sizeof(double));
  Py_DECREF(a);
  return 1;
}

// the result of a ray call: a float, or (dist, geomid) for ray; normal copied to a given array
static PyObject* rayResult(pxtStatus code, const pxStatus* st, double dist, const double n[3],
                           double* normal) {
  if (code != PX_OK) return py_raise(st);
  if (normal) memcpy(normal, n, 3 * sizeof(double));
  return PyFloat_FromDouble(dist);
}

// ray(model, data, pnt, vec, geomgroup, flg_static, bodyexclude, normal) -> (dist, geomid): mj_ray
static PyObject* py_ray(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *pobj, *vobj, *gobj, *nobj;
  int flg_static, bodyexclude;
  if (!PyArg_ParseTuple(args, "OOOOOiiO:ray", &model, &data, &pobj, &vobj, &gobj, &flg_static,
                        &bodyexclude, &nobj)) {
    return NULL;
  }
  pxData* d;
  const pxModel* m = pairArgs(model, data, "ray", &d);
  if (!m) return NULL;
  double pnt[3], vec[3], n[3], *normal;
  if (!rayVecArg(pobj, "ray", "pnt", 3, pnt) || !rayVecArg(vobj, "ray", "vec", 3, vec)) return NULL;
  if (!outArg(nobj, "ray", "normal", 3, 1, &normal)) return NULL;
  unsigned char group[6], *gptr = NULL;
  if (gobj != Py_None) {
    PyArrayObject* g = (PyArrayObject*)PyArray_FROMANY(gobj, NPY_INT64, 0, 1, NPY_ARRAY_IN_ARRAY);
    if (!g) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "ray: geomgroup must be None or 6 integer flags, got %s",
                   Py_TYPE(gobj)->tp_name);
      return NULL;
    }
    if (PyArray_SIZE(g) != 6) {
      PyErr_Format(PyExc_ValueError, "ray: geomgroup has %zd elements; expected 6",
                   (Py_ssize_t)PyArray_SIZE(g));
      Py_DECREF(g);
      return NULL;
    }
    for (int k = 0; k < 6; k++) group[k] = ((const long long*)PyArray_DATA(g))[k] != 0;
    Py_DECREF(g);
    gptr = group;
  }
  DataObject* dob = (DataObject*)data;
  double dist = -1;
  int geomid = -1;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  PX_RUN_CLAIMED(
      dob, (ModelObject*)model, "ray",
      code = px_ray(m, d, pnt, vec, gptr, flg_static, bodyexclude, &dist, &geomid, n, &st))
  PyObject* r = rayResult(code, &st, dist, n, normal);
  if (!r) return NULL;
  return Py_BuildValue("(Ni)", r, geomid);
}

// rayGeom(pos, mat, size, pnt, vec, geomtype, normal) -> dist: mju_rayGeom
static PyObject* py_rayGeom(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *posobj, *matobj, *sizeobj, *pobj, *vobj, *nobj;
  int type;
  if (!PyArg_ParseTuple(args, "OOOOOiO:rayGeom", &posobj, &matobj, &sizeobj, &pobj, &vobj, &type,
                        &nobj)) {
    return NULL;
  }
  double pos[3], mat[9], size[3], pnt[3], vec[3], n[3], *normal;
  if (!rayVecArg(posobj, "rayGeom", "pos", 3, pos) ||
      !rayVecArg(matobj, "rayGeom", "mat", 9, mat) ||
      !rayVecArg(sizeobj, "rayGeom", "size", 3, size) ||
      !rayVecArg(pobj, "rayGeom", "pnt", 3, pnt) || !rayVecArg(vobj, "rayGeom", "vec", 3, vec)) {
    return NULL;
  }
  if (!outArg(nobj, "rayGeom", "normal", 3, 1, &normal)) return NULL;
  double dist = -1;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code = px_rayGeom(pos, mat, size, pnt, vec, type, &dist, n, &st);
  return rayResult(code, &st, dist, n, normal);
}

typedef pxtStatus (*rayGeomFn)(const pxModel*, pxData*, int, const double*, const double*, double*,
                               double*, pxStatus*);

static PyObject* rayOneGeom(PyObject* args, const char* fn, rayGeomFn f) {
  PyObject *model, *data, *pobj, *vobj, *nobj;
  int g;
  if (!PyArg_ParseTuple(args, "OOiOOO", &model, &data, &g, &pobj, &vobj, &nobj)) return NULL;
  pxData* d;
  const pxModel* m = pairArgs(model, data, fn, &d);
  if (!m) return NULL;
  if (!idArg(g, m->ngeom, fn, "geom")) return NULL;
  double pnt[3], vec[3], n[3], *normal;
  if (!rayVecArg(pobj, fn, "pnt", 3, pnt) || !rayVecArg(vobj, fn, "vec", 3, vec)) return NULL;
  if (!outArg(nobj, fn, "normal", 3, 1, &normal)) return NULL;
  DataObject* dob = (DataObject*)data;
  double dist = -1;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, fn, code = f(m, d, g, pnt, vec, &dist, n, &st))
  return rayResult(code, &st, dist, n, normal);
}

// rayMesh(model, data, geomid, pnt, vec, normal) -> dist: mj_rayMesh
static PyObject* py_rayMesh(PyObject* mod, PyObject* args) {
  (void)mod;
  return rayOneGeom(args, "rayMesh", px_rayMesh);
}

// rayHfield(model, data, geomid, pnt, vec, normal) -> dist: mj_rayHfield
static PyObject* py_rayHfield(PyObject* mod, PyObject* args) {
  (void)mod;
  return rayOneGeom(args, "rayHfield", px_rayHfield);
}

// _eig3(mat (9,)) -> (eigval (3,), eigvec (9,), quat (4,)): collide_broad.h's mju_eig3 (tests)
static PyObject* py_eig3(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject* obj;
  if (!PyArg_ParseTuple(args, "O:_eig3", &obj)) return NULL;
  PyArrayObject* a =
      (PyArrayObject*)PyArray_FROMANY(obj, NPY_FLOAT64, 1, 1, NPY_ARRAY_C_CONTIGUOUS);
  if (!a) return NULL;
  if (PyArray_SIZE(a) != 9) {
    Py_DECREF(a);
    PyErr_SetString(PyExc_ValueError, "_eig3: expected 9 numbers");
    return NULL;
  }
  npy_intp d3[1] = {3}, d9[1] = {9}, d4[1] = {4};
  PyObject* val = PyArray_ZEROS(1, d3, NPY_FLOAT64, 0);
  PyObject* vec = PyArray_ZEROS(1, d9, NPY_FLOAT64, 0);
  PyObject* quat = PyArray_ZEROS(1, d4, NPY_FLOAT64, 0);
  if (!val || !vec || !quat) {
    Py_DECREF(a);
    Py_XDECREF(val);
    Py_XDECREF(vec);
    Py_XDECREF(quat);
    return NULL;
  }
  px_eig3((double*)PyArray_DATA((PyArrayObject*)val), (double*)PyArray_DATA((PyArrayObject*)vec),
          (double*)PyArray_DATA((PyArrayObject*)quat), (const double*)PyArray_DATA(a));
  Py_DECREF(a);
  return Py_BuildValue("(NNN)", val, vec, quat);
}

// _roundf32(x (n,)) -> (n,): collide_broad.h's rounding to float32 held as doubles (tests)
static PyObject* py_roundf32(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject* obj;
  if (!PyArg_ParseTuple(args, "O:_roundf32", &obj)) return NULL;
  PyArrayObject* a =
      (PyArrayObject*)PyArray_FROMANY(obj, NPY_FLOAT64, 1, 1, NPY_ARRAY_C_CONTIGUOUS);
  if (!a) return NULL;
  npy_intp n = PyArray_SIZE(a);
  PyObject* out = PyArray_ZEROS(1, &n, NPY_FLOAT64, 0);
  if (!out) {
    Py_DECREF(a);
    return NULL;
  }
  const double* x = (const double*)PyArray_DATA(a);
  double* y = (double*)PyArray_DATA((PyArrayObject*)out);
  for (npy_intp i = 0; i < n; i++) y[i] = px_roundF32(x[i]);
  Py_DECREF(a);
  return out;
}

// _broadphase(model, data) -> int64 (n,): the body-pair signatures (b1 << 16) + b2 of
// mj_broadphase, ascending and de-duplicated, after kinematics (tests)
static PyObject* py_broadphase(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  if (!PyArg_ParseTuple(args, "OO:_broadphase", &model, &data)) return NULL;
  if (!checkPair(model, data, "_broadphase")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  int n = 0;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "_broadphase", n = px_broadphase(m, &dob->d))
  npy_intp dn[1] = {n};
  PyObject* out = PyArray_ZEROS(1, dn, NPY_INT64, 0);
  if (!out) return NULL;
  const int* sig = dob->d.colscr_i + 8 * (size_t)m->nbody;
  for (int i = 0; i < n; i++) ((long long*)PyArray_DATA((PyArrayObject*)out))[i] = sig[i];
  return out;
}

// _bvh(model, data, body) -> (aabb (n, 6), child (n, 2), nodeid (n,)): the midphase's tree of
// one body as collide_broad.h builds it (tests; compare MjModel.bvh_*)
static PyObject* py_bvh(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  int body;
  if (!PyArg_ParseTuple(args, "OOi:_bvh", &model, &data, &body)) return NULL;
  if (!checkPair(model, data, "_bvh")) return NULL;
  DataObject* dob = (DataObject*)data;
  const pxModel* m = ((ModelObject*)model)->m;
  if (body < 0 || body >= m->nbody) {
    PyErr_Format(PyExc_ValueError, "_bvh: body %d out of range", body);
    return NULL;
  }
  int cap = 2 * m->body_geomnum[body] + 1;
  double* aabb = (double*)malloc(sizeof(double) * 6 * (size_t)cap);
  int* child = (int*)malloc(sizeof(int) * 2 * (size_t)cap);
  int* nodeid = (int*)malloc(sizeof(int) * (size_t)cap);
  if (!aabb || !child || !nodeid) {
    free(aabb);
    free(child);
    free(nodeid);
    return PyErr_NoMemory();
  }
  int n = 0;
  PX_RUN_CLAIMED(dob, (ModelObject*)model, "_bvh",
                 n = px_bvh(m, &dob->d, body, aabb, child, nodeid))
  npy_intp d6[2] = {n, 6}, d2[2] = {n, 2}, d1[1] = {n};
  PyObject* a = PyArray_ZEROS(2, d6, NPY_FLOAT64, 0);
  PyObject* c = PyArray_ZEROS(2, d2, NPY_INT32, 0);
  PyObject* id = PyArray_ZEROS(1, d1, NPY_INT32, 0);
  if (a && c && id) {
    memcpy(PyArray_DATA((PyArrayObject*)a), aabb, sizeof(double) * 6 * (size_t)n);
    memcpy(PyArray_DATA((PyArrayObject*)c), child, sizeof(int) * 2 * (size_t)n);
    memcpy(PyArray_DATA((PyArrayObject*)id), nodeid, sizeof(int) * (size_t)n);
  }
  free(aabb);
  free(child);
  free(nodeid);
  if (!a || !c || !id) {
    Py_XDECREF(a);
    Py_XDECREF(c);
    Py_XDECREF(id);
    return NULL;
  }
  return Py_BuildValue("(NNN)", a, c, id);
}

static PyObject* py_forward(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "forward", px_forward);
}

static PyObject* py_setConst(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OO:setConst", &model, &data)) return NULL;
  if (!pairArgs(model, data, "setConst", &d)) return NULL;
  pxModel* m = ((ModelObject*)model)->m;
  if (m->frozen) {
    PyErr_SetString(PyExc_RuntimeError,
                    "setConst: this Model is shared by a batch and frozen; use per-world "
                    "parameters");
    return NULL;
  }
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS code = px_setConst(m, d, &st);
  Py_END_ALLOW_THREADS if (code != PX_OK) return py_raise(&st);
  Py_RETURN_NONE;
}

static PyObject* py_stage(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  const char* name;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOs:_stage", &model, &data, &name)) return NULL;
  const pxModel* m = pairArgs(model, data, "_stage", &d);
  if (!m) return NULL;
  if (!px_stage(m, d, name)) {
    PyErr_Format(PyExc_ValueError, "_stage: unknown stage '%s'", name);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject* py_subtreeVel(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStage(args, "subtreeVel", px_subtreeVel);
}

// fullM(model, data, dst): the dense M from data's sparse M (MuJoCo 3.12's mj_fullM)
static PyObject* py_fullM(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *dstobj;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOO:fullM", &model, &data, &dstobj)) return NULL;
  const pxModel* m = pairArgs(model, data, "fullM", &d);
  if (!m) return NULL;
  double* dst;
  if (!outArg(dstobj, "fullM", "dst", (npy_intp)m->nv * m->nv, 0, &dst)) return NULL;
  px_fullM(m, dst, d->M);
  Py_RETURN_NONE;
}

// mulM(model, data, res, vec)
static PyObject* py_mulM(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *resobj, *vecobj;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOOO:mulM", &model, &data, &resobj, &vecobj)) return NULL;
  const pxModel* m = pairArgs(model, data, "mulM", &d);
  if (!m) return NULL;
  double* res;
  if (!outArg(resobj, "mulM", "res", m->nv, 0, &res)) return NULL;
  PyArrayObject* v = arrayArg(vecobj, "mulM", "vec", m->nv, 0);
  if (!v) return NULL;
  if (!dataIdle(data, "mulM")) {
    Py_DECREF(v);
    return NULL;
  }
  if (PyArray_DATA(v) == (void*)res && m->nv > 0) {
    Py_DECREF(v);
    PyErr_SetString(PyExc_ValueError, "mulM: res and vec must not share memory");
    return NULL;
  }
  px_mulM(m, d, res, (const double*)PyArray_DATA(v));
  Py_DECREF(v);
  Py_RETURN_NONE;
}

// solveM(model, data, x, y): x, y of n*nv elements ((nv,) or (n, nv))
static PyObject* py_solveM(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *xobj, *yobj;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOOO:solveM", &model, &data, &xobj, &yobj)) return NULL;
  const pxModel* m = pairArgs(model, data, "solveM", &d);
  if (!m) return NULL;
  if (!PyArray_Check(xobj)) {
    PyErr_Format(PyExc_TypeError, "solveM: x must be a numpy.ndarray of float64, got %s",
                 Py_TYPE(xobj)->tp_name);
    return NULL;
  }
  npy_intp nx = PyArray_SIZE((PyArrayObject*)xobj);
  if (m->nv == 0 || nx % m->nv != 0 || nx == 0) {
    PyErr_Format(PyExc_ValueError,
                 "solveM: x has %zd elements; expected a positive multiple of nv=%d",
                 (Py_ssize_t)nx, m->nv);
    return NULL;
  }
  double* x;
  if (!outArg(xobj, "solveM", "x", nx, 0, &x)) return NULL;
  PyArrayObject* y = arrayArg(yobj, "solveM", "y", nx, 0);
  if (!y) return NULL;
  if (!dataIdle(data, "solveM")) {
    Py_DECREF(y);
    return NULL;
  }
  px_solveM(m, d, x, (const double*)PyArray_DATA(y), (int)(nx / m->nv));
  Py_DECREF(y);
  Py_RETURN_NONE;
}

// the Jacobians of a point on a body into jacp/jacr (either may be None)
static PyObject* jacCall(PyObject* model, PyObject* data, PyObject* jpobj, PyObject* jrobj,
                         const double* point, int body, const char* fn) {
  pxData* d;
  const pxModel* m = pairArgs(model, data, fn, &d);
  if (!m) return NULL;
  double *jp, *jr;
  if (!outArg(jpobj, fn, "jacp", 3 * (npy_intp)m->nv, 1, &jp)) return NULL;
  if (!outArg(jrobj, fn, "jacr", 3 * (npy_intp)m->nv, 1, &jr)) return NULL;
  px_jac(m, d, jp, jr, point, body);
  Py_RETURN_NONE;
}

// jac(model, data, jacp, jacr, point, body)
static PyObject* py_jac(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *jp, *jr, *ptobj;
  int body;
  if (!PyArg_ParseTuple(args, "OOOOOi:jac", &model, &data, &jp, &jr, &ptobj, &body)) return NULL;
  if (!checkPair(model, data, "jac")) return NULL;
  if (!idArg(body, ((ModelObject*)model)->m->nbody, "jac", "body")) return NULL;
  PyArrayObject* pt = arrayArg(ptobj, "jac", "point", 3, 0);
  if (!pt) return NULL;
  double p[3];
  memcpy(p, PyArray_DATA(pt), sizeof p);
  Py_DECREF(pt);
  return jacCall(model, data, jp, jr, p, body, "jac");
}

// jacBody, jacBodyCom, jacSite, jacGeom (model, data, jacp, jacr, id)
static PyObject* jacObject(PyObject* args, const char* fn, int kind) {
  PyObject *model, *data, *jp, *jr;
  int id;
  if (!PyArg_ParseTuple(args, "OOOOi", &model, &data, &jp, &jr, &id)) return NULL;
  if (!checkPair(model, data, fn)) return NULL;
  const pxModel* m = ((ModelObject*)model)->m;
  const pxData* d = &((DataObject*)data)->d;
  const double* p;
  int body;
  if (kind <= 1) {
    if (!idArg(id, m->nbody, fn, "body")) return NULL;
    body = id;
    p = (kind == 0 ? d->xpos : d->xipos) + 3 * id;
  } else if (kind == 2) {
    if (!idArg(id, m->nsite, fn, "site")) return NULL;
    body = m->site_bodyid[id];
    p = d->site_xpos + 3 * id;
  } else {
    if (!idArg(id, m->ngeom, fn, "geom")) return NULL;
    body = m->geom_bodyid[id];
    p = d->geom_xpos + 3 * id;
  }
  double pt[3] = {p[0], p[1], p[2]};
  return jacCall(model, data, jp, jr, pt, body, fn);
}

static PyObject* py_jacBody(PyObject* mod, PyObject* args) {
  (void)mod;
  return jacObject(args, "jacBody", 0);
}
static PyObject* py_jacBodyCom(PyObject* mod, PyObject* args) {
  (void)mod;
  return jacObject(args, "jacBodyCom", 1);
}
static PyObject* py_jacSite(PyObject* mod, PyObject* args) {
  (void)mod;
  return jacObject(args, "jacSite", 2);
}
static PyObject* py_jacGeom(PyObject* mod, PyObject* args) {
  (void)mod;
  return jacObject(args, "jacGeom", 3);
}

// objectVelocity / objectAcceleration(model, data, objtype, objid, res, flg_local)
// (mj_objectVelocity, mj_objectAcceleration)
typedef void (*objectFn)(const pxModel*, const pxData*, int, int, double[6], int);

static PyObject* objectCall(PyObject* args, const char* fn, objectFn f) {
  PyObject *model, *data, *resobj;
  int objtype, objid, local;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOiiOi", &model, &data, &objtype, &objid, &resobj, &local)) {
    return NULL;
  }
  const pxModel* m = pairArgs(model, data, fn, &d);
  if (!m) return NULL;
  int n = objtype == PX_OBJ_BODY || objtype == PX_OBJ_XBODY ? m->nbody
          : objtype == PX_OBJ_GEOM                          ? m->ngeom
          : objtype == PX_OBJ_SITE                          ? m->nsite
          : objtype == PX_OBJ_CAMERA                        ? m->ncam
                                                            : -1;
  if (n < 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: object type %d has no spatial frame (body, xbody, geom, site or camera)", fn,
                 objtype);
    return NULL;
  }
  if (!idArg(objid, n, fn, "object")) return NULL;
  double* res;
  if (!outArg(resobj, fn, "res", 6, 0, &res)) return NULL;
  f(m, d, objtype, objid, res, local);
  Py_RETURN_NONE;
}

static PyObject* py_objectVelocity(PyObject* mod, PyObject* args) {
  (void)mod;
  return objectCall(args, "objectVelocity", px_objectVelocity);
}

// applyFT(model, data, force, torque, point, body, qfrc_target)
static PyObject* py_applyFT(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *fobj, *tobj, *pobj, *qobj;
  int body;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOOOOiO:applyFT", &model, &data, &fobj, &tobj, &pobj, &body,
                        &qobj)) {
    return NULL;
  }
  const pxModel* m = pairArgs(model, data, "applyFT", &d);
  if (!m) return NULL;
  if (!idArg(body, m->nbody, "applyFT", "body")) return NULL;
  double *q, f[3], t[3], p[3];
  if (!outArg(qobj, "applyFT", "qfrc_target", m->nv, 0, &q)) return NULL;
  PyArrayObject* a;
  if (fobj != Py_None) {
    if (!(a = arrayArg(fobj, "applyFT", "force", 3, 0))) return NULL;
    memcpy(f, PyArray_DATA(a), sizeof f);
    Py_DECREF(a);
  }
  if (tobj != Py_None) {
    if (!(a = arrayArg(tobj, "applyFT", "torque", 3, 0))) return NULL;
    memcpy(t, PyArray_DATA(a), sizeof t);
    Py_DECREF(a);
  }
  if (!(a = arrayArg(pobj, "applyFT", "point", 3, 0))) return NULL;
  memcpy(p, PyArray_DATA(a), sizeof p);
  Py_DECREF(a);
  if (!dataIdle(data, "applyFT")) return NULL;
  px_applyFT(m, d, fobj != Py_None ? f : NULL, tobj != Py_None ? t : NULL, p, body, q);
  Py_RETURN_NONE;
}

//---------------------------------- post-step quantities, energy ---------------------------------

// rnePostConstraint(model, data): cacc, cfrc_int, cfrc_ext (mj_rnePostConstraint)
static PyObject* py_rnePostConstraint(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "rnePostConstraint", px_rnePostConstraint);
}

// rne(model, data, flg_acc, result): result (nv) = RNE with or without acceleration (mj_rne)
static PyObject* py_rne(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *resobj;
  int flg_acc;
  pxData* d;
  if (!PyArg_ParseTuple(args, "OOiO:rne", &model, &data, &flg_acc, &resobj)) return NULL;
  const pxModel* m = pairArgs(model, data, "rne", &d);
  if (!m) return NULL;
  double* res;
  if (!outArg(resobj, "rne", "result", m->nv, 0, &res)) return NULL;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  PX_RUN_CLAIMED((DataObject*)data, (ModelObject*)model, "rne",
                 code = px_rne(m, d, flg_acc, res, &st))
  if (code != PX_OK) return py_raise(&st);
  Py_RETURN_NONE;
}

// energyPos(model, data), energyVel(model, data): data.energy[0] and [1] (mj_energyPos/Vel)
static PyObject* py_energyPos(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "energyPos", px_energyPos);
}

static PyObject* py_energyVel(PyObject* mod, PyObject* args) {
  (void)mod;
  return runStatusStage(args, "energyVel", px_energyVel);
}

static PyObject* py_objectAcceleration(PyObject* mod, PyObject* args) {
  (void)mod;
  return objectCall(args, "objectAcceleration", px_objectAcceleration);
}

// a 3-vector argument copied into v (0 with an exception)
static int vec3Arg(PyObject* obj, const char* fn, const char* name, double v[3]) {
  PyArrayObject* a = arrayArg(obj, fn, name, 3, 0);
  if (!a) return 0;
  memcpy(v, PyArray_DATA(a), 3 * sizeof(double));
  Py_DECREF(a);
  return 1;
}

// jacDot(model, data, jacp, jacr, point, body) (mj_jacDot)
static PyObject* py_jacDot(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *jpobj, *jrobj, *ptobj;
  int body;
  pxData* d;
  double p[3], *jp, *jr;
  if (!PyArg_ParseTuple(args, "OOOOOi:jacDot", &model, &data, &jpobj, &jrobj, &ptobj, &body)) {
    return NULL;
  }
  if (!checkPair(model, data, "jacDot")) return NULL;
  if (!idArg(body, ((ModelObject*)model)->m->nbody, "jacDot", "body")) return NULL;
  if (!vec3Arg(ptobj, "jacDot", "point", p)) return NULL;
  const pxModel* m = pairArgs(model, data, "jacDot", &d);
  if (!m) return NULL;
  if (!outArg(jpobj, "jacDot", "jacp", 3 * (npy_intp)m->nv, 1, &jp)) return NULL;
  if (!outArg(jrobj, "jacDot", "jacr", 3 * (npy_intp)m->nv, 1, &jr)) return NULL;
  px_jacDot(m, d, jp, jr, p, body);
  Py_RETURN_NONE;
}

// jacPointAxis(model, data, jacPoint, jacAxis, point, axis, body) (mj_jacPointAxis)
static PyObject* py_jacPointAxis(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *jpobj, *jaobj, *ptobj, *axobj;
  int body;
  pxData* d;
  double p[3], ax[3], *jp, *ja;
  if (!PyArg_ParseTuple(args, "OOOOOOi:jacPointAxis", &model, &data, &jpobj, &jaobj, &ptobj, &axobj,
                        &body)) {
    return NULL;
  }
  if (!checkPair(model, data, "jacPointAxis")) return NULL;
  if (!idArg(body, ((ModelObject*)model)->m->nbody, "jacPointAxis", "body")) return NULL;
  if (!vec3Arg(ptobj, "jacPointAxis", "point", p)) return NULL;
  if (!vec3Arg(axobj, "jacPointAxis", "axis", ax)) return NULL;
  const pxModel* m = pairArgs(model, data, "jacPointAxis", &d);
  if (!m) return NULL;
  if (!outArg(jpobj, "jacPointAxis", "jacPoint", 3 * (npy_intp)m->nv, 1, &jp)) return NULL;
  if (!outArg(jaobj, "jacPointAxis", "jacAxis", 3 * (npy_intp)m->nv, 1, &ja)) return NULL;
  px_jacPointAxis(m, d, jp, ja, p, ax, body);
  Py_RETURN_NONE;
}

// jacSubtreeCom(model, data, jacp, body) (mj_jacSubtreeCom)
static PyObject* py_jacSubtreeCom(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data, *jpobj;
  int body;
  pxData* d;
  double* jp;
  if (!PyArg_ParseTuple(args, "OOOi:jacSubtreeCom", &model, &data, &jpobj, &body)) return NULL;
  const pxModel* m = pairArgs(model, data, "jacSubtreeCom", &d);
  if (!m) return NULL;
  if (!idArg(body, m->nbody, "jacSubtreeCom", "body")) return NULL;
  if (!outArg(jpobj, "jacSubtreeCom", "jacp", 3 * (npy_intp)m->nv, 0, &jp)) return NULL;
  px_jacSubtreeCom(m, d, jp, body);
  Py_RETURN_NONE;
}

// _hold(model, data, seconds): claim data as a running call would, then sleep with the GIL
// released (tests of the thread-safety checks)
static PyObject* py_hold(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *model, *data;
  double seconds;
  if (!PyArg_ParseTuple(args, "OOd:_hold", &model, &data, &seconds)) return NULL;
  if (!checkPair(model, data, "_hold")) return NULL;
  if (seconds < 0 || seconds > 60) {
    PyErr_SetString(PyExc_ValueError, "_hold: seconds must be in [0, 60]");
    return NULL;
  }
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  PX_RUN_CLAIMED((DataObject*)data, (ModelObject*)model, "_hold", nanosleep(&ts, NULL))
  Py_RETURN_NONE;
}

//---------------------------------- Vulkan --------------------------------------------------------

typedef struct {
  PyObject_HEAD pxvContext* ctx;
} VulkanObject;

static int vulkan_init(PyObject* self, PyObject* args, PyObject* kwds) {
  VulkanObject* v = (VulkanObject*)self;
  static char* kwlist[] = {"validation", "device", NULL};
  int validation = 0;
  const char* device = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|iz:Vulkan", kwlist, &validation, &device)) {
    return -1;
  }
  if (v->ctx) {
    PyErr_SetString(PyExc_RuntimeError, "Vulkan is already initialized");
    return -1;
  }
  if (validation < 0 || validation > 3) {
    PyErr_Format(PyExc_ValueError, "Vulkan: validation must be 0 to 3, got %d", validation);
    return -1;
  }
  pxvContextDef def = pxv_defaultContextDef();
  def.validation = validation;
  if (device) def.device = device;
  pxStatus st;
  px_statusClear(&st);
  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS code = pxv_contextCreateDef(&v->ctx, &def, &st);
  Py_END_ALLOW_THREADS if (code != PX_OK) {
    py_raise(&st);
    return -1;
  }
  return 0;
}

static void vulkan_dealloc(PyObject* self) {
  pxv_contextDestroy(((VulkanObject*)self)->ctx);
  Py_TYPE(self)->tp_free(self);
}

static int vulkanReady(VulkanObject* v) {
  if (!v->ctx) {
    PyErr_SetString(PyExc_RuntimeError, "Vulkan was not initialized");
    return 0;
  }
  return 1;
}

// a float64 C-contiguous array of (nworld, n) (or (nworld, n / ncol, ncol) when ncol > 1), or
// NULL with an exception naming it; nworld < 0 takes the array's
static PyArrayObject* batchArg(PyObject* obj, const char* fn, const char* name, npy_intp nworld,
                               npy_intp n, npy_intp ncol) {
  int maxdim = ncol > 1 ? 3 : 2;
  PyArrayObject* a =
      (PyArrayObject*)PyArray_FROMANY(obj, NPY_FLOAT64, 2, maxdim, NPY_ARRAY_IN_ARRAY);
  if (!a) {
    PyErr_Format(PyExc_ValueError, "Vulkan.%s: %s must be a 2-D float64 array", fn, name);
    return NULL;
  }
  npy_intp cols = PyArray_DIM(a, 1);
  int ok = 1;
  if (PyArray_NDIM(a) == 3) {
    ok = PyArray_DIM(a, 2) == ncol;
    cols *= PyArray_DIM(a, 2);
  }
  if (!ok || (nworld >= 0 && PyArray_DIM(a, 0) != nworld) || cols != n) {
    if (PyArray_NDIM(a) == 3) {
      PyErr_Format(PyExc_ValueError,
                   "Vulkan.%s: %s has shape (%zd, %zd, %zd); expected (nworld, %zd, %zd)", fn, name,
                   (Py_ssize_t)PyArray_DIM(a, 0), (Py_ssize_t)PyArray_DIM(a, 1),
                   (Py_ssize_t)PyArray_DIM(a, 2), (Py_ssize_t)(n / ncol), (Py_ssize_t)ncol);
    } else {
      PyErr_Format(PyExc_ValueError, "Vulkan.%s: %s has shape (%zd, %zd); expected (nworld, %zd)",
                   fn, name, (Py_ssize_t)PyArray_DIM(a, 0), (Py_ssize_t)PyArray_DIM(a, 1),
                   (Py_ssize_t)n);
    }
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

// the phases a Vulkan method runs
enum { VK_KINEMATICS = 0, VK_FORWARD, VK_STEP, VK_COLLISION };

// per-world inputs of a phase, in keyword order after (model, qpos): name, pointer to the
// argument, elements per world, columns (for a 3-D form)
typedef struct {
  const char* name;
  PyObject* obj;
  PyArrayObject* arr;
} batchInput;

// "ncon" (nworld,) int32 and "contact" (nworld, nconmax) of phalanx.CONTACT_DTYPE (records
// past a world's ncon zero) into the result dict of a collision; -1 with an exception on failure
static int vulkanContacts(const pxWorlds* w, PyObject* result) {
  npy_intp nworld = w->nworld;
  npy_intp dims1[1] = {nworld};
  PyObject* ncon = PyArray_SimpleNew(1, dims1, NPY_INT32);
  if (!ncon) return -1;
  memcpy(PyArray_DATA((PyArrayObject*)ncon), w->ncon, sizeof(int) * (size_t)nworld);
  int bad = PyDict_SetItemString(result, "ncon", ncon);
  Py_DECREF(ncon);
  if (bad) return -1;

  // the records as bytes, then viewed with the Python-side dtype (mjContact's fields)
  npy_intp dims2[2] = {nworld, (npy_intp)w->nconmax * (npy_intp)sizeof(pxContact)};
  PyObject* raw = PyArray_ZEROS(2, dims2, NPY_UINT8, 0);
  if (!raw) return -1;
  char* dst = (char*)PyArray_DATA((PyArrayObject*)raw);
  for (int i = 0; i < w->nworld; i++) {
    int n = w->ncon[i] < w->nconmax ? w->ncon[i] : w->nconmax;
    if (n <= 0) continue;
    memcpy(dst + (size_t)i * (size_t)dims2[1],
           w->contact + (size_t)i * ((size_t)w->nconmax + PX_MAXCONPAIR),
           (size_t)n * sizeof(pxContact));
  }
  PyObject* mod = PyImport_ImportModule("phalanx");
  PyObject* dtobj = mod ? PyObject_GetAttrString(mod, "CONTACT_DTYPE") : NULL;
  Py_XDECREF(mod);
  PyArray_Descr* descr = NULL;
  if (!dtobj || !PyArray_DescrConverter(dtobj, &descr)) {
    Py_XDECREF(dtobj);
    Py_DECREF(raw);
    return -1;
  }
  Py_DECREF(dtobj);
  PyObject* view = PyArray_View((PyArrayObject*)raw, descr, NULL);  // steals descr
  Py_DECREF(raw);
  if (!view) return -1;
  bad = PyDict_SetItemString(result, "contact", view);
  Py_DECREF(view);
  return bad ? -1 : 0;
}

// the constraint rows of a forward or step with constraints into the result dict: "efc_n"
// (nworld, PX_EFC_NCOUNT) int32 (nefc, ne, nf, nl, solver iterations, ...), every PX_EFC_FIELDS
// array as (nworld, its size per world) (rows past a world's nefc as the pass left them), and
// the contacts as vulkanContacts; -1 with an exception on failure
static int vulkanConstraints(const pxModel* m, const pxWorlds* w, PyObject* result) {
  npy_intp nworld = w->nworld;
  size_t PXE_ROWS = (size_t)w->nefcmax, PXE_NV = (size_t)m->nv, PXE_NC = (size_t)m->nC;
  size_t PXE_NTREE = (size_t)m->ntree, PXE_DUAL = (size_t)w->efcdual;
  (void)PXE_ROWS, (void)PXE_NV, (void)PXE_NC, (void)PXE_NTREE, (void)PXE_DUAL;
#define X(type, name, n)                                                                       \
  {                                                                                            \
    npy_intp dims[2] = {nworld, (npy_intp)(n)};                                                \
    PyObject* arr = PyArray_SimpleNew(2, dims, PXNPY_##type);                                  \
    if (!arr) return -1;                                                                       \
    memcpy(PyArray_DATA((PyArrayObject*)arr), w->name, sizeof(type) * (size_t)(nworld * (n))); \
    int bad = PyDict_SetItemString(result, #name, arr);                                        \
    Py_DECREF(arr);                                                                            \
    if (bad) return -1;                                                                        \
  }
  PX_EFC_FIELDS(X)
#undef X
  npy_intp dims[2] = {nworld, PX_EFC_NCOUNT};
  PyObject* arr = PyArray_SimpleNew(2, dims, NPY_INT32);
  if (!arr) return -1;
  memcpy(PyArray_DATA((PyArrayObject*)arr), w->efc_n, sizeof(int) * (size_t)nworld * PX_EFC_NCOUNT);
  int bad = PyDict_SetItemString(result, "efc_n", arr);
  Py_DECREF(arr);
  if (bad) return -1;
  return vulkanContacts(w, result);
}

// one phase over a batch: qpos fixes nworld, every other input is (nworld, size) or absent
// (the reset state: zeros, mocap from the body frames); returns a dict of (nworld, ...) copies
// of every data block (and "time" for the step)
static PyObject* vulkanRun(VulkanObject* v, PyObject* model, PyObject* qposobj, batchInput* in,
                           int nin, PyObject* timeobj, const char* precision, int lanes, int nstep,
                           int phase, const char* fn) {
  int p64;
  if (!strcmp(precision, "fp64")) {
    p64 = 1;
  } else if (!strcmp(precision, "fp32")) {
    p64 = 0;
  } else {
    PyErr_Format(PyExc_ValueError, "Vulkan.%s: precision must be 'fp64' or 'fp32', got '%s'", fn,
                 precision);
    return NULL;
  }
  const pxModel* m = ((ModelObject*)model)->m;
  PyArrayObject *qpos = NULL, *time = NULL;
  PyObject* result = NULL;
  pxWorlds* w = NULL;
  pxStatus st;
  for (int i = 0; i < nin; i++) in[i].arr = NULL;
  qpos = batchArg(qposobj, fn, "qpos", -1, m->nq, 1);
  if (!qpos) goto error;
  npy_intp nworld = PyArray_DIM(qpos, 0);
  if (nworld < 1 || nworld > (1 << 24)) {
    PyErr_Format(PyExc_ValueError, "Vulkan.%s: nworld must be 1 to %d, got %zd", fn, 1 << 24,
                 (Py_ssize_t)nworld);
    goto error;
  }
  px_statusClear(&st);
  w = px_makeWorlds(m, (int)nworld, &st);
  if (!w) {
    py_raise(&st);
    goto error;
  }
  memcpy(w->qpos, PyArray_DATA(qpos), sizeof(pxtNum) * (size_t)(nworld * m->nq));
  for (int i = 0; i < nin; i++) {
    if (in[i].obj == Py_None) continue;
    long n = px_dataFieldSize(m, in[i].name);
    pxtNum* dst = NULL;
    npy_intp ncol = 1;
#define X(type, fname, nr, nc)                    \
  if (!strcmp(in[i].name, #fname)) {              \
    dst = (pxtNum*)(void*)w->fname;               \
    ncol = strcmp(#nc, "1") ? (npy_intp)(nc) : 1; \
  }
    PX_DATA_FIELDS(X)
#undef X
    if (!dst || n < 0) {
      PyErr_Format(PyExc_SystemError, "Vulkan.%s: unknown input %s", fn, in[i].name);
      goto error;
    }
    in[i].arr = batchArg(in[i].obj, fn, in[i].name, nworld, (npy_intp)n, ncol);
    if (!in[i].arr) goto error;
    memcpy(dst, PyArray_DATA(in[i].arr), sizeof(pxtNum) * (size_t)nworld * (size_t)n);
  }
  if (timeobj && timeobj != Py_None) {
    time = (PyArrayObject*)PyArray_FROMANY(timeobj, NPY_FLOAT64, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!time || PyArray_DIM(time, 0) != nworld) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "Vulkan.%s: time must be a float64 array of shape (%zd,)", fn,
                   (Py_ssize_t)nworld);
      goto error;
    }
    memcpy(w->time, PyArray_DATA(time), sizeof(pxtNum) * (size_t)nworld);
  }

  pxtStatus code;
  Py_BEGIN_ALLOW_THREADS;
  if (phase == VK_KINEMATICS) {
    code = pxv_kinematicsLanes(v->ctx, m, w, p64, lanes, &st);
  } else if (phase == VK_FORWARD) {
    code = pxv_forward(v->ctx, m, w, p64, lanes, &st);
  } else if (phase == VK_COLLISION) {
    code = pxv_collision(v->ctx, m, w, p64, lanes, &st);
  } else {
    code = pxv_step(v->ctx, m, w, p64, lanes, nstep, &st);
  }
  Py_END_ALLOW_THREADS;
  if (code != PX_OK) {
    py_raise(&st);
    goto error;
  }

  // every data block, copied out as (nworld, nrow[, ncol])
  result = PyDict_New();
  if (!result) goto error;
#define X(type, fname, nr, nc)                                           \
  {                                                                      \
    npy_intp dims[3] = {nworld, m->nr, (nc)};                            \
    int flat = !strcmp(#nc, "1");                                        \
    PyObject* arr = PyArray_SimpleNew(flat ? 2 : 3, dims, PXNPY_##type); \
    if (!arr) goto error;                                                \
    memcpy(PyArray_DATA((PyArrayObject*)arr), w->fname,                  \
           sizeof(type) * (size_t)(nworld * m->nr * (nc)));              \
    int bad = PyDict_SetItemString(result, #fname, arr);                 \
    Py_DECREF(arr);                                                      \
    if (bad) goto error;                                                 \
  }
  PX_DATA_FIELDS(X)
#undef X
  if (phase == VK_STEP) {
    npy_intp dims[1] = {nworld};
    PyObject* arr = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    if (!arr) goto error;
    memcpy(PyArray_DATA((PyArrayObject*)arr), w->time, sizeof(pxtNum) * (size_t)nworld);
    int bad = PyDict_SetItemString(result, "time", arr);
    Py_DECREF(arr);
    if (bad) goto error;
  }
  if (phase == VK_COLLISION && vulkanContacts(w, result)) goto error;
  if ((phase == VK_FORWARD || phase == VK_STEP) && !px_constraintFree(m) &&
      vulkanConstraints(m, w, result)) {
    goto error;
  }
  px_freeWorlds(w);
  Py_DECREF(qpos);
  Py_XDECREF(time);
  for (int i = 0; i < nin; i++) Py_XDECREF(in[i].arr);
  return result;

error:
  px_freeWorlds(w);
  Py_XDECREF(qpos);
  Py_XDECREF(time);
  for (int i = 0; i < nin; i++) Py_XDECREF(in[i].arr);
  Py_XDECREF(result);
  return NULL;
}

// the stages of one pose per world: (model, qpos, mocap_pos=None, mocap_quat=None,
// precision="fp64", lanes=1) -> dict; fmt is the argument format ending in ":name"
static PyObject* vulkanPoseStage(PyObject* self, PyObject* args, PyObject* kwds, int stage,
                                 const char* fmt, const char* name) {
  VulkanObject* v = (VulkanObject*)self;
  static char* kwlist[] = {"model", "qpos", "mocap_pos", "mocap_quat", "precision", "lanes", NULL};
  PyObject *model, *qposobj;
  batchInput in[2] = {{"mocap_pos", Py_None, NULL}, {"mocap_quat", Py_None, NULL}};
  const char* precision = "fp64";
  int lanes = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, fmt, kwlist, &ModelType, &model, &qposobj,
                                   &in[0].obj, &in[1].obj, &precision, &lanes)) {
    return NULL;
  }
  if (!vulkanReady(v)) return NULL;
  return vulkanRun(v, model, qposobj, in, 2, NULL, precision, lanes, 0, stage, name);
}

// kinematics(...): forward kinematics of each world's pose
static PyObject* vulkan_kinematics(PyObject* self, PyObject* args, PyObject* kwds) {
  return vulkanPoseStage(self, args, kwds, VK_KINEMATICS, "O!O|OOsi:kinematics", "kinematics");
}

// collision(...): kinematics and mj_collision of each world's pose
static PyObject* vulkan_collision(PyObject* self, PyObject* args, PyObject* kwds) {
  return vulkanPoseStage(self, args, kwds, VK_COLLISION, "O!O|OOsi:collision", "collision");
}

// forward(model, qpos, qvel, act=None, ctrl=None, qfrc_applied=None, xfrc_applied=None,
//         mocap_pos=None, mocap_quat=None, precision="fp64", lanes=1) -> dict
static PyObject* vulkan_forward(PyObject* self, PyObject* args, PyObject* kwds) {
  VulkanObject* v = (VulkanObject*)self;
  static char* kwlist[] = {"model",      "qpos",         "qvel",         "act",
                           "ctrl",       "qfrc_applied", "xfrc_applied", "mocap_pos",
                           "mocap_quat", "precision",    "lanes",        NULL};
  PyObject *model, *qposobj;
  batchInput in[7] = {{"qvel", Py_None, NULL},         {"act", Py_None, NULL},
                      {"ctrl", Py_None, NULL},         {"qfrc_applied", Py_None, NULL},
                      {"xfrc_applied", Py_None, NULL}, {"mocap_pos", Py_None, NULL},
                      {"mocap_quat", Py_None, NULL}};
  const char* precision = "fp64";
  int lanes = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO|OOOOOOsi:forward", kwlist, &ModelType, &model,
                                   &qposobj, &in[0].obj, &in[1].obj, &in[2].obj, &in[3].obj,
                                   &in[4].obj, &in[5].obj, &in[6].obj, &precision, &lanes)) {
    return NULL;
  }
  if (!vulkanReady(v)) return NULL;
  return vulkanRun(v, model, qposobj, in, 7, NULL, precision, lanes, 0, VK_FORWARD, "forward");
}

// step(model, qpos, qvel, act=None, ctrl=None, qfrc_applied=None, nstep=1, xfrc_applied=None,
//      mocap_pos=None, mocap_quat=None, time=None, precision="fp64", lanes=1) -> dict
static PyObject* vulkan_step(PyObject* self, PyObject* args, PyObject* kwds) {
  VulkanObject* v = (VulkanObject*)self;
  static char* kwlist[] = {"model",        "qpos",      "qvel",         "act",       "ctrl",
                           "qfrc_applied", "nstep",     "xfrc_applied", "mocap_pos", "mocap_quat",
                           "time",         "precision", "lanes",        NULL};
  PyObject *model, *qposobj, *timeobj = Py_None;
  batchInput in[7] = {{"qvel", Py_None, NULL},         {"act", Py_None, NULL},
                      {"ctrl", Py_None, NULL},         {"qfrc_applied", Py_None, NULL},
                      {"xfrc_applied", Py_None, NULL}, {"mocap_pos", Py_None, NULL},
                      {"mocap_quat", Py_None, NULL}};
  const char* precision = "fp64";
  int lanes = 1, nstep = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO|OOOiOOOOsi:step", kwlist, &ModelType, &model,
                                   &qposobj, &in[0].obj, &in[1].obj, &in[2].obj, &in[3].obj, &nstep,
                                   &in[4].obj, &in[5].obj, &in[6].obj, &timeobj, &precision,
                                   &lanes)) {
    return NULL;
  }
  if (!vulkanReady(v)) return NULL;
  if (nstep < 1 || nstep > 100000) {
    PyErr_Format(PyExc_ValueError, "Vulkan.step: nstep must be 1 to 100000, got %d", nstep);
    return NULL;
  }
  return vulkanRun(v, model, qposobj, in, 7, timeobj, precision, lanes, nstep, VK_STEP, "step");
}

static PyObject* vulkan_get_device(PyObject* self, void* closure) {
  (void)closure;
  VulkanObject* v = (VulkanObject*)self;
  if (!vulkanReady(v)) return NULL;
  return PyUnicode_FromString(pxv_deviceName(v->ctx));
}

static PyObject* vulkan_get_fp64(PyObject* self, void* closure) {
  (void)closure;
  VulkanObject* v = (VulkanObject*)self;
  if (!vulkanReady(v)) return NULL;
  return PyBool_FromLong(pxv_hasFloat64(v->ctx));
}

static PyObject* vulkan_get_messages(PyObject* self, void* closure) {
  (void)closure;
  VulkanObject* v = (VulkanObject*)self;
  if (!vulkanReady(v)) return NULL;
  return PyLong_FromLong(pxv_validationMessages(v->ctx));
}

static PyMethodDef vulkanMethods[] = {
    {"kinematics", (PyCFunction)(void (*)(void))vulkan_kinematics, METH_VARARGS | METH_KEYWORDS,
     "kinematics(model, qpos, mocap_pos=None, mocap_quat=None, precision='fp64', lanes=1) -> "
     "dict of (nworld, ...) arrays: forward kinematics of a batch of worlds on the device"},
    {"collision", (PyCFunction)(void (*)(void))vulkan_collision, METH_VARARGS | METH_KEYWORDS,
     "collision(model, qpos, mocap_pos=None, mocap_quat=None, precision='fp64', lanes=1) -> "
     "dict of (nworld, ...) arrays plus 'ncon' (nworld,) and 'contact' (nworld, nconmax) of "
     "phalanx.CONTACT_DTYPE (records past a world's ncon are zero): mj_kinematics then "
     "mj_collision of a batch of worlds on the device"},
    {"forward", (PyCFunction)(void (*)(void))vulkan_forward, METH_VARARGS | METH_KEYWORDS,
     "forward(model, qpos, qvel, act=None, ctrl=None, qfrc_applied=None, xfrc_applied=None, "
     "mocap_pos=None, mocap_quat=None, precision='fp64', lanes=1) -> dict of (nworld, ...) "
     "arrays: mj_forward (no constraints) of a batch of worlds on the device; inputs are "
     "(nworld, size) arrays, absent ones zero (mocap: the body frames)"},
    {"step", (PyCFunction)(void (*)(void))vulkan_step, METH_VARARGS | METH_KEYWORDS,
     "step(model, qpos, qvel, act=None, ctrl=None, qfrc_applied=None, nstep=1, "
     "xfrc_applied=None, mocap_pos=None, mocap_quat=None, time=None, precision='fp64', "
     "lanes=1) -> dict of (nworld, ...) arrays and 'time' (nworld,): nstep calls of mj_step "
     "(Euler or implicitfast, no constraints) per world on the device"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef vulkanGetSet[] = {
    {"device", vulkan_get_device, NULL, "name of the device in use", NULL},
    {"fp64", vulkan_get_fp64, NULL, "True when the device runs fp64 shaders", NULL},
    {"validation_messages", vulkan_get_messages, NULL,
     "warnings and errors the validation layer reported so far", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject VulkanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "phalanx._core.Vulkan",
    .tp_basicsize = sizeof(VulkanObject),
    .tp_dealloc = vulkan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = vulkanMethods,
    .tp_getset = vulkanGetSet,
    .tp_init = vulkan_init,
    .tp_new = PyType_GenericNew,
    .tp_doc = "Vulkan(validation=0, device=None): a Vulkan device running phalanx's kernels.",
};

static PyObject* py_vulkan_available(PyObject* mod, PyObject* unused) {
  (void)mod;
  (void)unused;
  char why[512] = "";
  int ok;
  Py_BEGIN_ALLOW_THREADS ok = pxv_available(why, (int)sizeof(why));
  Py_END_ALLOW_THREADS return Py_BuildValue("(Os)", ok ? Py_True : Py_False, ok ? "" : why);
}

//---------------------------------- module --------------------------------------------------------

static PyMethodDef moduleMethods[] = {
    {"collision", py_collision, METH_VARARGS,
     "collision(model, data): contacts in MuJoCo's order into data.contact (mj_collision)"},
    {"geomDistance", py_geomDistance, METH_VARARGS,
     "geomDistance(model, data, geom1, geom2, distmax, fromto=None) -> float: smallest distance "
     "between two geoms up to distmax, closest points into fromto (mj_geomDistance)"},
    {"ray", py_ray, METH_VARARGS,
     "ray(model, data, pnt, vec, geomgroup, flg_static, bodyexclude, normal) -> (dist, geomid): "
     "nearest geom along a ray (mj_ray)"},
    {"rayGeom", py_rayGeom, METH_VARARGS,
     "rayGeom(pos, mat, size, pnt, vec, geomtype, normal) -> dist: ray against a primitive "
     "(mju_rayGeom)"},
    {"rayMesh", py_rayMesh, METH_VARARGS,
     "rayMesh(model, data, geomid, pnt, vec, normal) -> dist: ray against a mesh geom "
     "(mj_rayMesh)"},
    {"rayHfield", py_rayHfield, METH_VARARGS,
     "rayHfield(model, data, geomid, pnt, vec, normal) -> dist: ray against a height field "
     "(mj_rayHfield)"},
    {"_eig3", py_eig3, METH_VARARGS, "_eig3(mat) -> (eigval, eigvec, quat): mju_eig3 (tests)"},
    {"_roundf32", py_roundf32, METH_VARARGS, "_roundf32(x) -> x rounded to float32 (tests)"},
    {"_broadphase", py_broadphase, METH_VARARGS,
     "_broadphase(model, data) -> body-pair signatures of the broad phase (tests)"},
    {"_bvh", py_bvh, METH_VARARGS,
     "_bvh(model, data, body) -> (aabb, child, nodeid): the midphase's tree of a body (tests)"},
    {"_narrowphase", py_narrowphase, METH_VARARGS,
     "_narrowphase(model, data, g1, g2, margin) -> (dist, pos, frame): one geom pair's "
     "narrow phase (tests)"},
    {"kinematics", py_kinematics, METH_VARARGS,
     "kinematics(model, data): forward kinematics, com frames, cameras, lights, fixed tendons"},
    {"_tendon", py_tendon, METH_VARARGS,
     "_tendon(model, data): tendon lengths, paths and Jacobians (after kinematics)"},
    {"_transmission", py_transmission, METH_VARARGS,
     "_transmission(model, data): actuator lengths and moments (after _tendon)"},
    {"_tendonVelocity", py_tendonVelocity, METH_VARARGS,
     "_tendonVelocity(model, data): ten_velocity and actuator_velocity (after _transmission)"},
    {"integratePos", py_integratePos, METH_VARARGS,
     "integratePos(model, qpos, qvel, dt): qpos += dt*qvel on the joint manifold, in place"},
    {"normalizeQuat", py_normalizeQuat, METH_VARARGS,
     "normalizeQuat(model, qpos): normalize the ball and free joint quaternions, in place"},
    {"differentiatePos", py_differentiatePos, METH_VARARGS,
     "differentiatePos(model, qvel, dt, qpos1, qpos2): qvel that moves qpos1 to qpos2 in dt"},
    {"_euler", py_euler, METH_VARARGS, "_euler(model, data): mj_Euler from the forward results"},
    {"_implicit", py_implicit, METH_VARARGS,
     "_implicit(model, data): mj_implicit (implicit, implicitfast) from the forward results"},
    {"step", py_step, METH_VARARGS,
     "step(model, data): advance the simulation by one step (mj_step); raises "
     "NotImplementedError naming any feature of the model phalanx does not compute yet"},
    {"step1", py_step1, METH_VARARGS, "step1(model, data): mj_step1"},
    {"step2", py_step2, METH_VARARGS, "step2(model, data): mj_step2"},
    {"resetData", py_resetData, METH_VARARGS, "resetData(model, data): mj_resetData"},
    {"resetDataKeyframe", py_resetDataKeyframe, METH_VARARGS,
     "resetDataKeyframe(model, data, key): mj_resetDataKeyframe"},
    {"forward", py_forward, METH_VARARGS,
     "forward(model, data): forward dynamics (mj_forward); raises NotImplementedError naming "
     "any feature of the model phalanx does not compute yet"},
    {"setConst", py_setConst, METH_VARARGS,
     "setConst(model, data): mj_setConst, the constants derived by running the engine"},
    {"_stage", py_stage, METH_VARARGS, "_stage(model, data, name): run one stage alone (tests)"},
    {"subtreeVel", py_subtreeVel, METH_VARARGS,
     "subtreeVel(model, data): subtree_linvel and subtree_angmom (mj_subtreeVel)"},
    {"fullM", py_fullM, METH_VARARGS, "fullM(model, data, dst): dense (nv, nv) inertia (mj_fullM)"},
    {"mulM", py_mulM, METH_VARARGS, "mulM(model, data, res, vec): res = M vec (mj_mulM)"},
    {"solveM", py_solveM, METH_VARARGS,
     "solveM(model, data, x, y): x = inv(M) y for (nv,) or (n, nv) arrays (mj_solveM)"},
    {"jac", py_jac, METH_VARARGS,
     "jac(model, data, jacp, jacr, point, body): Jacobians of a global point on body (mj_jac)"},
    {"jacBody", py_jacBody, METH_VARARGS, "jacBody(model, data, jacp, jacr, body) (mj_jacBody)"},
    {"jacBodyCom", py_jacBodyCom, METH_VARARGS,
     "jacBodyCom(model, data, jacp, jacr, body) (mj_jacBodyCom)"},
    {"jacSite", py_jacSite, METH_VARARGS, "jacSite(model, data, jacp, jacr, site) (mj_jacSite)"},
    {"jacGeom", py_jacGeom, METH_VARARGS, "jacGeom(model, data, jacp, jacr, geom) (mj_jacGeom)"},
    {"objectVelocity", py_objectVelocity, METH_VARARGS,
     "objectVelocity(model, data, objtype, objid, res, flg_local) (mj_objectVelocity)"},
    {"applyFT", py_applyFT, METH_VARARGS,
     "applyFT(model, data, force, torque, point, body, qfrc_target) (mj_applyFT)"},
    {"rnePostConstraint", py_rnePostConstraint, METH_VARARGS,
     "rnePostConstraint(model, data): cacc, cfrc_int, cfrc_ext (mj_rnePostConstraint)"},
    {"rne", py_rne, METH_VARARGS,
     "rne(model, data, flg_acc, result): recursive Newton-Euler into result (mj_rne)"},
    {"energyPos", py_energyPos, METH_VARARGS,
     "energyPos(model, data): potential energy into data.energy[0] (mj_energyPos)"},
    {"energyVel", py_energyVel, METH_VARARGS,
     "energyVel(model, data): kinetic energy into data.energy[1] (mj_energyVel)"},
    {"objectAcceleration", py_objectAcceleration, METH_VARARGS,
     "objectAcceleration(model, data, objtype, objid, res, flg_local) (mj_objectAcceleration)"},
    {"jacDot", py_jacDot, METH_VARARGS,
     "jacDot(model, data, jacp, jacr, point, body): Jacobian time derivatives (mj_jacDot)"},
    {"jacPointAxis", py_jacPointAxis, METH_VARARGS,
     "jacPointAxis(model, data, jacPoint, jacAxis, point, axis, body) (mj_jacPointAxis)"},
    {"jacSubtreeCom", py_jacSubtreeCom, METH_VARARGS,
     "jacSubtreeCom(model, data, jacp, body): subtree com Jacobian (mj_jacSubtreeCom)"},
    {"_hold", py_hold, METH_VARARGS,
     "_hold(model, data, seconds): hold data as a running call would (thread-safety tests)"},
    {"_passive", py_passive, METH_VARARGS,
     "_passive(model, data): the passive-force stage alone (mj_passive), for tests"},
    {"_actuation", py_actuation, METH_VARARGS,
     "_actuation(model, data): the actuation stage alone (mj_fwdActuation), for tests"},
    {"vulkan_available", py_vulkan_available, METH_NOARGS,
     "vulkan_available() -> (bool, reason): whether a Vulkan compute device can be used"},
    {NULL, NULL, 0, NULL}};

static int module_traverse(PyObject* mod, visitproc visit, void* arg) {
  moduleState* s = (moduleState*)PyModule_GetState(mod);
  Py_VISIT(s->MJCFError);
  Py_VISIT(s->ArenaError);
  Py_VISIT(s->VulkanError);
  Py_VISIT(s->InternalError);
  return 0;
}

static int module_clear(PyObject* mod) {
  moduleState* s = (moduleState*)PyModule_GetState(mod);
  Py_CLEAR(s->MJCFError);
  Py_CLEAR(s->ArenaError);
  Py_CLEAR(s->VulkanError);
  Py_CLEAR(s->InternalError);
  return 0;
}

static struct PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "phalanx._core", "phalanx's C core",
                                       sizeof(moduleState),   moduleMethods,   NULL,
                                       module_traverse,       module_clear,    NULL};

static int addType(PyObject* mod, PyTypeObject* type, const char* name) {
  if (PyType_Ready(type) < 0) return -1;
  Py_INCREF(type);
  if (PyModule_AddObject(mod, name, (PyObject*)type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}

static int addError(PyObject* mod, PyObject** slot, const char* name, PyObject* base) {
  char full[64];
  snprintf(full, sizeof(full), "phalanx.%s", name);
  *slot = PyErr_NewException(full, base, NULL);
  if (!*slot) return -1;
  Py_INCREF(*slot);
  if (PyModule_AddObject(mod, name, *slot) < 0) {
    Py_DECREF(*slot);
    return -1;
  }
  return 0;
}

// a tuple of strings as a module constant
static int addNames(PyObject* mod, const char* name, const char* const* names) {
  Py_ssize_t n = 0;
  while (names[n]) n++;
  PyObject* t = PyTuple_New(n);
  if (!t) return -1;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* str = PyUnicode_FromString(names[i]);
    if (!str) {
      Py_DECREF(t);
      return -1;
    }
    PyTuple_SET_ITEM(t, i, str);
  }
  if (PyModule_AddObject(mod, name, t) < 0) {
    Py_DECREF(t);
    return -1;
  }
  return 0;
}

PyMODINIT_FUNC PyInit__core(void);

PyMODINIT_FUNC PyInit__core(void) {
  import_array();
  PyObject* mod = PyModule_Create(&moduleDef);
  if (!mod) return NULL;
  moduleState* s = (moduleState*)PyModule_GetState(mod);

  // the X-macro tables, for tests and tools
  static const char* const sizes[] = {
#define X(sname) #sname,
      PX_MODEL_SIZES(X)
#undef X
          NULL};
  static const char* const mfields[] = {
#define X(type, fname, nr, nc) #fname,
      PX_MODEL_FIELDS(X)
#undef X
          NULL};
  static const char* const dfields[] = {
#define X(type, fname, nr, nc) #fname,
      PX_DATA_FIELDS(X)
#undef X
          NULL};
  if (addNames(mod, "MODEL_SIZES", sizes) < 0 || addNames(mod, "MODEL_FIELDS", mfields) < 0 ||
      addNames(mod, "DATA_FIELDS", dfields) < 0) {
    Py_DECREF(mod);
    return NULL;
  }
  if (addType(mod, &ModelType, "Model") < 0 || addType(mod, &DataType, "Data") < 0 ||
      addType(mod, &VulkanType, "Vulkan") < 0 || py_addBatchType(mod) < 0 ||
      py_addTaskType(mod) < 0 || PyType_Ready(&SubType) < 0 ||
      addError(mod, &s->MJCFError, "MJCFError", PyExc_ValueError) < 0 ||
      addError(mod, &s->ArenaError, "ArenaError", PyExc_RuntimeError) < 0 ||
      addError(mod, &s->VulkanError, "VulkanError", PyExc_RuntimeError) < 0 ||
      addError(mod, &s->InternalError, "InternalError", PyExc_RuntimeError) < 0) {
    Py_DECREF(mod);
    return NULL;
  }
  return mod;
}
