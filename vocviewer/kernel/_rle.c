/* COCO run-length encoded masks, compiled: the hot loops of vocviewer.core.masks / rle_columns.
 *
 * Conventions (those of vocviewer/core/masks.py): a mask of h x w pixels is read column-major
 * (pixel (y, x) at flat index x * h + y); its RLE is an int64 vector of alternating run lengths
 * starting with a run of 0s (possibly empty). Many masks are held as columns: `counts` (all runs
 * concatenated) and `offsets` (N + 1), mask i being counts[offsets[i] : offsets[i + 1]].
 *
 * Every function gives exactly what the numpy path gives (which is bit-exact to pycocotools'
 * maskApi.c), computing in int64 where maskApi uses 32-bit integers. Where an input falls outside
 * what the numpy path handles plainly (a truncated string, a negative run, a non-finite or huge
 * polygon coordinate...), the function returns None (or names the item it declined) and the
 * Python caller takes the numpy path, so errors and odd cases stay the numpy path's.
 *
 * The pairwise mask IoU releases the GIL and splits its pairs across threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "_bus_guard.h"
#include "_owned_array.h"
#include "_threads.h"

#define PAIRS_PER_THREAD 2048 /* fewer pairs than this per thread: not worth a thread */
#define STRINGS_PER_THREAD 128 /* masks decoded from strings (some hundred runs each) */
#define POLY_SCALE 5.0        /* maskApi's polygon upsampling */
#define POLY_MAX_COORD 4.0e15 /* |5 x + .5| below this: every step exact in int64 and double */

/* ---------------------------------------------------------------------------------------- */
/* small helpers                                                                             */
/* ---------------------------------------------------------------------------------------- */

/* split_range with the shares taken as the threads get to them: chunks of `chunk` items from
 * one counter (a thread slowed by others on its core does fewer; none is left to finish a
 * long share alone). */
typedef struct {
    RangeWork work;
    void *ctx;
    Py_ssize_t n, chunk;
    Py_ssize_t next;    /* the first item not yet taken (atomic) */
    volatile int fault; /* a guarded read met a page past a mapped file's end */
} DynamicJob;

static void dynamic_run(DynamicJob *job) {
    for (;;) {
        Py_ssize_t a = __atomic_fetch_add(&job->next, job->chunk, __ATOMIC_RELAXED);
        if (a >= job->n) return;
        job->work(job->ctx, a, a + job->chunk < job->n ? a + job->chunk : job->n);
    }
}

static void dynamic_chunks(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    DynamicJob *job = (DynamicJob *)ctx;
    int faulted;
    (void)lo, (void)hi;
    BUS_GUARDED(faulted, dynamic_run(job)); /* (each reading thread guards its own reads) */
    if (faulted) job->fault = 1;
}

/* Returns nonzero if a read met a page past the end of a mapped file cut short meanwhile
 * (`guard`: the data may be one, SIGBUS handled while the work runs; bus_guard.h). */
static int split_dynamic(RangeWork work, void *ctx, Py_ssize_t n, Py_ssize_t per_thread,
                         Py_ssize_t chunk, int guard) {
    int k = thread_count(n, per_thread);
    DynamicJob job = {work, ctx, n, chunk, 0, 0};
    if (guard) bus_guard_enter();
    if (k == 1) dynamic_chunks(&job, 0, 1);
    else split_range(dynamic_chunks, &job, k, 1); /* k shares of the counter, one a thread */
    if (guard) bus_guard_leave();
    return job.fault;
}

/* The error of a mapped results file cut short while its strings were read. */
static void cut_short(void) {
    PyErr_SetString(PyExc_OSError, "the results file was cut short while its masks were read "
                                   "(rewritten meanwhile?)");
}

/* Floor division and modulo of int64 (numpy's // and %, for a positive divisor). */
static inline int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* A 1-D C-contiguous array of `type` from any array-like (a new reference), or NULL + error. */
static PyArrayObject *as_array(PyObject *obj, int type) {
    return (PyArrayObject *)PyArray_FROMANY(obj, type, 1, 1, NPY_ARRAY_IN_ARRAY);
}

/* Masks as columns: counts and offsets, checked so that every mask's slice is in bounds. */
typedef struct {
    const int64_t *counts;
    const int64_t *offsets;
    Py_ssize_t n; /* number of masks */
} Columns;

static int columns_from(PyArrayObject *counts, PyArrayObject *offsets, Columns *out) {
    Py_ssize_t nc = PyArray_SIZE(counts), no = PyArray_SIZE(offsets);
    const int64_t *off = (const int64_t *)PyArray_DATA(offsets);
    if (no < 1) {
        PyErr_SetString(PyExc_ValueError, "offsets must have N + 1 entries");
        return -1;
    }
    for (Py_ssize_t i = 0; i < no; i++) {
        if (off[i] < 0 || off[i] > nc || (i > 0 && off[i] < off[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "offsets must rise within the counts");
            return -1;
        }
    }
    out->counts = (const int64_t *)PyArray_DATA(counts);
    out->offsets = off;
    out->n = no - 1;
    return 0;
}

static inline const int64_t *mask_runs(const Columns *t, Py_ssize_t i, int64_t *len) {
    *len = t->offsets[i + 1] - t->offsets[i];
    return t->counts + t->offsets[i];
}

/* A new 1-D int64 array holding a copy of `n` values. */
static PyObject *int64_array(const int64_t *values, Py_ssize_t n) {
    npy_intp dims[1] = {n};
    PyObject *arr = PyArray_SimpleNew(1, dims, NPY_INT64);
    if (arr != NULL && n > 0) memcpy(PyArray_DATA((PyArrayObject *)arr), values, n * 8);
    return arr;
}

/* ---------------------------------------------------------------------------------------- */
/* compressed strings: maskApi.c rleFrString / rleToString                                   */
/* ---------------------------------------------------------------------------------------- */

/* The chars of one list entry (an ASCII str, or bytes); 0 if it is anything else. */
static int entry_chars(PyObject *item, const unsigned char **chars, Py_ssize_t *len) {
    if (PyUnicode_Check(item)) {
        if (PyUnicode_READY(item) < 0 || !PyUnicode_IS_ASCII(item)) return 0;
        *chars = (const unsigned char *)PyUnicode_1BYTE_DATA(item);
        *len = PyUnicode_GET_LENGTH(item);
        return 1;
    }
    if (PyBytes_Check(item)) {
        *chars = (const unsigned char *)PyBytes_AS_STRING(item);
        *len = PyBytes_GET_SIZE(item);
        return 1;
    }
    return 0;
}

/* In a raw string (JSON text, `raw`), the char at s[*q] inside a value: an escaped backslash
 * is one backslash (*q moved onto its second); -1 for any other escape, one cut short, or the
 * string's closing quote. */
static inline int unescape(const unsigned char *s, Py_ssize_t len, Py_ssize_t *q, int raw) {
    if (!raw || (s[*q] != '\\' && s[*q] != '"')) return 0;
    return s[*q] == '\\' && ++*q < len && s[*q] == '\\' ? 0 : -1;
}

/* Whether a string [s, s + len) goes on at p (raw: up to its closing quote). */
static inline int string_more(const unsigned char *s, Py_ssize_t len, Py_ssize_t p, int raw) {
    return p < len && !(raw && s[p] == '"');
}

/* Whether a string [s, s + len) ends at p (raw: at its closing quote, within len). */
static inline int string_done(const unsigned char *s, Py_ssize_t len, Py_ssize_t p, int raw) {
    return raw ? p < len && s[p] == '"' : p == len;
}

/* The next value of a string from s[*p] (rleFrString: 5 bits per char from char 48, bit 0x20 =
 * more chars follow, the last char's bit 0x10 = negative), before the delta of the value two
 * back; *p moved past it. -1 if the string ends inside it or it has over 12 chars (60 bits).
 * `raw`: the string as JSON text holds it (see unescape). */
static inline int next_value(const unsigned char *s, Py_ssize_t len, Py_ssize_t *p, int64_t *x,
                             int raw) {
    Py_ssize_t q = *p;
    uint64_t low = 0;
    int k = 0;
    if (unescape(s, len, &q, raw)) return -1;
    unsigned char c = (unsigned char)(s[q] - 48);
    while (c & 0x20) { /* continuation chars: 5 low bits each */
        if (k == 11 || q + 1 >= len) return -1;
        low |= (uint64_t)(c & 0x1f) << (5 * k);
        k++;
        q++;
        if (unescape(s, len, &q, raw)) return -1;
        c = (unsigned char)(s[q] - 48);
    }
    *p = q + 1;
    int64_t top = (int64_t)((c & 0x1f) ^ 0x10) - 0x10; /* sign from bit 0x10 */
    *x = (int64_t)(low + ((uint64_t)top << (5 * k)));
    return 0;
}

/* Decode one string's values into `out` (next_value's, then counts[m] += counts[m-2] for
 * m > 2). Returns the number of values, or -1 if the string ends inside a value or a value
 * has over 12 chars (60 bits), as the numpy path refuses, or holds more than `cap` values. */
static Py_ssize_t decode_string(const unsigned char *s, Py_ssize_t len, int64_t *out,
                                Py_ssize_t cap, int raw) {
    Py_ssize_t m = 0, p = 0;
    while (string_more(s, len, p, raw)) {
        int64_t x;
        if (m >= cap || next_value(s, len, &p, &x, raw)) return -1; /* (cap: the caller's room) */
        if (m > 2) x += out[m - 2];
        out[m++] = x;
    }
    return string_done(s, len, p, raw) ? m : -1;
}

/* The strings of from_strings, gathered while holding the GIL (`keep` owns them). */
typedef struct {
    const unsigned char **chars;
    Py_ssize_t *len;
    int64_t *offsets; /* first: values per string; then their running sum */
    int64_t *counts;
    volatile int declined;
} StringsJob;

static void count_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    StringsJob *job = (StringsJob *)ctx;
    for (Py_ssize_t i = lo; i < hi; i++) { /* one value ends at each char without 0x20 */
        const unsigned char *s = job->chars[i];
        int64_t values = 0;
        for (Py_ssize_t p = 0; p < job->len[i]; p++) values += !((unsigned char)(s[p] - 48) & 0x20);
        job->offsets[i + 1] = values;
    }
}

static void decode_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    StringsJob *job = (StringsJob *)ctx;
    for (Py_ssize_t i = lo; i < hi && !job->declined; i++) {
        int64_t *out = job->counts + job->offsets[i];
        if (decode_string(job->chars[i], job->len[i], out, job->offsets[i + 1] - job->offsets[i], 0) < 0)
            job->declined = 1;
    }
}

/* from_strings(list) -> (counts int64, offsets int64) | None (numpy path: an entry neither an
 * ASCII str nor bytes, or see decode_string). Counts, then decodes, in threads across strings. */
static PyObject *py_from_strings(PyObject *self, PyObject *args) {
    PyObject *list, *keep, *counts = NULL, *offsets = NULL, *res = NULL;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &list)) return NULL;
    keep = PyList_GetSlice(list, 0, PyList_GET_SIZE(list)); /* the strings stay alive */
    if (keep == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(keep);
    npy_intp doff[1] = {n + 1};
    StringsJob job = {malloc(sizeof(char *) * (size_t)(n + 1)),
                      malloc(sizeof(Py_ssize_t) * (size_t)(n + 1)), NULL, NULL, 0};
    offsets = PyArray_SimpleNew(1, doff, NPY_INT64);
    if (!job.chars || !job.len || !offsets) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!entry_chars(PyList_GET_ITEM(keep, i), &job.chars[i], &job.len[i])) {
            res = Py_NewRef(Py_None);
            goto done;
        }
    }
    job.offsets = PyArray_DATA((PyArrayObject *)offsets);
    job.offsets[0] = 0;
    Py_BEGIN_ALLOW_THREADS;
    split_range(count_range, &job, n, PAIRS_PER_THREAD);
    for (Py_ssize_t i = 0; i < n; i++) job.offsets[i + 1] += job.offsets[i];
    Py_END_ALLOW_THREADS;
    npy_intp dc[1] = {job.offsets[n]};
    counts = PyArray_SimpleNew(1, dc, NPY_INT64);
    if (counts == NULL) goto done;
    job.counts = PyArray_DATA((PyArrayObject *)counts);
    Py_BEGIN_ALLOW_THREADS;
    split_range(decode_range, &job, n, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
    res = job.declined ? Py_NewRef(Py_None) : Py_BuildValue("(OO)", counts, offsets);
done:
    if (res == NULL && !PyErr_Occurred()) PyErr_NoMemory();
    free(job.chars);
    free(job.len);
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_DECREF(keep);
    return res;
}

/* Encode one mask's runs as rleToString does (value minus the one two back, m > 2; 5 bits a
 * char, low bits first, 0x20 while more follow; done when the rest is 0, or -1 after a char
 * with bit 0x10). Returns the number of chars written to `out` (room: 13 per run). */
static Py_ssize_t encode_string(const int64_t *runs, int64_t m, char *out) {
    Py_ssize_t p = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t x = runs[i] - (i > 2 ? runs[i - 2] : 0);
        int more = 1;
        while (more) {
            int c = (int)(x & 0x1f);
            x >>= 5; /* arithmetic shift (gcc, clang, msvc): numpy's >> */
            more = (c & 0x10) ? x != -1 : x != 0;
            if (more) c |= 0x20;
            out[p++] = (char)(c + 48);
        }
    }
    return p;
}

/* to_strings(counts, offsets) -> list[str]. */
static PyObject *py_to_strings(PyObject *self, PyObject *args) {
    PyObject *oc, *oo;
    if (!PyArg_ParseTuple(args, "OO", &oc, &oo)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    PyObject *list = NULL;
    char *buf = NULL;
    Columns t;
    if (ac == NULL || ao == NULL || columns_from(ac, ao, &t) < 0) goto done;
    int64_t longest = 0;
    for (Py_ssize_t i = 0; i < t.n; i++) {
        int64_t len = t.offsets[i + 1] - t.offsets[i];
        if (len > longest) longest = len;
    }
    buf = malloc((size_t)(13 * longest + 1));
    list = buf ? PyList_New(t.n) : PyErr_NoMemory();
    for (Py_ssize_t i = 0; list != NULL && i < t.n; i++) {
        int64_t m;
        const int64_t *runs = mask_runs(&t, i, &m);
        Py_ssize_t len = encode_string(runs, m, buf);
        PyObject *s = PyUnicode_New(len, 127);
        if (s == NULL) {
            Py_CLEAR(list);
            break;
        }
        memcpy(PyUnicode_1BYTE_DATA(s), buf, len);
        PyList_SET_ITEM(list, i, s);
    }
done:
    free(buf);
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    return list;
}

/* ---------------------------------------------------------------------------------------- */
/* area and bounding box: maskApi.c rleArea / rleToBbox                                      */
/* ---------------------------------------------------------------------------------------- */

/* rleArea: the sum of the odd-position runs. */
static int64_t mask_area(const int64_t *runs, int64_t m) {
    int64_t a = 0;
    for (int64_t j = 1; j < m; j += 2) a += runs[j];
    return a;
}

/* rleToBbox (pycocotools 2.0.11) walked one foreground run at a time, for h > 0: a run of
 * length zero is skipped; a run's first and last pixel set the columns xs..xe and, when both
 * are in one column, the rows ys..ye; a run going on into a later column makes the box span
 * the full height h. Column x starts at `base` = x * h; columns are found by one step forward
 * where they can, floor division otherwise (maskApi's unsigned arithmetic agrees on valid
 * masks). It starts at column -2, so the first pixel visited always finds its column. */
typedef struct {
    int64_t x, base, xs, xe, ys, ye;
    int wrap;
} BoxWalk;

static inline BoxWalk box_start(int64_t h) {
    return (BoxWalk){-2, -2 * h, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 0};
}

static inline void box_visit(BoxWalk *b, int64_t t, int64_t h) {
    if ((uint64_t)(t - b->base) >= (uint64_t)h) {
        b->x = t - b->base < 2 * h && t >= b->base ? b->x + 1 : floor_div(t, h);
        b->base = b->x * h;
        b->xs = b->x < b->xs ? b->x : b->xs;
        b->xe = b->x > b->xe ? b->x : b->xe;
    }
    int64_t y = t - b->base;
    b->ys = y < b->ys ? y : b->ys;
    b->ye = y > b->ye ? y : b->ye;
}

/* The foreground run of `len` pixels from flat index `start` (h > 0). */
static inline void box_run(BoxWalk *b, int64_t start, int64_t len, int64_t h) {
    if (len == 0) return;
    box_visit(b, start, h);
    int64_t xp = b->x;
    box_visit(b, start + len - 1, h);
    b->wrap |= xp < b->x;
}

/* bb[4] = x, y, w, h of a mask of h x w pixels, at least two runs, walked if h > 0; `area`
 * nonzero if it has a foreground pixel. Without one, maskApi's initial box with its unsigned
 * sizes: xs = w, ys = h, xe - xs + 1 = 1 - w and 1 - h modulo 2^32. With one and h <= 0
 * (maskApi divides by zero): zeros. */
static inline void box_done(const BoxWalk *b, int64_t h, int64_t w, int64_t area, double *bb) {
    if (area == 0) {
        bb[0] = (double)w;
        bb[1] = (double)h;
        bb[2] = (double)(uint32_t)(1 - w);
        bb[3] = (double)(uint32_t)(1 - h);
        return;
    }
    bb[0] = bb[1] = bb[2] = bb[3] = 0.0;
    if (h <= 0) return;
    int64_t ys = b->wrap ? 0 : b->ys, ye = b->wrap ? h - 1 : b->ye;
    bb[0] = (double)b->xs;
    bb[1] = (double)ys;
    bb[2] = (double)(b->xe - b->xs + 1);
    bb[3] = (double)(ye - ys + 1);
}

/* rleToBbox of one mask of h x w pixels into bb[4] = x, y, w, h (an odd last run, background,
 * is dropped; fewer than two runs: zeros). */
static void mask_bbox(const int64_t *runs, int64_t m, int64_t h, int64_t w, double *bb) {
    m = (m / 2) * 2;
    if (m == 0) {
        bb[0] = bb[1] = bb[2] = bb[3] = 0.0;
        return;
    }
    BoxWalk b = box_start(h);
    int64_t cc = 0, pixels = 0; /* (nonzero if a foreground run is) */
    for (int64_t j = 0; j < m; j += 2) {
        cc += runs[j];
        if (h > 0) box_run(&b, cc, runs[j + 1], h);
        cc += runs[j + 1];
        pixels |= runs[j + 1];
    }
    box_done(&b, h, w, pixels, bb);
}

typedef struct {
    Columns t;
    const int64_t *h, *w;
    int64_t *area;
    double *box;
} MaskJob;

static void area_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    MaskJob *job = (MaskJob *)ctx;
    for (Py_ssize_t i = lo; i < hi; i++) {
        int64_t m;
        const int64_t *runs = mask_runs(&job->t, i, &m);
        job->area[i] = mask_area(runs, m);
    }
}

static void bbox_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    MaskJob *job = (MaskJob *)ctx;
    for (Py_ssize_t i = lo; i < hi; i++) {
        int64_t m;
        const int64_t *runs = mask_runs(&job->t, i, &m);
        mask_bbox(runs, m, job->h[i], job->w[i], job->box + 4 * i);
    }
}

/* areas(counts, offsets) -> int64 (N,). */
static PyObject *py_areas(PyObject *self, PyObject *args) {
    PyObject *oc, *oo, *res = NULL;
    if (!PyArg_ParseTuple(args, "OO", &oc, &oo)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    Columns t;
    if (ac == NULL || ao == NULL || columns_from(ac, ao, &t) < 0) goto done;
    npy_intp dims[1] = {t.n};
    res = PyArray_SimpleNew(1, dims, NPY_INT64);
    if (res == NULL) goto done;
    MaskJob job = {t, NULL, NULL, PyArray_DATA((PyArrayObject *)res), NULL};
    Py_BEGIN_ALLOW_THREADS;
    split_range(area_range, &job, t.n, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
done:
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    return res;
}

/* bboxes(counts, offsets, height, width) -> float64 (N, 4). */
static PyObject *py_bboxes(PyObject *self, PyObject *args) {
    PyObject *oc, *oo, *oh, *ow, *res = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &oc, &oo, &oh, &ow)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    PyArrayObject *ah = as_array(oh, NPY_INT64), *aw = as_array(ow, NPY_INT64);
    Columns t;
    if (ac == NULL || ao == NULL || ah == NULL || aw == NULL || columns_from(ac, ao, &t) < 0)
        goto done;
    if (PyArray_SIZE(ah) != t.n || PyArray_SIZE(aw) != t.n) {
        PyErr_SetString(PyExc_ValueError, "one height and width per mask");
        goto done;
    }
    npy_intp dims[2] = {t.n, 4};
    res = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
    if (res == NULL) goto done;
    MaskJob job = {t, PyArray_DATA(ah), PyArray_DATA(aw), NULL,
                   PyArray_DATA((PyArrayObject *)res)};
    Py_BEGIN_ALLOW_THREADS;
    split_range(bbox_range, &job, t.n, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
done:
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    Py_XDECREF(ah);
    Py_XDECREF(aw);
    return res;
}

/* runs_fit(counts, offsets, hw) -> bool: every mask has runs, none negative or over max(hw),
 * and mask i's runs sum to hw[i] (the check of results' decoded strings). */
typedef struct {
    Columns t;
    const int64_t *hw;
    int64_t top;
    volatile int unfit; /* set by any range that finds a mask that does not fit */
} FitJob;

static void fit_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    FitJob *job = (FitJob *)ctx;
    int fit = 1;
    for (Py_ssize_t i = lo; fit && i < hi && !job->unfit; i++) {
        int64_t m, sum = 0;
        const int64_t *runs = mask_runs(&job->t, i, &m);
        for (int64_t j = 0; j < m; j++) {
            fit &= runs[j] >= 0 && runs[j] <= job->top;
            sum += runs[j]; /* runs within 0 .. top: no overflow for any real mask count */
        }
        fit &= m > 0 && sum == job->hw[i];
    }
    if (!fit) job->unfit = 1;
}

static PyObject *py_runs_fit(PyObject *self, PyObject *args) {
    PyObject *oc, *oo, *ohw, *res = NULL;
    if (!PyArg_ParseTuple(args, "OOO", &oc, &oo, &ohw)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    PyArrayObject *ahw = as_array(ohw, NPY_INT64);
    Columns t;
    if (!ac || !ao || !ahw || columns_from(ac, ao, &t) < 0) goto done;
    if (PyArray_SIZE(ahw) != t.n) {
        PyErr_SetString(PyExc_ValueError, "one size per mask");
        goto done;
    }
    const int64_t *hw = PyArray_DATA(ahw);
    int64_t top = INT64_MIN;
    for (Py_ssize_t i = 0; i < t.n; i++) top = hw[i] > top ? hw[i] : top;
    FitJob job = {t, hw, top, 0};
    Py_BEGIN_ALLOW_THREADS;
    split_range(fit_range, &job, t.n, PAIRS_PER_THREAD);
    Py_END_ALLOW_THREADS;
    res = PyBool_FromLong(!job.unfit);
done:
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    Py_XDECREF(ahw);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* masks kept as compressed strings (a results file's): checked and measured once, decoded  */
/* by rows when read                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* Mask i: the string chars[start[i] : start[i + 1]] of runs[i + 1] - runs[i] values; `raw`:
 * the strings as a JSON text holds them (the chars of a results file), each up to its closing
 * quote (the text after it, up to the next string, is not read), a backslash escaped. */
typedef struct {
    const unsigned char *chars;
    const int64_t *start, *runs;
    Py_ssize_t n;
    int raw;
} Strings;

/* Mask i's string: its first char and the room it has (a raw one ends at its closing quote
 * within it: string_more, string_done). */
static inline int string_body(const Strings *t, Py_ssize_t i, const unsigned char **s,
                              Py_ssize_t *len) {
    *s = t->chars + t->start[i];
    *len = (Py_ssize_t)(t->start[i + 1] - t->start[i]);
    return 0;
}

/* Whether mask i's string and runs lie within the columns (start and runs rising there). */
static inline int string_in_bounds(const Strings *t, Py_ssize_t i, int64_t nc) {
    return t->start[i] >= 0 && t->start[i] <= t->start[i + 1] && t->start[i + 1] <= nc &&
           t->runs[i] >= 0 && t->runs[i] <= t->runs[i + 1];
}

/* The columns as Strings; every mask checked in bounds (string_in_bounds) if `all`, else only
 * the shapes (the caller checks the masks it reads). */
static int strings_from(PyArrayObject *chars, PyArrayObject *start, PyArrayObject *runs,
                        Strings *out, int all) {
    Py_ssize_t n = PyArray_SIZE(start) - 1, nc = PyArray_SIZE(chars);
    const int64_t *st = PyArray_DATA(start), *ru = PyArray_DATA(runs);
    if (n < 0 || PyArray_SIZE(runs) != n + 1 || st[0] != 0 || ru[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "start and runs must have N + 1 entries from 0");
        return -1;
    }
    *out = (Strings){PyArray_DATA(chars), st, ru, n, 0};
    for (Py_ssize_t i = 0; all && i < n; i++) {
        if (!string_in_bounds(out, i, nc)) {
            PyErr_SetString(PyExc_ValueError, "start and runs must rise, within the chars");
            return -1;
        }
    }
    return 0;
}

/* Decode mask i into out (room for its values); nonzero if it declines or the count differs. */
static int string_runs(const Strings *t, Py_ssize_t i, int64_t *out) {
    Py_ssize_t want = (Py_ssize_t)(t->runs[i + 1] - t->runs[i]), len;
    const unsigned char *s;
    if (string_body(t, i, &s, &len)) return -1;
    return decode_string(s, len, out, want, t->raw) != want;
}

/* Mask i's string checked and measured as it is decoded, its runs not kept: exactly its count
 * of values, each within 0 .. top, summing to h * w (else nonzero); *area as mask_area, bb as
 * mask_bbox (the same steps, run by run). */
static int string_measure(const Strings *t, Py_ssize_t i, int64_t h, int64_t w, int64_t top,
                          int64_t *area, double *bb) {
    const unsigned char *s;
    Py_ssize_t len, p = 0;
    if (string_body(t, i, &s, &len)) return -1;
    int64_t want = t->runs[i + 1] - t->runs[i];
    int64_t m = 0, sum = 0, a = 0, two_back = 0, one_back = 0;
    BoxWalk b = box_start(h);
    while (string_more(s, len, p, t->raw)) {
        int64_t v;
        if (m >= want || next_value(s, len, &p, &v, t->raw)) return -1;
        if (m > 2) v += two_back;
        two_back = one_back;
        one_back = v;
        if (v < 0 || v > top) return -1;
        if (m % 2) { /* mask_bbox's foreground run */
            a += v;
            if (h > 0) box_run(&b, sum, v, h);
        }
        sum += v; /* runs within 0 .. top: no overflow for any real mask count */
        m++;
    }
    if (!string_done(s, len, p, t->raw) || m != want || m == 0 || sum != h * w) return -1;
    *area = a;
    if (want < 2)
        bb[0] = bb[1] = bb[2] = bb[3] = 0.0;
    else
        box_done(&b, h, w, a, bb);
    return 0;
}

/* The next value of a string at *p (next_value's, its one-char case first: most runs of a
 * real mask fit one char); *p moved past it. -1 if the string ends before or inside it. */
static inline int take_value(const unsigned char **p, const unsigned char *end, int64_t *x,
                              int raw) {
    const unsigned char *q = *p;
    if (q >= end) return -1;
    unsigned c = (unsigned char)(*q - 48);
    if (!(c & 0x20)) {
        *x = (int64_t)((c & 0x1f) ^ 0x10) - 0x10;
        *p = q + 1;
        return 0;
    }
    Py_ssize_t k = 0;
    int r = next_value(q, end - q, &k, x, raw); /* (an escape is never a value's last char) */
    *p = q + k;
    return r;
}

/* string_measure for h > 0 and at least two values, a pair of runs (background, foreground)
 * per step: the same checks and the same numbers. */
static int string_measure_pairs(const Strings *t, Py_ssize_t i, int64_t h, int64_t w,
                                int64_t top, int64_t *area, double *bb) {
    const unsigned char *p;
    Py_ssize_t len;
    if (string_body(t, i, &p, &len)) return -1;
    const unsigned char *end = p + len;
    int raw = t->raw;
    int64_t want = t->runs[i + 1] - t->runs[i], pairs = want / 2;
    int64_t a, cc, ev = 0, od, e, o;
    BoxWalk b = box_start(h);
    /* the first pair: no delta */
    if (take_value(&p, end, &e, raw) || take_value(&p, end, &o, raw)) return -1;
    if ((uint64_t)e > (uint64_t)top || (uint64_t)o > (uint64_t)top) return -1;
    box_run(&b, e, o, h);
    cc = e + o;
    a = o;
    od = o; /* the value two back of the third is not added (m > 2 only): ev stays 0 */
    for (int64_t k = 1; k < pairs; k++) {
        int64_t ce, co;
        if (take_value(&p, end, &ce, raw) || take_value(&p, end, &co, raw)) return -1;
        e = ce + ev;
        o = co + od;
        ev = e; /* (the third value, k = 1: no delta, as ev was 0) */
        od = o;
        if ((uint64_t)e > (uint64_t)top || (uint64_t)o > (uint64_t)top) return -1;
        cc += e;
        box_run(&b, cc, o, h);
        cc += o;
        a += o;
    }
    int64_t sum = cc;
    if (want % 2) { /* a last background run, not boxed */
        int64_t ce;
        if (take_value(&p, end, &ce, raw)) return -1;
        e = ce + (pairs > 1 ? ev : 0);
        if ((uint64_t)e > (uint64_t)top) return -1;
        sum += e;
    }
    if (!string_done(p, end - p, 0, raw) || sum != h * w) return -1;
    *area = a;
    box_done(&b, h, w, a, bb);
    return 0;
}

typedef struct {
    Strings t;
    const int64_t *h, *w;
    int64_t top; /* the largest h * w */
    double *box;
    int64_t *area;
    volatile int unfit;
} StringMasksJob;

static void string_masks_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    StringMasksJob *job = (StringMasksJob *)ctx;
    for (Py_ssize_t i = lo; i < hi && !job->unfit; i++)
        if ((job->h[i] > 0 && job->t.runs[i + 1] - job->t.runs[i] >= 2
                 ? string_measure_pairs
                 : string_measure)(&job->t, i, job->h[i], job->w[i], job->top, job->area + i,
                                   job->box + 4 * i))
            job->unfit = 1;
}

/* string_masks(chars uint8, start, runs, height, width, raw=False) -> (bboxes float64 (N, 4),
 * areas int64 (N,)) | None: every string decoded (not kept), checked as from_strings + runs_fit
 * check it (a whole string of exactly its count of values, none negative, summing to h * w),
 * measured as bboxes / areas measure it; None if one is not. Threads across masks. `raw`
 * (here and in decode_strings, string_iou_pairs): the strings as JSON text (Strings). */
static PyObject *py_string_masks(PyObject *self, PyObject *args) {
    PyObject *och, *ost, *oru, *oh, *ow, *res = NULL, *box = NULL, *area = NULL;
    int raw = 0;
    if (!PyArg_ParseTuple(args, "OOOOO|p", &och, &ost, &oru, &oh, &ow, &raw)) return NULL;
    PyArrayObject *ach = as_array(och, NPY_UINT8), *ast = as_array(ost, NPY_INT64);
    PyArrayObject *aru = as_array(oru, NPY_INT64), *ah = as_array(oh, NPY_INT64);
    PyArrayObject *aw = as_array(ow, NPY_INT64);
    Strings t;
    if (!ach || !ast || !aru || !ah || !aw || strings_from(ach, ast, aru, &t, 1) < 0) goto done;
    t.raw = raw;
    if (PyArray_SIZE(ah) != t.n || PyArray_SIZE(aw) != t.n) {
        PyErr_SetString(PyExc_ValueError, "one height and width per mask");
        goto done;
    }
    npy_intp db[2] = {t.n, 4}, da[1] = {t.n};
    if (!(box = PyArray_ZEROS(2, db, NPY_FLOAT64, 0)) || !(area = PyArray_ZEROS(1, da, NPY_INT64, 0)))
        goto done;
    const int64_t *h = PyArray_DATA(ah), *w = PyArray_DATA(aw);
    int64_t top = 0;
    for (Py_ssize_t i = 0; i < t.n; i++) {
        if (h[i] < 0 || w[i] < 0 || (w[i] > 0 && h[i] > INT64_MAX / w[i])) {
            res = Py_NewRef(Py_None);
            goto done;
        }
        top = h[i] * w[i] > top ? h[i] * w[i] : top;
    }
    StringMasksJob job = {t, h, w, top, PyArray_DATA((PyArrayObject *)box),
                          PyArray_DATA((PyArrayObject *)area), 0};
    int fault;
    Py_BEGIN_ALLOW_THREADS;
    fault = split_dynamic(string_masks_range, &job, t.n, STRINGS_PER_THREAD, 1024, raw);
    Py_END_ALLOW_THREADS;
    res = job.unfit || fault ? Py_NewRef(Py_None) : PyTuple_Pack(2, box, area);
done:
    Py_XDECREF(box);
    Py_XDECREF(area);
    Py_XDECREF(ach);
    Py_XDECREF(ast);
    Py_XDECREF(aru);
    Py_XDECREF(ah);
    Py_XDECREF(aw);
    return res;
}

typedef struct {
    Strings t;
    const int64_t *rows, *off;
    int64_t *counts;
    volatile int declined;
} DecodeRowsJob;

static void decode_rows_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    DecodeRowsJob *job = (DecodeRowsJob *)ctx;
    for (Py_ssize_t i = lo; i < hi && !job->declined; i++)
        if (string_runs(&job->t, (Py_ssize_t)job->rows[i], job->counts + job->off[i]))
            job->declined = 1;
}

/* decode_strings(chars uint8, start, runs, rows, out=None, raw=False) -> (counts, offsets) | None: the
 * masks `rows` (any order, repeats allowed) decoded into new columns (counts: the front of
 * `out`, a C-contiguous writable int64 array, where they fit), threads across rows; None if
 * one declines (string_masks passed them all). */
static PyObject *py_decode_strings(PyObject *self, PyObject *args) {
    PyObject *och, *ost, *oru, *orows, *oout = Py_None, *res = NULL, *counts = NULL;
    PyObject *offsets = NULL;
    int raw = 0;
    if (!PyArg_ParseTuple(args, "OOOO|Op", &och, &ost, &oru, &orows, &oout, &raw)) return NULL;
    PyArrayObject *ach = as_array(och, NPY_UINT8), *ast = as_array(ost, NPY_INT64);
    PyArrayObject *aru = as_array(oru, NPY_INT64), *ar = as_array(orows, NPY_INT64);
    Strings t;
    if (!ach || !ast || !aru || !ar || strings_from(ach, ast, aru, &t, 0) < 0) goto done;
    t.raw = raw;
    Py_ssize_t n = PyArray_SIZE(ar);
    const int64_t *rows = PyArray_DATA(ar);
    npy_intp no = n + 1;
    if (!(offsets = PyArray_SimpleNew(1, &no, NPY_INT64))) goto done;
    int64_t *off = PyArray_DATA((PyArrayObject *)offsets);
    off[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (rows[i] < 0 || rows[i] >= t.n) {
            PyErr_SetString(PyExc_IndexError, "decode_strings: a row outside the masks");
            goto done;
        }
        if (!string_in_bounds(&t, (Py_ssize_t)rows[i], PyArray_SIZE(ach))) {
            PyErr_SetString(PyExc_ValueError, "start and runs must rise, within the chars");
            goto done;
        }
        off[i + 1] = off[i] + t.runs[rows[i] + 1] - t.runs[rows[i]];
    }
    npy_intp total = (npy_intp)off[n];
    if (oout != Py_None) { /* a buffer given: the runs go there when they fit (a view of it) */
        PyArrayObject *b = (PyArrayObject *)oout;
        if (!PyArray_Check(oout) || PyArray_TYPE(b) != NPY_INT64 || PyArray_NDIM(b) != 1 ||
            !PyArray_ISCARRAY(b)) {
            PyErr_SetString(PyExc_TypeError, "decode_strings: out must be a writable int64 array");
            goto done;
        }
        if (PyArray_SIZE(b) >= total) {
            counts = PyArray_SimpleNewFromData(1, &total, NPY_INT64, PyArray_DATA(b));
            if (!counts) goto done;
            Py_INCREF(oout); /* (the view keeps its buffer alive; the reference is stolen) */
            if (PyArray_SetBaseObject((PyArrayObject *)counts, oout)) goto done;
        }
    }
    if (!counts && !(counts = PyArray_SimpleNew(1, &total, NPY_INT64))) goto done;
    DecodeRowsJob job = {t, rows, off, PyArray_DATA((PyArrayObject *)counts), 0};
    int fault;
    Py_BEGIN_ALLOW_THREADS;
    fault = split_dynamic(decode_rows_range, &job, n, STRINGS_PER_THREAD, 256, raw);
    Py_END_ALLOW_THREADS;
    if (fault) cut_short();
    else res = job.declined ? Py_NewRef(Py_None) : PyTuple_Pack(2, counts, offsets);
done:
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(ach);
    Py_XDECREF(ast);
    Py_XDECREF(aru);
    Py_XDECREF(ar);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* mask IoU of pairs: maskApi.c rleIou (with bbIou as its filter)                            */
/* ---------------------------------------------------------------------------------------- */

/* A walk over one mask's foreground runs as flat-index intervals [start, end). */
typedef struct {
    const int64_t *runs;
    int64_t m, j, pos, start, end; /* j: the next odd run; pos: where run j - 1 ends */
} FgWalk;

static void fg_begin(FgWalk *w, const int64_t *runs, int64_t m) {
    w->runs = runs;
    w->m = m;
    w->j = 1;
    w->pos = m > 0 ? runs[0] : 0;
    w->start = w->end = 0;
}

/* Steps to the next foreground interval; 0 when none is left, -1 on a negative run. */
static int fg_next(FgWalk *w) {
    if (w->j >= w->m) return 0;
    int64_t len = w->runs[w->j], gap = w->j + 1 < w->m ? w->runs[w->j + 1] : 0;
    if (len < 0 || gap < 0) return -1;
    w->start = w->pos;
    w->end = w->pos + len;
    w->pos = w->end + gap;
    w->j += 2;
    return 1;
}

/* rleIou's joint walk over two masks' runs, step for step (maskApi.c): *inter and *uni the
 * pixels it counts. It ends where both masks' next runs are empty at once: after a boundary
 * the two share, which only masks that both hold an empty run after their first can reach
 * before their end. */
static void joint_walk(const int64_t *a, int64_t ma, const int64_t *b, int64_t mb,
                       int64_t *inter, int64_t *uni) {
    int64_t ca = ma > 0 ? a[0] : 0, cb = mb > 0 ? b[0] : 0, ia = 1, ib = 1, i = 0, u = 0, ct = 1;
    int va = 0, vb = 0;
    while (ct > 0) {
        int64_t c = ca < cb ? ca : cb;
        if (va || vb) {
            u += c;
            if (va && vb) i += c;
        }
        ca -= c;
        if (!ca && ia < ma) {
            ca = a[ia++];
            va = !va;
        }
        cb -= c;
        if (!cb && ib < mb) {
            cb = b[ib++];
            vb = !vb;
        }
        ct = ca + cb;
    }
    *inter = i;
    *uni = u;
}

/* Whether a mask holds a run of length zero after its first (its encoder never writes one). */
static int inner_empty_run(const int64_t *runs, int64_t m) {
    for (int64_t j = 1; j < m; j++)
        if (runs[j] == 0) return 1;
    return 0;
}

/* Pixels set in both masks (the overlaps of their foreground intervals, walked together: what
 * rleIou's joint run walk counts as `i` unless joint_walk stops early), and each mask's area
 * (rleArea) on the way; -1 on a negative run (the numpy path then decides). */
static int64_t mask_intersection(const int64_t *a, int64_t ma, const int64_t *b, int64_t mb,
                                 int64_t *area_a, int64_t *area_b) {
    FgWalk wa, wb;
    fg_begin(&wa, a, ma);
    fg_begin(&wb, b, mb);
    if ((ma > 0 && a[0] < 0) || (mb > 0 && b[0] < 0)) return -1;
    int ra = fg_next(&wa), rb = fg_next(&wb);
    int64_t inter = 0, sa = 0, sb = 0;
    if (ra > 0) sa += wa.end - wa.start;
    if (rb > 0) sb += wb.end - wb.start;
    while (ra > 0 && rb > 0) {
        int64_t lo = wa.start > wb.start ? wa.start : wb.start;
        int64_t hi = wa.end < wb.end ? wa.end : wb.end;
        if (hi > lo) inter += hi - lo;
        if (wa.end <= wb.end) {
            if ((ra = fg_next(&wa)) > 0) sa += wa.end - wa.start;
        } else if ((rb = fg_next(&wb)) > 0) {
            sb += wb.end - wb.start;
        }
    }
    while (ra > 0 && (ra = fg_next(&wa)) > 0) sa += wa.end - wa.start;
    while (rb > 0 && (rb = fg_next(&wb)) > 0) sb += wb.end - wb.start;
    *area_a = sa;
    *area_b = sb;
    return (ra < 0 || rb < 0) ? -1 : inter;
}

/* bbIou's test that two x, y, w, h boxes overlap with a positive IoU (same expressions). */
static int boxes_overlap(const double *d, const double *g, int crowd) {
    double da = d[2] * d[3], ga = g[2] * g[3];
    double w = fmin(d[2] + d[0], g[2] + g[0]) - fmax(d[0], g[0]);
    if (w <= 0) return 0;
    double h = fmin(d[3] + d[1], g[3] + g[1]) - fmax(d[1], g[1]);
    if (h <= 0) return 0;
    double i = w * h, u = crowd ? da : da + ga - i;
    return i / u > 0;
}

typedef struct {
    Columns det, gt;
    const Strings *strings; /* the detections as strings (det unused), or NULL */
    const int64_t *det_h, *det_w, *gt_h, *gt_w, *det_row, *gt_row;
    const uint8_t *crowd;
    const double *det_box, *gt_box;
    double *out;
    volatile int declined;
} IouJob;

/* A thread's last decoded detection (the pairs of one detection come together), and whether
 * the last detection it checked (`checked`) holds an empty run after its first. */
typedef struct {
    int64_t row, cap, m;
    int64_t *buf;
    int64_t checked;
    int empty;
} DetCache;

/* Detection i's runs: its slice of the columns, or its string decoded into the cache; NULL
 * if that fails. */
static const int64_t *det_runs(const IouJob *job, DetCache *c, int64_t i, int64_t *m) {
    if (!job->strings) return mask_runs(&job->det, i, m);
    if (c->row != i) {
        int64_t want = job->strings->runs[i + 1] - job->strings->runs[i];
        if (want > c->cap) {
            int64_t *b = realloc(c->buf, sizeof(int64_t) * (size_t)(want > 64 ? want : 64));
            if (!b) return NULL;
            c->buf = b;
            c->cap = want > 64 ? want : 64;
        }
        c->row = -1;
        if (string_runs(job->strings, (Py_ssize_t)i, c->buf)) return NULL;
        c->row = i;
        c->m = want;
    }
    *m = c->m;
    return c->buf;
}

/* rleIou of one pair: 0 unless the boxes overlap; -1 for masks of different sizes; else
 * intersection / union (a crowd GT: / the detection's area), 0 without intersection. */
static double pair_iou(IouJob *job, DetCache *cache, Py_ssize_t e) {
    int64_t i = job->det_row[e], j = job->gt_row[e];
    int crowd = job->crowd[e] != 0;
    if (!boxes_overlap(job->det_box + 4 * i, job->gt_box + 4 * j, crowd)) return 0.0;
    if (job->det_h[i] != job->gt_h[j] || job->det_w[i] != job->gt_w[j]) return -1.0;
    int64_t md, mg;
    const int64_t *d = det_runs(job, cache, i, &md), *g = mask_runs(&job->gt, j, &mg);
    if (!d) {
        job->declined = 1;
        return 0.0;
    }
    int64_t d_area, g_area, inter = mask_intersection(d, md, g, mg, &d_area, &g_area);
    if (inter < 0) {
        job->declined = 1;
        return 0.0;
    }
    if (inter == 0) return 0.0;
    int64_t uni = d_area + g_area - inter;
    if (cache->checked != i) {
        cache->empty = inner_empty_run(d, md);
        cache->checked = i;
    }
    if (cache->empty && inner_empty_run(g, mg)) {
        joint_walk(d, md, g, mg, &inter, &uni); /* (rleIou may stop early: see joint_walk) */
        if (inter == 0) return 0.0;
    }
    if (crowd) uni = d_area;
    return (double)inter / (double)(uni > 1 ? uni : 1);
}

static void iou_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    IouJob *job = (IouJob *)ctx;
    DetCache cache = {-1, 0, 0, NULL, -1, 0};
    for (Py_ssize_t e = lo; e < hi && !job->declined; e++) job->out[e] = pair_iou(job, &cache, e);
    free(cache.buf);
}

/* Checks a row index array against its table; -1 + IndexError if one is out of range. */
static int rows_in_range(const int64_t *rows, Py_ssize_t n, Py_ssize_t limit) {
    for (Py_ssize_t e = 0; e < n; e++) {
        if (rows[e] < 0 || rows[e] >= limit) {
            PyErr_SetString(PyExc_IndexError, "mask row out of range");
            return -1;
        }
    }
    return 0;
}

/* The n arguments of iou_pairs / string_iou_pairs (`name`) as arrays into a: each 1-d of its
 * type but the last two (boxes: up to 2-d), the bool one at `crowd` taken as uint8; -1 and an
 * error set if one cannot be (a's arrays made so far are the caller's to release). */
static int pair_arrays(PyObject *args, const char *name, int n, const int *types, int crowd,
                       PyArrayObject **a) {
    PyObject *o[14] = {NULL};
    if (!PyArg_UnpackTuple(args, name, n, n, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                           &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13]))
        return -1;
    for (int k = 0; k < n; k++) {
        PyObject *src = o[k];
        if (k == crowd) src = PyArray_FROMANY(o[k], NPY_BOOL, 1, 1, NPY_ARRAY_IN_ARRAY);
        a[k] = src ? (PyArrayObject *)PyArray_FROMANY(src, types[k], 1, k >= n - 2 ? 2 : 1,
                                                       NPY_ARRAY_IN_ARRAY)
                   : NULL;
        if (k == crowd) Py_XDECREF(src);
        if (a[k] == NULL) return -1;
    }
    return 0;
}

/* The pairs' IoU with job's detections set (job->det.n of them; job->strings: as strings, of
 * nchars characters) and `a` the 11 arrays after them: det_h, det_w, gt_counts, gt_offsets,
 * gt_h, gt_w, det_row, gt_row, crowd, det_box, gt_box. */
static PyObject *pairs_iou(IouJob *job, PyArrayObject **a, Py_ssize_t nchars, const char *name) {
    if (columns_from(a[2], a[3], &job->gt) < 0) return NULL;
    Py_ssize_t e = PyArray_SIZE(a[6]), nd = job->det.n;
    if (PyArray_SIZE(a[0]) != nd || PyArray_SIZE(a[1]) != nd || PyArray_SIZE(a[4]) != job->gt.n ||
        PyArray_SIZE(a[5]) != job->gt.n || PyArray_SIZE(a[7]) != e || PyArray_SIZE(a[8]) != e ||
        PyArray_SIZE(a[9]) != 4 * nd || PyArray_SIZE(a[10]) != 4 * job->gt.n) {
        PyErr_Format(PyExc_ValueError, "%s: array sizes disagree", name);
        return NULL;
    }
    job->det_h = PyArray_DATA(a[0]);
    job->det_w = PyArray_DATA(a[1]);
    job->gt_h = PyArray_DATA(a[4]);
    job->gt_w = PyArray_DATA(a[5]);
    job->det_row = PyArray_DATA(a[6]);
    job->gt_row = PyArray_DATA(a[7]);
    job->crowd = PyArray_DATA(a[8]);
    job->det_box = PyArray_DATA(a[9]);
    job->gt_box = PyArray_DATA(a[10]);
    job->declined = 0;
    if (rows_in_range(job->det_row, e, nd) < 0 || rows_in_range(job->gt_row, e, job->gt.n) < 0)
        return NULL;
    for (Py_ssize_t k = 0; job->strings != NULL && k < e; k++) {
        if (!string_in_bounds(job->strings, (Py_ssize_t)job->det_row[k], nchars)) {
            PyErr_SetString(PyExc_ValueError, "start and runs must rise, within the chars");
            return NULL;
        }
    }
    npy_intp dims[1] = {e};
    PyObject *res = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    if (res == NULL) return NULL;
    job->out = PyArray_DATA((PyArrayObject *)res);
    int fault;
    Py_BEGIN_ALLOW_THREADS;
    fault = split_dynamic(iou_range, job, e, PAIRS_PER_THREAD, 8192, job->strings && job->strings->raw);
    Py_END_ALLOW_THREADS;
    if (fault) {
        Py_SETREF(res, NULL);
        cut_short();
    } else if (job->declined) {
        Py_SETREF(res, Py_NewRef(Py_None));
    }
    return res;
}

/* iou_pairs(det_counts, det_offsets, det_h, det_w, gt_counts, gt_offsets, gt_h, gt_w,
 *           det_row, gt_row, crowd, det_box, gt_box) -> float64 (E,) | None
 * Per pair e: rleIou of det mask det_row[e] and GT mask gt_row[e] (crowd[e]: the GT is a
 * crowd); *_box are the tables' rleToBbox rows (N, 4). None: a negative run met. */
static PyObject *py_iou_pairs(PyObject *self, PyObject *args) {
    (void)self;
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_UINT8, NPY_FLOAT64, NPY_FLOAT64};
    PyArrayObject *a[13] = {NULL};
    PyObject *res = NULL;
    IouJob job;
    job.strings = NULL;
    if (pair_arrays(args, "iou_pairs", 13, types, 10, a) == 0 && columns_from(a[0], a[1], &job.det) == 0)
        res = pairs_iou(&job, a + 2, 0, "iou_pairs");
    for (int k = 0; k < 13; k++) Py_XDECREF(a[k]);
    return res;
}

/* string_iou_pairs(chars, start, runs, det_h, det_w, gt_counts, gt_offsets, gt_h, gt_w,
 *                  det_row, gt_row, crowd, det_box, gt_box, raw=False) -> float64 (E,) | None
 * iou_pairs with the detections as strings (decode_strings' columns): each detection decoded
 * by the thread that meets its pairs, only where its box overlaps and its size agrees, into
 * that thread's buffer (a detection's pairs come together: decoded once). */
static PyObject *py_string_iou_pairs(PyObject *self, PyObject *args) {
    (void)self;
    static const int types[14] = {NPY_UINT8, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_INT64, NPY_UINT8, NPY_FLOAT64, NPY_FLOAT64};
    PyArrayObject *a[14] = {NULL};
    PyObject *res = NULL, *head = PyTuple_GetSlice(args, 0, 14);
    IouJob job;
    Strings t;
    int raw = PyTuple_GET_SIZE(args) > 14 ? PyObject_IsTrue(PyTuple_GET_ITEM(args, 14)) : 0;
    if (!head || raw < 0 || PyTuple_GET_SIZE(args) > 15) {
        if (head && raw >= 0) PyErr_SetString(PyExc_TypeError, "string_iou_pairs: 14 or 15 arguments");
        Py_XDECREF(head);
        return NULL;
    }
    if (pair_arrays(head, "string_iou_pairs", 14, types, 11, a) == 0 && strings_from(a[0], a[1], a[2], &t, 0) == 0) {
        t.raw = raw;
        job.strings = &t;
        job.det.n = t.n;
        res = pairs_iou(&job, a + 3, PyArray_SIZE(a[0]), "string_iou_pairs");
    }
    for (int k = 0; k < 14; k++) Py_XDECREF(a[k]);
    Py_DECREF(head);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* merge: maskApi.c rleMerge (union / intersection), canonical output                        */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    int64_t start, end;
} Interval;

static int interval_cmp(const void *pa, const void *pb) {
    int64_t a = ((const Interval *)pa)->start, b = ((const Interval *)pb)->start;
    return (a > b) - (a < b);
}

/* Canonical counts of sorted intervals (overlapping or touching ones joined, empty ones
 * dropped): a first run of 0s (maybe empty), no other empty run, a last run of 0s up to hw
 * when the union ends before it; [hw] without intervals. Returns the counts written. */
static int64_t canonical_counts(const Interval *iv, int64_t n, int64_t hw, int64_t *out) {
    int64_t m = 0, prev = 0, k = 0;
    while (k < n && iv[k].end <= iv[k].start) k++;
    while (k < n) {
        int64_t start = iv[k].start, reach = iv[k].end;
        for (k++; k < n && (iv[k].end <= iv[k].start || iv[k].start <= reach); k++) {
            if (iv[k].end > iv[k].start && iv[k].end > reach) reach = iv[k].end;
        }
        out[m++] = start - prev;
        out[m++] = reach - start;
        prev = reach;
    }
    if (m == 0 || prev < hw) out[m++] = hw - prev;
    return m;
}

/* Foreground intervals of one mask appended to `iv` (clipped to [0, clip) when clip >= 0). */
static int64_t append_intervals(const int64_t *runs, int64_t m, int64_t clip, Interval *iv) {
    int64_t n = 0, pos = 0;
    for (int64_t j = 0; j < m; j++) {
        int64_t end = pos + runs[j];
        if (j % 2 == 1) {
            Interval v = {pos, end};
            if (clip >= 0 && v.end > clip) v.end = clip;
            if (v.end > v.start) iv[n++] = v;
        }
        pos = end;
    }
    return n;
}

/* Intersection of two sorted disjoint interval lists into `out`; returns its length. */
static int64_t intersect_intervals(const Interval *a, int64_t na, const Interval *b, int64_t nb,
                                   Interval *out) {
    int64_t i = 0, j = 0, n = 0;
    while (i < na && j < nb) {
        int64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (hi > lo) out[n++] = (Interval){lo, hi};
        if (a[i].end <= b[j].end) i++;
        else j++;
    }
    return n;
}

/* merge(counts, offsets, h, w, intersect) -> int64 counts | None. Union: every foreground
 * interval, sorted, joined (rleMerge's `va || vb`). Intersection: the masks as pixels (runs
 * past h * w cut, short masks padded with 0s), intersected (`va && vb`). None for a negative
 * run in an intersection (the numpy path raises). Zero masks: empty; one: itself. */
static PyObject *py_merge(PyObject *self, PyObject *args) {
    PyObject *oc, *oo, *res = NULL;
    long long h, w;
    int intersect;
    if (!PyArg_ParseTuple(args, "OOLLp", &oc, &oo, &h, &w, &intersect)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    Interval *iv = NULL, *tmp = NULL;
    int64_t *out = NULL;
    Columns t;
    if (ac == NULL || ao == NULL || columns_from(ac, ao, &t) < 0) goto done;
    int64_t total = t.offsets[t.n] - t.offsets[0], hw = (int64_t)h * (int64_t)w;
    if (t.n <= 1) {
        int64_t m = 0;
        const int64_t *runs = t.n ? mask_runs(&t, 0, &m) : NULL;
        res = int64_array(runs, m);
        goto done;
    }
    for (int64_t k = t.offsets[0]; intersect && k < t.offsets[t.n]; k++) {
        if (t.counts[k] < 0) {
            res = Py_NewRef(Py_None);
            goto done;
        }
    }
    iv = malloc(sizeof(Interval) * (size_t)(total + 1));
    tmp = malloc(sizeof(Interval) * (size_t)(2 * total + 2));
    out = malloc(sizeof(int64_t) * (size_t)(2 * total + 2));
    if (!iv || !tmp || !out) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t n = 0, m;
    if (!intersect) {
        for (Py_ssize_t i = 0; i < t.n; i++) {
            const int64_t *runs = mask_runs(&t, i, &m);
            n += append_intervals(runs, m, -1, iv + n);
        }
        qsort(iv, (size_t)n, sizeof(Interval), interval_cmp);
    } else {
        const int64_t *runs = mask_runs(&t, 0, &m);
        n = append_intervals(runs, m, hw, iv);
        for (Py_ssize_t i = 1; i < t.n; i++) {
            runs = mask_runs(&t, i, &m);
            int64_t nb = append_intervals(runs, m, hw, tmp);
            Interval *both = tmp + nb; /* room: 2 total + 2 >= nb + (n + nb) */
            int64_t nr = intersect_intervals(iv, n, tmp, nb, both);
            memmove(iv, both, sizeof(Interval) * (size_t)nr);
            n = nr;
        }
    }
    res = int64_array(out, canonical_counts(iv, n, hw, out));
done:
    free(iv);
    free(tmp);
    free(out);
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* polygons: maskApi.c rleFrPoly                                                            */
/* ---------------------------------------------------------------------------------------- */

/* A growable int64 vector. */
typedef struct {
    int64_t *v;
    int64_t n, cap;
} Vec;

static int vec_push(Vec *b, int64_t x) {
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 256;
        int64_t *v = realloc(b->v, sizeof(int64_t) * (size_t)cap);
        if (v == NULL) return -1;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = x;
    return 0;
}

/* Room for exactly `cap` values (at least its n): -1 if there is no memory. */
static int vec_reserve(Vec *b, int64_t cap) {
    int64_t *v = realloc(b->v, sizeof(int64_t) * (size_t)cap);
    if (v == NULL) return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

/* The first n values of b as a 1-d int64 array that takes over b's memory (no copy; b is left
 * empty), or NULL. */
static PyObject *vec_array(Vec *b, npy_intp n) {
    PyObject *a = array_owning(b->v, n, NPY_INT64);
    b->v = NULL;
    b->n = b->cap = 0;
    return a;
}

/* Sorts a[0 .. n) ascending: quicksort (median of three, the smaller side recursed) down to
 * short runs, then insertion sort; the crossings come in long monotone stretches. */
static void sort_int64(int64_t *a, int64_t n) {
    while (n > 24) {
        int64_t x = a[0], y = a[n / 2], z = a[n - 1];
        int64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = 0, j = n - 1;
        while (i <= j) { /* Hoare partition around the pivot's value */
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                int64_t t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (j + 1 < n - i) { /* a[0 .. j] and a[i .. n): recurse on the smaller */
            sort_int64(a, j + 1);
            a += i;
            n -= i;
        } else {
            sort_int64(a + i, n - i);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        int64_t t = a[i], j = i;
        for (; j > 0 && a[j - 1] > t; j--) a[j] = a[j - 1];
        a[j] = t;
    }
}

/* One polygon's vertices on rleFrPoly's x5 grid: (int)(5 * coordinate + .5), truncated toward
 * zero, in int64; 0 if a coordinate is not finite or too large for exact int64 / double steps
 * (the numpy path handles those). */
static int grid_vertices(const double *xy, int64_t k, int64_t *x, int64_t *y) {
    for (int64_t j = 0; j < k; j++) {
        double gx = POLY_SCALE * xy[2 * j] + .5, gy = POLY_SCALE * xy[2 * j + 1] + .5;
        if (!(fabs(gx) < POLY_MAX_COORD) || !(fabs(gy) < POLY_MAX_COORD)) return 0;
        x[j] = (int64_t)gx;
        y[j] = (int64_t)gy;
    }
    return 1;
}

/* The walk along the upsampled boundary: each point compared with the one before it. */
typedef struct {
    int64_t h, w, pu, pv;
    int started;
    Vec *cross; /* flat indices x * h + y where the boundary crosses a pixel column */
} PolyWalk;

/* rleFrPoly's second loop, for one boundary point (u, v) after (pu, pv): where u changes, the
 * column xd = (min-ish u + .5) / 5 - .5 counts if whole and inside the image, at row
 * ceil(clip((min v + .5) / 5 - .5, 0, h)). */
static int walk_point(PolyWalk *pw, int64_t u, int64_t v) {
    int64_t pu = pw->pu, pv = pw->pv;
    int started = pw->started;
    pw->pu = u;
    pw->pv = v;
    pw->started = 1;
    if (!started || u == pu) return 0;
    double xd = (double)(u < pu ? u : u - 1);
    xd = (xd + .5) / POLY_SCALE - .5;
    if (floor(xd) != xd || xd < 0 || xd > (double)(pw->w - 1)) return 0;
    double yd = (double)(v < pv ? v : pv);
    yd = (yd + .5) / POLY_SCALE - .5;
    if (yd < 0) yd = 0;
    else if (yd > (double)pw->h) yd = (double)pw->h;
    yd = ceil(yd);
    return vec_push(pw->cross, (int64_t)xd * pw->h + (int64_t)yd);
}

/* One edge of rleFrPoly's first loop, (xs, ys) -> (xe, ye) on the x5 grid: `span` + 1 points
 * one grid unit apart along its major axis (numbered from the end with the smaller major
 * coordinate, but visited in the edge's own direction: flip), the minor coordinate rounded as
 * (int)(c + s t + .5). */
typedef struct {
    int64_t xs, ys, span;
    int xmajor, flip;
    double s;
} Edge;

static Edge make_edge(int64_t xs, int64_t ys, int64_t xe, int64_t ye) {
    int64_t dx = llabs(xe - xs), dy = llabs(ys - ye);
    Edge e = {xs, ys, dx >= dy ? dx : dy, dx >= dy, (dx >= dy && xs > xe) || (dx < dy && ys > ye),
              0.0};
    if (e.flip) {
        e.xs = xe;
        e.ys = ye;
    }
    double num = e.xmajor ? (double)(e.flip ? ys - ye : ye - ys) : (double)(e.flip ? xs - xe : xe - xs);
    e.s = e.span > 0 ? num / (double)e.span : 0.0; /* a point edge: s is never used */
    return e;
}

/* The edge's d-th point visited (d = 0 .. span). */
static void edge_point(const Edge *e, int64_t d, int64_t *u, int64_t *v) {
    int64_t t = e->flip ? e->span - d : d;
    if (e->xmajor) {
        *u = t + e->xs;
        *v = (int64_t)((double)e->ys + e->s * (double)t + .5);
    } else {
        *v = t + e->ys;
        *u = (int64_t)((double)e->xs + e->s * (double)t + .5);
    }
}

/* The step from point d - 1 to point d, through walk_point. */
static int walk_step(PolyWalk *pw, const Edge *e, int64_t d) {
    int64_t u, v;
    edge_point(e, d - 1, &pw->pu, &pw->pv);
    pw->started = 1;
    edge_point(e, d, &u, &v);
    return walk_point(pw, u, v);
}

/* The step at which u goes between m and m + 1 (u is monotone in d, steps of at most 1: a
 * y-major edge, |s| < 1): the first d with u(d) past m, by bisection. */
static int64_t step_past(const Edge *e, int64_t m, int rising) {
    int64_t lo = 1, hi = e->span;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, u, v;
        edge_point(e, mid, &u, &v);
        if (rising ? u > m : u <= m) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* rleFrPoly's walk along one edge, visiting only the steps that can count in walk_point: the
 * first point (after the previous edge's last), and the steps where u leaves a value
 * m = 5 q + 2 whose column q is in the image (the others give a fractional or outside xd).
 * Along an x-major edge u moves by 1 each step, so that step is found directly; along a y-major
 * edge, by bisection. The edge's last point is left as the previous one. */
static int walk_edge(PolyWalk *pw, int64_t xs, int64_t ys, int64_t xe, int64_t ye) {
    Edge e = make_edge(xs, ys, xe, ye);
    int64_t u0, v0, u1, v1;
    edge_point(&e, 0, &u0, &v0);
    if (walk_point(pw, u0, v0) < 0) return -1;
    if (e.span == 0) return 0;
    edge_point(&e, e.span, &u1, &v1);
    int rising = u1 > u0;
    int64_t lo = rising ? u0 : u1, hi = (rising ? u1 : u0) - 1, last = 5 * (pw->w - 1) + 2;
    if (lo < 2) lo = 2;
    if (hi > last) hi = last;
    for (int64_t m = lo + (((2 - lo) % 5) + 5) % 5; m <= hi; m += 5) {
        int64_t d = e.xmajor ? (rising ? m - u0 + 1 : u0 - m) : step_past(&e, m, rising);
        if (walk_step(pw, &e, d) < 0) return -1;
    }
    pw->pu = u1;
    pw->pv = v1;
    pw->started = 1;
    return 0;
}

/* rleFrPoly's last step: the crossings (and h * w) sorted, differenced into runs, an empty run
 * after the first swallowing the run after it into the run before it. Appends to `out`. */
#define MAX_STRETCHES 32

/* Sorts a[0 .. n) ascending as sort_int64 does, in the time of a few merges where a is a few
 * monotone stretches (a polygon's crossings, in the order its boundary visits them, rise
 * along one side and fall along the other): the stretches found (falling ones reversed) and
 * merged pairwise through tmp (room for n values). More stretches: sort_int64. */
static void sort_stretches(int64_t *a, int64_t n, int64_t *tmp) {
    int64_t bound[MAX_STRETCHES + 1];
    int k = 0;
    bound[0] = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        if (j < n && a[j] < a[i]) { /* falling (strictly): reversed */
            while (j < n && a[j] < a[j - 1]) j++;
            for (int64_t lo = i, hi = j - 1; lo < hi; lo++, hi--) {
                int64_t t = a[lo];
                a[lo] = a[hi];
                a[hi] = t;
            }
        } else {
            while (j < n && a[j] >= a[j - 1]) j++;
        }
        if (k == MAX_STRETCHES) {
            sort_int64(a, n);
            return;
        }
        bound[++k] = j;
        i = j;
    }
    int64_t *src = a, *dst = tmp;
    while (k > 1) {
        int m = 0;
        for (int t = 0; t < k; t += 2) {
            int64_t lo = bound[t], mid = bound[t + 1], hi = t + 2 <= k ? bound[t + 2] : mid;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi) dst[o++] = src[y] < src[x] ? src[y++] : src[x++];
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
            bound[m++] = lo;
        }
        bound[m] = n;
        k = m;
        int64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a) memcpy(a, src, sizeof(int64_t) * (size_t)n);
}

static int crossings_to_runs(Vec *cross, int64_t hw, Vec *out) {
    if (vec_push(cross, hw) < 0) return -1;
    int64_t *a = cross->v, k = cross->n, p = 0;
    int64_t *tmp = k > 32 ? malloc(sizeof(int64_t) * (size_t)k) : NULL;
    if (tmp) sort_stretches(a, k, tmp);
    else sort_int64(a, k); /* (short, or no memory for the merges) */
    free(tmp);
    for (int64_t j = 0; j < k; j++) {
        int64_t t = a[j];
        a[j] -= p;
        p = t;
    }
    int64_t j = 0;
    if (vec_push(out, a[j++]) < 0) return -1;
    while (j < k) {
        if (a[j] > 0) {
            if (vec_push(out, a[j++]) < 0) return -1;
        } else if (++j < k) {
            out->v[out->n - 1] += a[j++];
        }
    }
    return 0;
}

/* One polygon of k points into `out`; 1 done, 0 declined (numpy path), -1 out of memory. */
static int polygon_runs(const double *xy, int64_t k, int64_t h, int64_t w, int64_t *x,
                        int64_t *y, Vec *cross, Vec *out) {
    if (!grid_vertices(xy, k, x, y)) return 0;
    PolyWalk pw = {h, w, 0, 0, 0, cross};
    cross->n = 0;
    for (int64_t j = 0; j < k; j++) {
        if (walk_edge(&pw, x[j], y[j], x[(j + 1) % k], y[(j + 1) % k]) < 0) return -1;
    }
    return crossings_to_runs(cross, h * w, out) < 0 ? -1 : 1;
}

/* polygons(xy, npoints, h, w) -> (counts, offsets, declined int64) | error.
 * xy: float64, every polygon's x0, y0, x1, y1, ... concatenated; npoints: int64 (P,) points per
 * polygon; h, w: int64 (P,). Polygon i's RLE is counts[offsets[i] : offsets[i + 1]], empty for
 * the polygons listed in `declined` (for the numpy path). */
static PyObject *py_polygons(PyObject *self, PyObject *args) {
    PyObject *oxy, *ok, *oh, *ow, *res = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &oxy, &ok, &oh, &ow)) return NULL;
    PyArrayObject *axy = as_array(oxy, NPY_FLOAT64), *ak = as_array(ok, NPY_INT64);
    PyArrayObject *ah = as_array(oh, NPY_INT64), *aw = as_array(ow, NPY_INT64);
    Vec out = {0}, cross = {0}, declined = {0};
    int64_t *x = NULL, *y = NULL, *offsets = NULL;
    if (!axy || !ak || !ah || !aw) goto done;
    Py_ssize_t n = PyArray_SIZE(ak);
    const int64_t *k = PyArray_DATA(ak), *h = PyArray_DATA(ah), *w = PyArray_DATA(aw);
    const double *xy = PyArray_DATA(axy);
    int64_t total = 0, longest = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (k[i] < 0) break;
        total += k[i];
        if (k[i] > longest) longest = k[i];
    }
    if (PyArray_SIZE(ah) != n || PyArray_SIZE(aw) != n || 2 * total != PyArray_SIZE(axy)) {
        PyErr_SetString(PyExc_ValueError, "polygons: array sizes disagree");
        goto done;
    }
    x = malloc(sizeof(int64_t) * (size_t)(longest + 1));
    y = malloc(sizeof(int64_t) * (size_t)(longest + 1));
    offsets = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!x || !y || !offsets) {
        PyErr_NoMemory();
        goto done;
    }
    int status = 0;
    offsets[0] = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n && status >= 0; i++) {
        status = polygon_runs(xy, k[i], h[i], w[i], x, y, &cross, &out);
        if (status == 0) status = vec_push(&declined, i);
        offsets[i + 1] = out.n;
        xy += 2 * k[i];
    }
    Py_END_ALLOW_THREADS;
    if (status < 0) {
        PyErr_NoMemory();
        goto done;
    }
    res = Py_BuildValue("(NNN)", int64_array(out.v, out.n), int64_array(offsets, n + 1),
                        int64_array(declined.v, declined.n));
done:
    free(out.v);
    free(cross.v);
    free(declined.v);
    free(x);
    free(y);
    free(offsets);
    Py_XDECREF(axy);
    Py_XDECREF(ak);
    Py_XDECREF(ah);
    Py_XDECREF(aw);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* objects: each one's polygons rasterised and merged (segmentation_to_rle of a list)         */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    const double *xy;
    const int64_t *npoints;      /* (P,) points per polygon */
    const int64_t *point_start;  /* (P + 1,) first point of each polygon */
    const int64_t *first_part;   /* (N + 1,) first polygon of each object */
    const int64_t *rows, *h, *w; /* (M,) the objects wanted, their masks' size */
    int64_t longest;             /* most points of any polygon */
    const int64_t *given, *given_start, *given_len; /* (M,) runs given for a wanted row (its
                                  * given_len >= 0) instead of rasterised; NULL: none */
    int64_t *lens;               /* (M,) runs written per object */
    char *declined;              /* (M,) an object the numpy path must do */
    Py_ssize_t bounds[MAX_THREADS + 1]; /* thread t does objects bounds[t] .. bounds[t + 1] */
    Vec out[MAX_THREADS];               /* each thread's runs, its objects in order */
    int failed[MAX_THREADS];            /* out of memory */
} ObjectJob;

typedef struct {
    ObjectJob *job;
    int t;
} ObjectShare;

/* One object: its polygon's runs, or its polygons' union (rleMerge, canonical as py_merge's),
 * or [h * w] without any; appended to out. 1 done, 0 declined, -1 out of memory. */
static int object_runs(const ObjectJob *j, int64_t obj, int64_t h, int64_t w, int64_t *x,
                       int64_t *y, Vec *cross, Vec *parts, Vec *out) {
    int64_t p0 = j->first_part[obj], p1 = j->first_part[obj + 1];
    if (p1 == p0) return vec_push(out, h * w) < 0 ? -1 : 1;
    if (p1 - p0 == 1) {
        int64_t mark = out->n;
        int s = polygon_runs(j->xy + 2 * j->point_start[p0], j->npoints[p0], h, w, x, y, cross,
                             out);
        if (s == 0) out->n = mark;
        return s;
    }
    parts->n = 0;
    for (int64_t p = p0; p < p1; p++) {
        int s = polygon_runs(j->xy + 2 * j->point_start[p], j->npoints[p], h, w, x, y, cross,
                             parts);
        if (s <= 0) return s;
        if (vec_push(parts, -1) < 0) return -1; /* the end of a polygon's runs */
    }
    Interval *iv = malloc(sizeof(Interval) * (size_t)(parts->n + 1));
    if (!iv) return -1;
    int64_t n = 0, start = 0;
    for (int64_t k = 0; k < parts->n; k++) {
        if (parts->v[k] >= 0) continue;
        n += append_intervals(parts->v + start, k - start, -1, iv + n);
        start = k + 1;
    }
    qsort(iv, (size_t)n, sizeof(Interval), interval_cmp);
    int status = 0;
    for (int64_t k = 0; k < 2 * n + 1 && status == 0; k++) status = vec_push(out, 0);
    if (status == 0) {
        out->n -= 2 * n + 1;
        out->n += canonical_counts(iv, n, h * w, out->v + out->n);
    }
    free(iv);
    return status < 0 ? -1 : 1;
}

static void *objects_thread(void *arg) {
    ObjectShare *share = (ObjectShare *)arg;
    ObjectJob *j = share->job;
    int t = share->t;
    Vec cross = {0}, parts = {0}, *out = &j->out[t];
    int64_t *x = malloc(sizeof(int64_t) * (size_t)(j->longest + 1));
    int64_t *y = malloc(sizeof(int64_t) * (size_t)(j->longest + 1));
    int status = x && y ? 1 : -1;
    for (Py_ssize_t i = j->bounds[t]; i < j->bounds[t + 1] && status >= 0; i++) {
        int64_t before = out->n;
        if (j->given_len && j->given_len[i] >= 0) {
            const int64_t *g = j->given + j->given_start[i];
            for (int64_t v = 0; v < j->given_len[i] && status >= 0; v++)
                status = vec_push(out, g[v]) < 0 ? -1 : 1;
        } else {
            status = object_runs(j, j->rows[i], j->h[i], j->w[i], x, y, &cross, &parts, out);
        }
        j->declined[i] = status == 0;
        j->lens[i] = out->n - before;
    }
    j->failed[t] = status < 0;
    free(x);
    free(y);
    free(cross.v);
    free(parts.v);
    return NULL;
}

/* Checks polygon_objects' arrays and fills the job's prefix sums; -1 + ValueError if bad. */
static int objects_layout(PyArrayObject **a, ObjectJob *job, int64_t *point_start,
                          int64_t *first_part) {
    Py_ssize_t np_ = PyArray_SIZE(a[1]), nobj = PyArray_SIZE(a[2]), m = PyArray_SIZE(a[3]);
    const int64_t *npoints = PyArray_DATA(a[1]), *nparts = PyArray_DATA(a[2]);
    const int64_t *rows = PyArray_DATA(a[3]);
    int ok = PyArray_SIZE(a[4]) == m && PyArray_SIZE(a[5]) == m;
    point_start[0] = first_part[0] = 0;
    for (Py_ssize_t p = 0; ok && p < np_; p++) {
        ok = npoints[p] >= 0;
        point_start[p + 1] = point_start[p] + npoints[p];
        if (npoints[p] > job->longest) job->longest = npoints[p];
    }
    for (Py_ssize_t i = 0; ok && i < nobj; i++) {
        ok = nparts[i] >= 0 && first_part[i] + nparts[i] <= np_;
        first_part[i + 1] = first_part[i] + nparts[i];
    }
    ok = ok && 2 * point_start[np_] == PyArray_SIZE(a[0]);
    for (Py_ssize_t i = 0; ok && i < m; i++) ok = rows[i] >= 0 && rows[i] < nobj;
    if (!ok) PyErr_SetString(PyExc_ValueError, "polygon_objects: array sizes disagree");
    return ok ? 0 : -1;
}

/* The given runs of polygon_objects (a[6] pool, a[7] start, a[8] length: M each) within the
 * pool; -1 + ValueError if not. */
static int given_layout(PyArrayObject **a, Py_ssize_t m) {
    Py_ssize_t pool = PyArray_SIZE(a[6]);
    const int64_t *start = PyArray_DATA(a[7]), *len = PyArray_DATA(a[8]);
    int ok = PyArray_SIZE(a[7]) == m && PyArray_SIZE(a[8]) == m;
    for (Py_ssize_t i = 0; ok && i < m; i++)
        ok = len[i] < 0 || (start[i] >= 0 && start[i] <= pool && len[i] <= pool - start[i]);
    if (!ok) PyErr_SetString(PyExc_ValueError, "polygon_objects: given runs outside their pool");
    return ok ? 0 : -1;
}

/* polygon_objects(xy, npoints, nparts, rows, h, w, given=None, given_start=None,
 *                 given_len=None) -> (counts, offsets, declined) | error.
 * xy: float64, every polygon's x0, y0, x1, ... concatenated; npoints: int64 (P,) points per
 * polygon; nparts: int64 (N,) polygons per object, in order; rows: int64 (M,) the objects to
 * rasterise, h, w: int64 (M,) their masks' size. Object rows[i]'s mask is
 * counts[offsets[i] : offsets[i + 1]]: its one polygon's rleFrPoly, the union of several
 * (rleMerge, canonical), [h * w] without any; empty for the objects listed in `declined` (one
 * of its polygons declined as polygons() declines it: for the numpy path). Wanted row i with
 * given_len[i] >= 0 is given[given_start[i] :][: given_len[i]] as it is (an RLE, an empty
 * mask: one table in one pass). Threads across objects. */
static PyObject *py_polygon_objects(PyObject *self, PyObject *args) {
    PyObject *o[9] = {NULL}, *res = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOO|OOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8]))
        return NULL;
    PyArrayObject *a[9] = {NULL};
    int64_t *point_start = NULL, *first_part = NULL, *lens = NULL, *offsets = NULL;
    char *declined = NULL;
    Vec gone = {0};
    ObjectJob job;
    memset(&job, 0, sizeof(job));
    for (int i = 0; i < 9; i++)
        if (o[i] && !(a[i] = as_array(o[i], i ? NPY_INT64 : NPY_FLOAT64))) goto done;
    Py_ssize_t m = PyArray_SIZE(a[3]);
    if ((o[6] != NULL) != (o[8] != NULL) || (a[6] && given_layout(a, m) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "polygon_objects: given runs need their starts and lengths");
        goto done;
    }
    point_start = malloc(sizeof(int64_t) * (size_t)(PyArray_SIZE(a[1]) + 1));
    first_part = malloc(sizeof(int64_t) * (size_t)(PyArray_SIZE(a[2]) + 1));
    lens = malloc(sizeof(int64_t) * (size_t)(m + 1));
    offsets = malloc(sizeof(int64_t) * (size_t)(m + 1));
    declined = malloc((size_t)(m + 1));
    if (!point_start || !first_part || !lens || !offsets || !declined) {
        PyErr_NoMemory();
        goto done;
    }
    if (objects_layout(a, &job, point_start, first_part) < 0) goto done;
    job.xy = PyArray_DATA(a[0]);
    job.npoints = PyArray_DATA(a[1]);
    job.point_start = point_start;
    job.first_part = first_part;
    job.rows = PyArray_DATA(a[3]);
    job.h = PyArray_DATA(a[4]);
    job.w = PyArray_DATA(a[5]);
    job.lens = lens;
    job.declined = declined;
    if (a[6]) {
        job.given = PyArray_DATA(a[6]);
        job.given_start = PyArray_DATA(a[7]);
        job.given_len = PyArray_DATA(a[8]);
    }
    int k = thread_count(m, PAIRS_PER_THREAD), failed = 0;
    for (int t = 0; t <= k; t++) job.bounds[t] = m * t / k;
    pthread_t threads[MAX_THREADS];
    ObjectShare shares[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS;
    for (int t = 0; t < k; t++) {
        shares[t] = (ObjectShare){&job, t};
        if (t > 0) started[t] = pthread_create(&threads[t], NULL, objects_thread, &shares[t]) == 0;
    }
    objects_thread(&shares[0]);
    for (int t = 1; t < k; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else objects_thread(&shares[t]); /* no thread to be had: do its share here */
    }
    Py_END_ALLOW_THREADS;
    for (int t = 0; t < k; t++) failed |= job.failed[t];
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    offsets[0] = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        offsets[i + 1] = offsets[i] + lens[i];
        if (declined[i] && vec_push(&gone, i) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    /* the first thread's runs, grown to hold the others' after them, become the column */
    npy_intp total = (npy_intp)offsets[m];
    Vec *first = &job.out[0];
    if (vec_reserve(first, total > 0 ? total : 1) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (int t = 1; t < k; t++) {
        if (job.out[t].n)
            memcpy(first->v + offsets[job.bounds[t]], job.out[t].v, 8 * job.out[t].n);
    }
    PyObject *counts = vec_array(first, total);
    if (!counts) goto done;
    res = Py_BuildValue("(NNN)", counts, int64_array(offsets, m + 1), int64_array(gone.v, gone.n));
done:
    for (int i = 0; i < 9; i++) Py_XDECREF(a[i]);
    free(point_start);
    free(first_part);
    free(lens);
    free(offsets);
    free(declined);
    free(gone.v);
    for (int t = 0; t < MAX_THREADS; t++) free(job.out[t].v);
    return res;
}

/* take(counts, offsets, rows, counts2=None, offsets2=None) -> (counts, offsets): masks `rows`
 * (any order, repeats allowed) copied into new columns; with a second table, rows from N on
 * are its masks rows - N (no joined copy of both tables needed). */
static PyObject *py_take(PyObject *self, PyObject *args) {
    PyObject *oc, *oo, *orows, *oc2 = Py_None, *oo2 = Py_None, *res = NULL;
    if (!PyArg_ParseTuple(args, "OOO|OO", &oc, &oo, &orows, &oc2, &oo2)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64), *ao = as_array(oo, NPY_INT64);
    PyArrayObject *ar = as_array(orows, NPY_INT64), *ac2 = NULL, *ao2 = NULL;
    PyObject *counts = NULL, *offsets = NULL;
    Columns t, t2 = {0};
    if (!ac || !ao || !ar || columns_from(ac, ao, &t) < 0) goto done;
    if ((oc2 == Py_None) != (oo2 == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "take: the second table needs counts and offsets");
        goto done;
    }
    if (oc2 != Py_None && (!(ac2 = as_array(oc2, NPY_INT64)) || !(ao2 = as_array(oo2, NPY_INT64)) ||
                           columns_from(ac2, ao2, &t2) < 0))
        goto done;
    Py_ssize_t n = PyArray_SIZE(ar);
    const int64_t *rows = PyArray_DATA(ar);
    npy_intp no = n + 1;
    if (!(offsets = PyArray_SimpleNew(1, &no, NPY_INT64))) goto done;
    int64_t *off = PyArray_DATA((PyArrayObject *)offsets), m;
    off[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t r = rows[i];
        if (r < 0 || r >= t.n + t2.n) {
            PyErr_SetString(PyExc_IndexError, "take: a row outside the masks");
            goto done;
        }
        const Columns *c = r < t.n ? &t : &t2;
        r -= r < t.n ? 0 : t.n;
        off[i + 1] = off[i] + c->offsets[r + 1] - c->offsets[r];
    }
    npy_intp total = (npy_intp)off[n];
    if (!(counts = PyArray_SimpleNew(1, &total, NPY_INT64))) goto done;
    int64_t *dst = PyArray_DATA((PyArrayObject *)counts);
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        const int64_t *runs = rows[i] < t.n ? mask_runs(&t, rows[i], &m)
                                            : mask_runs(&t2, rows[i] - t.n, &m);
        if (m) memcpy(dst + off[i], runs, sizeof(int64_t) * (size_t)m);
    }
    Py_END_ALLOW_THREADS;
    res = PyTuple_Pack(2, counts, offsets);
done:
    Py_XDECREF(counts);
    Py_XDECREF(offsets);
    Py_XDECREF(ac);
    Py_XDECREF(ao);
    Py_XDECREF(ar);
    Py_XDECREF(ac2);
    Py_XDECREF(ao2);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* binary masks: maskApi.c rleEncode / rleDecode                                             */
/* ---------------------------------------------------------------------------------------- */

/* encode(mask bool (h, w), any strides) -> int64 counts: runs column-major (x outer, y inner),
 * alternating from a run of 0s; an empty mask gives [0]. */
static PyObject *py_encode(PyObject *self, PyObject *args) {
    PyArrayObject *m;
    if (!PyArg_ParseTuple(args, "O!", &PyArray_Type, &m)) return NULL;
    if (PyArray_NDIM(m) != 2 || PyArray_TYPE(m) != NPY_BOOL) {
        PyErr_SetString(PyExc_TypeError, "encode expects a 2-D bool array");
        return NULL;
    }
    npy_intp h = PyArray_DIM(m, 0), w = PyArray_DIM(m, 1);
    npy_intp sy = PyArray_STRIDE(m, 0), sx = PyArray_STRIDE(m, 1);
    const char *data = PyArray_BYTES(m);
    int64_t runs = 1;
    char prev = 0;
    for (npy_intp x = 0; x < w; x++) { /* first pass: how many runs */
        for (npy_intp y = 0; y < h; y++) {
            char b = data[x * sx + y * sy] != 0;
            runs += b != prev;
            prev = b;
        }
    }
    npy_intp dims[1] = {runs};
    PyObject *res = PyArray_SimpleNew(1, dims, NPY_INT64);
    if (res == NULL) return NULL;
    int64_t *out = PyArray_DATA((PyArrayObject *)res), c = 0, k = 0;
    prev = 0;
    for (npy_intp x = 0; x < w; x++) {
        for (npy_intp y = 0; y < h; y++) {
            char b = data[x * sx + y * sy] != 0;
            if (b != prev) {
                out[k++] = c;
                c = 0;
                prev = b;
            }
            c++;
        }
    }
    out[k] = c;
    return res;
}

/* decode(counts, h, w) -> bool (h, w) | None: runs alternate 0s and 1s column-major; runs past
 * h * w are cut, a short RLE is padded with 0s. None for a negative run or size (numpy path). */
static PyObject *py_decode(PyObject *self, PyObject *args) {
    PyObject *oc;
    long long h, w;
    if (!PyArg_ParseTuple(args, "OLL", &oc, &h, &w)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64);
    if (ac == NULL) return NULL;
    const int64_t *c = PyArray_DATA(ac);
    Py_ssize_t m = PyArray_SIZE(ac);
    int ok = h >= 0 && w >= 0;
    for (Py_ssize_t j = 0; ok && j < m; j++) ok = c[j] >= 0;
    if (!ok) {
        Py_DECREF(ac);
        Py_RETURN_NONE;
    }
    npy_intp dims[2] = {(npy_intp)w, (npy_intp)h}; /* column-major: filled as (w, h) */
    PyObject *flat = PyArray_ZEROS(2, dims, NPY_BOOL, 0);
    if (flat == NULL) {
        Py_DECREF(ac);
        return NULL;
    }
    char *px = PyArray_BYTES((PyArrayObject *)flat);
    int64_t hw = (int64_t)h * (int64_t)w, pos = 0;
    for (Py_ssize_t j = 0; j < m && pos < hw; j++) {
        int64_t end = pos + c[j] < hw ? pos + c[j] : hw;
        if (j % 2 == 1) memset(px + pos, 1, (size_t)(end - pos));
        pos = end;
    }
    Py_DECREF(ac);
    PyObject *res = PyArray_Transpose((PyArrayObject *)flat, NULL);
    Py_DECREF(flat);
    return res;
}

/* boundary(counts, h, w, d) -> int64 counts | None: the mask's pixels with a background or
   outside-image pixel within chessboard distance d (core.mask_boundary), as RLE counts; None
   when the runs do not sum to h * w. The mask is eroded on its bounding box only (all outside
   is background): a vertical then a horizontal pass, each keeping [a + d, b - d) of a run. */
static PyObject *py_boundary(PyObject *self, PyObject *args) {
    PyObject *oc;
    long long h, w, d;
    if (!PyArg_ParseTuple(args, "OLLL", &oc, &h, &w, &d)) return NULL;
    PyArrayObject *ac = as_array(oc, NPY_INT64);
    if (ac == NULL) return NULL;
    const int64_t *c = PyArray_DATA(ac);
    Py_ssize_t m = PyArray_SIZE(ac);
    int64_t hw = (int64_t)h * (int64_t)w, pos = 0;
    int ok = h > 0 && w > 0 && d >= 0;
    for (Py_ssize_t j = 0; ok && j < m; j++) {
        ok = c[j] >= 0;
        pos += c[j];
    }
    if (!ok || pos != hw) {
        Py_DECREF(ac);
        Py_RETURN_NONE;
    }
    int64_t x0 = w, x1 = -1, y0 = h, y1 = -1;
    pos = 0;
    for (Py_ssize_t j = 0; j < m; pos += c[j], j++) {
        if (j % 2 == 0 || c[j] == 0) continue;
        int64_t s = pos, e = pos + c[j] - 1, xs = s / h, xe = e / h;
        if (xs < x0) x0 = xs;
        if (xe > x1) x1 = xe;
        /* a run over two columns or more reaches row h - 1 of the first and row 0 of the last */
        int64_t ys = xs == xe ? s % h : 0, ye = xs == xe ? e % h : h - 1;
        if (ys < y0) y0 = ys;
        if (ye > y1) y1 = ye;
    }
    npy_intp one = 1;
    if (x1 < 0) {
        Py_DECREF(ac);
        PyObject *res = PyArray_SimpleNew(1, &one, NPY_INT64);
        if (res != NULL) *(int64_t *)PyArray_DATA((PyArrayObject *)res) = hw;
        return res;
    }
    int64_t bw = x1 - x0 + 1, bh = y1 - y0 + 1, n = bw * bh;
    uint8_t *buf = calloc((size_t)n, 1), *ev = calloc((size_t)n, 1), *er = calloc((size_t)n, 1);
    int64_t *out = malloc(sizeof(int64_t) * (size_t)(2 * n + 3));
    if (buf == NULL || ev == NULL || er == NULL || out == NULL) {
        free(buf);
        free(ev);
        free(er);
        free(out);
        Py_DECREF(ac);
        return PyErr_NoMemory();
    }
    Py_ssize_t k = 0;
    Py_BEGIN_ALLOW_THREADS;
    pos = 0;
    for (Py_ssize_t j = 0; j < m; pos += c[j], j++) {
        if (j % 2 == 0) continue;
        for (int64_t p = pos; p < pos + c[j]; p++) buf[(p / h - x0) * bh + (p % h - y0)] = 1;
    }
    for (int64_t xi = 0; xi < bw; xi++) { /* vertical: runs along a column */
        const uint8_t *col = buf + xi * bh;
        for (int64_t a = 0; a < bh;) {
            if (!col[a]) {
                a++;
                continue;
            }
            int64_t b = a;
            while (b < bh && col[b]) b++;
            for (int64_t y = a + d; y < b - d; y++) ev[xi * bh + y] = 1;
            a = b;
        }
    }
    for (int64_t yi = 0; yi < bh; yi++) { /* horizontal: runs along a row */
        for (int64_t a = 0; a < bw;) {
            if (!ev[a * bh + yi]) {
                a++;
                continue;
            }
            int64_t b = a;
            while (b < bw && ev[b * bh + yi]) b++;
            for (int64_t x = a + d; x < b - d; x++) er[x * bh + yi] = 1;
            a = b;
        }
    }
    int64_t last_end = 0, run_s = -1, prev = -2;
    for (int64_t xi = 0; xi < bw; xi++) {
        for (int64_t yi = 0; yi < bh; yi++) {
            int64_t i = xi * bh + yi;
            if (!buf[i] || er[i]) continue;
            int64_t g = (x0 + xi) * h + y0 + yi;
            if (run_s >= 0 && g == prev + 1) {
                prev = g;
                continue;
            }
            if (run_s >= 0) {
                out[k++] = run_s - last_end;
                out[k++] = prev + 1 - run_s;
                last_end = prev + 1;
            }
            run_s = prev = g;
        }
    }
    if (run_s >= 0) {
        out[k++] = run_s - last_end;
        out[k++] = prev + 1 - run_s;
        last_end = prev + 1;
    }
    if (k == 0 || last_end < hw) out[k++] = hw - last_end;
    Py_END_ALLOW_THREADS;
    free(buf);
    free(ev);
    free(er);
    Py_DECREF(ac);
    npy_intp dims[1] = {k};
    PyObject *res = PyArray_SimpleNew(1, dims, NPY_INT64);
    if (res != NULL) memcpy(PyArray_DATA((PyArrayObject *)res), out, sizeof(int64_t) * (size_t)k);
    free(out);
    return res;
}

/* ---------------------------------------------------------------------------------------- */
/* module                                                                                    */
/* ---------------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"from_strings", py_from_strings, METH_VARARGS,
     "from_strings(list) -> (counts, offsets) | None: compressed RLE strings decoded."},
    {"to_strings", py_to_strings, METH_VARARGS,
     "to_strings(counts, offsets) -> list[str]: compressed RLE strings."},
    {"areas", py_areas, METH_VARARGS, "areas(counts, offsets) -> int64 (N,)."},
    {"bboxes", py_bboxes, METH_VARARGS, "bboxes(counts, offsets, height, width) -> float64 (N, 4)."},
    {"runs_fit", py_runs_fit, METH_VARARGS,
     "runs_fit(counts, offsets, hw) -> bool: runs within 0 .. max(hw), summing to hw."},
    {"string_masks", py_string_masks, METH_VARARGS,
     "string_masks(chars, start, runs, height, width, raw=False) -> (bboxes, areas) | None."},
    {"decode_strings", py_decode_strings, METH_VARARGS,
     "decode_strings(chars, start, runs, rows, out=None, raw=False) -> (counts, offsets) | None."},
    {"string_iou_pairs", py_string_iou_pairs, METH_VARARGS,
     "string_iou_pairs(chars, start, runs, det_h, det_w, gt_counts, gt_offsets, gt_h, gt_w, "
     "det_row, gt_row, crowd, det_box, gt_box, raw=False) -> float64 (E,) | None."},
    {"iou_pairs", py_iou_pairs, METH_VARARGS,
     "iou_pairs(dc, do, dh, dw, gc, go, gh, gw, det_row, gt_row, crowd, det_box, gt_box) -> "
     "float64 (E,) | None: rleIou of mask pairs, threads across pairs."},
    {"merge", py_merge, METH_VARARGS,
     "merge(counts, offsets, h, w, intersect) -> int64 | None: union / intersection."},
    {"polygons", py_polygons, METH_VARARGS,
     "polygons(xy, npoints, h, w) -> (counts, offsets, declined): rleFrPoly of each."},
    {"polygon_objects", py_polygon_objects, METH_VARARGS,
     "polygon_objects(xy, npoints, nparts, rows, h, w, given=None, given_start=None, "
     "given_len=None) -> (counts, offsets, declined): each object's polygons rasterised and "
     "merged (or its runs given), threads across objects."},
    {"take", py_take, METH_VARARGS,
     "take(counts, offsets, rows, counts2=None, offsets2=None) -> (counts, offsets): masks "
     "`rows` copied, in that order (rows from N on: the second table's)."},
    {"encode", py_encode, METH_VARARGS, "encode(bool (h, w)) -> int64 counts."},
    {"decode", py_decode, METH_VARARGS, "decode(counts, h, w) -> bool (h, w) | None."},
    {"boundary", py_boundary, METH_VARARGS,
     "boundary(counts, h, w, d) -> int64 counts | None: the mask's boundary of width d."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_rle", "COCO RLE masks: the compiled loops of core.masks.", -1,
    methods,
};

PyMODINIT_FUNC PyInit__rle(void) {
    import_array();
    return PyModule_Create(&module);
}
