/* Re-deriving every class's view at another IoU threshold in one pass each, without the GIL
 * (the window's re-derive: ~500,000 ranks of 80 classes laid end to end):
 *
 *   needed(verdict, best_iou, min_overlap, fp)              evaluation/diagnosis_all: the ranks
 *                                                            whose diagnosis needs an overlap search
 *   diagnose(verdict, best_gt, best_iou, needed, col, best, iou, threshold, min_overlap, codes)
 *                                                            analysis.classify_false_positives' steps
 *   ranked(verdict, bounds, npos, tp, fp)                    views.ranked_evaluation's precision and
 *                                                            recall, class by class
 *   normalised_101(verdict, bounds, npos, n_pos, rt, tp, fp) normalised_ap.normalised_ap_101's
 *                                                            sampled envelope, (C, R)
 *
 * Each gives what its numpy path gives, bit for bit (the same IEEE operations in the same order;
 * built with -ffp-contract=off). The numpy paths stay beside them (VOCVIEWER_KERNEL=0).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static PyArrayObject *as_array(PyObject *obj, int type)
{
    return (PyArrayObject *)PyArray_FROMANY(obj, type, 0, 0, NPY_ARRAY_IN_ARRAY);
}

static PyObject *new_1d(npy_intp n, int type)
{
    return PyArray_SimpleNew(1, &n, type);
}

/* Ranks that are false positives without a measured overlap or with one below min_overlap. */
static PyObject *needed(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_iou;
    double min_overlap;
    int fp_code;
    if (!PyArg_ParseTuple(args, "OOdi", &a_v, &a_iou, &min_overlap, &fp_code))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *iou = as_array(a_iou, NPY_FLOAT64);
    PyObject *out = NULL;
    if (!v || !iou) goto done;
    npy_intp n = PyArray_SIZE(v), m = 0;
    if (PyArray_SIZE(iou) != n) {
        PyErr_SetString(PyExc_ValueError, "needed: verdict and best_iou differ in length");
        goto done;
    }
    const int8_t *vd = PyArray_DATA(v);
    const double *od = PyArray_DATA(iou);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < n; i++)
        m += vd[i] == fp_code && !(od[i] >= min_overlap); /* NaN: needed too */
    Py_END_ALLOW_THREADS
    if ((out = new_1d(m, NPY_INT64)) == NULL) goto done;
    int64_t *o = PyArray_DATA((PyArrayObject *)out);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0, j = 0; i < n; i++)
        if (vd[i] == fp_code && !(od[i] >= min_overlap)) o[j++] = i;
    Py_END_ALLOW_THREADS
done:
    Py_XDECREF(v); Py_XDECREF(iou);
    return out;
}

/* codes: int8 (fp, duplicate) verdicts; kinds: int8 (duplicate, localization, similar, other,
 * background). needed: ascending ranks, col[j] the row of needed[j] in best / iou (S, 3):
 * its best object and overlap of its own, a similar and any other class. */
static PyObject *diagnose(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_gt, *a_iou, *a_need, *a_col, *a_best, *a_biou, *a_codes, *a_kinds;
    double thr, min_overlap;
    int has_thr, in_place = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOdpdOO|p", &a_v, &a_gt, &a_iou, &a_need, &a_col, &a_best,
                          &a_biou, &thr, &has_thr, &min_overlap, &a_codes, &a_kinds, &in_place))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *gt = as_array(a_gt, NPY_INT64);
    PyArrayObject *iou = as_array(a_iou, NPY_FLOAT64), *need = as_array(a_need, NPY_INT64);
    PyArrayObject *col = as_array(a_col, NPY_INT32), *best = as_array(a_best, NPY_INT64);
    PyArrayObject *biou = as_array(a_biou, NPY_FLOAT64), *codes = as_array(a_codes, NPY_INT8);
    PyArrayObject *kinds = as_array(a_kinds, NPY_INT8);
    PyObject *kind = NULL, *conf = NULL, *conf_iou = NULL, *sgt = NULL, *siou = NULL, *out = NULL;
    if (!v || !gt || !iou || !need || !col || !best || !biou || !codes || !kinds) goto done;
    npy_intp n = PyArray_SIZE(v), m = PyArray_SIZE(need), s = PyArray_SIZE(best) / 3;
    if (PyArray_SIZE(gt) != n || PyArray_SIZE(iou) != n || PyArray_SIZE(col) != m
        || PyArray_SIZE(best) != 3 * s || PyArray_SIZE(biou) != 3 * s || PyArray_SIZE(codes) != 2
        || PyArray_SIZE(kinds) != 5) {
        PyErr_SetString(PyExc_ValueError, "diagnose: inconsistent shapes");
        goto done;
    }
    kind = new_1d(n, NPY_INT8), conf = new_1d(n, NPY_INT64), conf_iou = new_1d(n, NPY_FLOAT64);
    if (in_place) { /* same_gt, same_iou written over best_gt, best_iou (the caller's own) */
        if ((PyObject *)gt != a_gt || (PyObject *)iou != a_iou || !PyArray_ISWRITEABLE(gt)
            || !PyArray_ISWRITEABLE(iou)) {
            PyErr_SetString(PyExc_ValueError, "diagnose: in_place needs writable int64 best_gt "
                                              "and float64 best_iou, contiguous");
            goto done;
        }
        sgt = a_gt, siou = a_iou;
        Py_INCREF(sgt), Py_INCREF(siou);
    } else {
        sgt = new_1d(n, NPY_INT64), siou = new_1d(n, NPY_FLOAT64);
    }
    if (!kind || !conf || !conf_iou || !sgt || !siou) goto done;
    const int8_t *vd = PyArray_DATA(v), *cd = PyArray_DATA(codes), *kd = PyArray_DATA(kinds);
    const int64_t *gd = PyArray_DATA(gt), *nd = PyArray_DATA(need);
    const int32_t *cl = PyArray_DATA(col);
    const int64_t *bb = PyArray_DATA(best);
    const double *od = PyArray_DATA(iou), *bi = PyArray_DATA(biou);
    int8_t *ko = PyArray_DATA((PyArrayObject *)kind);
    int64_t *co = PyArray_DATA((PyArrayObject *)conf), *go = PyArray_DATA((PyArrayObject *)sgt);
    double *cio = PyArray_DATA((PyArrayObject *)conf_iou);
    double *io = PyArray_DATA((PyArrayObject *)siou);
    const int8_t FP = cd[0], DUP = cd[1];
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    npy_intp j = 0;
    for (npy_intp i = 0; i < n && !bad; i++) {
        int fp = vd[i] == FP;
        int64_t g = gd[i], c = -1;
        double o = od[i];
        while (j < m && nd[j] < i) j++;
        int is_needed = j < m && nd[j] == i;
        if (is_needed) {
            c = cl[j];
            if (c < 0 || c >= s) { bad = 1; break; }
            if (fp && isnan(o)) { g = bb[3 * c]; o = bi[3 * c]; }
        }
        go[i] = g, io[i] = o, co[i] = -1, cio[i] = NAN, ko[i] = 0;
        int dup = vd[i] == DUP || (has_thr && fp && o >= thr);
        if (dup) { ko[i] = kd[0]; continue; }
        if (!fp) continue;
        if (o >= min_overlap) { ko[i] = kd[1]; continue; }
        ko[i] = kd[4];
        if (!is_needed) { bad = 2; break; }
        for (int w = 1; w < 3; w++) {
            int64_t b = bb[3 * c + w];
            double ov = bi[3 * c + w];
            if (b >= 0 && ov >= min_overlap) { ko[i] = kd[1 + w]; co[i] = b; cio[i] = ov; break; }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad == 1 ? "diagnose: a column out of range"
                                                   : "diagnose: a false positive not in needed");
        goto done;
    }
    out = Py_BuildValue("(OOOOO)", kind, conf, conf_iou, sgt, siou);
done:
    Py_XDECREF(v); Py_XDECREF(gt); Py_XDECREF(iou); Py_XDECREF(need); Py_XDECREF(col);
    Py_XDECREF(best); Py_XDECREF(biou); Py_XDECREF(codes); Py_XDECREF(kinds);
    Py_XDECREF(kind); Py_XDECREF(conf); Py_XDECREF(conf_iou); Py_XDECREF(sgt); Py_XDECREF(siou);
    return out;
}

/* pair_overlaps._looked_up's first steps: for each of rows (int64 (M,), detection rows) the
 * slot it was kept in (slot int32 (N,) by row, -1: none) and whether that slot's key (key
 * int32 (S,)) is want[cls[i]] (want int32 (C,), cls int64 (M,)). Returns col int32 (M,) (the
 * slot, -1: none), fresh int64 (positions of rows never searched) and other int64 (positions
 * of rows kept under another key). */
static PyObject *lookup(PyObject *self, PyObject *args)
{
    PyObject *a_slot, *a_key, *a_rows, *a_cls, *a_want, *a_at = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOO|O", &a_slot, &a_key, &a_rows, &a_cls, &a_want, &a_at))
        return NULL;
    PyArrayObject *slot = as_array(a_slot, NPY_INT32), *key = as_array(a_key, NPY_INT32);
    PyArrayObject *rows = as_array(a_rows, NPY_INT64), *cls = as_array(a_cls, NPY_INT64);
    PyArrayObject *want = as_array(a_want, NPY_INT32);
    PyArrayObject *at = a_at == Py_None ? NULL : as_array(a_at, NPY_INT64);
    PyObject *col = NULL, *fresh = NULL, *other = NULL, *out = NULL;
    if (!slot || !key || !rows || !cls || !want || (a_at != Py_None && !at)) goto done;
    npy_intp n = PyArray_SIZE(slot), s = PyArray_SIZE(key), m_all = PyArray_SIZE(rows);
    npy_intp c = PyArray_SIZE(want), m = at ? PyArray_SIZE(at) : m_all;
    if (PyArray_SIZE(cls) != m_all) {
        PyErr_SetString(PyExc_ValueError, "lookup: rows and cls differ in length");
        goto done;
    }
    const int64_t *ap = at ? PyArray_DATA(at) : NULL;
    if (!(col = new_1d(m, NPY_INT32))) goto done;
    const int32_t *sl = PyArray_DATA(slot), *ky = PyArray_DATA(key), *wt = PyArray_DATA(want);
    const int64_t *rw = PyArray_DATA(rows), *cl = PyArray_DATA(cls);
    int32_t *co = PyArray_DATA((PyArrayObject *)col);
    npy_intp n_fresh = 0, n_other = 0;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < m; i++) {
        int64_t p = ap ? ap[i] : i;
        if (p < 0 || p >= m_all) { bad = 1; break; }
        int64_t r = rw[p], k = cl[p];
        if (r < 0 || r >= n || k < 0 || k >= c) { bad = 1; break; }
        int32_t t = sl[r];
        if (t >= s) { bad = 1; break; }
        co[i] = t;
        if (t < 0) n_fresh++;
        else if (ky[t] != wt[k]) n_other++;
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "lookup: a row, class or slot out of range");
        goto done;
    }
    if (!(fresh = new_1d(n_fresh, NPY_INT64)) || !(other = new_1d(n_other, NPY_INT64))) goto done;
    int64_t *fo = PyArray_DATA((PyArrayObject *)fresh), *oo = PyArray_DATA((PyArrayObject *)other);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0, f = 0, o = 0; i < m; i++) {
        int32_t t = co[i];
        if (t < 0) fo[f++] = i;
        else if (ky[t] != wt[cl[ap ? ap[i] : i]]) oo[o++] = i;
    }
    Py_END_ALLOW_THREADS
    out = Py_BuildValue("(OOO)", col, fresh, other);
done:
    Py_XDECREF(slot); Py_XDECREF(key); Py_XDECREF(rows); Py_XDECREF(cls); Py_XDECREF(want);
    Py_XDECREF(at); Py_XDECREF(col); Py_XDECREF(fresh); Py_XDECREF(other);
    return out;
}

/* Checks bounds (C + 1,) ascending from 0 to n. */
static int good_bounds(const int64_t *b, npy_intp nb, npy_intp n)
{
    if (nb < 1 || b[0] != 0 || b[nb - 1] != n) return 0;
    for (npy_intp k = 1; k < nb; k++)
        if (b[k] < b[k - 1]) return 0;
    return 1;
}

/* Per class k (ranks bounds[k] .. bounds[k + 1]): precision tp / max(tp + fp, 1) where
 * tp + fp > 0 (else NaN), recall tp / npos[k] where npos[k] > 0 (else NaN); tp, fp: running
 * counts of verdicts == tp_code, == fp_code. */
static PyObject *ranked(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_b, *a_npos;
    int tp_code, fp_code;
    if (!PyArg_ParseTuple(args, "OOOii", &a_v, &a_b, &a_npos, &tp_code, &fp_code))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *b = as_array(a_b, NPY_INT64);
    PyArrayObject *np_ = as_array(a_npos, NPY_FLOAT64);
    PyObject *prec = NULL, *rec = NULL, *out = NULL;
    if (!v || !b || !np_) goto done;
    npy_intp n = PyArray_SIZE(v), nb = PyArray_SIZE(b);
    const int64_t *bd = PyArray_DATA(b);
    if (PyArray_SIZE(np_) != nb - 1 || !good_bounds(bd, nb, n)) {
        PyErr_SetString(PyExc_ValueError, "ranked: bounds and npos do not fit the verdicts");
        goto done;
    }
    if (!(prec = new_1d(n, NPY_FLOAT64)) || !(rec = new_1d(n, NPY_FLOAT64))) goto done;
    const int8_t *vd = PyArray_DATA(v);
    const double *pos = PyArray_DATA(np_);
    double *po = PyArray_DATA((PyArrayObject *)prec), *ro = PyArray_DATA((PyArrayObject *)rec);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp k = 0; k + 1 < nb; k++) {
        int64_t tp = 0, fp = 0;
        double npos = pos[k];
        for (int64_t i = bd[k]; i < bd[k + 1]; i++) {
            tp += vd[i] == tp_code;
            fp += vd[i] == fp_code;
            double t = (double)tp, s = t + (double)fp;
            po[i] = s > 0 ? t / (s > 1.0 ? s : 1.0) : NAN;
            ro[i] = npos > 0 ? t / npos : NAN;
        }
    }
    Py_END_ALLOW_THREADS
    out = Py_BuildValue("(OO)", prec, rec);
done:
    Py_XDECREF(v); Py_XDECREF(b); Py_XDECREF(np_); Py_XDECREF(prec); Py_XDECREF(rec);
    return out;
}

/* Per class k with npos[k] > 0 and ranks: eq. 6 (rec = ctp / npos, prec = rec n_pos /
 * (rec n_pos + cfp); ctp, cfp counts of verdicts == tp_code, >= fp_code), NaN as 0, made
 * non-increasing from the right and sampled at the first rank with rec >= rt[r] (0 past the
 * last): q float64 (C, R) (rows of other classes: 0). */
static PyObject *normalised_101(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_b, *a_npos, *a_rt;
    double n_pos;
    int tp_code, fp_code;
    if (!PyArg_ParseTuple(args, "OOOdOii", &a_v, &a_b, &a_npos, &n_pos, &a_rt, &tp_code,
                          &fp_code))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *b = as_array(a_b, NPY_INT64);
    PyArrayObject *np_ = as_array(a_npos, NPY_FLOAT64), *rt = as_array(a_rt, NPY_FLOAT64);
    PyObject *q = NULL;
    double *env = NULL, *rec = NULL;
    if (!v || !b || !np_ || !rt) goto done;
    npy_intp n = PyArray_SIZE(v), nb = PyArray_SIZE(b), r = PyArray_SIZE(rt);
    const int64_t *bd = PyArray_DATA(b);
    if (PyArray_SIZE(np_) != nb - 1 || !good_bounds(bd, nb, n)) {
        PyErr_SetString(PyExc_ValueError, "normalised_101: bounds and npos do not fit");
        goto done;
    }
    npy_intp dims[2] = {nb - 1, r};
    if (!(q = PyArray_ZEROS(2, dims, NPY_FLOAT64, 0))) goto done;
    env = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    rec = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!env || !rec) { PyErr_NoMemory(); Py_CLEAR(q); goto done; }
    const int8_t *vd = PyArray_DATA(v);
    const double *pos = PyArray_DATA(np_), *th = PyArray_DATA(rt);
    double *qo = PyArray_DATA((PyArrayObject *)q);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp k = 0; k + 1 < nb; k++) {
        int64_t lo = bd[k], hi = bd[k + 1];
        if (!(pos[k] != 0) || hi == lo) continue; /* NaN / 0 rows: the caller's */
        double ctp = 0, cfp = 0;
        for (int64_t i = lo; i < hi; i++) {
            ctp += vd[i] == tp_code;
            cfp += vd[i] >= fp_code;
            double re = ctp / pos[k], num = re * n_pos, p = num / (num + cfp);
            rec[i] = re;
            env[i] = isnan(p) ? 0.0 : isinf(p) ? (p > 0 ? DBL_MAX : -DBL_MAX) : p;
        }
        for (int64_t i = hi - 2; i >= lo; i--)
            if (env[i + 1] > env[i]) env[i] = env[i + 1]; /* no NaN left */
        int64_t at = lo; /* searchsorted(rec, rt, "left"): rec is non-decreasing */
        for (npy_intp t = 0; t < r; t++) {
            while (at < hi && rec[at] < th[t]) at++;
            qo[k * r + t] = at < hi ? env[at] : 0.0;
        }
    }
    Py_END_ALLOW_THREADS
done:
    free(env); free(rec);
    Py_XDECREF(v); Py_XDECREF(b); Py_XDECREF(np_); Py_XDECREF(rt);
    return q;
}

static PyMethodDef methods[] = {
    {"needed", needed, METH_VARARGS,
     "needed(verdict int8, best_iou float64, min_overlap, fp_code) -> int64 ranks\n"
     "\n"
     "Ranks with verdict fp_code whose best_iou is NaN or below min_overlap."},
    {"diagnose", diagnose, METH_VARARGS,
     "diagnose(verdict, best_gt, best_iou, needed, col int32, best (S, 3), iou (S, 3), threshold,\n"
     "         has_threshold, min_overlap, codes int8 (fp, duplicate),\n"
     "         kinds int8 (duplicate, localization, similar, other, background)[, in_place])\n"
     "    -> (kind, confused_gt, confused_iou, same_gt, same_iou)\n"
     "\n"
     "analysis.classify_false_positives over ranks laid end to end (in_place: same_gt and\n"
     "same_iou written over best_gt and best_iou, which are returned); needed ranks' overlap\n"
     "searches are rows col of best / iou (columns: same, similar, other class)."},
    {"lookup", lookup, METH_VARARGS,
     "lookup(slot int32 (N,), key int32 (S,), rows int64, cls int64, want int32 (C,)[, at])\n"
     "    -> (col int32, fresh int64, other int64)\n"
     "\n"
     "Each row's slot, the positions of rows not kept yet and of rows kept under another key\n"
     "(at int64: only rows[at], positions among them)."},
    {"ranked", ranked, METH_VARARGS,
     "ranked(verdict int8, bounds int64 (C + 1,), npos float64 (C,), tp_code, fp_code)\n"
     "    -> (precision, recall)\n"
     "\n"
     "views.ranked_evaluation's precision and recall of each class's ranks."},
    {"normalised_101", normalised_101, METH_VARARGS,
     "normalised_101(verdict, bounds, npos, n_pos, rt, tp_code, fp_code) -> q (C, R)\n"
     "\n"
     "normalised_ap.normalised_ap_101's sampled envelope per class (its mean is the AP_N)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_diagnose",
    "Every class re-derived at another IoU threshold in one pass (see _diagnose.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__diagnose(void)
{
    import_array();
    return PyModule_Create(&module);
}
