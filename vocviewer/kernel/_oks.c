/* COCO keypoint similarity (OKS), compiled: pycocotools' ``COCOeval.computeOks`` for aligned
 * (detection, ground truth) pairs, in two halves around numpy's own ``exp``.
 *
 * ``exponents`` gives, for every pair, the negated exponents -e of the compared points in
 * pycocotools' expression order ((dx**2 + dy**2) / vars / (area + eps) / 2, each step a separate
 * IEEE double operation), all pairs' concatenated, and the offsets of each pair's values (the
 * GT's labelled points, or all K when it has none: then dx, dy are the distances outside its
 * box enlarged by its size on every side, ``np.max((z, v), axis=0)`` keeping NaN). The caller
 * applies ``np.exp`` in place (numpy's exp may differ from libm's by an ulp on some CPUs, so it
 * stays numpy's). ``mean_rows`` then sums each pair's values as numpy's ``np.sum`` sums a 1-D
 * float64 vector of n values (0.0 plus its pairwise sum: a plain loop below 8 values, eight
 * accumulators up to 128) and divides by n, as ``np.sum(np.exp(-e)) / e.shape[0]``.
 *
 * ``oks`` does all three at once, a block of pairs at a time in a small buffer per thread:
 * the exponents, ``np.exp(block, out=block)`` itself (the GIL taken for the call only: numpy
 * lets it go while its loop runs) and the sums; no array of every pair's values is made.
 *
 * All release the GIL and split their pairs across threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "_threads.h"

#define PAIRS_PER_THREAD 4096 /* fewer pairs than this per thread: not worth a thread */
#define MAX_POINTS 128        /* numpy's pairwise block: longer rows are not handled here */

/* A C-contiguous float64 / int64 array of `ndim` dimensions (new reference), or NULL + error. */
static PyArrayObject *as_array(PyObject *obj, int type, int ndim) {
    return (PyArrayObject *)PyArray_FROMANY(obj, type, ndim, ndim, NPY_ARRAY_IN_ARRAY);
}

/* ---------------------------------------------------------------------------------------- */
/* exponents                                                                                 */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    const double *det;  /* (D, K, 3) x, y, v */
    const double *gt;   /* (G, K, 3) */
    const double *box;  /* (G, 4) x, y, w, h */
    const double *den;  /* (G,) area + eps */
    const double *var;  /* (K,) (2 sigma)**2 */
    const int64_t *ent_det, *ent_gt;
    Py_ssize_t k;
    const int64_t *start; /* (E + 1,) offsets of each pair's values in out */
    double *out;
} ExpJob;

/* Whether GT t (K x 3) has a labelled point (v > 0). */
static inline int labelled(const double *t, Py_ssize_t k) {
    for (Py_ssize_t p = 0; p < k; p++)
        if (t[p * 3 + 2] > 0.0) return 1;
    return 0;
}

/* How many points of GT t are compared: its labelled ones, or all K without any. */
static inline int64_t compared(const double *t, Py_ssize_t k) {
    int64_t n = 0;
    for (Py_ssize_t p = 0; p < k; p++) n += t[p * 3 + 2] > 0.0;
    return n > 0 ? n : (int64_t)k;
}

/* np.max((0, v), axis=0): v when above 0 or NaN, else 0. */
static inline double max0(double v) { return (v > 0.0 || v != v) ? v : 0.0; }

/* 2.0, read through a volatile: a divisor the compiler cannot see, so that -(x / two) stays
 * a division and a negation (with a constant 2.0 it may become x * -0.5, which keeps a NaN's
 * sign where numpy's np.negative flips it). */
static volatile const double TWO = 2.0;

/* Pair e's negated exponents into row: returns how many (its GT's compared points). ``two``:
 * TWO's value. */
static inline int64_t pair_exponents(const ExpJob *j, Py_ssize_t e, double *row, double two) {
    Py_ssize_t k = j->k;
    const double *d = j->det + j->ent_det[e] * k * 3;
    int64_t g = j->ent_gt[e];
    const double *t = j->gt + g * k * 3, *bb = j->box + g * 4;
    double den = j->den[g];
    if (labelled(t, k)) {
        int64_t m = 0;
        for (Py_ssize_t p = 0; p < k; p++) {
            if (!(t[p * 3 + 2] > 0.0)) continue;
            double dx = d[p * 3] - t[p * 3], dy = d[p * 3 + 1] - t[p * 3 + 1];
            double s = dx * dx;
            s = s + dy * dy;
            row[m++] = -(s / j->var[p] / den / two);
        }
        return m;
    }
    double x0 = bb[0] - bb[2], x1 = bb[0] + bb[2] * 2.0;
    double y0 = bb[1] - bb[3], y1 = bb[1] + bb[3] * 2.0;
    for (Py_ssize_t p = 0; p < k; p++) {
        double xd = d[p * 3], yd = d[p * 3 + 1];
        double dx = max0(x0 - xd) + max0(xd - x1), dy = max0(y0 - yd) + max0(yd - y1);
        double s = dx * dx;
        s = s + dy * dy;
        row[p] = -(s / j->var[p] / den / two);
    }
    return (int64_t)k;
}

static void exp_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    const ExpJob *j = (const ExpJob *)ctx;
    double two = TWO;
    for (Py_ssize_t e = lo; e < hi; e++) pair_exponents(j, e, j->out + j->start[e], two);
}

/* Checked int64 (E,) pair rows, each in [0, limit). */
static int rows_ok(PyArrayObject *a, Py_ssize_t e, Py_ssize_t limit) {
    if (PyArray_SIZE(a) != e) return 0;
    const int64_t *v = (const int64_t *)PyArray_DATA(a);
    for (Py_ssize_t i = 0; i < e; i++)
        if (v[i] < 0 || v[i] >= limit) return 0;
    return 1;
}

/* The seven arguments of exponents / oks as arrays in a (new references) and the job over
 * them (start, out unset); 0, else -1 with an error set (a's references are the caller's to
 * drop either way). */
static int pairs_job(PyObject *args, PyArrayObject *a[7], ExpJob *job) {
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6]))
        return -1;
    static const int types[7] = {NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                 NPY_FLOAT64, NPY_INT64,   NPY_INT64};
    static const int dims[7] = {3, 3, 2, 1, 1, 1, 1};
    for (int i = 0; i < 7; i++)
        if (!(a[i] = as_array(o[i], types[i], dims[i]))) return -1;
    npy_intp *ds = PyArray_DIMS(a[0]), *gs = PyArray_DIMS(a[1]);
    Py_ssize_t k = PyArray_SIZE(a[4]), e = PyArray_SIZE(a[5]), ng = gs[0];
    if (ds[1] != k || gs[1] != k || ds[2] != 3 || gs[2] != 3 || k < 1 || k > MAX_POINTS ||
        PyArray_DIMS(a[2])[0] != ng || PyArray_DIMS(a[2])[1] != 4 || PyArray_SIZE(a[3]) != ng ||
        !rows_ok(a[5], e, ds[0]) || !rows_ok(a[6], e, ng)) {
        PyErr_SetString(PyExc_ValueError, "exponents: shapes or pair rows do not fit");
        return -1;
    }
    *job = (ExpJob){PyArray_DATA(a[0]), PyArray_DATA(a[1]), PyArray_DATA(a[2]),
                    PyArray_DATA(a[3]), PyArray_DATA(a[4]), PyArray_DATA(a[5]),
                    PyArray_DATA(a[6]), k, NULL, NULL};
    return 0;
}

static PyObject *py_exponents(PyObject *self, PyObject *args) {
    (void)self;
    PyArrayObject *a[7] = {NULL};
    PyObject *result = NULL, *out = NULL, *start = NULL;
    int64_t *per_gt = NULL;
    ExpJob job;
    if (pairs_job(args, a, &job)) goto done;
    Py_ssize_t k = job.k, e = PyArray_SIZE(a[5]), ng = PyArray_DIMS(a[1])[0];
    npy_intp sd[1] = {e + 1};
    if (!(start = PyArray_SimpleNew(1, sd, NPY_INT64))) goto done;
    if (!(per_gt = malloc(sizeof(int64_t) * (size_t)(ng ? ng : 1)))) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *st = PyArray_DATA((PyArrayObject *)start);
    for (Py_ssize_t g = 0; g < ng; g++) per_gt[g] = compared(job.gt + g * k * 3, k);
    st[0] = 0;
    for (Py_ssize_t i = 0; i < e; i++) st[i + 1] = st[i] + per_gt[job.ent_gt[i]];
    npy_intp od[1] = {st[e]};
    if (!(out = PyArray_SimpleNew(1, od, NPY_FLOAT64))) goto done;
    job.start = st;
    job.out = PyArray_DATA((PyArrayObject *)out);
    Py_BEGIN_ALLOW_THREADS;
    split_range(exp_range, &job, e, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
    result = PyTuple_Pack(2, out, start);
done:
    for (int i = 0; i < 7; i++) Py_XDECREF(a[i]);
    free(per_gt);
    Py_XDECREF(out);
    Py_XDECREF(start);
    return result;
}

/* ---------------------------------------------------------------------------------------- */
/* row means, summed as numpy sums                                                           */
/* ---------------------------------------------------------------------------------------- */

/* numpy's pairwise sum of n <= 128 doubles (DOUBLE_pairwise_sum), after a reduction's 0.0. */
static double numpy_sum(const double *a, int64_t n) {
    double res;
    int64_t i;
    if (n < 8) {
        res = 0.0;
        for (i = 0; i < n; i++) res = res + a[i];
    } else {
        double r[8];
        for (int q = 0; q < 8; q++) r[q] = a[q];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int q = 0; q < 8; q++) r[q] = r[q] + a[i + q];
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res = res + a[i];
    }
    return 0.0 + res;
}

typedef struct {
    const double *values;
    const int64_t *start; /* (E + 1,) */
    double *out;          /* (E,) */
} MeanJob;

static void mean_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    const MeanJob *j = (const MeanJob *)ctx;
    for (Py_ssize_t e = lo; e < hi; e++) {
        int64_t n = j->start[e + 1] - j->start[e];
        j->out[e] = numpy_sum(j->values + j->start[e], n) / (double)n;
    }
}

static PyObject *py_mean_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ov, *ou, *out = NULL;
    if (!PyArg_ParseTuple(args, "OO", &ov, &ou)) return NULL;
    PyArrayObject *v = as_array(ov, NPY_FLOAT64, 1), *u = v ? as_array(ou, NPY_INT64, 1) : NULL;
    if (!v || !u) goto done;
    Py_ssize_t e = PyArray_SIZE(u) - 1;
    const int64_t *st = (const int64_t *)PyArray_DATA(u);
    int ok = e >= 0 && st[0] == 0 && st[e] == PyArray_SIZE(v);
    for (Py_ssize_t i = 0; ok && i < e; i++) {
        int64_t n = st[i + 1] - st[i];
        ok = n >= 1 && n <= MAX_POINTS;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "mean_rows: offsets must rise by 1 .. 128 per row");
        goto done;
    }
    npy_intp od[1] = {e};
    if (!(out = PyArray_SimpleNew(1, od, NPY_FLOAT64))) goto done;
    MeanJob job = {PyArray_DATA(v), st, PyArray_DATA((PyArrayObject *)out)};
    Py_BEGIN_ALLOW_THREADS;
    split_range(mean_range, &job, e, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
done:
    Py_XDECREF(v);
    Py_XDECREF(u);
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* oks: exponents, numpy's exp and the means, a block of pairs at a time                      */
/* ---------------------------------------------------------------------------------------- */

#define BLOCK_PAIRS 1024 /* pairs per block: ~140 KB of values for COCO's 17 points */

static PyObject *np_exp; /* numpy.exp, taken at import */

typedef struct {
    ExpJob pairs;
    double *result; /* (E,) */
    int failed;     /* a buffer or np.exp failed in some thread (a plain store: any one's) */
} OksJob;

/* np.exp(v, out=v) of the n doubles at v, from a thread without the GIL: 0, else -1. */
static int exp_in_place(double *v, npy_intp n) {
    PyGILState_STATE gil = PyGILState_Ensure();
    int bad = -1;
    PyObject *a = PyArray_SimpleNewFromData(1, &n, NPY_FLOAT64, v);
    PyObject *r = a ? PyObject_CallFunctionObjArgs(np_exp, a, a, NULL) : NULL;
    if (r) bad = 0;
    else PyErr_Clear(); /* oks gives None: the caller's np.exp then says what it is */
    Py_XDECREF(r);
    Py_XDECREF(a);
    PyGILState_Release(gil);
    return bad;
}

static void oks_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    OksJob *j = (OksJob *)ctx;
    double *buf = malloc(sizeof(double) * BLOCK_PAIRS * (size_t)j->pairs.k);
    int64_t *start = malloc(sizeof(int64_t) * (BLOCK_PAIRS + 1));
    double two = TWO;
    if (!buf || !start) j->failed = 1;
    for (Py_ssize_t b = lo; b < hi && !j->failed; b += BLOCK_PAIRS) {
        Py_ssize_t n = hi - b < BLOCK_PAIRS ? hi - b : BLOCK_PAIRS;
        start[0] = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            start[i + 1] = start[i] + pair_exponents(&j->pairs, b + i, buf + start[i], two);
        if (exp_in_place(buf, (npy_intp)start[n])) {
            j->failed = 1;
            break;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t m = start[i + 1] - start[i];
            j->result[b + i] = numpy_sum(buf + start[i], m) / (double)m;
        }
    }
    free(buf);
    free(start);
}

static PyObject *py_oks(PyObject *self, PyObject *args) {
    (void)self;
    PyArrayObject *a[7] = {NULL};
    PyObject *out = NULL;
    OksJob job = {0};
    if (pairs_job(args, a, &job.pairs)) goto done;
    npy_intp od[1] = {PyArray_SIZE(a[5])};
    if (!(out = PyArray_SimpleNew(1, od, NPY_FLOAT64))) goto done;
    job.result = PyArray_DATA((PyArrayObject *)out);
    Py_BEGIN_ALLOW_THREADS;
    split_range(oks_range, &job, od[0], PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
    if (job.failed) {
        Py_DECREF(out);
        Py_INCREF(Py_None);
        out = Py_None;
    }
done:
    for (int i = 0; i < 7; i++) Py_XDECREF(a[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"exponents", py_exponents, METH_VARARGS,
     "exponents(det_kp (D, K, 3), gt_kp (G, K, 3), gt_box (G, 4), area_eps (G,), var (K,), "
     "ent_det (E,), ent_gt (E,)) -> (float64 -e of every pair's compared points, int64 (E + 1,) "
     "offsets)."},
    {"oks", py_oks, METH_VARARGS,
     "oks(det_kp, gt_kp, gt_box, area_eps, var, ent_det, ent_gt) -> float64 (E,) OKS of "
     "every pair (exponents, np.exp, mean_rows a block of pairs at a time), or None when "
     "np.exp failed (exponents + np.exp + mean_rows then say why)."},
    {"mean_rows", py_mean_rows, METH_VARARGS,
     "mean_rows(values, offsets (E + 1,)) -> float64 (E,): np.sum(v) / len(v) of each pair's."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_oks", "COCO keypoint OKS (computeOks), compiled.", -1, methods,
};

PyMODINIT_FUNC PyInit__oks(void) {
    import_array();
    PyObject *np = PyImport_ImportModule("numpy");
    np_exp = np ? PyObject_GetAttrString(np, "exp") : NULL; /* kept for the module's life */
    Py_XDECREF(np);
    if (!np_exp) return NULL;
    return PyModule_Create(&module);
}
