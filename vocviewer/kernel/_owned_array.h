/* A malloc'd block handed to numpy without a copy (a results file's columns can take hundreds
 * of MB). Include after <Python.h> and <numpy/arrayobject.h>. */
#ifndef VOCVIEWER_KERNEL_OWNED_ARRAY_H
#define VOCVIEWER_KERNEL_OWNED_ARRAY_H

#include <stdlib.h>

static void free_capsule(PyObject *capsule) { free(PyCapsule_GetPointer(capsule, NULL)); }

/* A 1-d array of n values of numpy `type` over `data` (malloc'd, not NULL), which it takes
 * over: a capsule, the array's base, frees it once the array goes. NULL on failure, `data`
 * freed then too. */
static PyObject *array_owning(void *data, npy_intp n, int type) {
    PyObject *owner = PyCapsule_New(data, NULL, free_capsule);
    if (!owner) {
        free(data);
        return NULL;
    }
    PyObject *a = PyArray_SimpleNewFromData(1, &n, type, data);
    if (!a) {
        Py_DECREF(owner);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)a, owner)) { /* (owner taken, and gone) */
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

#endif
