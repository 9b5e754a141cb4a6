/* PASCAL VOC annotation XML and results files in C: the plain files, as the Python readers read them.
 *
 * Annotation XML (Annotations/<id>.xml) -> the rows families/voc/annotations.py reads.
 *
 * A fast path for the plain files every VOC release and most tools write: it reads a file and
 * either returns exactly what the Python reader (lxml + annotations.read_annotation) returns
 * for it, or None, and then the Python reader reads that file. It returns None for anything
 * outside a small, plain subset of XML and of VOC, so it never has to reproduce a message:
 *
 *   - XML: ASCII only; an optional <?xml version=... [encoding="utf-8"] [standalone=...]?>
 *     first; elements without attributes (<tag> or <tag >, closed by </tag>); text without
 *     '&' or "]]>"; no comment, CDATA, DOCTYPE, processing instruction or empty-element tag;
 *     no element with both child elements and non-blank text; depth <= 64;
 *   - VOC: root <annotation>; every object with a known class <name> and a <bndbox> of four
 *     finite numbers; no <part> or <actions> (person layout / action files); <size> numbers
 *     that are integers with width x height within the pixel limit; any text the reader needs
 *     (names, numbers, flags, filename) in a leaf element. Every condition whose Python path
 *     would record a problem returns None.
 *
 * Texts are cleaned as text_fields.clean does (tab, CR, LF deleted; spaces trimmed); numbers
 * are the doubles float() gives (number(): exact fast path, else float()'s own conversion).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "_threads.h"

#define MAX_DEPTH 64

typedef struct {
    const char *tag; Py_ssize_t tag_len;
    const char *text; Py_ssize_t text_len; /* raw text of a leaf (NULL: none) */
    Py_ssize_t first, next, count;          /* first child, next sibling, element children */
} Node;

typedef struct {
    Node *n; Py_ssize_t len, cap;
} Tree;

static int push(Tree *t)
{
    if (t->len == t->cap) {
        Py_ssize_t cap = t->cap ? 2 * t->cap : 256;
        Node *n = realloc(t->n, (size_t)cap * sizeof(Node));
        if (!n) return -1;
        t->n = n; t->cap = cap;
    }
    Node *x = &t->n[t->len];
    memset(x, 0, sizeof *x);
    x->first = x->next = -1;
    t->len++;
    return 0;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* The XML declaration at p (p[0..5) == "<?xml"): 1 if plain (version="1.0", then optionally
 * encoding="utf-8" and standalone="yes"/"no", in that order), and *end after "?>". */
static int declaration(const char *p, const char *e, const char **end)
{
    static const char *keys[3] = {"version", "encoding", "standalone"};
    const char *q = p + 5;
    int k = 0; /* the next key allowed */
    while (1) {
        const char *w = q;
        while (q < e && is_space(*q)) q++;
        if (k > 0 && q + 1 < e && q[0] == '?' && q[1] == '>') { *end = q + 2; return 1; }
        if (q == w) return 0;
        int found = -1;
        for (int j = k; j < 3 && found < 0; j++) {
            size_t n = strlen(keys[j]);
            if ((size_t)(e - q) > n && memcmp(q, keys[j], n) == 0 && !name_char(q[n])) found = j;
            if (j == 0) break; /* version comes first */
        }
        if (found < 0) return 0;
        k = found;
        q += strlen(keys[k]);
        while (q < e && is_space(*q)) q++;
        if (q >= e || *q != '=') return 0;
        q++;
        while (q < e && is_space(*q)) q++;
        if (q >= e || (*q != '"' && *q != '\'')) return 0;
        char quote = *q++;
        const char *v = q;
        while (q < e && *q != quote) q++;
        if (q >= e) return 0;
        size_t n = (size_t)(q - v);
        q++;
        if (k == 0 && !(n == 3 && memcmp(v, "1.0", 3) == 0)) return 0;
        if (k == 1 && !(n == 5 && (v[0] | 32) == 'u' && (v[1] | 32) == 't' && (v[2] | 32) == 'f'
                        && v[3] == '-' && v[4] == '8')) return 0;
        if (k == 2 && !((n == 3 && memcmp(v, "yes", 3) == 0) || (n == 2 && memcmp(v, "no", 2) == 0)))
            return 0;
        k++;
    }
}

/* Parse buf into t; 0 if the file is outside the plain subset. */
static int parse(const char *buf, Py_ssize_t size, Tree *t)
{
    const char *p = buf, *e = buf + size;
    Py_ssize_t stack[MAX_DEPTH + 1], last[MAX_DEPTH + 1];
    const char *text_at[MAX_DEPTH + 1];
    int depth = 0, done = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == '&') return 0;
        if (c == '>' && i >= 2 && buf[i - 1] == ']' && buf[i - 2] == ']') return 0;
    }
    if (e - p >= 5 && memcmp(p, "<?xml", 5) == 0) {
        if (!declaration(p, e, &p)) return 0;
    }
    while (p < e) {
        const char *s = p;
        while (p < e && *p != '<') p++;
        const char *lt = p;
        if (p > s) { /* text */
            int blank = 1;
            for (const char *q = s; q < p; q++) if (!is_space(*q)) { blank = 0; break; }
            if (depth == 0 && !blank) return 0;
            if (depth > 0 && !blank && t->n[stack[depth]].count > 0) return 0;
        }
        if (p >= e) break;
        p++;
        if (p < e && *p == '/') { /* end tag */
            p++;
            if (depth == 0) return 0;
            const char *nm = p;
            while (p < e && name_char(*p)) p++;
            Node *x = &t->n[stack[depth]];
            if (p - nm != x->tag_len || memcmp(nm, x->tag, (size_t)x->tag_len) != 0) return 0;
            while (p < e && is_space(*p)) p++;
            if (p >= e || *p != '>') return 0;
            if (x->count == 0) { x->text = text_at[depth]; x->text_len = lt - text_at[depth]; }
            p++;
            depth--;
            if (depth == 0) done = 1;
            continue;
        }
        /* start tag */
        if (done || p >= e || !name_start(*p)) return 0;
        if (depth == MAX_DEPTH) return 0;
        const char *nm = p;
        while (p < e && name_char(*p)) p++;
        Py_ssize_t nl = p - nm;
        if (nl > 1000) return 0;
        while (p < e && is_space(*p)) p++;
        if (p >= e || *p != '>') return 0;
        p++;
        if (push(t) < 0) return -1;
        Py_ssize_t me = t->len - 1;
        t->n[me].tag = nm; t->n[me].tag_len = nl;
        if (depth > 0) {
            Node *parent = &t->n[stack[depth]];
            if (parent->count == 0) { /* a first child after non-blank text: mixed content */
                for (const char *q = text_at[depth]; q < nm - 1; q++)
                    if (!is_space(*q)) return 0;
            }
            if (parent->count == 0) parent->first = me;
            else t->n[last[depth]].next = me;
            parent->count++;
            last[depth] = me;
        }
        depth++;
        stack[depth] = me;
        text_at[depth] = p;
    }
    return done && depth == 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading the VOC fields                                                                    */

/* text_fields.clean of a leaf's text into out (at least text_len bytes). */
static Py_ssize_t clean(const Node *x, char *out)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < x->text_len; i++) {
        char c = x->text[i];
        if (c != '\t' && c != '\n' && c != '\r') out[n++] = c;
    }
    Py_ssize_t a = 0;
    while (a < n && out[a] == ' ') a++;
    while (n > a && out[n - 1] == ' ') n--;
    if (a) memmove(out, out + a, (size_t)(n - a));
    return n - a;
}

static int tag_is(const Node *x, const char *name)
{
    size_t n = strlen(name);
    return (size_t)x->tag_len == n && memcmp(x->tag, name, n) == 0;
}

/* The first child of x named `name`, or -1. */
static Py_ssize_t child(const Tree *t, const Node *x, const char *name)
{
    for (Py_ssize_t c = x->first; c >= 0; c = t->n[c].next)
        if (tag_is(&t->n[c], name)) return c;
    return -1;
}

/* A finite number in the plain decimal grammar [+-](digits[.digits] | .digits)[(e|E)[+-]digits],
 * as float() converts it (correctly rounded); 0 if not one. Short numbers take Clinger's exact
 * fast path (an integer below 2^53 times or over a power of ten up to 1e22: both operands
 * exact, so the one IEEE multiplication or division is the correctly rounded result); the
 * others PyOS_string_to_double, float()'s own conversion. */
static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int number(const char *s, Py_ssize_t n, double *out)
{
    Py_ssize_t i = 0, digits = 0, frac = 0, sig = 0;
    uint64_t m = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (m || s[i] != '0') { sig++; if (sig <= 19) m = m * 10 + (uint64_t)(s[i] - '0'); }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, frac++) {
            if (m || s[i] != '0') { sig++; if (sig <= 19) m = m * 10 + (uint64_t)(s[i] - '0'); }
        }
    }
    if (!digits) return 0;
    long e = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        Py_ssize_t d = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
            if (e < 100000) e = e * 10 + (s[i] - '0');
        if (!d) return 0;
        if (eneg) e = -e;
    }
    if (i != n) return 0;
    e -= (long)frac;
    if (sig <= 19 && m < ((uint64_t)1 << 53) && e >= -22 && e <= 22) {
        double v = (double)m;
        v = e < 0 ? v / POW10[-e] : v * POW10[e];
        *out = neg ? -v : v;
        return 1;
    }
    char buf[256];
    if (n > 255) return 0;
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    char *end = NULL;
    double v = PyOS_string_to_double(buf, &end, NULL);
    if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (end != buf + n || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* Cleaned text of leaf c into the scratch buffer; 0 if c is not a leaf. */
static int leaf_text(const Tree *t, Py_ssize_t c, char *scratch, Py_ssize_t *len)
{
    const Node *x = &t->n[c];
    if (x->count) return 0;
    *len = clean(x, scratch);
    return 1;
}

static int lookup(PyObject *names, const char *s, Py_ssize_t n, int lower)
{
    char low[64];
    if (lower) {
        if (n > 63) return -1;
        for (Py_ssize_t i = 0; i < n; i++) low[i] = (s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i];
        s = low;
    }
    Py_ssize_t k = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t m;
        const char *name = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(names, i), &m);
        if (name && m == n && memcmp(name, s, (size_t)n) == 0) return (int)i;
    }
    return -1;
}

/* (filename or None, width, height, segmented, fields, objects) of one parsed file; Py_None
 * if the Python reader would record a problem; NULL on error. */
static PyObject *read_voc_tree(const Tree *t, long image, PyObject *classes, PyObject *poses,
                               long long max_pixels, char *scratch)
{
    const Node *root = &t->n[0];
    Py_ssize_t len;
    if (!tag_is(root, "annotation")) Py_RETURN_NONE;
    /* size */
    long long wh[2] = {0, 0};
    Py_ssize_t size = child(t, root, "size");
    if (size >= 0) {
        static const char *dims[2] = {"width", "height"};
        for (int k = 0; k < 2; k++) {
            Py_ssize_t d = child(t, &t->n[size], dims[k]);
            if (d < 0) continue;
            double v;
            if (!leaf_text(t, d, scratch, &len) || !number(scratch, len, &v))
                Py_RETURN_NONE;
            if (v != floor(v) || v < 0 || v > (double)max_pixels) Py_RETURN_NONE;
            wh[k] = (long long)v;
        }
        if (wh[0] > 0 && wh[1] > 0 && wh[0] * wh[1] > max_pixels) Py_RETURN_NONE;
    }
    PyObject *objects = PyList_New(0), *filename = Py_None, *fields = NULL;
    Py_INCREF(Py_None);
    if (!objects) goto error;
    long order = 0;
    for (Py_ssize_t o = root->first; o >= 0; o = t->n[o].next) {
        const Node *obj = &t->n[o];
        if (!tag_is(obj, "object")) continue;
        if (child(t, obj, "part") >= 0 || child(t, obj, "actions") >= 0) goto decline;
        Py_ssize_t nm = child(t, obj, "name"), bb = child(t, obj, "bndbox");
        if (nm < 0 || bb < 0 || !leaf_text(t, nm, scratch, &len)) goto decline;
        int label = lookup(classes, scratch, len, 0);
        if (label < 0) goto decline;
        static const char *coords[4] = {"xmin", "ymin", "xmax", "ymax"};
        double box[4];
        for (int k = 0; k < 4; k++) {
            Py_ssize_t c = child(t, &t->n[bb], coords[k]);
            if (c < 0 || !leaf_text(t, c, scratch, &len)
                || !number(scratch, len, &box[k]))
                goto decline;
        }
        static const char *flags[3] = {"difficult", "truncated", "occluded"};
        int flag[3];
        for (int k = 0; k < 3; k++) {
            Py_ssize_t c = child(t, obj, flags[k]);
            flag[k] = 0;
            if (c < 0) continue;
            if (!leaf_text(t, c, scratch, &len)) goto decline;
            flag[k] = len == 1 && scratch[0] == '1';
        }
        int pose = 0;
        Py_ssize_t pc = child(t, obj, "pose");
        if (pc >= 0) {
            if (!leaf_text(t, pc, scratch, &len)) goto decline;
            pose = lookup(poses, scratch, len, 1);
            if (pose < 0) pose = 0;
        }
        PyObject *row = Py_BuildValue("(llddddNNNll)", image, (long)label, box[0], box[1], box[2],
                                      box[3], PyBool_FromLong(flag[0]), PyBool_FromLong(flag[1]),
                                      PyBool_FromLong(flag[2]), (long)pose, order);
        if (!row || PyList_Append(objects, row) < 0) { Py_XDECREF(row); goto error; }
        Py_DECREF(row);
        order++;
    }
    /* filename, segmented, the scalar fields */
    fields = PyDict_New();
    int segmented = 0;
    if (!fields) goto error;
    for (Py_ssize_t c = root->first; c >= 0; c = t->n[c].next) {
        const Node *x = &t->n[c];
        if (tag_is(x, "object")) continue;
        /* the first element of its tag only */
        Py_ssize_t first = root->first;
        while (first != c && !(t->n[first].tag_len == x->tag_len
                               && memcmp(t->n[first].tag, x->tag, (size_t)x->tag_len) == 0))
            first = t->n[first].next;
        if (first != c) continue;
        if (x->count == 0) {
            len = clean(x, scratch);
            PyObject *k = PyUnicode_FromStringAndSize(x->tag, x->tag_len);
            PyObject *v = PyUnicode_FromStringAndSize(scratch, len);
            int bad = !k || !v || PyDict_SetItem(fields, k, v) < 0;
            Py_XDECREF(k); Py_XDECREF(v);
            if (bad) goto error;
            if (tag_is(x, "filename") && len > 0) {
                Py_DECREF(filename);
                filename = PyUnicode_FromStringAndSize(scratch, len);
                if (!filename) goto error;
            }
            if (tag_is(x, "segmented")) segmented = len == 1 && scratch[0] == '1';
            continue;
        }
        if (tag_is(x, "filename") || tag_is(x, "segmented")) goto decline;
        for (Py_ssize_t g = x->first; g >= 0; g = t->n[g].next) {
            const Node *y = &t->n[g];
            if (y->count) continue;
            len = clean(y, scratch);
            char key[2004]; /* names are at most 1000 characters */
            memcpy(key, x->tag, (size_t)x->tag_len);
            key[x->tag_len] = '/';
            memcpy(key + x->tag_len + 1, y->tag, (size_t)y->tag_len);
            PyObject *k = PyUnicode_FromStringAndSize(key, x->tag_len + 1 + y->tag_len);
            PyObject *v = PyUnicode_FromStringAndSize(scratch, len);
            PyObject *r = (k && v) ? PyDict_SetDefault(fields, k, v) : NULL;
            Py_XDECREF(k); Py_XDECREF(v);
            if (!r) goto error;
        }
    }
    return Py_BuildValue("(NLLNNN)", filename, wh[0], wh[1], PyBool_FromLong(segmented), fields,
                         objects);
decline:
    Py_DECREF(objects);
    Py_DECREF(filename);
    Py_XDECREF(fields);
    Py_RETURN_NONE;
error:
    Py_XDECREF(objects);
    Py_XDECREF(filename);
    Py_XDECREF(fields);
    return NULL;
}

/* The whole regular file at path, at most limit bytes; NULL (no exception) if not readable so. */
static char *slurp(const char *path, long long limit, Py_ssize_t *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= limit) {
        buf = malloc((size_t)st.st_size + 2);
        Py_ssize_t got = 0;
        while (buf) {
            ssize_t r = read(fd, buf + got, (size_t)(st.st_size + 1 - got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += r;
            if (got > st.st_size) break;
        }
        if (buf && got != st.st_size) { free(buf); buf = NULL; }
        *size = got;
    }
    close(fd);
    return buf;
}

/* Files are read and parsed CHUNK at a time across threads without the GIL (the reading is
 * mostly system calls; at least FILES_PER_THREAD each), then turned into Python rows in order
 * on this thread. */
#define CHUNK 2048
#define FILES_PER_THREAD 64

typedef struct {
    const char **path;
    char **buf;
    Py_ssize_t *size;
    Tree *tree;
    int *ok; /* parse(): 1 plain, 0 not (or unreadable), -1 out of memory */
    long long limit;
} Batch;

static void read_range(void *ctx, Py_ssize_t lo, Py_ssize_t hi)
{
    Batch *b = ctx;
    for (Py_ssize_t i = lo; i < hi; i++) {
        b->buf[i] = slurp(b->path[i], b->limit, &b->size[i]);
        b->ok[i] = b->buf[i] ? parse(b->buf[i], b->size[i], &b->tree[i]) : 0;
    }
}

static PyObject *annotations(PyObject *self, PyObject *args)
{
    PyObject *paths, *rows, *classes, *poses;
    long long limit, max_pixels;
    if (!PyArg_ParseTuple(args, "O!O!O!O!LL", &PyList_Type, &paths, &PyList_Type, &rows,
                          &PyTuple_Type, &classes, &PyTuple_Type, &poses, &limit, &max_pixels))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(paths);
    if (PyList_GET_SIZE(rows) != n) {
        PyErr_SetString(PyExc_ValueError, "paths and rows differ in length");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyBytes_Check(PyList_GET_ITEM(paths, i))) {
            PyErr_SetString(PyExc_TypeError, "paths must be bytes");
            return NULL;
        }
    PyObject *out = PyList_New(n);
    Batch b = {0};
    b.limit = limit;
    b.path = calloc(CHUNK, sizeof *b.path);
    b.buf = calloc(CHUNK, sizeof *b.buf);
    b.size = calloc(CHUNK, sizeof *b.size);
    b.tree = calloc(CHUNK, sizeof *b.tree);
    b.ok = calloc(CHUNK, sizeof *b.ok);
    char *scratch = NULL;
    Py_ssize_t scratch_cap = 0, m = 0; /* m: files in the current chunk */
    if (!out || !b.path || !b.buf || !b.size || !b.tree || !b.ok) {
        if (out) PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t lo = 0; lo < n; lo += CHUNK) {
        m = n - lo < CHUNK ? n - lo : CHUNK;
        for (Py_ssize_t j = 0; j < m; j++) {
            b.path[j] = PyBytes_AS_STRING(PyList_GET_ITEM(paths, lo + j));
            b.buf[j] = NULL;
            b.tree[j].len = 0;
        }
        Py_BEGIN_ALLOW_THREADS
        split_range(read_range, &b, m, FILES_PER_THREAD);
        Py_END_ALLOW_THREADS
        for (Py_ssize_t j = 0; j < m; j++) {
            long image = PyLong_AsLong(PyList_GET_ITEM(rows, lo + j));
            if (image == -1 && PyErr_Occurred()) goto error;
            int ok = b.ok[j];
            if (ok > 0 && 2 * b.size[j] + 4 > scratch_cap) {
                char *s = realloc(scratch, (size_t)(2 * b.size[j] + 4));
                if (!s) ok = -1;
                else { scratch = s; scratch_cap = 2 * b.size[j] + 4; }
            }
            if (ok < 0) { PyErr_NoMemory(); goto error; }
            PyObject *r = ok ? read_voc_tree(&b.tree[j], image, classes, poses, max_pixels, scratch)
                             : (Py_INCREF(Py_None), Py_None);
            if (!r) goto error;
            PyList_SET_ITEM(out, lo + j, r);
            free(b.buf[j]);
            b.buf[j] = NULL;
        }
    }
    goto done;
error:
    Py_CLEAR(out);
done:
    if (b.buf)
        for (Py_ssize_t j = 0; j < m; j++) free(b.buf[j]);
    if (b.tree)
        for (Py_ssize_t j = 0; j < CHUNK; j++) free(b.tree[j].n);
    free(b.path); free(b.buf); free(b.size); free(b.tree); free(b.ok);
    free(scratch);
    return out;
}

/* ---------------------------------------------------------------------------------------- */
/* VOC results files (comp*_det_<set>_<class>.txt, comp*_cls_...) -> columns, plain files only.
 *
 * The fast path of families/voc/results_lines.read_results_file: it takes the file's bytes
 * (BOM removed) and either returns exactly the columns the Python reader (numpy's loadtxt on
 * chunks, ids mapped through ImageIds) returns, or None, and then the Python reader reads
 * the file and reports what it must. It returns None for anything but plain lines:
 *
 *   - bytes other than printable ASCII, ' ' and '\n' (so no tab, CR, NUL, non-ASCII);
 *   - a blank line before the last non-blank one, or a line starting with a space;
 *   - a line without exactly `width` space-separated fields;
 *   - an image id not in the dataset (the Python reader names it);
 *   - a number outside [+-](digits[.digits] | .digits)[(e|E)[+-]digits], or not finite.
 *
 * Numbers are the doubles float() and numpy's text reader give (number() above). Lines are
 * 1..n (no blank or skipped line in a plain file).
 */
static PyObject *results(PyObject *self, PyObject *args)
{
    Py_buffer data;
    int width;
    PyObject *row_of;
    if (!PyArg_ParseTuple(args, "y*iO!", &data, &width, &PyDict_Type, &row_of)) return NULL;
    char *p = data.buf;
    Py_ssize_t size = data.len, end = size, lines = 0;
    PyObject *image = NULL, *numbers = NULL, *result = NULL;
    if (width < 2 || width > 16) goto decline;
    for (Py_ssize_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)p[i];
        if ((c < 0x20 && c != '\n') || c >= 0x7f) goto decline;
    }
    while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\n')) end--;
    if (end == 0) goto decline;
    lines = 1;
    for (Py_ssize_t i = 0; i < end; i++) lines += p[i] == '\n';
    image = PyByteArray_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t));
    numbers = PyByteArray_FromStringAndSize(NULL, lines * (width - 1) * (Py_ssize_t)sizeof(double));
    if (!image || !numbers) goto error;
    int64_t *rows = (int64_t *)PyByteArray_AS_STRING(image);
    double *values = (double *)PyByteArray_AS_STRING(numbers);
    Py_ssize_t q = 0, line = 0, last_len = 0;
    const char *last_id = NULL;
    long long last_row = -1;
    while (q < end) {
        Py_ssize_t eol = q;
        while (eol < end && p[eol] != '\n') eol++;
        if (eol == q || p[q] == ' ') goto decline;
        int field = 0;
        Py_ssize_t t = q;
        while (t < eol) {
            Py_ssize_t s = t;
            while (t < eol && p[t] != ' ') t++;
            if (field >= width) goto decline;
            if (field == 0 && last_id && t - s == last_len && memcmp(p + s, last_id, (size_t)last_len) == 0) {
                rows[line] = last_row; /* lines of one image are usually together */
            } else if (field == 0) {
                PyObject *id = PyUnicode_FromStringAndSize(p + s, t - s);
                if (!id) goto error;
                PyObject *row = PyDict_GetItemWithError(row_of, id);
                Py_DECREF(id);
                if (!row) { if (PyErr_Occurred()) goto error; goto decline; }
                long long r = PyLong_AsLongLong(row);
                if (r == -1 && PyErr_Occurred()) goto error;
                rows[line] = last_row = r;
                last_id = p + s;
                last_len = t - s;
            } else {
                if (!number(p + s, t - s, &values[line * (width - 1) + field - 1])) goto decline;
            }
            field++;
            while (t < eol && p[t] == ' ') t++;
        }
        if (field != width) goto decline;
        line++;
        q = eol + 1;
    }
    result = Py_BuildValue("(OO)", image, numbers);
    goto done;
decline:
    result = Py_None;
    Py_INCREF(result);
    goto done;
error:
    result = NULL;
done:
    Py_XDECREF(image);
    Py_XDECREF(numbers);
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef methods[] = {
    {"annotations", annotations, METH_VARARGS,
     "annotations(paths, rows, classes, poses, limit, max_pixels) -> list\n"
     "\n"
     "Read the annotation files `paths` (bytes, os.fsencode) of image rows `rows` (int).\n"
     "Item i is (filename or None, width, height, segmented, fields, objects): the fields of\n"
     "annotations.ImageInfo and the rows annotations.AnnotationColumns.objects gets from the\n"
     "file; or None where the Python reader must read it. `classes`: the class names\n"
     "(label = index); `poses`: the pose names in lower case; `limit`: the largest file in\n"
     "bytes; `max_pixels`: the pixel limit of <size>."},
    {"results", results, METH_VARARGS,
     "results(data, width, row_of) -> (rows, numbers) or None\n"
     "\n"
     "Columns of a VOC results file's bytes (BOM removed) of `width` fields per line (6: det,\n"
     "2: cls): rows (bytearray of int64, the dataset row of each line's id through `row_of`)\n"
     "and numbers (bytearray of float64, width - 1 per line); None unless every line is plain\n"
     "(see _voc.c), and then the Python reader reads the file."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_voc",
    "PASCAL VOC annotation XML and results files read in C, plain files only (see _voc.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__voc(void) { return PyModule_Create(&module); }
