// SPDX-License-Identifier: Apache-2.0
// Declarations shared by the files of the CPython module (module.c, batch_type.c); nothing here
// is exported from the extension (it is built with -fvisibility=hidden).
#ifndef PX_PYTHON_INTERNAL_H_
#define PX_PYTHON_INTERNAL_H_

#include <Python.h>

#include "px/pxbatch.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

// Raise the Python exception matching a failed status (module.c); returns NULL.
PyObject* py_raise(const pxStatus* st);

// A new list of the strings of a NULL-terminated array (the __dir__ methods; module.c).
PyObject* py_nameList(const char* const* names);

// The pxModel of a phalanx Model object, or NULL with a TypeError naming fn (module.c).
pxModel* py_modelOf(PyObject* obj, const char* fn);

// Ready the Batch type and add it to the module (batch_type.c); 0 on success.
int py_addBatchType(PyObject* mod);

// The pxBatch of a phalanx._core.Batch, marked busy (release with py_batchRelease), or NULL
// with a TypeError or RuntimeError naming fn (batch_type.c).
pxBatch* py_batchAcquire(PyObject* obj, const char* fn);
void py_batchRelease(PyObject* obj);

// Ready the TaskRunner type and add it to the module (task_type.c); 0 on success.
int py_addTaskType(PyObject* mod);

#endif  // PX_PYTHON_INTERNAL_H_
