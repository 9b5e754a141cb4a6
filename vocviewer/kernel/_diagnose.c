/* Re-deriving every class's view at another IoU threshold in one pass each, without the GIL
 * (the window's re-derive: ~500,000 ranks of 80 classes laid end to end):
 *
 *   needed(verdict, best_iou, min_overlap, fp)              evaluation/diagnosis_all: the ranks
 *                                                            whose diagnosis needs an overlap search
 *   diagnose(verdict, best_gt, best_iou, needed, col, best, iou, threshold, min_overlap, codes)
 *                                                            analysis.classify_false_positives' steps
 *                                                            (needed None: found in the same pass)
 *   ranked(verdict, bounds, npos, tp, fp)                    views.ranked_evaluation's precision and
 *                                                            recall, class by class
 *   normalised_101(verdict, bounds, npos, n_pos, rt, tp, fp) normalised_ap.normalised_ap_101's
 *                                                            sampled envelope, (C, R)
 *   polylines(recalls, precisions)                          result.pr_polyline of each class
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
#include <stdatomic.h>
#include <string.h>

#include "_threads.h" /* thread_count, MAX_THREADS */

/* (its even split_range is not used here: split_taken) */
static void split_range(RangeWork, void *, Py_ssize_t, Py_ssize_t) __attribute__((unused));

/* ranks a thread is worth starting for (diagnose, normalised_101) */
#define RANKS_PER_THREAD 100000
/* pieces per thread the work is cut into (split_taken) */
#define PIECES_PER_THREAD 4

/* split_taken's state: the next piece not taken yet, shared by the threads. */
typedef struct {
    RangeWork work;
    void *ctx;
    Py_ssize_t n, piece;
    atomic_llong next;
} TakenJob;

static void *take_pieces(void *arg)
{
    TakenJob *j = (TakenJob *)arg;
    for (;;) {
        Py_ssize_t lo = (Py_ssize_t)atomic_fetch_add(&j->next, (long long)j->piece);
        if (lo >= j->n) return NULL;
        j->work(j->ctx, lo, lo + j->piece < j->n ? lo + j->piece : j->n);
    }
}

/* `work(ctx, lo, hi)` over [0, n) cut into PIECES_PER_THREAD pieces per thread of
 * thread_count(n, per_thread), each piece taken by whichever thread is free: this one takes
 * pieces until none is left, so a thread the machine starts late (a loaded machine) takes
 * fewer or none instead of being waited for. The pieces are disjoint; which thread ran one
 * never changes what it wrote. */
static void split_taken(RangeWork work, void *ctx, Py_ssize_t n, Py_ssize_t per_thread)
{
    int k = thread_count(n, per_thread);
    Py_ssize_t pieces = (Py_ssize_t)k * PIECES_PER_THREAD;
    TakenJob job = {work, ctx, n, n / pieces + (n % pieces != 0), 0};
    if (job.piece < 1) job.piece = 1;
    pthread_t threads[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < k; t++)
        started[t] = pthread_create(&threads[t], NULL, take_pieces, &job) == 0;
    take_pieces(&job);
    for (int t = 1; t < k; t++)
        if (started[t]) pthread_join(threads[t], NULL);
}

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

/* diagnose's work over ranks [lo, hi) (a thread's share; shares are disjoint). */
typedef struct {
    const int8_t *vd;
    const int64_t *gd, *nd;
    const int32_t *cl;
    const int64_t *bb;
    const double *od, *bi;
    int8_t *ko;
    int64_t *co, *go;
    double *cio, *io;
    npy_intp m, s;
    int8_t fp_code, dup_code, kd[5];
    int has_thr;
    double thr, min_overlap;
    volatile int bad; /* 1: a column out of range, 2: a false positive not in needed */
} DiagnoseJob;

static void diagnose_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi)
{
    DiagnoseJob *d = (DiagnoseJob *)ctx;
    const int8_t *vd = d->vd, *kd = d->kd;
    const int64_t *gd = d->gd, *nd = d->nd, *bb = d->bb;
    const int32_t *cl = d->cl;
    const double *od = d->od, *bi = d->bi;
    int8_t *ko = d->ko;
    int64_t *co = d->co, *go = d->go;
    double *cio = d->cio, *io = d->io;
    const npy_intp m = d->m, s = d->s;
    const int8_t FP = d->fp_code, DUP = d->dup_code;
    const int has_thr = d->has_thr;
    const double thr = d->thr, min_overlap = d->min_overlap;
    npy_intp a = 0, b = m; /* the first needed rank >= lo (needed ascends) */
    while (nd && a < b) {
        npy_intp mid = a + (b - a) / 2;
        if (nd[mid] < lo) a = mid + 1;
        else b = mid;
    }
    npy_intp j = a;
    int bad = 0;
    for (npy_intp i = lo; i < hi && !bad; i++) {
        int fp = vd[i] == FP;
        int64_t g = gd[i], c = -1;
        double o = od[i];
        int is_needed;
        if (nd) { /* the ranks needed, given */
            while (j < m && nd[j] < i) j++;
            is_needed = j < m && nd[j] == i;
        } else /* every rank's column given: those `needed` would give */
            is_needed = fp && !(o >= min_overlap);
        if (is_needed) {
            c = cl[nd ? j : i];
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
            int64_t bw = bb[3 * c + w];
            double ov = bi[3 * c + w];
            if (bw >= 0 && ov >= min_overlap) { ko[i] = kd[1 + w]; co[i] = bw; cio[i] = ov; break; }
        }
    }
    if (bad) d->bad = bad;
}

/* codes: int8 (fp, duplicate) verdicts; kinds: int8 (duplicate, localization, similar, other,
 * background). needed: ascending ranks, col[j] the row of needed[j] in best / iou (S, 3):
 * its best object and overlap of its own, a similar and any other class; needed None: col
 * (N,) gives every rank's row, and the ranks needed are those `needed` gives (in one pass). */
static PyObject *diagnose(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_gt, *a_iou, *a_need, *a_col, *a_best, *a_biou, *a_codes, *a_kinds;
    double thr, min_overlap;
    int has_thr, in_place = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOdpdOO|p", &a_v, &a_gt, &a_iou, &a_need, &a_col, &a_best,
                          &a_biou, &thr, &has_thr, &min_overlap, &a_codes, &a_kinds, &in_place))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *gt = as_array(a_gt, NPY_INT64);
    PyArrayObject *iou = as_array(a_iou, NPY_FLOAT64);
    PyArrayObject *need = a_need == Py_None ? NULL : as_array(a_need, NPY_INT64);
    PyArrayObject *col = as_array(a_col, NPY_INT32), *best = as_array(a_best, NPY_INT64);
    PyArrayObject *biou = as_array(a_biou, NPY_FLOAT64), *codes = as_array(a_codes, NPY_INT8);
    PyArrayObject *kinds = as_array(a_kinds, NPY_INT8);
    PyObject *kind = NULL, *conf = NULL, *conf_iou = NULL, *sgt = NULL, *siou = NULL, *out = NULL;
    if (!v || !gt || !iou || (a_need != Py_None && !need) || !col || !best || !biou || !codes || !kinds) goto done;
    npy_intp n = PyArray_SIZE(v), m = need ? PyArray_SIZE(need) : n, s = PyArray_SIZE(best) / 3;
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
    const int64_t *gd = PyArray_DATA(gt), *nd = need ? PyArray_DATA(need) : NULL;
    const int32_t *cl = PyArray_DATA(col);
    const int64_t *bb = PyArray_DATA(best);
    const double *od = PyArray_DATA(iou), *bi = PyArray_DATA(biou);
    int8_t *ko = PyArray_DATA((PyArrayObject *)kind);
    int64_t *co = PyArray_DATA((PyArrayObject *)conf), *go = PyArray_DATA((PyArrayObject *)sgt);
    double *cio = PyArray_DATA((PyArrayObject *)conf_iou);
    double *io = PyArray_DATA((PyArrayObject *)siou);
    DiagnoseJob job = {vd, gd, nd, cl, bb, od, bi, ko, co, go, cio, io, m, s, cd[0], cd[1],
                       {kd[0], kd[1], kd[2], kd[3], kd[4]}, has_thr, thr, min_overlap, 0};
    Py_BEGIN_ALLOW_THREADS
    split_taken(diagnose_range, &job, n, RANKS_PER_THREAD);
    Py_END_ALLOW_THREADS
    int bad = job.bad;
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

/* The classes [*k0, *k1) of share t of `shares` equal shares of the n ranks (bounds bd, C + 1):
 * those whose first rank lies in it (whole classes, so each class's running sums run in one
 * thread, in the order one thread runs them); the last share takes the rest. */
static void share_classes(const int64_t *bd, npy_intp classes, int64_t n, Py_ssize_t shares,
                          Py_ssize_t t, npy_intp *k0, npy_intp *k1)
{
    int64_t from = (int64_t)(n * t / shares), to = (int64_t)(n * (t + 1) / shares);
    npy_intp a = 0, b;
    while (a < classes && bd[a] < from) a++;
    for (b = a; b < classes && (t + 1 == shares || bd[b] < to); b++) {}
    *k0 = a, *k1 = b;
}

/* pr_polyline of one class (n points): the finite points not inside a run of equal recall,
 * counted (xo NULL) or written to xo, yo; returns how many. A point is inside where the finite
 * points before and after it have its recall (so fewer than 3 finite points: all kept). */
static npy_intp polyline_walk(const double *rd, const double *pd, npy_intp n, double *xo,
                              double *yo)
{
    npy_intp kept = 0, prev = -1, cur = -1;
    for (npy_intp i = 0; i <= n; i++) {
        npy_intp next = -1;
        if (i < n) {
            if (!(isfinite(rd[i]) && isfinite(pd[i]))) continue;
            next = i;
        }
        if (cur >= 0) {
            int inside = prev >= 0 && next >= 0 && rd[cur] == rd[prev] && rd[cur] == rd[next];
            if (!inside) {
                if (xo) xo[kept] = rd[cur], yo[kept] = pd[cur];
                kept++;
            }
        }
        prev = cur, cur = next;
    }
    return kept;
}

/* ranked's work: the classes of a share of the ranks (share_classes). */
typedef struct {
    const int8_t *vd;
    const int64_t *bd;
    const double *pos;
    double *po, *ro;
    npy_intp classes, n;
    int tp_code, fp_code;
    Py_ssize_t shares;
    double *xs, *ys; /* (lines) class k's polyline at its ranks' offsets, NULL: none */
    npy_intp *kept;  /* (lines) its number of points */
} RankedJob;

static void ranked_classes(void *ctx, Py_ssize_t t0, Py_ssize_t t1)
{
    const RankedJob *j = (const RankedJob *)ctx;
    const int8_t *vd = j->vd;
    const int64_t *bd = j->bd;
    for (Py_ssize_t t = t0; t < t1; t++) {
        npy_intp k0, k1;
        share_classes(bd, j->classes, j->n, j->shares, t, &k0, &k1);
        for (npy_intp k = k0; k < k1; k++) {
            int64_t tp = 0, fp = 0;
            double npos = j->pos[k];
            for (int64_t i = bd[k]; i < bd[k + 1]; i++) {
                tp += vd[i] == j->tp_code;
                fp += vd[i] == j->fp_code;
                double tt = (double)tp, s = tt + (double)fp;
                j->po[i] = s > 0 ? tt / (s > 1.0 ? s : 1.0) : NAN;
                j->ro[i] = npos > 0 ? tt / npos : NAN;
            }
            if (j->xs) { /* (its ranks just written: read again from the cache) */
                int64_t lo = bd[k];
                j->kept[k] = polyline_walk(j->ro + lo, j->po + lo, bd[k + 1] - lo, j->xs + lo,
                                           j->ys + lo);
            }
        }
    }
}

/* Per class k (ranks bounds[k] .. bounds[k + 1]): precision tp / max(tp + fp, 1) where
 * tp + fp > 0 (else NaN), recall tp / npos[k] where npos[k] > 0 (else NaN); tp, fp: running
 * counts of verdicts == tp_code, == fp_code. lines: each class's polyline too (polylines'). */
static PyObject *ranked(PyObject *self, PyObject *args)
{
    PyObject *a_v, *a_b, *a_npos;
    int tp_code, fp_code, lines = 0;
    if (!PyArg_ParseTuple(args, "OOOii|p", &a_v, &a_b, &a_npos, &tp_code, &fp_code, &lines))
        return NULL;
    PyArrayObject *v = as_array(a_v, NPY_INT8), *b = as_array(a_b, NPY_INT64);
    PyArrayObject *np_ = as_array(a_npos, NPY_FLOAT64);
    PyObject *prec = NULL, *rec = NULL, *out = NULL, *list = NULL;
    double *xs = NULL, *ys = NULL;
    npy_intp *kept = NULL;
    if (!v || !b || !np_) goto done;
    npy_intp n = PyArray_SIZE(v), nb = PyArray_SIZE(b);
    const int64_t *bd = PyArray_DATA(b);
    if (PyArray_SIZE(np_) != nb - 1 || !good_bounds(bd, nb, n)) {
        PyErr_SetString(PyExc_ValueError, "ranked: bounds and npos do not fit the verdicts");
        goto done;
    }
    if (!(prec = new_1d(n, NPY_FLOAT64)) || !(rec = new_1d(n, NPY_FLOAT64))) goto done;
    if (lines) { /* (only the pages of the points kept are touched) */
        xs = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        ys = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        kept = calloc((size_t)nb, sizeof(npy_intp));
        if (!xs || !ys || !kept) { PyErr_NoMemory(); goto done; }
    }
    RankedJob job = {PyArray_DATA(v), bd, PyArray_DATA(np_), PyArray_DATA((PyArrayObject *)prec),
                     PyArray_DATA((PyArrayObject *)rec), nb - 1, n, tp_code, fp_code, 1, xs, ys,
                     kept};
    job.shares = (Py_ssize_t)thread_count(n, RANKS_PER_THREAD) * PIECES_PER_THREAD;
    Py_BEGIN_ALLOW_THREADS
    split_taken(ranked_classes, &job, job.shares, PIECES_PER_THREAD);
    Py_END_ALLOW_THREADS
    if (!lines) {
        out = Py_BuildValue("(OO)", prec, rec);
        goto done;
    }
    if (!(list = PyList_New(nb - 1))) goto done;
    for (npy_intp k = 0; k < nb - 1; k++) {
        PyObject *x = new_1d(kept[k], NPY_FLOAT64), *y = x ? new_1d(kept[k], NPY_FLOAT64) : NULL;
        PyObject *pair = y ? PyTuple_Pack(2, x, y) : NULL;
        if (pair) {
            size_t bytes = sizeof(double) * (size_t)kept[k];
            memcpy(PyArray_DATA((PyArrayObject *)x), xs + bd[k], bytes);
            memcpy(PyArray_DATA((PyArrayObject *)y), ys + bd[k], bytes);
        }
        Py_XDECREF(x); Py_XDECREF(y);
        if (!pair) goto done;
        PyList_SET_ITEM(list, k, pair);
    }
    out = Py_BuildValue("(OOO)", prec, rec, list);
done:
    Py_XDECREF(v); Py_XDECREF(b); Py_XDECREF(np_); Py_XDECREF(prec); Py_XDECREF(rec);
    Py_XDECREF(list);
    free(xs); free(ys); free(kept);
    return out;
}

/* normalised_101's work: the classes of a share of the ranks (share_classes), with buffers the
 * size of the largest of them. */
typedef struct {
    const int8_t *vd;
    const int64_t *bd;
    const double *pos, *th;
    double n_pos;
    npy_intp r, classes, n;
    int tp_code, fp_code;
    double *qo;
    Py_ssize_t shares;
    volatile int no_memory;
} Norm101Job;

/* Class k's row of q; env, rec: buffers of at least its ranks. */
static void normalised_class(const Norm101Job *j, npy_intp k, double *env, double *rec)
{
    const int8_t *vd = j->vd;
    const double *pos = j->pos, *th = j->th;
    int64_t lo = j->bd[k], hi = j->bd[k + 1];
    if (!(pos[k] != 0) || hi == lo) return; /* NaN / 0 rows: the caller's */
    env -= lo, rec -= lo;                   /* indexed by rank */
    double ctp = 0, cfp = 0;
    for (int64_t i = lo; i < hi; i++) {
        ctp += vd[i] == j->tp_code;
        cfp += vd[i] >= j->fp_code;
        double re = ctp / pos[k], num = re * j->n_pos, p = num / (num + cfp);
        rec[i] = re;
        env[i] = isnan(p) ? 0.0 : isinf(p) ? (p > 0 ? DBL_MAX : -DBL_MAX) : p;
    }
    for (int64_t i = hi - 2; i >= lo; i--)
        if (env[i + 1] > env[i]) env[i] = env[i + 1]; /* no NaN left */
    int64_t at = lo; /* searchsorted(rec, rt, "left"): rec is non-decreasing */
    for (npy_intp t = 0; t < j->r; t++) {
        while (at < hi && rec[at] < th[t]) at++;
        j->qo[k * j->r + t] = at < hi ? env[at] : 0.0;
    }
}

static void normalised_classes(void *ctx, Py_ssize_t t0, Py_ssize_t t1)
{
    Norm101Job *j = (Norm101Job *)ctx;
    const int64_t *bd = j->bd;
    for (Py_ssize_t t = t0; t < t1; t++) {
        npy_intp k0, k1;
        share_classes(bd, j->classes, j->n, j->shares, t, &k0, &k1);
        int64_t most = 1;
        for (npy_intp k = k0; k < k1; k++)
            if (bd[k + 1] - bd[k] > most) most = bd[k + 1] - bd[k];
        double *env = malloc(sizeof(double) * (size_t)most);
        double *rec = malloc(sizeof(double) * (size_t)most);
        if (!env || !rec) j->no_memory = 1;
        else
            for (npy_intp k = k0; k < k1; k++) normalised_class(j, k, env, rec);
        free(env);
        free(rec);
    }
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
    if (!v || !b || !np_ || !rt) goto done;
    npy_intp n = PyArray_SIZE(v), nb = PyArray_SIZE(b), r = PyArray_SIZE(rt);
    const int64_t *bd = PyArray_DATA(b);
    if (PyArray_SIZE(np_) != nb - 1 || !good_bounds(bd, nb, n)) {
        PyErr_SetString(PyExc_ValueError, "normalised_101: bounds and npos do not fit");
        goto done;
    }
    npy_intp dims[2] = {nb - 1, r};
    if (!(q = PyArray_ZEROS(2, dims, NPY_FLOAT64, 0))) goto done;
    Norm101Job job = {PyArray_DATA(v), bd, PyArray_DATA(np_), PyArray_DATA(rt), n_pos, r,
                      nb - 1, n, tp_code, fp_code, PyArray_DATA((PyArrayObject *)q), 1, 0};
    job.shares = (Py_ssize_t)thread_count(n, RANKS_PER_THREAD) * PIECES_PER_THREAD;
    Py_BEGIN_ALLOW_THREADS
    split_taken(normalised_classes, &job, job.shares, PIECES_PER_THREAD);
    Py_END_ALLOW_THREADS
    if (job.no_memory) { PyErr_NoMemory(); Py_CLEAR(q); }
done:
    Py_XDECREF(v); Py_XDECREF(b); Py_XDECREF(np_); Py_XDECREF(rt);
    return q;
}

/* polylines' work over classes [lo, hi): counted (xo NULL) or written. */
typedef struct {
    const double **rd, **pd;
    const npy_intp *n;
    npy_intp *kept;
    double **xo, **yo;
} PolylineJob;

static void polylines_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi)
{
    PolylineJob *j = (PolylineJob *)ctx;
    for (Py_ssize_t k = lo; k < hi; k++)
        j->kept[k] = polyline_walk(j->rd[k], j->pd[k], j->n[k], j->xo ? j->xo[k] : NULL,
                                   j->xo ? j->yo[k] : NULL);
}

/* evaluation.result.pr_polyline of each class: of its finite (recall, precision) points, those
 * not inside a run of equal recall (a run's first and last draw the same vertical segment).
 * Counted, then written, without the GIL, classes shared among threads. */
static PyObject *polylines(PyObject *self, PyObject *args)
{
    PyObject *a_rec, *a_prec;
    if (!PyArg_ParseTuple(args, "OO", &a_rec, &a_prec)) return NULL;
    PyObject *recs = PySequence_Fast(a_rec, "polylines: recalls must be a sequence");
    PyObject *precs = recs ? PySequence_Fast(a_prec, "polylines: precisions must be a sequence") : NULL;
    PyObject *out = NULL, **held = NULL;
    void **mem = NULL;
    Py_ssize_t c = 0;
    npy_intp total = 0; /* ranks */
    if (!recs || !precs) goto done;
    c = PySequence_Fast_GET_SIZE(recs);
    if (PySequence_Fast_GET_SIZE(precs) != c) {
        PyErr_SetString(PyExc_ValueError, "polylines: as many recalls as precisions");
        goto done;
    }
    /* held: 2c input arrays, then 2c outputs; mem: rd, pd, xo, yo (c each), n, kept (c each) */
    held = calloc((size_t)(4 * c + 1), sizeof(PyObject *));
    mem = calloc((size_t)(6 * c + 1), sizeof(void *));
    if (!held || !mem) { PyErr_NoMemory(); goto done; }
    const double **rd = (const double **)mem, **pd = (const double **)mem + c;
    double **xo = (double **)mem + 2 * c, **yo = (double **)mem + 3 * c;
    npy_intp *n = (npy_intp *)(mem + 4 * c), *kept = (npy_intp *)(mem + 5 * c);
    for (Py_ssize_t k = 0; k < c; k++) {
        PyArrayObject *r = as_array(PySequence_Fast_GET_ITEM(recs, k), NPY_FLOAT64);
        held[2 * k] = (PyObject *)r;
        PyArrayObject *p = r ? as_array(PySequence_Fast_GET_ITEM(precs, k), NPY_FLOAT64) : NULL;
        held[2 * k + 1] = (PyObject *)p;
        if (!p) goto done;
        if (PyArray_SIZE(p) != PyArray_SIZE(r)) {
            PyErr_SetString(PyExc_ValueError, "polylines: recall and precision differ in length");
            goto done;
        }
        rd[k] = PyArray_DATA(r), pd[k] = PyArray_DATA(p), n[k] = PyArray_SIZE(r);
        total += n[k];
    }
    Py_ssize_t per_thread = total >= RANKS_PER_THREAD ? 1 : c + 1; /* (few ranks: one thread) */
    PolylineJob job = {rd, pd, n, kept, NULL, NULL};
    Py_BEGIN_ALLOW_THREADS
    split_taken(polylines_range, &job, c, per_thread);
    Py_END_ALLOW_THREADS
    if (!(out = PyList_New(c))) goto done;
    for (Py_ssize_t k = 0; k < c; k++) {
        PyObject *x = new_1d(kept[k], NPY_FLOAT64), *y = x ? new_1d(kept[k], NPY_FLOAT64) : NULL;
        held[2 * c + 2 * k] = x, held[2 * c + 2 * k + 1] = y;
        if (!y) { Py_CLEAR(out); goto done; }
        xo[k] = PyArray_DATA((PyArrayObject *)x), yo[k] = PyArray_DATA((PyArrayObject *)y);
        PyObject *pair = PyTuple_Pack(2, x, y);
        if (!pair) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, k, pair);
    }
    job.xo = xo, job.yo = yo;
    Py_BEGIN_ALLOW_THREADS
    split_taken(polylines_range, &job, c, per_thread);
    Py_END_ALLOW_THREADS
done:
    if (held)
        for (Py_ssize_t i = 0; i < 4 * c; i++) Py_XDECREF(held[i]);
    free(held);
    free(mem);
    Py_XDECREF(recs); Py_XDECREF(precs);
    return out;
}

static PyMethodDef methods[] = {
    {"needed", needed, METH_VARARGS,
     "needed(verdict int8, best_iou float64, min_overlap, fp_code) -> int64 ranks\n"
     "\n"
     "Ranks with verdict fp_code whose best_iou is NaN or below min_overlap."},
    {"diagnose", diagnose, METH_VARARGS,
     "diagnose(verdict, best_gt, best_iou, needed | None, col int32, best (S, 3), iou (S, 3),\n"
     "         threshold,\n"
     "         has_threshold, min_overlap, codes int8 (fp, duplicate),\n"
     "         kinds int8 (duplicate, localization, similar, other, background)[, in_place])\n"
     "    -> (kind, confused_gt, confused_iou, same_gt, same_iou)\n"
     "\n"
     "analysis.classify_false_positives over ranks laid end to end (in_place: same_gt and\n"
     "same_iou written over best_gt and best_iou, which are returned); needed ranks' overlap\n"
     "searches are rows col of best / iou (columns: same, similar, other class); needed None:\n"
     "col gives every rank's row and the needed ranks are found in the same pass."},
    {"lookup", lookup, METH_VARARGS,
     "lookup(slot int32 (N,), key int32 (S,), rows int64, cls int64, want int32 (C,)[, at])\n"
     "    -> (col int32, fresh int64, other int64)\n"
     "\n"
     "Each row's slot, the positions of rows not kept yet and of rows kept under another key\n"
     "(at int64: only rows[at], positions among them)."},
    {"ranked", ranked, METH_VARARGS,
     "ranked(verdict int8, bounds int64 (C + 1,), npos float64 (C,), tp_code, fp_code[, lines])\n"
     "    -> (precision, recall[, [(x, y), ...]])\n"
     "\n"
     "views.ranked_evaluation's precision and recall of each class's ranks (lines: and each\n"
     "class's result.pr_polyline, as polylines gives it)."},
    {"normalised_101", normalised_101, METH_VARARGS,
     "normalised_101(verdict, bounds, npos, n_pos, rt, tp_code, fp_code) -> q (C, R)\n"
     "\n"
     "normalised_ap.normalised_ap_101's sampled envelope per class (its mean is the AP_N)."},
    {"polylines", polylines, METH_VARARGS,
     "polylines(recalls, precisions) -> [(x, y), ...]\n"
     "\n"
     "evaluation.result.pr_polyline of each (recall, precision) pair of float64 arrays."},
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
