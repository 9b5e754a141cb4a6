/* The greedy matching of the VisDrone-DET toolkit, the ILSVRC DET devkit and the Open Images
 * challenge, in C.
 *
 * visdrone_match: evalRes.m + compOas.m per (image, class) group, every IoU threshold and
 * detection cap at once (families/visdrone/matching.py is the numpy path, whose vectorised
 * rounds equal this sequential scan). Groups are independent: worker threads take them from a
 * shared counter with the GIL released. visdrone_regions: dropObjectsInIgr.m for every image
 * at once (families/visdrone/regions.py).
 *
 * ilsvrc_match: eval_detection.m's per-image loop (families/ilsvrc/evaluate.py is the numpy
 * path): each detection, by descending confidence, takes the not yet detected object of its
 * label with the largest overlap (+1 rule, _boxes.h pair_overlap) at or above the object's own
 * threshold.
 *
 * openimages_match: the challenge's PerImageEvaluation per (image, class) group with group-of
 * boxes (families/openimages/evaluate._match_image_class is the numpy path), in the visiting
 * order the caller gives (numpy's own argsort where scores tie).
 *
 * Every floating-point expression is written in the order the numpy path evaluates it, so the
 * verdicts are identical (setup.py passes -ffp-contract=off).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_boxes.h" /* as_array, pair_overlap */

/* numpy's minimum / maximum: NaN if either is NaN (C's fmin / fmax skip it). */
static inline double np_min(double a, double b)
{
    return isnan(a) ? a : isnan(b) ? b : a < b ? a : b;
}

static inline double np_max(double a, double b)
{
    return isnan(a) ? a : isnan(b) ? b : a > b ? a : b;
}

/* compOas.m on one pair (ltwh boxes), as visdrone/matching.overlaps computes it: 1 with *ov
 * set if iw > 0 and ih > 0 (a NaN in either box: 0), else 0. An ignore-flagged object divides
 * the intersection by the detection's area. */
static inline int visdrone_overlap(const double *d, const double *g, int ignore, double *ov)
{
    double dx2 = d[0] + d[2], dy2 = d[1] + d[3], gx2 = g[0] + g[2], gy2 = g[1] + g[3];
    double da = d[2] * d[3], ga = g[2] * g[3];
    double iw = np_min(dx2, gx2) - np_max(d[0], g[0]);
    double ih = np_min(dy2, gy2) - np_max(d[1], g[1]);
    if (!(iw > 0 && ih > 0))
        return 0;
    double t = iw * ih;
    double u = ignore ? da : da + ga - t;
    *ov = t / u;
    return 1;
}

/* ---------------------------------------------------------------------------------------- */
/* VisDrone                                                                                  */

typedef struct {
    const int64_t *order, *d_pos, *g_order;
    const double *d_score, *d_box, *g_box, *thr;
    const uint8_t *g_ignore;
    const int64_t *caps;
    const int64_t *groups; /* 4 per group: order range [d0, d1), g_order range [g0, g1) */
    int64_t n_groups, n, T, Y;
    double min_overlap;
    int8_t *verdict;       /* (T, Y, n) */
    int64_t *taken;        /* (T, n) at the last cap */
    /* the work queue */
    int64_t next;
    int failed;
    pthread_mutex_t lock;
} VisDrone;

/* A detection and its score, for the visiting order. */
typedef struct {
    double score;
    int64_t d;
} Visit;

typedef struct {
    int64_t *pair_g; double *pair_ov; uint8_t *pair_ig; size_t n_pairs;
    int64_t *start; size_t n_start;
    uint8_t *used; size_t n_used;
    Visit *visit; size_t n_visit;
} VisScratch;

/* The visiting order within a group: descending score, NaN last, ties by detection index
 * (np.lexsort((index, -score, group)): -0.0 and 0.0 tie, as numpy compares them). */
static int visit_order(const void *pa, const void *pb)
{
    const Visit *a = pa, *b = pb;
    int na = isnan(a->score), nb = isnan(b->score);
    if (na != nb)
        return na - nb;
    if (!na && a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return (a->d > b->d) - (a->d < b->d);
}

static int grow(void **buf, size_t *have, size_t want, size_t size)
{
    if (want <= *have)
        return 0;
    size_t cap = want > 2 * *have ? want : 2 * *have;
    void *p = realloc(*buf, (cap > 16 ? cap : 16) * size);
    if (p == NULL)
        return -1;
    *buf = p;
    *have = cap > 16 ? cap : 16;
    return 0;
}

/* One group: its pairs with overlap >= min_overlap (by detection, objects in row order), then
 * the greedy scan at every threshold and cap. */
static int visdrone_group(VisDrone *V, const int64_t *G, VisScratch *s)
{
    int64_t d0 = G[0], d1 = G[1], g0 = G[2], g1 = G[3], nd = d1 - d0, ng = g1 - g0;
    size_t want = (size_t)(nd * (ng > 0 ? ng : 1));
    if (want > s->n_pairs) { /* the three pair buffers share one capacity */
        size_t cap = want > 2 * s->n_pairs ? want : 2 * s->n_pairs;
        int64_t *pg = realloc(s->pair_g, cap * sizeof(int64_t));
        if (pg == NULL)
            return -1;
        s->pair_g = pg;
        double *po = realloc(s->pair_ov, cap * sizeof(double));
        if (po == NULL)
            return -1;
        s->pair_ov = po;
        uint8_t *pi = realloc(s->pair_ig, cap);
        if (pi == NULL)
            return -1;
        s->pair_ig = pi;
        s->n_pairs = cap;
    }
    if (grow((void **)&s->start, &s->n_start, (size_t)nd + 1, sizeof(int64_t)) < 0 ||
        grow((void **)&s->used, &s->n_used, (size_t)(ng > 0 ? ng : 1), sizeof(uint8_t)) < 0 ||
        grow((void **)&s->visit, &s->n_visit, (size_t)nd, sizeof(Visit)) < 0)
        return -1;
    for (int64_t i = 0; i < nd; i++) {
        int64_t d = V->order[d0 + i];
        s->visit[i].score = V->d_score[d], s->visit[i].d = d;
    }
    qsort(s->visit, (size_t)nd, sizeof(Visit), visit_order);
    int64_t p = 0;
    for (int64_t i = 0; i < nd; i++) {
        const double *db = V->d_box + 4 * s->visit[i].d;
        s->start[i] = p;
        for (int64_t j = 0; j < ng; j++) {
            int64_t g = V->g_order[g0 + j];
            double ov;
            int ig = V->g_ignore[g] != 0;
            if (visdrone_overlap(db, V->g_box + 4 * g, ig, &ov) && ov >= V->min_overlap) {
                s->pair_g[p] = j, s->pair_ov[p] = ov, s->pair_ig[p] = (uint8_t)ig;
                p++;
            }
        }
    }
    s->start[nd] = p;
    const int64_t n = V->n, Y = V->Y;
    for (int64_t t = 0; t < V->T; t++) {
        double thr = V->thr[t];
        for (int64_t y = 0; y < Y; y++) {
            int64_t cap = V->caps[y];
            int8_t *verdict = V->verdict + (t * Y + y) * n;
            int64_t *taken = y == Y - 1 ? V->taken + t * n : NULL;
            if (ng)
                memset(s->used, 0, (size_t)ng);
            for (int64_t i = 0; i < nd; i++) {
                int64_t d = s->visit[i].d, best = -1, absorb = -1;
                double top = -INFINITY;
                if (V->d_pos[d] < cap) {
                    for (int64_t q = s->start[i]; q < s->start[i + 1]; q++) {
                        double ov = s->pair_ov[q];
                        if (!(ov >= thr))
                            continue;
                        int64_t j = s->pair_g[q];
                        if (s->pair_ig[q]) { /* the first (lowest row) ignore-flagged one */
                            if (absorb < 0)
                                absorb = j;
                        } else if (!s->used[j] && ov >= top) { /* ties: the later object */
                            top = ov;
                            best = j;
                        }
                    }
                }
                if (best >= 0)
                    s->used[best] = 1;
                verdict[d] = best >= 0 ? 1 : absorb >= 0 ? -1 : 0;
                if (taken != NULL) {
                    int64_t j = best >= 0 ? best : absorb;
                    taken[d] = j >= 0 ? V->g_order[g0 + j] : -1;
                }
            }
        }
    }
    return 0;
}

static void *visdrone_worker(void *arg)
{
    VisDrone *V = arg;
    VisScratch s;
    memset(&s, 0, sizeof s);
    for (;;) {
        pthread_mutex_lock(&V->lock);
        int64_t q = V->next;
        V->next += 8;
        pthread_mutex_unlock(&V->lock);
        if (q >= V->n_groups)
            break;
        int64_t end = q + 8 < V->n_groups ? q + 8 : V->n_groups;
        for (; q < end; q++)
            if (visdrone_group(V, V->groups + 4 * q, &s) < 0) {
                pthread_mutex_lock(&V->lock);
                V->failed = 1;
                pthread_mutex_unlock(&V->lock);
                break;
            }
    }
    free(s.pair_g), free(s.pair_ov), free(s.pair_ig), free(s.start), free(s.used), free(s.visit);
    return NULL;
}

/* Run `work` on the calling thread and up to n_threads - 1 others (at most 64). */
static void run_threads(void *(*work)(void *), void *arg, Py_ssize_t n_threads)
{
    pthread_t th[64];
    int started = 0;
    for (Py_ssize_t i = 1; i < n_threads && i < 64; i++)
        if (pthread_create(&th[started], NULL, work, arg) == 0)
            started++;
    work(arg);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

/* The groups of the sorted detections and objects: 4 int64 per group with detections (objects
 * of a group without detections are never visited). -1 if a group key is out of order or an
 * index out of range, -2 out of memory. */
static int64_t visdrone_groups(const int64_t *order, const int64_t *d_group, int64_t n,
                               const int64_t *g_order, const int64_t *g_group, int64_t m,
                               int64_t **out)
{
    int64_t n_groups = 0, cap = 0, j = 0;
    int64_t *groups = NULL;
    for (int64_t i = 0; i < n; i++)
        if (order[i] < 0 || order[i] >= n)
            return -1;
    for (int64_t k = 0; k < m; k++)
        if (g_order[k] < 0 || g_order[k] >= m ||
            (k > 0 && g_group[g_order[k]] < g_group[g_order[k - 1]]))
            return -1;
    for (int64_t i = 0; i < n;) {
        int64_t key = d_group[order[i]], i1 = i;
        while (i1 < n && d_group[order[i1]] == key)
            i1++;
        if (i1 < n && d_group[order[i1]] < key) {
            free(groups);
            return -1;
        }
        while (j < m && g_group[g_order[j]] < key)
            j++;
        int64_t j1 = j;
        while (j1 < m && g_group[g_order[j1]] == key)
            j1++;
        if (n_groups == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *g = realloc(groups, (size_t)(4 * cap) * sizeof(int64_t));
            if (g == NULL) {
                free(groups);
                return -2;
            }
            groups = g;
        }
        int64_t *G = groups + 4 * n_groups++;
        G[0] = i, G[1] = i1, G[2] = j, G[3] = j1;
        i = i1;
    }
    *out = groups;
    return n_groups;
}

static PyObject *visdrone_match(PyObject *self, PyObject *args)
{
    PyObject *in[11];
    double min_overlap;
    Py_ssize_t n_threads = 1;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOdn", &in[0], &in[1], &in[2], &in[3], &in[4], &in[5],
                          &in[6], &in[7], &in[8], &in[9], &in[10], &min_overlap, &n_threads))
        return NULL;
    /* order, d_group, d_box, d_pos, g_order, g_group, g_box, g_ignore, thr, caps, d_score */
    static const int types[11] = {NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_INT64,
                                  NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_UINT8,
                                  NPY_FLOAT64, NPY_INT64, NPY_FLOAT64};
    PyArrayObject *a[11] = {NULL};
    PyObject *verdict = NULL, *taken = NULL, *out = NULL;
    int64_t *groups = NULL;
    for (int i = 0; i < 11; i++)
        if ((a[i] = as_array(in[i], types[i])) == NULL)
            goto done;
    npy_intp n = PyArray_SIZE(a[0]), m = PyArray_SIZE(a[4]);
    npy_intp T = PyArray_SIZE(a[8]), Y = PyArray_SIZE(a[9]);
    if (PyArray_SIZE(a[1]) != n || PyArray_SIZE(a[2]) != 4 * n || PyArray_SIZE(a[3]) != n ||
        PyArray_SIZE(a[5]) != m || PyArray_SIZE(a[6]) != 4 * m || PyArray_SIZE(a[7]) != m ||
        PyArray_SIZE(a[10]) != n || Y < 1) {
        PyErr_SetString(PyExc_ValueError, "visdrone_match: inconsistent shapes");
        goto done;
    }
#define P(i, t) ((const t *)PyArray_DATA(a[i]))
    int64_t n_groups = visdrone_groups(P(0, int64_t), P(1, int64_t), n, P(4, int64_t),
                                       P(5, int64_t), m, &groups);
    if (n_groups == -2) {
        PyErr_NoMemory();
        goto done;
    }
    if (n_groups < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "visdrone_match: an index out of range or groups out of order");
        goto done;
    }
    npy_intp d_v[3] = {T, Y, n}, d_t[2] = {T, n};
    verdict = PyArray_SimpleNew(3, d_v, NPY_INT8);
    taken = PyArray_SimpleNew(2, d_t, NPY_INT64);
    if (verdict == NULL || taken == NULL)
        goto done;
    /* detections of no group (none: every one is in a run) still get defined values */
    memset(PyArray_DATA((PyArrayObject *)verdict), 0, (size_t)(T * Y * n));
    VisDrone V = {P(0, int64_t), P(3, int64_t), P(4, int64_t), P(10, double), P(2, double),
                  P(6, double), P(8, double), P(7, uint8_t), P(9, int64_t), groups, n_groups,
                  n, T, Y,
                  min_overlap, PyArray_DATA((PyArrayObject *)verdict),
                  PyArray_DATA((PyArrayObject *)taken), 0, 0, PTHREAD_MUTEX_INITIALIZER};
#undef P
    for (npy_intp i = 0; i < T * n; i++)
        V.taken[i] = -1;
    Py_BEGIN_ALLOW_THREADS
    run_threads(visdrone_worker, &V, n_threads < 1 ? 1 : n_threads);
    Py_END_ALLOW_THREADS
    if (V.failed) {
        PyErr_NoMemory();
        goto done;
    }
    out = Py_BuildValue("(OO)", verdict, taken);
done:
    for (int i = 0; i < 11; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(verdict);
    Py_XDECREF(taken);
    free(groups);
    return out;
}

/* dropObjectsInIgr.m as visdrone/regions.keep_outside_regions computes it (see there): the
 * mask of an image's regions on the grid compressed to their edges, each box's covered pixel
 * count S summed over that grid (integers: exact in any order), kept iff S / (w*h) < 0.5 or a
 * number of the box is not finite. */

/* MATLAB's round: halves away from zero (regions.matlab_round's expression). */
static inline double matlab_round(double a)
{
    double t = trunc(a);
    double sign = a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
    return fabs(a - t) >= 0.5 ? t + sign : t + sign * 0.0;
}

/* The sorted distinct values of e[0..n) in place; returns their count. */
static int64_t sorted_unique(double *e, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        double x = e[i];
        int64_t j = i;
        while (j > 0 && e[j - 1] > x) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (m == 0 || e[i] != e[m - 1])
            e[m++] = e[i];
    return m;
}

/* The overlap length of [lo, hi) with the cell [a, b) (regions._lengths: clip(min - max, 0)). */
static inline double cell_length(double lo, double hi, double a, double b)
{
    double v = (hi < b ? hi : b) - (lo > a ? lo : a);
    return v > 0 ? v : 0.0;
}

/* One image: R regions (finite), Q boxes; writes keep[0..Q). `work` holds 8R + 4 doubles,
 * `mask` (2R + 1)^2 bytes. */
static void regions_image(const double *reg, int64_t R, const double *box, int64_t Q, double H,
                          double W, double *work, uint8_t *mask, uint8_t *keep)
{
    double *ry = work, *rys = ry + R, *rx = rys + R, *rxs = rx + R, *re = rxs + R;
    double *ce = re + 2 * R + 2;
    int64_t nr = 0, nc = 0;
    re[nr++] = 1.0, re[nr++] = H + 1.0, ce[nc++] = 1.0, ce[nc++] = W + 1.0;
    for (int64_t r = 0; r < R; r++) {
        const double *g = reg + 4 * r;
        double x = matlab_round(g[0] > 1.0 ? g[0] : 1.0), y = matlab_round(g[1] > 1.0 ? g[1] : 1.0);
        double w = matlab_round(g[2] > 1.0 ? g[2] : 1.0), h = matlab_round(g[3] > 1.0 ? g[3] : 1.0);
        double ys = (H < y + h ? H : y + h) + 1.0, xs = (W < x + w ? W : x + w) + 1.0;
        ry[r] = y, rx[r] = x, rys[r] = ys > y ? ys : y, rxs[r] = xs > x ? xs : x;
        re[nr++] = ry[r] < H + 1.0 ? ry[r] : H + 1.0;
        re[nr++] = rys[r] < H + 1.0 ? rys[r] : H + 1.0;
        ce[nc++] = rx[r] < W + 1.0 ? rx[r] : W + 1.0;
        ce[nc++] = rxs[r] < W + 1.0 ? rxs[r] : W + 1.0;
    }
    nr = sorted_unique(re, nr), nc = sorted_unique(ce, nc);
    for (int64_t k = 0; k + 1 < nr; k++)
        for (int64_t l = 0; l + 1 < nc; l++) {
            uint8_t m = 0;
            for (int64_t r = 0; r < R && !m; r++)
                m = cell_length(ry[r], rys[r], re[k], re[k + 1]) > 0 &&
                    cell_length(rx[r], rxs[r], ce[l], ce[l + 1]) > 0;
            mask[k * nc + l] = m;
        }
    for (int64_t q = 0; q < Q; q++) {
        const double *b = box + 4 * q;
        if (!(isfinite(b[0]) && isfinite(b[1]) && isfinite(b[2]) && isfinite(b[3]))) {
            keep[q] = 1;
            continue;
        }
        double p[4];
        for (int i = 0; i < 4; i++) {
            double v = matlab_round(b[i]);
            p[i] = v > 1.0 ? v : 1.0;
        }
        double x = p[0] < W ? p[0] : W, y = p[1] < H ? p[1] : H;
        x = x > 1.0 ? x : 1.0, y = y > 1.0 ? y : 1.0;
        double w = p[2], h = p[3];
        double x2 = W < x + w ? W : x + w;
        double y2 = H < y + h ? H : y + h;
        y2 = y2 > 1.0 ? y2 : 1.0;
        double S = 0.0;
        for (int64_t k = 0; k + 1 < nr; k++) {
            double rl = cell_length(y + 1.0, y2 + 1.0, re[k], re[k + 1]);
            if (rl == 0)
                continue;
            for (int64_t l = 0; l + 1 < nc; l++)
                if (mask[k * nc + l])
                    S += rl * cell_length(x + 1.0, x2 + 1.0, ce[l], ce[l + 1]);
        }
        keep[q] = !(S / (h * w) >= 0.5);
    }
}

static PyObject *visdrone_regions(PyObject *self, PyObject *args)
{
    PyObject *in[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &in[0], &in[1], &in[2], &in[3], &in[4], &in[5]))
        return NULL;
    static const int types[6] = {NPY_FLOAT64, NPY_INT64, NPY_FLOAT64, NPY_INT64, NPY_INT64,
                                 NPY_INT64};
    PyArrayObject *a[6] = {NULL};
    PyObject *keep = NULL, *done = NULL, *out = NULL;
    double *work = NULL;
    uint8_t *mask = NULL;
    for (int i = 0; i < 6; i++)
        if ((a[i] = as_array(in[i], types[i])) == NULL)
            goto done;
    npy_intp n_reg = PyArray_SIZE(a[0]) / 4, q = PyArray_SIZE(a[2]) / 4, J = PyArray_SIZE(a[4]);
    const int64_t *ro = PyArray_DATA(a[1]), *bo = PyArray_DATA(a[3]);
    const int64_t *hh = PyArray_DATA(a[4]), *ww = PyArray_DATA(a[5]);
    int bad = PyArray_SIZE(a[0]) != 4 * n_reg || PyArray_SIZE(a[2]) != 4 * q ||
              PyArray_SIZE(a[1]) != J + 1 || PyArray_SIZE(a[3]) != J + 1 ||
              PyArray_SIZE(a[5]) != J || ro[0] != 0 || bo[0] != 0 || ro[J] != n_reg || bo[J] != q;
    int64_t most = 0;
    for (npy_intp j = 0; j < J && !bad; j++) {
        bad = ro[j + 1] < ro[j] || bo[j + 1] < bo[j] || hh[j] <= 0 || ww[j] <= 0;
        most = ro[j + 1] - ro[j] > most ? ro[j + 1] - ro[j] : most;
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "visdrone_regions: inconsistent shapes or offsets");
        goto done;
    }
    keep = PyArray_ZEROS(1, &q, NPY_BOOL, 0);
    done = PyArray_ZEROS(1, &J, NPY_BOOL, 0);
    work = malloc((size_t)(8 * most + 8) * sizeof(double));
    mask = malloc((size_t)((2 * most + 1) * (2 * most + 1)));
    if (keep == NULL || done == NULL || work == NULL || mask == NULL) {
        if (keep != NULL && done != NULL)
            PyErr_NoMemory();
        goto done;
    }
    const double *reg = PyArray_DATA(a[0]), *box = PyArray_DATA(a[2]);
    uint8_t *kp = PyArray_DATA((PyArrayObject *)keep), *dn = PyArray_DATA((PyArrayObject *)done);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp j = 0; j < J; j++) {
        int64_t r0 = ro[j], R = ro[j + 1] - r0, b0 = bo[j];
        int finite = 1;
        for (int64_t i = 4 * r0; i < 4 * (r0 + R); i++)
            finite &= isfinite(reg[i]) != 0;
        if (!finite || R == 0) { /* left to the numpy path (R == 0: all kept) */
            dn[j] = R == 0;
            if (R == 0)
                memset(kp + b0, 1, (size_t)(bo[j + 1] - b0));
            continue;
        }
        regions_image(reg + 4 * r0, R, box + 4 * b0, bo[j + 1] - b0, (double)hh[j],
                      (double)ww[j], work, mask, kp + b0);
        dn[j] = 1;
    }
    Py_END_ALLOW_THREADS
    out = Py_BuildValue("(OO)", keep, done);
done:
    for (int i = 0; i < 6; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(keep);
    Py_XDECREF(done);
    free(work);
    free(mask);
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* ILSVRC DET                                                                                */

/* Detections image by image (`order`: by image, ascending; each image's detections visited by
 * descending confidence, NaN last, ties by index: visit_order): a detection not skipped takes
 * the first object of the largest overlap among the objects of its image with its label, not
 * taken yet, whose overlap (pair_overlap, +1 rule) reaches the object's own threshold. Writes
 * taken (-1: none); returns 0, or 1 if an index is out of range or `order` is not by image.
 * `used` holds m flags, `visit` n entries. */
static int ilsvrc_scan(const int64_t *order, int64_t n, const int64_t *image, const double *score,
                       const int64_t *label, const double *box, const uint8_t *skip,
                       const int64_t *of, int64_t n_off, const int64_t *o_label,
                       const double *o_box, const double *o_thr, int64_t m, uint8_t *used,
                       Visit *visit, int64_t *taken)
{
    for (int64_t i = 0; i < n; i++) {
        taken[i] = -1;
        int64_t d = order[i];
        if (d < 0 || d >= n)
            return 1;
        int64_t k = image[d];
        if (k < 0 || k + 1 >= n_off || of[k] < 0 || of[k + 1] > m || of[k] > of[k + 1])
            return 1;
        if (i > 0 && k < image[order[i - 1]])
            return 1;
    }
    for (int64_t i = 0; i < n;) {
        int64_t k = image[order[i]], nv = 0;
        for (; i < n && image[order[i]] == k; i++, nv++)
            visit[nv].score = score[order[i]], visit[nv].d = order[i];
        qsort(visit, (size_t)nv, sizeof(Visit), visit_order);
        for (int64_t v = 0; v < nv; v++) {
            int64_t d = visit[v].d, best = -1;
            if (skip[d])
                continue;
            double top = -INFINITY;
            for (int64_t j = of[k]; j < of[k + 1]; j++) {
                double ov;
                if (o_label[j] != label[d] || used[j] ||
                    !pair_overlap(box + 4 * d, o_box + 4 * j, 1.0, &ov))
                    continue;
                if (ov >= o_thr[j] && ov > top) {
                    top = ov;
                    best = j;
                }
            }
            if (best >= 0) {
                used[best] = 1;
                taken[d] = best;
            }
        }
    }
    return 0;
}

static PyObject *ilsvrc_match(PyObject *self, PyObject *args)
{
    PyObject *in[10];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &in[0], &in[1], &in[2], &in[3], &in[4], &in[5],
                          &in[6], &in[7], &in[8], &in[9]))
        return NULL;
    /* order, det_image, det_score, det_label, det_box, det_skip, obj_offsets, obj_label,
     * obj_box, obj_threshold */
    static const int types[10] = {NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_INT64, NPY_FLOAT64,
                                  NPY_UINT8, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64};
    PyArrayObject *a[10] = {NULL};
    PyObject *taken = NULL, *out = NULL;
    uint8_t *used = NULL;
    Visit *visit = NULL;
    for (int i = 0; i < 10; i++)
        if ((a[i] = as_array(in[i], types[i])) == NULL)
            goto done;
    npy_intp n = PyArray_SIZE(a[0]), m = PyArray_SIZE(a[7]), n_off = PyArray_SIZE(a[6]);
    if (PyArray_SIZE(a[1]) != n || PyArray_SIZE(a[2]) != n || PyArray_SIZE(a[3]) != n ||
        PyArray_SIZE(a[4]) != 4 * n || PyArray_SIZE(a[5]) != n || PyArray_SIZE(a[8]) != 4 * m ||
        PyArray_SIZE(a[9]) != m || n_off < 1) {
        PyErr_SetString(PyExc_ValueError, "ilsvrc_match: inconsistent shapes");
        goto done;
    }
    taken = PyArray_SimpleNew(1, &n, NPY_INT64);
    used = calloc((size_t)(m > 0 ? m : 1), 1);
    visit = malloc((size_t)(n > 0 ? n : 1) * sizeof(Visit));
    if (taken == NULL || used == NULL || visit == NULL) {
        if (taken != NULL)
            PyErr_NoMemory();
        goto done;
    }
    int bad;
#define P(i, t) ((const t *)PyArray_DATA(a[i]))
    Py_BEGIN_ALLOW_THREADS
    bad = ilsvrc_scan(P(0, int64_t), n, P(1, int64_t), P(2, double), P(3, int64_t),
                      P(4, double), P(5, uint8_t), P(6, int64_t), n_off, P(7, int64_t),
                      P(8, double), P(9, double), m, used, visit,
                      PyArray_DATA((PyArrayObject *)taken));
    Py_END_ALLOW_THREADS
#undef P
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "ilsvrc_match: an index or offset out of range, or order not by image");
        goto done;
    }
    out = taken;
    Py_INCREF(out);
done:
    for (int i = 0; i < 10; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(taken);
    free(used);
    free(visit);
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* Open Images (the challenge's PerImageEvaluation, group-of boxes)                           */

/* numpy's argmax of v[0..n) (n > 0): the first NaN if there is one, else the first maximum. */
static inline int64_t np_argmax(const double *v, int64_t n)
{
    int64_t best = 0;
    if (isnan(v[0]))
        return 0;
    for (int64_t j = 1; j < n; j++) {
        if (isnan(v[j]))
            return j;
        if (v[j] > v[best])
            best = j;
    }
    return best;
}

/* evaluate.pairwise on one pair of YMin, XMin, YMax, XMax boxes: the intersection, in its
 * expression order (numpy's NaN-propagating minimum / maximum). */
static inline double oi_intersection(const double *a, const double *b)
{
    double ih = np_max(0.0, np_min(a[2], b[2]) - np_max(a[0], b[0]));
    double iw = np_max(0.0, np_min(a[3], b[3]) - np_max(a[1], b[1]));
    return ih * iw;
}

static inline double oi_area(const double *a) { return (a[2] - a[0]) * (a[3] - a[1]); }

/* One image and class (evaluate._match_image_class after the score filter and the sort):
 * `visit` its detections in the official order, `gt` its object rows (file order). Writes
 * why / matched / overlap per visited position and appends the class's entries (detection
 * row, 1.0 TP / 0.0 FP) at *n_entries. `sc` holds 4 (n + g) int64, `dsc` 2 (n + g) doubles. */
static void oi_group(const int64_t *visit, int64_t n_all, const int64_t *gt, int64_t g,
                     const uint8_t *group_of, const double *gt_box, const double *det_box,
                     const double *score, int64_t cap, const int8_t *code, int8_t *why,
                     int64_t *matched, double *overlap, int64_t *e_row, double *e_tp,
                     int64_t *n_entries, int64_t *sc, double *dsc)
{
    enum { TP, FP, GROUP_TP, ABSORBED, ABSORBED_LOW, OVER_CAP };
    int64_t n = n_all < cap ? n_all : cap, n_plain = 0, n_grp = 0;
    int64_t *plain = sc, *grp = plain + g, *absorbed = grp + g, *carrier = absorbed + n;
    int64_t *taken = carrier + g; /* flags, g */
    double *row = dsc, *gscore = row + g;
    for (int64_t i = n; i < n_all; i++)
        why[i] = code[OVER_CAP];
    for (int64_t j = 0; j < g; j++) {
        if (group_of[gt[j]])
            grp[n_grp++] = gt[j];
        else
            plain[n_plain++] = gt[j];
    }
    for (int64_t i = 0; i < n; i++)
        why[i] = code[FP], absorbed[i] = -1;
    uint8_t *tp = (uint8_t *)(taken + g); /* n flags after the g taken flags */
    if (n > 0)
        memset(tp, 0, (size_t)n);
    if (n_plain) {
        memset(taken, 0, (size_t)n_plain * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++) {
            const double *d = det_box + 4 * visit[i];
            double a_det = oi_area(d);
            for (int64_t j = 0; j < n_plain; j++) {
                const double *q = gt_box + 4 * plain[j];
                double inter = oi_intersection(d, q);
                row[j] = inter / (a_det + oi_area(q) - inter);
            }
            int64_t j = np_argmax(row, n_plain);
            if (row[j] >= 0.5 && !taken[j]) {
                tp[i] = 1, taken[j] = 1;
                why[i] = code[TP];
            }
            if (row[j] > 0 || tp[i])
                matched[i] = plain[j], overlap[i] = row[j];
        }
    }
    if (n_grp) {
        for (int64_t j = 0; j < n_grp; j++)
            gscore[j] = 0.0, carrier[j] = -1;
        for (int64_t i = 0; i < n; i++) {
            if (tp[i])
                continue;
            const double *d = det_box + 4 * visit[i];
            double a_det = oi_area(d);
            for (int64_t j = 0; j < n_grp; j++)
                row[j] = oi_intersection(d, gt_box + 4 * grp[j]) / a_det;
            int64_t j = np_argmax(row, n_grp);
            if (!(row[j] >= 0.5))
                continue;
            double s = score[visit[i]];
            absorbed[i] = j;
            why[i] = s <= 0 ? code[ABSORBED_LOW] : code[ABSORBED];
            matched[i] = grp[j], overlap[i] = row[j];
            if (s > gscore[j])
                gscore[j] = s, carrier[j] = i;
        }
    }
    int64_t e = *n_entries;
    for (int64_t i = 0; i < n; i++)
        if (absorbed[i] < 0)
            e_row[e] = visit[i], e_tp[e++] = tp[i] ? 1.0 : 0.0;
    for (int64_t j = 0; j < n_grp; j++)
        if (carrier[j] >= 0) {
            why[carrier[j]] = code[GROUP_TP];
            e_row[e] = visit[carrier[j]], e_tp[e++] = 1.0;
        }
    *n_entries = e;
}

static PyObject *openimages_match(PyObject *self, PyObject *args)
{
    PyObject *in[9];
    long long cap;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOL", &in[0], &in[1], &in[2], &in[3], &in[4], &in[5],
                          &in[6], &in[7], &in[8], &cap))
        return NULL;
    /* visit, visit_offsets, gt_offsets, gt_rows, group_of, gt_box, det_box, det_score, codes */
    static const int types[9] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_UINT8,
                                 NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_INT8};
    PyArrayObject *a[9] = {NULL};
    PyObject *why = NULL, *matched = NULL, *overlap = NULL, *e_row = NULL, *e_tp = NULL;
    PyObject *out = NULL;
    int64_t *sc = NULL;
    double *dsc = NULL;
    for (int i = 0; i < 9; i++)
        if ((a[i] = as_array(in[i], types[i])) == NULL)
            goto done;
    npy_intp R = PyArray_SIZE(a[0]), G = PyArray_SIZE(a[1]) - 1, E = PyArray_SIZE(a[3]);
    npy_intp N = PyArray_SIZE(a[4]), D = PyArray_SIZE(a[7]);
    const int64_t *visit = PyArray_DATA(a[0]), *vo = PyArray_DATA(a[1]);
    const int64_t *go = PyArray_DATA(a[2]), *gt = PyArray_DATA(a[3]);
    int bad = G < 0 || PyArray_SIZE(a[2]) != G + 1 || PyArray_SIZE(a[5]) != 4 * N ||
              PyArray_SIZE(a[6]) != 4 * D || PyArray_SIZE(a[8]) != 6 || cap < 1;
    int64_t most = 0;
    for (npy_intp k = 0; k < G && !bad; k++) {
        bad = vo[k] < 0 || vo[k + 1] < vo[k] || vo[k + 1] > R || go[k] < 0 || go[k + 1] < go[k] ||
              go[k + 1] > E;
        int64_t w = (vo[k + 1] - vo[k]) + (go[k + 1] - go[k]);
        most = w > most ? w : most;
    }
    for (npy_intp i = 0; i < R && !bad; i++)
        bad = visit[i] < 0 || visit[i] >= D;
    for (npy_intp j = 0; j < E && !bad; j++)
        bad = gt[j] < 0 || gt[j] >= N;
    if (bad || (G >= 0 && (vo[0] != 0 || vo[G] != R || go[0] != 0))) {
        PyErr_SetString(PyExc_ValueError, "openimages_match: inconsistent shapes or offsets");
        goto done;
    }
    why = PyArray_SimpleNew(1, &R, NPY_INT8);
    matched = PyArray_SimpleNew(1, &R, NPY_INT64);
    overlap = PyArray_SimpleNew(1, &R, NPY_FLOAT64);
    e_row = PyArray_SimpleNew(1, &R, NPY_INT64);
    e_tp = PyArray_SimpleNew(1, &R, NPY_FLOAT64);
    sc = malloc((size_t)(4 * most + 4) * sizeof(int64_t));
    dsc = malloc((size_t)(2 * most + 2) * sizeof(double));
    if (!why || !matched || !overlap || !e_row || !e_tp || !sc || !dsc) {
        if (why && matched && overlap && e_row && e_tp)
            PyErr_NoMemory();
        goto done;
    }
    int8_t *w = PyArray_DATA((PyArrayObject *)why);
    int64_t *m = PyArray_DATA((PyArrayObject *)matched), *er = PyArray_DATA((PyArrayObject *)e_row);
    double *ov = PyArray_DATA((PyArrayObject *)overlap), *et = PyArray_DATA((PyArrayObject *)e_tp);
    const uint8_t *group_of = PyArray_DATA(a[4]);
    const double *gb = PyArray_DATA(a[5]), *db = PyArray_DATA(a[6]), *score = PyArray_DATA(a[7]);
    const int8_t *code = PyArray_DATA(a[8]);
    int64_t n_entries = 0;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < R; i++)
        m[i] = -1, ov[i] = NAN;
    for (npy_intp k = 0; k < G; k++) {
        int64_t v0 = vo[k];
        if (vo[k + 1] == v0)
            continue;
        oi_group(visit + v0, vo[k + 1] - v0, gt + go[k], go[k + 1] - go[k], group_of, gb, db,
                 score, cap, code, w + v0, m + v0, ov + v0, er, et, &n_entries, sc, dsc);
    }
    Py_END_ALLOW_THREADS
    out = Py_BuildValue("(OOOOOL)", why, matched, overlap, e_row, e_tp, (long long)n_entries);
done:
    for (int i = 0; i < 9; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(why);
    Py_XDECREF(matched);
    Py_XDECREF(overlap);
    Py_XDECREF(e_row);
    Py_XDECREF(e_tp);
    free(sc);
    free(dsc);
    return out;
}

static PyMethodDef methods[] = {
    {"openimages_match", openimages_match, METH_VARARGS,
     "openimages_match(visit, visit_offsets, gt_offsets, gt_rows, group_of, gt_box, det_box,\n"
     "                 det_score, codes, cap)\n"
     "    -> (why, matched, overlap, entry_row, entry_tp, n_entries)\n"
     "\n"
     "The challenge's per image and class matching (openimages/evaluate._match_image_class)\n"
     "of G groups: group k's detection rows in the official order are\n"
     "visit[visit_offsets[k]:visit_offsets[k + 1]] (after the score filter), its object rows\n"
     "gt_rows[gt_offsets[k]:gt_offsets[k + 1]] (file order); boxes float64 YMin, XMin, YMax,\n"
     "XMax; codes int8: the Why of TP, FP, GROUP_TP, ABSORBED, ABSORBED_LOW, OVER_CAP;\n"
     "`cap` detections matched per group. Returns why int8, matched int64 (-1), overlap float64\n"
     "(NaN) per visited position and the entries (detection row, 1.0 TP / 0.0 FP), the first\n"
     "n_entries of entry_row / entry_tp, group by group."},
    {"visdrone_regions", visdrone_regions, METH_VARARGS,
     "visdrone_regions(regions, region_offsets, boxes, box_offsets, heights, widths)\n"
     "    -> (keep bool (Q,), done bool (J,))\n"
     "\n"
     "regions.keep_outside_regions for J images at once: image j's regions are rows\n"
     "region_offsets[j]:region_offsets[j + 1] of `regions`, its boxes those of `boxes` (ltwh\n"
     "float64), its size heights[j] x widths[j] (> 0). `done` is False for an image with a\n"
     "non-finite region number (its boxes are left to the numpy path)."},
    {"ilsvrc_match", ilsvrc_match, METH_VARARGS,
     "ilsvrc_match(order, det_image, det_score, det_label, det_box, det_skip, obj_offsets,\n"
     "             obj_label, obj_box, obj_threshold) -> taken int64 (D,)\n"
     "\n"
     "eval_detection.m's greedy matching: `order` (a permutation of 0..D-1) by det_image,\n"
     "ascending; each image's detections are visited by descending det_score (NaN\n"
     "last, ties by index); boxes float64 xyxy (+1\n"
     "rule); det_skip uint8 (blacklisted: takes nothing); objects of image i are rows\n"
     "obj_offsets[i]:obj_offsets[i + 1]. Returns the object row each detection took, or -1."},
    {"visdrone_match", visdrone_match, METH_VARARGS,
     "visdrone_match(order, det_group, det_ltwh, det_pos, gt_order, gt_group, gt_ltwh,\n"
     "               gt_ignore, thresholds, caps, det_score, min_overlap, threads)\n"
     "    -> (verdict int8 (T, Y, D), taken int64 (T, D))\n"
     "\n"
     "evalRes.m's greedy matching of every (image, class) group at every threshold and cap:\n"
     "`order` the detections by group (each group visited by descending det_score, NaN last,\n"
     "ties by index); `gt_order` the objects by group, then row; det_pos a detection's position among its image's rows (it counts under caps\n"
     "above it); boxes float64 ltwh; pairs below min_overlap never match. verdict: 1 TP,\n"
     "0 FP (or beyond the cap), -1 ignored; taken (at the last cap): the object (index into\n"
     "the gt arrays) taken or absorbing, else -1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_greedy",
    "The greedy matching of VisDrone-DET and ILSVRC DET in C (see _greedy.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__greedy(void)
{
    import_array();
    return PyModule_Create(&module);
}
