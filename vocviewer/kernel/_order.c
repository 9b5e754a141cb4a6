/* COCOeval's _prepare order of detections, in linear time: grouped, ranked, cut.
 *
 * One entry point, group_rank: the positions of detections sorted by (image, category) group
 * ascending, then score descending (NaN last, as numpy sorts -score), then an optional
 * tie-breaking key ascending, then position (a stable sort), keeping the first `cap` of each
 * group, and each kept one's rank in its group. It is families/coco/prepare.py's
 * np.lexsort((tie, -score, group)) + searchsorted rank + cut, which is O(n log n) with
 * numpy temporaries; here a counting sort by group (groups are dense small integers) and a
 * stable sort of each group's few scores (insertion sort, merge sort for large groups), with
 * the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INSERTION_MAX 24 /* groups up to this size are insertion-sorted */

typedef struct {
    const double *score;
    const int64_t *tie; /* NULL: no tie-breaking key */
} Keys;

/* -1 when detection i comes before j, 1 after, 0 when only their positions tell. */
static int compare(const Keys *k, int64_t i, int64_t j)
{
    double si = k->score[i], sj = k->score[j];
    int ni = isnan(si), nj = isnan(sj);
    if (ni != nj) return ni ? 1 : -1;
    if (!ni) {
        if (si > sj) return -1;
        if (si < sj) return 1;
    }
    if (k->tie) {
        if (k->tie[i] < k->tie[j]) return -1;
        if (k->tie[i] > k->tie[j]) return 1;
    }
    return 0;
}

/* Stable insertion sort of a[0 .. n-1] (positions, ascending on entry). */
static void insertion(const Keys *k, int64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int64_t v = a[i], j = i;
        while (j > 0 && compare(k, a[j - 1], v) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* Stable merge sort of a[0 .. n-1], tmp holding n positions. */
static void merge_sort(const Keys *k, int64_t *a, int64_t *tmp, int64_t n)
{
    if (n <= INSERTION_MAX) {
        insertion(k, a, n);
        return;
    }
    int64_t h = n / 2;
    merge_sort(k, a, tmp, h);
    merge_sort(k, a + h, tmp, n - h);
    if (compare(k, a[h - 1], a[h]) <= 0) return; /* already in order */
    memcpy(tmp, a, (size_t)h * sizeof(int64_t));
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n) a[o++] = compare(k, a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
    while (i < h) a[o++] = tmp[i++];
}

/* The kept positions in order (out) and their ranks (rank); returns their number, or -1 for a
 * group out of range, -2 when out of memory. */
static int64_t group_rank_c(const int64_t *group, int64_t n, int64_t n_groups, const Keys *k,
                            int64_t cap, int64_t *out, int64_t *rank)
{
    int64_t *start = calloc((size_t)n_groups + 1, sizeof(int64_t));
    int64_t *perm = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int64_t *tmp = NULL, largest = 0, m = 0;
    if (!start || !perm) {
        m = -2;
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        if (group[i] < 0 || group[i] >= n_groups) {
            m = -1;
            goto done;
        }
        start[group[i] + 1]++;
    }
    for (int64_t g = 0; g < n_groups; g++) {
        if (start[g + 1] > largest) largest = start[g + 1];
        start[g + 1] += start[g];
    }
    for (int64_t i = 0; i < n; i++) perm[start[group[i]]++] = i; /* start[g]: g's end now */
    if (largest > INSERTION_MAX && !(tmp = malloc((size_t)(largest / 2 + 1) * sizeof(int64_t)))) {
        m = -2;
        goto done;
    }
    for (int64_t g = 0, a = 0; g < n_groups; g++) {
        int64_t b = start[g], len = b - a;
        merge_sort(k, perm + a, tmp, len);
        for (int64_t r = 0; r < len && r < cap; r++) {
            out[m] = perm[a + r];
            rank[m++] = r;
        }
        a = b;
    }
done:
    free(start);
    free(perm);
    free(tmp);
    return m;
}

static PyObject *group_rank(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *group_obj, *score_obj, *tie_obj;
    long long n_groups, cap;
    if (!PyArg_ParseTuple(args, "OLOOL", &group_obj, &n_groups, &score_obj, &tie_obj, &cap))
        return NULL;
    PyArrayObject *group = NULL, *score = NULL, *tie = NULL;
    PyObject *order = NULL, *rank = NULL, *out = NULL;
    int flags = NPY_ARRAY_IN_ARRAY;
    group = (PyArrayObject *)PyArray_FROMANY(group_obj, NPY_INT64, 1, 1, flags);
    score = (PyArrayObject *)PyArray_FROMANY(score_obj, NPY_FLOAT64, 1, 1, flags);
    if (tie_obj != Py_None) tie = (PyArrayObject *)PyArray_FROMANY(tie_obj, NPY_INT64, 1, 1, flags);
    if (!group || !score || (tie_obj != Py_None && !tie)) goto done;
    npy_intp n = PyArray_SIZE(group);
    if (PyArray_SIZE(score) != n || (tie && PyArray_SIZE(tie) != n) || n_groups < 0 || cap < 0) {
        PyErr_SetString(PyExc_ValueError, "group_rank: inconsistent shapes or negative sizes");
        goto done;
    }
    order = PyArray_SimpleNew(1, &n, NPY_INT64);
    rank = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!order || !rank) goto done;
    Keys k = {PyArray_DATA(score), tie ? PyArray_DATA(tie) : NULL};
    const int64_t *g = PyArray_DATA(group);
    int64_t *o = PyArray_DATA((PyArrayObject *)order), *r = PyArray_DATA((PyArrayObject *)rank);
    int64_t m;
    Py_BEGIN_ALLOW_THREADS
    m = group_rank_c(g, (int64_t)n, (int64_t)n_groups, &k, (int64_t)cap, o, r);
    Py_END_ALLOW_THREADS
    if (m == -1) {
        PyErr_SetString(PyExc_ValueError, "group_rank: a group out of range");
        goto done;
    }
    if (m == -2) {
        PyErr_NoMemory();
        goto done;
    }
    npy_intp kept = (npy_intp)m;
    PyArray_Dims shape = {&kept, 1};
    PyObject *arrays[2] = {order, rank};
    for (int j = 0; j < 2 && m < n; j++) { /* give back the rows cut */
        PyObject *none = PyArray_Resize((PyArrayObject *)arrays[j], &shape, 0, NPY_CORDER);
        if (!none) goto done;
        Py_DECREF(none);
    }
    out = Py_BuildValue("(OO)", order, rank);
done:
    Py_XDECREF(group); Py_XDECREF(score); Py_XDECREF(tie);
    Py_XDECREF(order); Py_XDECREF(rank);
    return out;
}

static PyMethodDef methods[] = {
    {"group_rank", group_rank, METH_VARARGS,
     "group_rank(group, n_groups, score, tie, cap) -> (order, rank)\n"
     "\n"
     "Positions of the rows sorted by group (int64 in [0, n_groups)) ascending, score\n"
     "(float64) descending with NaN last, tie (int64 or None) ascending, then position;\n"
     "only the first `cap` of each group, and their rank in it (both int64)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_order",
    "COCOeval's _prepare order of detections in linear time (see _order.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__order(void)
{
    import_array();
    return PyModule_Create(&module);
}
