/* COCOeval's _prepare order of detections, in linear time: grouped, ranked, cut.
 *
 * One entry point, group_rank: the positions of detections sorted by (image, category) group
 * ascending, then score descending (NaN last, as numpy sorts -score), then an optional
 * tie-breaking key ascending, then position (a stable sort), keeping the first `cap` of each
 * group, and each kept one's rank in its group. It is families/coco/prepare.py's
 * np.lexsort((tie, -score, group)) + searchsorted rank + cut, which is O(n log n) with
 * numpy temporaries; here a counting sort by group (groups are small integers: one count per
 * group, or two passes by digit where groups outnumber rows, as LVIS's categories x images) and
 * a stable sort of each group's few entries (insertion sort, merge sort for large groups), each
 * entry its score as an integer key with its tie-breaking key beside it, with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_threads.h" /* split_range */

#define INSERTION_MAX 24 /* groups up to this size are insertion-sorted */

/* One detection while its group is sorted: its score as an unsigned key that orders as
 * "descending score, NaN last" (every NaN equal, -0.0 equal to 0.0), its tie-breaking key and
 * its position. Sorting these contiguous entries reads no score or tie column at random. */
typedef struct {
    uint64_t key;
    int64_t tie;
    int64_t pos;
} Entry;

/* The score's key: smaller for a larger score, every NaN the largest. */
static uint64_t descending_key(double s)
{
    if (isnan(s)) return UINT64_MAX;
    if (s == 0) s = 0.0; /* -0.0 ties with 0.0, as the comparisons say */
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    uint64_t ascending = (u >> 63) ? ~u : (u | ((uint64_t)1 << 63));
    return ~ascending;
}

/* Whether b comes strictly before a (then a stable sort moves it ahead). */
static inline int before(const Entry *b, const Entry *a)
{
    return b->key < a->key || (b->key == a->key && b->tie < a->tie);
}

/* Stable insertion sort of a[0 .. n-1]. */
static void insertion(Entry *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        Entry v = a[i];
        int64_t j = i;
        while (j > 0 && before(&v, &a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* Stable merge sort of a[0 .. n-1], tmp holding n / 2 + 1 entries. */
static void merge_sort(Entry *a, Entry *tmp, int64_t n)
{
    if (n <= INSERTION_MAX) {
        insertion(a, n);
        return;
    }
    int64_t h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    if (!before(&a[h], &a[h - 1])) return; /* already in order */
    memcpy(tmp, a, (size_t)h * sizeof(Entry));
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n) a[o++] = before(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
    while (i < h) a[o++] = tmp[i++];
}

/* Row i's entry. */
static inline Entry entry_of(const double *score, const int64_t *tie, int64_t i)
{
    return (Entry){descending_key(score[i]), tie ? tie[i] : 0, i};
}

/* The rows' entries stably sorted by group into entry, and each group's end in end[g]
 * (groups in [0, n_groups), checked by the caller). Few groups: one counting sort; many (more
 * than there are rows): two counting sorts, by the low then the high digit of the group, so
 * that no count per group is kept. Returns 0, or -2 when out of memory. */
static int by_group(const int64_t *group, int64_t n, int64_t n_groups, const double *score,
                    const int64_t *tie, Entry *entry, int64_t **end_out, int64_t *n_ends)
{
    if (n_groups <= 2 * n + 4096) {
        int64_t *start = calloc((size_t)n_groups + 1, sizeof(int64_t));
        if (!start) return -2;
        for (int64_t i = 0; i < n; i++) start[group[i] + 1]++;
        for (int64_t g = 0; g < n_groups; g++) start[g + 1] += start[g];
        for (int64_t i = 0; i < n; i++) /* start[g]: g's end once done */
            entry[start[group[i]]++] = entry_of(score, tie, i);
        *end_out = start;
        *n_ends = n_groups;
        return 0;
    }
    int64_t base = 1;
    while (base * base < n_groups) base++;
    int64_t *count = calloc((size_t)base + 1, sizeof(int64_t));
    int64_t *mid = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int64_t *end = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!count || !mid || !end) {
        free(count), free(mid), free(end);
        return -2;
    }
    for (int64_t i = 0; i < n; i++) count[group[i] % base + 1]++;
    for (int64_t d = 0; d < base; d++) count[d + 1] += count[d];
    for (int64_t i = 0; i < n; i++) mid[count[group[i] % base]++] = i;
    memset(count, 0, (size_t)(base + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) count[group[i] / base + 1]++;
    for (int64_t d = 0; d < base; d++) count[d + 1] += count[d];
    for (int64_t j = 0; j < n; j++) {
        int64_t i = mid[j];
        entry[count[group[i] / base]++] = entry_of(score, tie, i);
    }
    free(count), free(mid);
    int64_t m = 0; /* the end of each run of one group: the groups present, in order */
    for (int64_t j = 0; j < n; j++)
        if (j + 1 == n || group[entry[j + 1].pos] != group[entry[j].pos]) end[m++] = j + 1;
    *end_out = end;
    *n_ends = m;
    return 0;
}

/* The groups' sorting, shared by the threads that split it. */
typedef struct {
    const int64_t *end; /* each group's end in entry */
    int64_t n_ends;
    Entry *entry;
    const int64_t *kept; /* kept[g]: the outputs of the groups before g */
    int64_t cap;
    int64_t *out, *rank;
    int failed; /* a thread could not get its buffer */
} Sorting;

/* The first group that starts at or after row i (start of g: end[g - 1], 0 for g = 0). */
static int64_t group_at(const int64_t *end, int64_t n_ends, int64_t i)
{
    if (i <= 0) return 0;
    int64_t lo = 1, hi = n_ends + 1; /* the smallest g in [1, n_ends] with end[g - 1] >= i */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (end[mid - 1] >= i) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The groups starting in rows [lo, hi): their entries sorted, cut and written out. */
static void sort_groups(void *ctx, Py_ssize_t lo, Py_ssize_t hi)
{
    Sorting *w = ctx;
    int64_t g0 = group_at(w->end, w->n_ends, lo), g1 = group_at(w->end, w->n_ends, hi);
    if (g1 > w->n_ends) g1 = w->n_ends;
    if (g0 >= g1) return;
    int64_t a0 = g0 ? w->end[g0 - 1] : 0, largest = 0;
    for (int64_t g = g0, a = a0; g < g1; a = w->end[g++])
        if (w->end[g] - a > largest) largest = w->end[g] - a;
    Entry *tmp = NULL;
    if (largest > INSERTION_MAX && !(tmp = malloc((size_t)(largest / 2 + 1) * sizeof(Entry)))) {
        w->failed = 1; /* (each thread writes only 1: no race on the outcome) */
        return;
    }
    for (int64_t g = g0, a = a0; g < g1; a = w->end[g++]) {
        int64_t len = w->end[g] - a, m = w->kept[g];
        merge_sort(w->entry + a, tmp, len);
        for (int64_t r = 0; r < len && r < w->cap; r++) {
            w->out[m] = w->entry[a + r].pos;
            if (w->rank) w->rank[m] = r;
            m++;
        }
    }
    free(tmp);
}

#define ROWS_PER_THREAD (1 << 16) /* the groups are sorted on several threads from this size */

/* The kept positions in order (out) and their ranks (rank, unless NULL); returns their number,
 * or -1 for a group out of range, -2 when out of memory. */
static int64_t group_rank_c(const int64_t *group, int64_t n, int64_t n_groups,
                            const double *score, const int64_t *tie, int64_t cap,
                            int64_t *out, int64_t *rank)
{
    for (int64_t i = 0; i < n; i++)
        if (group[i] < 0 || group[i] >= n_groups) return -1;
    Entry *entry = malloc((size_t)(n ? n : 1) * sizeof(Entry));
    int64_t *end = NULL, *kept = NULL, n_ends = 0, m = 0;
    if (!entry || by_group(group, n, n_groups, score, tie, entry, &end, &n_ends) < 0 ||
        !(kept = malloc((size_t)(n_ends + 1) * sizeof(int64_t)))) {
        m = -2;
        goto done;
    }
    kept[0] = 0;
    for (int64_t g = 0, a = 0; g < n_ends; a = end[g++])
        kept[g + 1] = kept[g] + (end[g] - a < cap ? end[g] - a : cap);
    Sorting w = {end, n_ends, entry, kept, cap, out, rank, 0};
    split_range(sort_groups, &w, (Py_ssize_t)n, ROWS_PER_THREAD);
    m = w.failed ? -2 : kept[n_ends];
done:
    free(entry);
    free(end);
    free(kept);
    return m;
}

static PyObject *group_rank(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *group_obj, *score_obj, *tie_obj;
    long long n_groups, cap;
    int with_rank = 1;
    if (!PyArg_ParseTuple(args, "OLOOL|p", &group_obj, &n_groups, &score_obj, &tie_obj, &cap,
                          &with_rank))
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
    rank = with_rank ? PyArray_SimpleNew(1, &n, NPY_INT64) : Py_NewRef(Py_None);
    if (!order || !rank) goto done;
    const double *sc = PyArray_DATA(score);
    const int64_t *g = PyArray_DATA(group), *ti = tie ? PyArray_DATA(tie) : NULL;
    int64_t *o = PyArray_DATA((PyArrayObject *)order);
    int64_t *r = with_rank ? PyArray_DATA((PyArrayObject *)rank) : NULL;
    int64_t m;
    Py_BEGIN_ALLOW_THREADS
    m = group_rank_c(g, (int64_t)n, (int64_t)n_groups, sc, ti, (int64_t)cap, o, r);
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
    for (int j = 0; j < 1 + with_rank && m < n; j++) { /* give back the rows cut */
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

/* One category's kernel output for `place`: (T, D) matches and codes, D rank-order positions. */
typedef struct {
    const int32_t *match;
    const int8_t *code;
    const int64_t *order;
    int64_t d;
} Placed;

/* place: see the method's docstring. Every evaluated detection's code and matched GT row at
 * its column; the rest were filled by the caller. Returns 0, or -1 for an index out of range. */
static int place_c(const Placed *cat, int64_t n_cat, const int64_t *dt_start,
                   const int64_t *gt_start, const int64_t *column_of, int64_t n_prepared,
                   const int64_t *gt_rows, int64_t n_gt, int64_t T, int64_t n_all, int8_t *code,
                   int32_t *matched)
{
    for (int64_t k = 0; k < n_cat; k++) {
        const Placed *c = &cat[k];
        for (int64_t j = 0; j < c->d; j++) { /* check every column first */
            int64_t p = dt_start[k] + c->order[j];
            if (p < 0 || p >= n_prepared || column_of[p] < 0 || column_of[p] >= n_all) return -1;
        }
        for (int64_t t = 0; t < T; t++) { /* one threshold at a time: two streams */
            const int32_t *match = c->match + t * c->d;
            const int8_t *from = c->code + t * c->d;
            int8_t *to = code + t * n_all;
            int32_t *row = matched + t * n_all;
            for (int64_t j = 0; j < c->d; j++) {
                int64_t col = column_of[dt_start[k] + c->order[j]], m = match[j], r = -1;
                if (m >= 0) {
                    int64_t g = gt_start[k] + m;
                    if (g < 0 || g >= n_gt) return -1;
                    r = gt_rows[g];
                }
                to[col] = from[j];
                row[col] = (int32_t)r;
            }
        }
    }
    return 0;
}

static PyObject *place(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *m_list, *v_list, *o_list, *ds_obj, *gs_obj, *col_obj, *rows_obj, *code_obj, *mat_obj;
    if (!PyArg_ParseTuple(args, "O!O!O!OOOOOO", &PyList_Type, &m_list, &PyList_Type, &v_list,
                          &PyList_Type, &o_list, &ds_obj, &gs_obj, &col_obj, &rows_obj,
                          &code_obj, &mat_obj))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(m_list);
    PyArrayObject *ds = NULL, *gs = NULL, *col = NULL, *rows = NULL;
    Placed *cat = NULL;
    PyObject *out = NULL;
    int flags = NPY_ARRAY_IN_ARRAY;
    ds = (PyArrayObject *)PyArray_FROMANY(ds_obj, NPY_INT64, 1, 1, flags);
    gs = (PyArrayObject *)PyArray_FROMANY(gs_obj, NPY_INT64, 1, 1, flags);
    col = (PyArrayObject *)PyArray_FROMANY(col_obj, NPY_INT64, 1, 1, flags);
    rows = (PyArrayObject *)PyArray_FROMANY(rows_obj, NPY_INT64, 1, 1, flags);
    if (!ds || !gs || !col || !rows) goto done;
    PyArrayObject *code = (PyArrayObject *)code_obj, *mat = (PyArrayObject *)mat_obj;
    if (!PyArray_Check(code_obj) || !PyArray_Check(mat_obj) || PyArray_NDIM(code) != 2 ||
        PyArray_NDIM(mat) != 2 || PyArray_TYPE(code) != NPY_INT8 ||
        PyArray_TYPE(mat) != NPY_INT32 || !PyArray_IS_C_CONTIGUOUS(code) ||
        !PyArray_IS_C_CONTIGUOUS(mat) || !PyArray_ISWRITEABLE(code) ||
        !PyArray_ISWRITEABLE(mat) || PyArray_DIM(code, 0) != PyArray_DIM(mat, 0) ||
        PyArray_DIM(code, 1) != PyArray_DIM(mat, 1) || PyList_GET_SIZE(v_list) != n ||
        PyList_GET_SIZE(o_list) != n || PyArray_SIZE(ds) != n || PyArray_SIZE(gs) != n) {
        PyErr_SetString(PyExc_ValueError, "place: inconsistent arguments");
        goto done;
    }
    npy_intp T = PyArray_DIM(code, 0);
    if (!(cat = calloc((size_t)(n ? n : 1), sizeof(Placed)))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) { /* borrowed: the lists hold them */
        PyObject *m = PyList_GET_ITEM(m_list, k), *v = PyList_GET_ITEM(v_list, k);
        PyObject *o = PyList_GET_ITEM(o_list, k);
        if (!PyArray_Check(m) || !PyArray_Check(v) || !PyArray_Check(o)) goto bad;
        PyArrayObject *ma = (PyArrayObject *)m, *va = (PyArrayObject *)v, *oa = (PyArrayObject *)o;
        if (PyArray_TYPE(ma) != NPY_INT32 || PyArray_TYPE(va) != NPY_INT8 ||
            PyArray_TYPE(oa) != NPY_INT64 || PyArray_NDIM(ma) != 2 || PyArray_NDIM(va) != 2 ||
            PyArray_NDIM(oa) != 1 || !PyArray_IS_C_CONTIGUOUS(ma) ||
            !PyArray_IS_C_CONTIGUOUS(va) || !PyArray_IS_C_CONTIGUOUS(oa) ||
            PyArray_DIM(ma, 0) != T || PyArray_DIM(va, 0) != T ||
            PyArray_DIM(ma, 1) != PyArray_DIM(oa, 0) || PyArray_DIM(va, 1) != PyArray_DIM(oa, 0))
            goto bad;
        cat[k] = (Placed){PyArray_DATA(ma), PyArray_DATA(va), PyArray_DATA(oa), PyArray_DIM(oa, 0)};
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = place_c(cat, n, PyArray_DATA(ds), PyArray_DATA(gs), PyArray_DATA(col),
                 PyArray_SIZE(col), PyArray_DATA(rows), PyArray_SIZE(rows), T,
                 PyArray_DIM(code, 1), PyArray_DATA(code), PyArray_DATA(mat));
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_SetString(PyExc_IndexError, "place: an index out of range");
        goto done;
    }
    out = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_TypeError, "place: matches int32 (T, D), codes int8 (T, D), order int64 (D,)");
done:
    free(cat);
    Py_XDECREF(ds); Py_XDECREF(gs); Py_XDECREF(col); Py_XDECREF(rows);
    return out;
}

static PyMethodDef methods[] = {
    {"group_rank", group_rank, METH_VARARGS,
     "group_rank(group, n_groups, score, tie, cap, ranks=True) -> (order, rank)\n"
     "\n"
     "Positions of the rows sorted by group (int64 in [0, n_groups)) ascending, score\n"
     "(float64) descending with NaN last, tie (int64 or None) ascending, then position;\n"
     "only the first `cap` of each group, and their rank in it (both int64; rank None\n"
     "when ranks is false)."},
    {"place", place, METH_VARARGS,
     "place(match0, verdict0, order, dt_start, gt_start, column_of, gt_rows, code, matched)\n"
     "\n"
     "Category k's kernel output (lists: match0 int32 (T, D), verdict0 int8 (T, D), order\n"
     "int64 (D,), detection j at prepared position dt_start[k] + order[j]) placed in the\n"
     "run's columns: code[t, c] = verdict0[t, j], matched[t, c] = gt_rows[gt_start[k] +\n"
     "match0[t, j]] (-1 where match0 < 0), c = column_of[prepared position]. code int8 and\n"
     "matched int32 (T, n) are written in place; the other columns are left as they are."},
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
