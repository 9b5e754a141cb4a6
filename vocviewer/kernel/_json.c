/* COCO-style JSON straight into columns: ground-truth files and results files.
 *
 * Two entry points, each taking the file's bytes and returning a dict of numpy arrays (and a
 * blob of the strings it kept), or None: "not handled here, take the Python path".
 *
 *   annotations(data)  a COCO instances / keypoints / LVIS ground-truth object
 *   results(data)      a results array (image_id, category_id, score, bbox, RLE, keypoints)
 *
 * Only the happy path is taken. Anything unusual - a value of a type the schema does not
 * expect, NaN / Infinity, a number beyond int64 or double, non-ASCII bytes, an escaped key, a
 * repeated variable-length field, nesting deeper than MAX_DEPTH, invalid JSON of any kind -
 * gives None, so that the Python readers decide and every message stays theirs. The scan runs
 * without the GIL, into plain C buffers; the arrays are made afterwards.
 *
 * Exactness: an integer token is read exactly (int64) and, where a float is wanted, converted
 * as Python converts an int (correctly rounded); a float token is correctly rounded: the exact
 * fast path (at most 15 significant digits, power of ten at most 22: one IEEE operation on two
 * exact doubles), else strtod in the "C" locale on a NUL-terminated copy of the token. Duplicate
 * keys: the last one wins for fixed-size values, as in Python's json; a repeated list-valued
 * field is declined.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

#include <float.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_bus_guard.h"
#include "_owned_array.h"
#ifndef _WIN32
#include <pthread.h>
#include <unistd.h>
#define SPAN_THREADS 8 /* RLE strings decoded across threads */
#else
#define SPAN_THREADS 1
#endif
#ifdef _WIN32
#define C_LOCALE_T _locale_t
#define STRTOD_L _strtod_l
#else
#if defined(__APPLE__)
#include <xlocale.h>
#endif
#define C_LOCALE_T locale_t
#define STRTOD_L strtod_l
#endif

#define MAX_DEPTH 200    /* deeper nesting is declined (Python's parser reports it) */
#define MAX_NUMBER 255   /* longer number tokens are declined */
#define DECLINE (-1)

static C_LOCALE_T c_locale;

/* ---------------------------------------------------------------------------------------- */
/* Growable buffers                                                                          */

typedef struct {
    char *data;
    size_t len; /* items */
    size_t cap; /* items */
    size_t item; /* bytes per item */
} Buf;

static void buf_init(Buf *b, size_t item) {
    b->data = NULL;
    b->len = b->cap = 0;
    b->item = item;
}

static void buf_free(Buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int buf_reserve(Buf *b, size_t more) {
    if (b->len + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more) cap *= 2;
    char *d = realloc(b->data, cap * b->item);
    if (!d) return DECLINE;
    b->data = d;
    b->cap = cap;
    return 0;
}

static int push_i64(Buf *b, int64_t v) {
    if (buf_reserve(b, 1)) return DECLINE;
    ((int64_t *)b->data)[b->len++] = v;
    return 0;
}

static int push_f64(Buf *b, double v) {
    if (buf_reserve(b, 1)) return DECLINE;
    ((double *)b->data)[b->len++] = v;
    return 0;
}

static int push_u8(Buf *b, uint8_t v) {
    if (buf_reserve(b, 1)) return DECLINE;
    ((uint8_t *)b->data)[b->len++] = v;
    return 0;
}

#define I64(b) ((int64_t *)(b).data)
#define F64(b) ((double *)(b).data)

/* ---------------------------------------------------------------------------------------- */
/* The scanner: whitespace, literals, numbers, strings, and skipping any valid value          */

typedef struct {
    const char *p;   /* next byte */
    const char *end; /* one past the last byte */
    Buf blob;        /* unescaped strings kept (names, file names), uint8 */
    int masks;       /* results: 1 decode segmentations, 2 keep their strings, 3 locate them
                      * in place, 0 skip them */
    Buf spans;       /* results: each RLE string's body (start, end pointers), decoded last */
    char *writable;  /* results(data, 2) of a writable buffer: the strings kept in place */
    const char *base; /* the first byte of data (offsets in it: results(data, 3)) */
    Buf kp_spans;    /* each keypoints list's body (start, end, count), read last (threads) */
} Scan;

typedef struct {
    int is_int; /* an integer token (no fraction, no exponent) within int64 */
    int64_t i;
    double d; /* the value as a double (ints converted as Python converts them) */
} Num;

static void skip_ws(Scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

/* The next non-space byte (not consumed), or 0 at the end. */
static int peek(Scan *s) {
    skip_ws(s);
    return s->p < s->end ? (unsigned char)*s->p : 0;
}

/* Consume byte c (after whitespace) or decline. */
static int expect(Scan *s, char c) {
    if (peek(s) != (unsigned char)c) return DECLINE;
    s->p++;
    return 0;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A JSON number token: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(Scan *s, Num *out) {
    skip_ws(s);
    const char *start = s->p, *q = s->p, *end = s->end;
    int neg = 0;
    if (q < end && *q == '-') neg = 1, q++;
    if (q >= end || !is_digit(*q)) return DECLINE; /* also NaN, Infinity */
    uint64_t mant = 0;
    int sig = 0;        /* significant digits taken into mant */
    int dropped = 0;    /* significant digits beyond 19: not exact */
    int exp10 = 0;
    if (*q == '0') {
        q++;
    } else {
        while (q < end && is_digit(*q)) {
            if (sig < 19) mant = mant * 10 + (uint64_t)(*q - '0'), sig += (mant != 0);
            else dropped = 1, exp10++;
            q++;
        }
    }
    int is_int = 1;
    if (q < end && *q == '.') {
        is_int = 0;
        q++;
        if (q >= end || !is_digit(*q)) return DECLINE;
        while (q < end && is_digit(*q)) {
            if (sig < 19) {
                mant = mant * 10 + (uint64_t)(*q - '0');
                sig += (mant != 0);
                exp10--;
            } else if (*q != '0') {
                dropped = 1;
            }
            q++;
        }
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        is_int = 0;
        q++;
        int eneg = 0;
        if (q < end && (*q == '+' || *q == '-')) eneg = (*q == '-'), q++;
        if (q >= end || !is_digit(*q)) return DECLINE;
        int e = 0;
        while (q < end && is_digit(*q)) {
            if (e < 100000) e = e * 10 + (*q - '0');
            q++;
        }
        exp10 += eneg ? -e : e;
    }
    s->p = q;
    size_t len = (size_t)(q - start);
    if (is_int) {
        /* exact: digits within int64 (the magnitude check before the multiply-add) */
        const char *r = start + neg;
        uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (; r < q; r++) {
            uint64_t dgt = (uint64_t)(*r - '0');
            if (v > (limit - dgt) / 10) return DECLINE; /* beyond int64 */
            v = v * 10 + dgt;
        }
        out->is_int = 1;
        out->i = neg ? (int64_t)(0 - v) : (int64_t)v;
        out->d = (double)out->i; /* -0 is the int 0: +0.0, as Python's float(0) */
        return 0;
    }
    out->is_int = 0;
    out->i = 0;
#if FLT_EVAL_METHOD == 0
    if (!dropped && mant <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
        double m = (double)mant; /* exact */
        double v = exp10 >= 0 ? m * POW10[exp10] : m / POW10[-exp10];
        out->d = neg ? -v : v;
        return 0;
    }
#endif
    if (len > MAX_NUMBER) return DECLINE;
    char tok[MAX_NUMBER + 1];
    memcpy(tok, start, len);
    tok[len] = 0;
    double v = STRTOD_L(tok, NULL, c_locale);
    if (!(v - v == 0)) return DECLINE; /* overflowed to infinity (Python's json gives inf) */
    out->d = v;
    return 0;
}

static int hex4(const char *q) {
    int v = 0;
    for (int k = 0; k < 4; k++) {
        int c = (unsigned char)q[k], h;
        if (c >= '0' && c <= '9') h = c - '0';
        else if (c >= 'a' && c <= 'f') h = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') h = c - 'A' + 10;
        else return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The escape after a backslash, at *p (consumed): *c the character; DECLINE for an unknown
 * escape and, where `kept`, for an escape of a non-ASCII character. */
static inline int escape_char(const char **p, const char *end, int *c, int kept) {
    if (*p >= end) return DECLINE;
    int b = (unsigned char)*(*p)++;
    switch (b) {
        case '"': case '\\': case '/': *c = b; return 0;
        case 'b': *c = '\b'; return 0;
        case 'f': *c = '\f'; return 0;
        case 'n': *c = '\n'; return 0;
        case 'r': *c = '\r'; return 0;
        case 't': *c = '\t'; return 0;
        case 'u': {
            if (end - *p < 4) return DECLINE;
            int v = hex4(*p);
            if (v < 0 || (kept && v >= 0x80)) return DECLINE;
            *p += 4;
            *c = v;
            return 0;
        }
        default: return DECLINE;
    }
}

/* One character of a string body at s->p (its opening quote consumed), unescaped; sets *c to
 * the character, or to -1 at the closing quote (consumed). Declines raw control characters,
 * non-ASCII bytes and, in a string that is ``kept``, escapes of non-ASCII characters. */
static int string_char_any(Scan *s, int *c, int kept) {
    if (s->p >= s->end) return DECLINE;
    int b = (unsigned char)*s->p++;
    if (b == '"') return *c = -1, 0;
    if (b < 0x20 || b >= 0x80) return DECLINE;
    if (b != '\\') return *c = b, 0;
    return escape_char(&s->p, s->end, c, kept);
}

static int string_char(Scan *s, int *c) { return string_char_any(s, c, 1); }

/* Skip a string body (its opening quote consumed), the closing quote included. */
static int skip_string(Scan *s) {
    for (;;) {
        const char *p = s->p, *end = s->end;
        while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 &&
               (unsigned char)*p < 0x80)
            p++; /* the plain run: no escape, no control character, ASCII */
        s->p = p;
        int ch;
        if (string_char_any(s, &ch, 0)) return DECLINE;
        if (ch < 0) return 0;
    }
}

/* A string value kept: appended (unescaped) to the blob; *off, *len locate it there. */
static int scan_kept_string(Scan *s, int64_t *off, int64_t *len) {
    if (expect(s, '"')) return DECLINE;
    *off = (int64_t)s->blob.len;
    int c;
    for (;;) {
        if (string_char(s, &c)) return DECLINE;
        if (c < 0) break;
        if (push_u8(&s->blob, (uint8_t)c)) return DECLINE;
    }
    *len = (int64_t)s->blob.len - *off;
    return 0;
}

/* An object key: its raw bytes (*k, *n), declined if escaped; the colon after it consumed. */
static int scan_key(Scan *s, const char **k, size_t *n) {
    if (expect(s, '"')) return DECLINE;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        int b = (unsigned char)*s->p;
        if (b == '\\' || b < 0x20 || b >= 0x80) return DECLINE;
        s->p++;
    }
    if (s->p >= s->end) return DECLINE;
    *k = start;
    *n = (size_t)(s->p - start);
    s->p++;
    return expect(s, ':');
}

static int key_is(const char *k, size_t n, const char *name) {
    return strlen(name) == n && memcmp(k, name, n) == 0;
}

static int scan_literal(Scan *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return DECLINE;
    s->p += n;
    return 0;
}

/* Skip any valid JSON value (checked as strictly as Python's json, NaN / Infinity declined). */
static int skip_value(Scan *s, int depth) {
    if (depth > MAX_DEPTH) return DECLINE;
    int c = peek(s);
    Num num;
    switch (c) {
        case '{': {
            s->p++;
            if (peek(s) == '}') return s->p++, 0;
            for (;;) {
                if (expect(s, '"') || skip_string(s)) return DECLINE;
                if (expect(s, ':') || skip_value(s, depth + 1)) return DECLINE;
                c = peek(s);
                s->p++;
                if (c == '}') return 0;
                if (c != ',') return DECLINE;
            }
        }
        case '[': {
            s->p++;
            if (peek(s) == ']') return s->p++, 0;
            for (;;) {
                if (skip_value(s, depth + 1)) return DECLINE;
                c = peek(s);
                s->p++;
                if (c == ']') return 0;
                if (c != ',') return DECLINE;
            }
        }
        case '"': s->p++; return skip_string(s);
        case 't': return scan_literal(s, "true");
        case 'f': return scan_literal(s, "false");
        case 'n': return scan_literal(s, "null");
        default: return scan_number(s, &num);
    }
}

/* Array iteration: call after '[' was consumed; *first is set to 1 before the first call.
 * Returns 1 when an element follows, 0 at the closing bracket (consumed), DECLINE else. */
static int next_element(Scan *s, int *first) {
    int c = peek(s);
    if (*first) {
        *first = 0;
        if (c == ']') return s->p++, 0;
        return 1;
    }
    s->p++;
    if (c == ']') return 0;
    if (c != ',') return DECLINE;
    return 1;
}

/* Object iteration: the same for members ('{' consumed); a key is read when 1 is returned. */
static int next_member(Scan *s, int *first, const char **k, size_t *n) {
    int c = peek(s);
    if (*first) {
        *first = 0;
        if (c == '}') return s->p++, 0;
    } else {
        s->p++;
        if (c == '}') return 0;
        if (c != ',') return DECLINE;
    }
    return scan_key(s, k, n) ? DECLINE : 1;
}

#define FOR_ELEMENTS(s, r, first) for (first = 1; (r = next_element(s, &first)) == 1;)
#define FOR_MEMBERS(s, r, first, k, n) for (first = 1; (r = next_member(s, &first, &k, &n)) == 1;)

/* ---------------------------------------------------------------------------------------- */
/* Typed values                                                                              */

static int scan_int(Scan *s, int64_t *v) {
    Num num;
    if (scan_number(s, &num) || !num.is_int) return DECLINE;
    *v = num.i;
    return 0;
}

static int scan_double(Scan *s, double *v) {
    Num num;
    if (scan_number(s, &num)) return DECLINE;
    *v = num.d;
    return 0;
}

/* A list of numbers appended to out (float64); *count their number. */
static int scan_doubles(Scan *s, Buf *out, int64_t *count) {
    int first, r;
    double v;
    *count = 0;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        if (scan_double(s, &v) || push_f64(out, v)) return DECLINE;
        (*count)++;
    }
    return r;
}

/* ---- keypoint lists: one tight loop over the numbers ---- */

/* The common number token at *pp (no whitespace before it): -?digits(.digits)? of at most 19
 * digits in all and no exponent, whose value scan_number's fast path gives exactly (a float
 * token's mantissa within 2^53, an integer's too). Sets *v to the value scan_number gives and
 * advances *pp; returns 0 when the token is not of that kind (*pp unmoved: scan_number then
 * reads it, or declines it). */
static inline int keypoint_number(const char **pp, const char *end, double *v) {
#if FLT_EVAL_METHOD == 0
    const char *q = *pp;
    int neg = q < end && *q == '-';
    q += neg;
    const char *digits = q;
    uint64_t mant = 0;
    if (q < end && *q == '0') {
        q++; /* a leading zero stands alone (a digit after it: scan_number decides) */
    } else {
        while (q < end && is_digit(*q)) mant = mant * 10 + (uint64_t)(*q++ - '0');
    }
    if (q == digits) return 0;
    int frac = 0;
    if (q < end && *q == '.') {
        const char *f = ++q;
        while (q < end && is_digit(*q)) mant = mant * 10 + (uint64_t)(*q++ - '0');
        frac = (int)(q - f);
        if (frac == 0) return 0;
    }
    /* 19 digits at most (no wrap), the mantissa exact in a double, no exponent */
    if (q - digits - (frac > 0) > 19 || mant > (1ULL << 53)) return 0;
    if (q < end && (*q == 'e' || *q == 'E')) return 0;
    double m = (double)mant; /* exact */
    if (frac == 0) *v = neg && mant ? -m : m; /* an integer: -0 is +0.0, as scan_number's */
    else *v = neg ? -(m / POW10[frac]) : m / POW10[frac];
    *pp = q;
    return 1;
#else
    (void)pp, (void)end, (void)v;
    return 0;
#endif
}

/* A keypoints list [x, y, v, ...], only located during the scan: its body (after '[', up to
 * the first ']') is kept in s->kp_spans with its count of numbers (commas + 1, none if blank)
 * and read at the end by keypoint_span, across threads (read_keypoints). Every body is read
 * there as strictly as scan_doubles reads a list (a nested value, a string, NaN, a literal, a
 * count other than the commas say: declined), so the file is declined wherever scan_doubles
 * would decline it; the scan goes on after the first ']' meanwhile. */
static int defer_keypoint_list(Scan *s, int64_t *count) {
    /* (a Scan whose kp_spans was never set up cannot keep them: declined, its caller's
     * fall-back scans the file with one that can) */
    if (s->kp_spans.item != 8 || expect(s, '[')) return DECLINE;
    const char *start = s->p, *close = memchr(start, ']', (size_t)(s->end - start));
    if (!close) return DECLINE;
    int64_t commas = 0;
    for (const char *q = start; q < close; q++) commas += *q == ','; /* (vectorised) */
    const char *q = start;
    while (q < close && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) q++;
    s->p = close + 1;
    *count = q < close ? commas + 1 : 0;
    return push_i64(&s->kp_spans, (int64_t)(intptr_t)start) |
           push_i64(&s->kp_spans, (int64_t)(intptr_t)close) | push_i64(&s->kp_spans, *count);
}

/* The n numbers of one list body [p, end) into out: 0, or DECLINE where scan_doubles declines
 * the list (each number read as scan_number reads it, the usual token by keypoint_number). */
static int keypoint_span(const char *p, const char *end, double *out, int64_t n) {
    Scan t;
    memset(&t, 0, sizeof t);
    t.p = p;
    t.end = end;
    int64_t m = 0;
    if (peek(&t) == 0) return n == 0 ? 0 : DECLINE;
    for (;;) {
        double v;
        if (m >= n) return DECLINE;
        if (!keypoint_number(&t.p, t.end, &v)) {
            Num num;
            if (scan_number(&t, &num)) return DECLINE;
            v = num.d;
        }
        out[m++] = v;
        int c = peek(&t);
        if (c == 0) break;
        if (c != ',') return DECLINE;
        t.p++;
    }
    return m == n ? 0 : DECLINE;
}

#define KP_SPANS_PER_THREAD 4096

typedef struct {
    const int64_t *spans; /* (start, end, count) triples */
    const int64_t *first; /* (n + 1,) numbers before each list */
    double *out;          /* the keypoints column */
    int64_t lo, hi;
    int bad;
} KeypointJob;

static void keypoint_lists(KeypointJob *j) {
    for (int64_t i = j->lo; i < j->hi && !j->bad; i++)
        j->bad = keypoint_span((const char *)(intptr_t)j->spans[3 * i],
                               (const char *)(intptr_t)j->spans[3 * i + 1], j->out + j->first[i],
                               j->spans[3 * i + 2]) != 0;
}

static void *keypoint_job(void *arg) {
    int faulted;
    BUS_GUARDED(faulted, keypoint_lists(arg));
    if (faulted) ((KeypointJob *)arg)->bad = 1;
    return NULL;
}

/* Every located keypoints list read into out (empty so far), split across threads as
 * span_pass splits the RLE strings; DECLINE if one is declined. */
static int read_keypoints(Scan *s, Buf *out) {
    int64_t n = (int64_t)s->kp_spans.len / 3, *spans = I64(s->kp_spans);
    if (n == 0) return 0;
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!first) return DECLINE;
    first[0] = 0;
    for (int64_t i = 0; i < n; i++) first[i + 1] = first[i] + spans[3 * i + 2];
    int bad = out->len != 0 || buf_reserve(out, (size_t)first[n] + 1);
    if (!bad) {
        out->len = (size_t)first[n];
        long k = 1;
#if SPAN_THREADS > 1
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        k = n / KP_SPANS_PER_THREAD < cores ? (long)(n / KP_SPANS_PER_THREAD) : cores;
        if (k > SPAN_THREADS) k = SPAN_THREADS;
        if (k < 1) k = 1;
        pthread_t threads[SPAN_THREADS];
        int started[SPAN_THREADS] = {0};
#endif
        KeypointJob jobs[SPAN_THREADS];
        for (long t = 0; t < k; t++) {
            jobs[t] = (KeypointJob){spans, first, F64(*out), n * t / k, n * (t + 1) / k, 0};
#if SPAN_THREADS > 1
            if (t > 0)
                started[t] = pthread_create(&threads[t], NULL, keypoint_job, &jobs[t]) == 0;
#endif
        }
        keypoint_job(&jobs[0]);
        bad = jobs[0].bad;
        for (long t = 1; t < k; t++) {
#if SPAN_THREADS > 1
            if (started[t]) pthread_join(threads[t], NULL);
            else keypoint_job(&jobs[t]); /* no thread to be had: its share here */
#endif
            bad |= jobs[t].bad;
        }
    }
    free(first);
    return bad ? DECLINE : 0;
}

/* A list of integers appended to out (int64); *count their number. */
static int scan_ints(Scan *s, Buf *out, int64_t *count) {
    int first, r;
    int64_t v;
    *count = 0;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        if (scan_int(s, &v) || push_i64(out, v)) return DECLINE;
        (*count)++;
    }
    return r;
}

/* Exactly n numbers [a, b, ...] into v. */
static int scan_fixed(Scan *s, double *v, int n) {
    int first, r, k = 0;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        if (k >= n || scan_double(s, &v[k++])) return DECLINE;
    }
    return (r || k != n) ? DECLINE : 0;
}

/* A truth value given as 0 / 1 (any number equal to them) or true / false. */
static int scan_flag(Scan *s, uint8_t *v) {
    int c = peek(s);
    if (c == 't') return *v = 1, scan_literal(s, "true");
    if (c == 'f') return *v = 0, scan_literal(s, "false");
    Num num;
    if (scan_number(s, &num) || !(num.d == 0.0 || num.d == 1.0)) return DECLINE;
    *v = num.d == 1.0;
    return 0;
}

/* Exactly two integers [a, b]. */
static int scan_int_pair(Scan *s, int64_t *a, int64_t *b) {
    return (expect(s, '[') || scan_int(s, a) || expect(s, ',') || scan_int(s, b) ||
            expect(s, ']'))
               ? DECLINE
               : 0;
}

/* A compressed RLE string (pycocotools' rleFrString: 5 bits a char, the 6th bit says "more",
 * the last char's 5th bit the sign, runs from the third on deltas of the run two before),
 * decoded into out; *count the runs. Declined: an empty or truncated string, a value of over
 * 12 chars (60 bits). Arithmetic wraps as numpy's int64 does. */
static int scan_rle_string(Scan *s, Buf *out, int64_t *count) {
    if (expect(s, '"')) return DECLINE;
    size_t first = out->len;
    uint64_t x = 0;
    int k = 0, c;
    for (;;) {
        c = s->p < s->end ? (unsigned char)*s->p : 0;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            s->p++; /* a plain character: the usual case */
        } else {
            if (string_char(s, &c)) return DECLINE;
            if (c < 0) break;
        }
        unsigned ch = (unsigned)(uint8_t)(c - 48);
        if (k >= 12) return DECLINE;
        x |= (uint64_t)(ch & 0x1f) << (5 * k);
        k++;
        if (ch & 0x20) continue;
        if (ch & 0x10) x |= ~(uint64_t)0 << (5 * k); /* sign-extend */
        size_t m = out->len - first;
        if (m > 2) x += (uint64_t)I64(*out)[out->len - 2];
        if (push_i64(out, (int64_t)x)) return DECLINE;
        x = 0;
        k = 0;
    }
    if (k != 0) return DECLINE; /* ends inside a value */
    *count = (int64_t)(out->len - first);
    return *count ? 0 : DECLINE;
}

/* A results file's RLE strings are only located and their values counted during the scan
 * (their bodies kept as spans) and decoded at the end, across threads, straight into their
 * place in the runs column (checked as scan_rle_string checks them). */
#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL
#define HAS_ZERO(v) (((v) - ONES) & ~(v) & HIGH)
#define HAS_LESS(v, n) (((v) - ONES * (n)) & ~(v) & HIGH)

/* Whether character c ends an RLE value (rleFrString: its 6th bit, after - 48, clear). */
static inline int ends_value(int c) { return !((unsigned)(uint8_t)(c - 48) & 0x20); }

/* A string body skipped as skip_string skips it (the same bytes declined), eight plain bytes
 * at a time; *runs: how many RLE values it holds (characters that end one), *escaped whether
 * it has an escape. */
static int skip_rle_body(Scan *s, int64_t *runs, int *escaped) {
    const char *p = s->p, *end = s->end;
    int64_t n = 0;
    *escaped = 0;
    for (;;) {
        while (end - p >= 8) { /* no quote, backslash, control or non-ASCII byte among 8 */
            uint64_t w;
            memcpy(&w, p, 8);
            if ((w & HIGH) | HAS_ZERO(w ^ (ONES * '"')) | HAS_ZERO(w ^ (ONES * '\\')) |
                HAS_LESS(w, 0x20))
                break;
            uint64_t ended = (~((w | HIGH) - ONES * 48) >> 5) & ONES; /* c - 48, per byte */
            n += (int64_t)((ended * ONES) >> 56);
            p += 8;
        }
        int c;
        s->p = p;
        if (p < end && *p == '\\') *escaped = 1;
        if (string_char_any(s, &c, 0)) return DECLINE;
        p = s->p;
        if (c < 0) break;
        n += ends_value(c);
    }
    *runs = n;
    return 0;
}

static int defer_rle_string(Scan *s) {
    if (expect(s, '"')) return DECLINE;
    const char *start = s->p;
    int64_t runs;
    int escaped;
    if (skip_rle_body(s, &runs, &escaped) || runs == 0) return DECLINE;
    return push_i64(&s->spans, (int64_t)(intptr_t)start) |
           push_i64(&s->spans, (int64_t)(intptr_t)(s->p - 1)) |
           push_i64(&s->spans, 2 * runs + escaped);
}

/* The next character of a string body [*p, end) (a valid JSON string: skip_string passed it),
 * unescaped as string_char unescapes it; DECLINE for an escape of a non-ASCII character. */
static inline int span_char(const char **p, const char *end, int *c) {
    int b = (unsigned char)*(*p)++;
    if (b != '\\') return *c = b, 0;
    return escape_char(p, end, c, 1);
}

/* span_runs of a body without escapes: the same values, each value's characters at once. */
static int64_t plain_runs(const char *p, const char *end, int64_t *out) {
    int64_t m = 0, before = 0, last = 0; /* out[m - 2], out[m - 1] */
    while (p < end) {
        uint64_t x = 0;
        unsigned ch;
        int k = 0;
        do {
            if (p >= end || k >= 12) return DECLINE;
            ch = (unsigned)(uint8_t)(*p++ - 48);
            x |= (uint64_t)(ch & 0x1f) << (5 * k++);
        } while (ch & 0x20);
        if (ch & 0x10) x |= ~(uint64_t)0 << (5 * k); /* sign-extend */
        if (m > 2) x += (uint64_t)before;
        out[m++] = (int64_t)x;
        before = last;
        last = (int64_t)x;
    }
    return m ? m : DECLINE;
}

/* One string body [p, end) decoded into out: its runs, or DECLINE as scan_rle_string declines
 * it (empty, ends inside a value, a value of over 12 chars). */
static int64_t span_runs(const char *p, const char *end, int64_t *out) {
    int64_t m = 0;
    uint64_t x = 0;
    int k = 0, c;
    while (p < end) {
        if (span_char(&p, end, &c)) return DECLINE;
        unsigned ch = (unsigned)(uint8_t)(c - 48);
        if (k >= 12) return DECLINE;
        x |= (uint64_t)(ch & 0x1f) << (5 * k);
        k++;
        if (ch & 0x20) continue;
        if (ch & 0x10) x |= ~(uint64_t)0 << (5 * k); /* sign-extend */
        if (m > 2) x += (uint64_t)out[m - 2];
        out[m++] = (int64_t)x;
        x = 0;
        k = 0;
    }
    return (k != 0 || m == 0) ? DECLINE : m;
}

#define SPANS_PER_THREAD 2048

typedef struct {
    const int64_t *spans; /* (start, end, runs) triples */
    const int64_t *first; /* (n + 1,) runs before each string */
    int64_t *runs;        /* the column */
    int64_t lo, hi;
    int bad;
} SpanJob;

static void span_strings(SpanJob *j) {
    for (int64_t i = j->lo; i < j->hi && !j->bad; i++) {
        const char *p = (const char *)(intptr_t)j->spans[3 * i];
        const char *end = (const char *)(intptr_t)j->spans[3 * i + 1];
        int64_t *out = j->runs + j->first[i];
        int64_t m = j->spans[3 * i + 2] & 1 ? span_runs(p, end, out) : plain_runs(p, end, out);
        j->bad = m != j->first[i + 1] - j->first[i];
    }
}

static void *span_job(void *arg) {
    int faulted;
    BUS_GUARDED(faulted, span_strings(arg));
    if (faulted) ((SpanJob *)arg)->bad = 1;
    return NULL;
}

/* Decode every span, split across threads; nonzero if one declines. */
static int span_pass(const int64_t *spans, int64_t n, const int64_t *first, int64_t *runs) {
#if SPAN_THREADS > 1
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long k = n / SPANS_PER_THREAD < cores ? (long)(n / SPANS_PER_THREAD) : cores;
    if (k > SPAN_THREADS) k = SPAN_THREADS;
    if (k < 1) k = 1;
    pthread_t threads[SPAN_THREADS];
    SpanJob jobs[SPAN_THREADS];
    int started[SPAN_THREADS] = {0}, bad = 0;
    for (long t = 0; t < k; t++) {
        jobs[t] = (SpanJob){spans, first, runs, n * t / k, n * (t + 1) / k, 0};
        if (t > 0) started[t] = pthread_create(&threads[t], NULL, span_job, &jobs[t]) == 0;
    }
    span_job(&jobs[0]);
    for (long t = 1; t < k; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else span_job(&jobs[t]); /* no thread to be had: do its share here */
        bad |= jobs[t].bad;
    }
    return bad | jobs[0].bad;
#else
    SpanJob job = {spans, first, runs, 0, n, 0};
    span_job(&job);
    return job.bad;
#endif
}

/* An RLE object {"size": [h, w], "counts": "..." or [runs]}: runs into out. */
static int scan_rle(Scan *s, Buf *out, int64_t *count, int64_t *h, int64_t *w, int strings_only) {
    int first, r, seen_size = 0, seen_counts = 0;
    const char *k;
    size_t n;
    if (expect(s, '{')) return DECLINE;
    FOR_MEMBERS(s, r, first, k, n) {
        if (key_is(k, n, "size")) {
            if (scan_int_pair(s, h, w)) return DECLINE;
            seen_size = 1;
        } else if (key_is(k, n, "counts")) {
            if (seen_counts) return DECLINE;
            seen_counts = 1;
            if (peek(s) == '"' && strings_only) {
                if (defer_rle_string(s)) return DECLINE;
                *count = 0; /* set once decoded (decode_deferred) */
            } else if (peek(s) == '"') {
                if (scan_rle_string(s, out, count)) return DECLINE;
            } else {
                if (strings_only || scan_ints(s, out, count)) return DECLINE;
                for (size_t j = out->len - (size_t)*count; j < out->len; j++)
                    if (I64(*out)[j] < 0) return DECLINE;
            }
        } else if (skip_value(s, 2)) {
            return DECLINE;
        }
    }
    return (r || !seen_size || !seen_counts) ? DECLINE : 0;
}

/* Check the end of the document: only whitespace after the top value. */
static int at_end(Scan *s) {
    skip_ws(s);
    return s->p == s->end ? 0 : DECLINE;
}

/* ---------------------------------------------------------------------------------------- */
/* Columns: named buffers, made into numpy arrays at the end                                  */

typedef struct {
    const char *name;
    Buf buf;
    int type; /* NPY_INT64, NPY_FLOAT64 or NPY_UINT8 */
} Column;

/* Column indices of a results file (one row per entry unless said otherwise). */
enum {
    R_IMAGE_ID, R_CATEGORY_ID, R_SCORE,
    R_BBOX,        /* 4 per entry (zeros when absent) */
    R_HAS_BBOX, R_HAS_SEGM, R_HAS_KEYPOINTS,
    R_SEGM_H, R_SEGM_W, R_RLE_LEN,
    R_RLE,         /* all entries' decoded runs */
    R_KP_LEN,
    R_KEYPOINTS,   /* all entries' keypoint numbers */
    R_RLE_CHARS,   /* results(data, 2): all entries' RLE strings, unescaped, undecoded */
    R_RLE_NCHARS,  /* results(data, 2): each entry's characters there; (data, 3): in data */
    R_RLE_START,   /* results(data, 3): each entry's string's first character in data */
    R_COUNT
};

static const Column RESULT_COLUMNS[R_COUNT] = {
    {"image_id", {0}, NPY_INT64}, {"category_id", {0}, NPY_INT64}, {"score", {0}, NPY_FLOAT64},
    {"bbox", {0}, NPY_FLOAT64}, {"has_bbox", {0}, NPY_UINT8}, {"has_segm", {0}, NPY_UINT8},
    {"has_keypoints", {0}, NPY_UINT8}, {"segm_h", {0}, NPY_INT64}, {"segm_w", {0}, NPY_INT64},
    {"rle_len", {0}, NPY_INT64}, {"rle", {0}, NPY_INT64}, {"kp_len", {0}, NPY_INT64},
    {"keypoints", {0}, NPY_FLOAT64}, {"rle_chars", {0}, NPY_UINT8},
    {"rle_nchars", {0}, NPY_INT64}, {"rle_start", {0}, NPY_INT64},
};

/* Column indices of a ground-truth file. */
enum {
    /* per image */
    I_ID, I_WIDTH, I_HEIGHT, I_FILE_OFF, I_FILE_LEN, I_URL_OFF, I_URL_LEN,
    I_NEG_LEN, I_HAS_NEG, I_NEG, I_NEX_LEN, I_HAS_NEX, I_NEX,
    /* per category */
    C_ID, C_NAME_OFF, C_NAME_LEN, C_SUP_OFF, C_SUP_LEN, C_KPN_COUNT, C_KPN_OFF, C_KPN_LEN,
    C_SKEL_LEN, C_SKEL, C_FREQ_OFF, C_FREQ_LEN,
    /* per annotation */
    A_IMAGE_ID, A_CATEGORY_ID, A_ID, A_BBOX, A_AREA, A_ISCROWD, A_HAS_ISCROWD, A_SEGM_KIND,
    A_NPARTS, A_PART_LEN, A_XY, A_RLE_H, A_RLE_W, A_RLE_LEN, A_RLE, A_HAS_KP, A_KP_LEN, A_KP,
    A_NUM_KP, A_HAS_NUM_KP, A_IGNORE,
    G_COUNT
};

#define COL(name, type) {name, {0}, type}
static const Column GT_COLUMNS[G_COUNT] = {
    COL("image_id", NPY_INT64), COL("width", NPY_INT64), COL("height", NPY_INT64),
    COL("file_off", NPY_INT64), COL("file_len", NPY_INT64), COL("url_off", NPY_INT64),
    COL("url_len", NPY_INT64), COL("neg_len", NPY_INT64), COL("has_neg", NPY_UINT8),
    COL("neg", NPY_INT64), COL("nex_len", NPY_INT64), COL("has_nex", NPY_UINT8),
    COL("nex", NPY_INT64),
    COL("category_id", NPY_INT64), COL("name_off", NPY_INT64), COL("name_len", NPY_INT64),
    COL("sup_off", NPY_INT64), COL("sup_len", NPY_INT64), COL("kpn_count", NPY_INT64),
    COL("kpn_off", NPY_INT64), COL("kpn_len", NPY_INT64), COL("skeleton_len", NPY_INT64),
    COL("skeleton", NPY_INT64), COL("freq_off", NPY_INT64), COL("freq_len", NPY_INT64),
    COL("ann_image_id", NPY_INT64), COL("ann_category_id", NPY_INT64), COL("ann_id", NPY_INT64),
    COL("bbox", NPY_FLOAT64), COL("area", NPY_FLOAT64), COL("iscrowd", NPY_UINT8),
    COL("has_iscrowd", NPY_UINT8), COL("segm_kind", NPY_UINT8), COL("nparts", NPY_INT64),
    COL("part_len", NPY_INT64), COL("xy", NPY_FLOAT64), COL("rle_h", NPY_INT64),
    COL("rle_w", NPY_INT64), COL("rle_len", NPY_INT64), COL("rle", NPY_INT64),
    COL("has_keypoints", NPY_UINT8), COL("kp_len", NPY_INT64), COL("keypoints", NPY_FLOAT64),
    COL("num_keypoints", NPY_INT64), COL("has_num_keypoints", NPY_UINT8),
    COL("ignore", NPY_UINT8),
};

static size_t item_size(int type) { return type == NPY_UINT8 ? 1 : 8; }

static void columns_init(Column *cols, const Column *spec, int n) {
    for (int j = 0; j < n; j++) {
        cols[j] = spec[j];
        buf_init(&cols[j].buf, item_size(spec[j].type));
    }
}

static void columns_free(Column *cols, int n) {
    for (int j = 0; j < n; j++) buf_free(&cols[j].buf);
}

/* A bit per field: which fields an object gave (duplicates of list-valued ones declined). */
#define SEEN(bit) (seen & (1u << (bit)))
#define MARK(bit) (seen |= (1u << (bit)))

/* ---------------------------------------------------------------------------------------- */
/* The object a results entry and an annotation both describe                               */

/* Its members both files write: image_id, category_id, bbox (zeros when absent), keypoints
 * (their numbers appended to the file's keypoint column, nkp of them). */
typedef struct {
    unsigned seen; /* OBJ_* bits */
    int64_t img, cat, nkp;
    double box[4];
} Object;
enum { OBJ_IMG, OBJ_CAT, OBJ_BBOX, OBJ_KP };
#define HAS(o, bit) (((o)->seen >> (bit)) & 1u)

/* Where a file keeps an object's members: column indices (has_bbox: -1 when it keeps none). */
typedef struct {
    int img, cat, bbox, has_bbox, has_kp, kp_len, kp;
} ObjectColumns;

#define NOT_SHARED 1

/* Member (k, n) of an entry when it is one of the object's: 0 when scanned into o, DECLINE for a
 * bad value, a second keypoints list or a caption (the Python path reads captions), NOT_SHARED
 * for any other member (the entry's own). */
static int object_member(Scan *s, const char *k, size_t n, Object *o, Column *c,
                         const ObjectColumns *at) {
    int bit, bad;
    if (key_is(k, n, "image_id")) {
        bit = OBJ_IMG;
        bad = scan_int(s, &o->img);
    } else if (key_is(k, n, "category_id")) {
        bit = OBJ_CAT;
        bad = scan_int(s, &o->cat);
    } else if (key_is(k, n, "bbox")) {
        bit = OBJ_BBOX;
        bad = scan_fixed(s, o->box, 4);
    } else if (key_is(k, n, "keypoints")) {
        bit = OBJ_KP;
        bad = HAS(o, OBJ_KP) || defer_keypoint_list(s, &o->nkp); /* read_keypoints */
    } else if (key_is(k, n, "caption")) {
        return DECLINE;
    } else {
        return NOT_SHARED;
    }
    o->seen |= 1u << bit;
    return bad ? DECLINE : 0;
}

/* An entry's own member (k, n) into its state own: as object_member, NOT_SHARED when it is
 * none of the entry's (skipped). */
typedef int (*OwnMemberFn)(Scan *s, const char *k, size_t n, Column *c, void *own);

/* One entry {...} of a file: the object's members into o, the entry's own by own_member, any
 * other value skipped (checked at nesting depth). */
static int object_entry(Scan *s, Column *c, const ObjectColumns *at, Object *o,
                        OwnMemberFn own_member, void *own, int depth) {
    int first, r, m;
    const char *k;
    size_t n;
    if (expect(s, '{')) return DECLINE;
    FOR_MEMBERS(s, r, first, k, n) {
        m = object_member(s, k, n, o, c, at);
        if (m == NOT_SHARED) m = own_member(s, k, n, c, own);
        if (m == NOT_SHARED) m = skip_value(s, depth);
        if (m) return DECLINE;
    }
    return r ? DECLINE : 0;
}

#define SET(o, bit) ((o)->seen |= 1u << (bit))

/* Push the object's members into their columns (nonzero: out of memory). */
static int push_object(Column *c, const ObjectColumns *at, const Object *o) {
    int bad = push_i64(&c[at->img].buf, o->img) | push_i64(&c[at->cat].buf, o->cat) |
              push_u8(&c[at->has_kp].buf, HAS(o, OBJ_KP)) | push_i64(&c[at->kp_len].buf, o->nkp);
    if (at->has_bbox >= 0) bad |= push_u8(&c[at->has_bbox].buf, HAS(o, OBJ_BBOX));
    for (int j = 0; j < 4; j++) bad |= push_f64(&c[at->bbox].buf, o->box[j]);
    return bad;
}

/* ---------------------------------------------------------------------------------------- */
/* Results files                                                                             */

static const ObjectColumns RESULT_OBJECT = {
    R_IMAGE_ID, R_CATEGORY_ID, R_BBOX, R_HAS_BBOX, R_HAS_KEYPOINTS, R_KP_LEN, R_KEYPOINTS,
};

/* A result's own members: score, segmentation (only checked to be valid JSON unless
 * s->masks). */
typedef struct {
    unsigned seen;
    int64_t h, w, nrle;
    double score;
} ResultOwn;
enum { RES_SCORE, RES_SEGM };

static int result_member(Scan *s, const char *k, size_t n, Column *c, void *own) {
    ResultOwn *e = own;
    if (key_is(k, n, "score")) {
        if (scan_double(s, &e->score)) return DECLINE;
        SET(e, RES_SCORE);
    } else if (key_is(k, n, "segmentation")) {
        if (HAS(e, RES_SEGM)) return DECLINE;
        if (s->masks ? scan_rle(s, &c[R_RLE].buf, &e->nrle, &e->h, &e->w, 1) : skip_value(s, 2))
            return DECLINE;
        SET(e, RES_SEGM);
    } else {
        return NOT_SHARED;
    }
    return 0;
}

/* One entry {image_id, category_id, score, bbox?, segmentation?, keypoints?}. */
static int result_entry(Scan *s, Column *c) {
    Object o = {0};
    ResultOwn e = {0};
    if (object_entry(s, c, &RESULT_OBJECT, &o, result_member, &e, 2)) return DECLINE;
    if (!HAS(&o, OBJ_IMG) || !HAS(&o, OBJ_CAT) || !HAS(&e, RES_SCORE)) return DECLINE;
    return (push_object(c, &RESULT_OBJECT, &o) | push_f64(&c[R_SCORE].buf, e.score) |
            push_u8(&c[R_HAS_SEGM].buf, HAS(&e, RES_SEGM)) | push_i64(&c[R_SEGM_H].buf, e.h) |
            push_i64(&c[R_SEGM_W].buf, e.w) | push_i64(&c[R_RLE_LEN].buf, e.nrle))
               ? DECLINE
               : 0;
}

/* The deferred strings decoded into the runs column, their counts into rle_len (the entries
 * with a segmentation, in order: one string each). */
static int decode_deferred(Scan *s, Column *c) {
    int64_t n = (int64_t)s->spans.len / 3;
    if (n == 0) return 0;
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!first) return DECLINE;
    int r = DECLINE;
    first[0] = 0;
    for (int64_t i = 0; i < n; i++) first[i + 1] = first[i] + I64(s->spans)[3 * i + 2] / 2;
    Buf *runs = &c[R_RLE].buf;
    if (runs->len != 0 || buf_reserve(runs, (size_t)first[n])) goto done;
    runs->len = (size_t)first[n];
    if (span_pass(I64(s->spans), n, first, I64(*runs))) goto done;
    const uint8_t *has = (const uint8_t *)c[R_HAS_SEGM].buf.data;
    int64_t *len = I64(c[R_RLE_LEN].buf), i = 0;
    for (size_t e = 0; e < c[R_RLE_LEN].buf.len; e++)
        if (has[e]) {
            if (i >= n) goto done;
            len[e] = first[i + 1] - first[i];
            i++;
        }
    r = i == n ? 0 : DECLINE;
done:
    free(first);
    return r;
}

/* results(data, 2): the deferred strings kept undecoded, unescaped into the chars column (or,
 * data writable, to the front of data itself: the column is then left empty), each
 * entry's characters into rle_nchars and its values (runs once decoded) into rle_len (the
 * entries with a segmentation, in order: one string each). The runs are checked and decoded
 * later (_rle.c string_masks / decode_strings), a category at a time. */
static int keep_deferred(Scan *s, Column *c) {
    int64_t n = (int64_t)s->spans.len / 3, i = 0;
    const int64_t *sp = I64(s->spans);
    size_t total = 0, entries = c[R_RLE_LEN].buf.len;
    for (int64_t j = 0; j < n; j++) total += (size_t)(sp[3 * j + 1] - sp[3 * j]);
    Buf *chars = &c[R_RLE_CHARS].buf, *nchars = &c[R_RLE_NCHARS].buf;
    if (buf_reserve(nchars, entries) || (!s->writable && buf_reserve(chars, total + 1)))
        return DECLINE;
    /* in place: each string moves to the front (never past where it is read from) */
    uint8_t *dst = s->writable ? (uint8_t *)s->writable : (uint8_t *)chars->data;
    int64_t *len = I64(c[R_RLE_LEN].buf), *nch = I64(*nchars);
    const uint8_t *has = (const uint8_t *)c[R_HAS_SEGM].buf.data;
    size_t at = 0;
    for (size_t e = 0; e < entries; e++) {
        nch[e] = 0;
        if (!has[e]) continue;
        if (i >= n) return DECLINE;
        const char *p = (const char *)(intptr_t)sp[3 * i], *end = (const char *)(intptr_t)sp[3 * i + 1];
        size_t before = at;
        if (sp[3 * i + 2] & 1) { /* escaped: character by character */
            int ch;
            while (p < end) {
                if (span_char(&p, end, &ch)) return DECLINE;
                dst[at++] = (uint8_t)ch;
            }
        } else {
            memmove(dst + at, p, (size_t)(end - p));
            at += (size_t)(end - p);
        }
        nch[e] = (int64_t)(at - before);
        len[e] = sp[3 * i + 2] / 2;
        i++;
    }
    if (!s->writable) chars->len = at;
    nchars->len = entries;
    return i == n ? 0 : DECLINE;
}

/* results(data, 3): each deferred string located where it is in the text (rle_start: its
 * first character's offset in data, rle_nchars: its characters there, escapes as written;
 * rle_len: its values), nothing copied; DECLINE if a string holds an escape other than an
 * escaped backslash (the strings must be read as they stand: _rle.c's raw strings). */
static int locate_deferred(Scan *s, Column *c, const char *base) {
    int64_t n = (int64_t)s->spans.len / 3, i = 0;
    const int64_t *sp = I64(s->spans);
    size_t entries = c[R_RLE_LEN].buf.len;
    Buf *at = &c[R_RLE_START].buf, *nchars = &c[R_RLE_NCHARS].buf;
    if (buf_reserve(at, entries) || buf_reserve(nchars, entries)) return DECLINE;
    int64_t *len = I64(c[R_RLE_LEN].buf), *nch = I64(*nchars), *first = I64(*at);
    const uint8_t *has = (const uint8_t *)c[R_HAS_SEGM].buf.data;
    for (size_t e = 0; e < entries; e++) {
        nch[e] = first[e] = 0;
        if (!has[e]) continue;
        if (i >= n) return DECLINE;
        const char *p = (const char *)(intptr_t)sp[3 * i], *end = (const char *)(intptr_t)sp[3 * i + 1];
        if (sp[3 * i + 2] & 1) { /* escaped: only escaped backslashes */
            for (const char *q = p; q < end; q++)
                if (*q == '\\' && (++q >= end || *q != '\\')) return DECLINE;
        }
        first[e] = p - base;
        nch[e] = end - p;
        len[e] = sp[3 * i + 2] / 2;
        i++;
    }
    at->len = nchars->len = entries;
    return i == n ? 0 : DECLINE;
}

static int parse_results(Scan *s, Column *c) {
    int first, r;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        if (result_entry(s, c)) return DECLINE;
    }
    if (r || c[R_IMAGE_ID].buf.len == 0) return DECLINE; /* an empty list: Python decides */
    if (at_end(s) || read_keypoints(s, &c[RESULT_OBJECT.kp].buf)) return DECLINE;
    if (s->masks == 3) return locate_deferred(s, c, s->base);
    return s->masks == 2 ? keep_deferred(s, c) : decode_deferred(s, c);
}

/* ---------------------------------------------------------------------------------------- */
/* A large results file scanned in parts at once                                             */

/* The array's entries are cut into PARTS parts, each scanned on its own thread into its own
 * columns, then the columns are joined in file order. A cut is a place where one entry's '}'
 * is followed by ',' and the next entry's '{' (whitespace between); the part before a cut must
 * end exactly there after a whole entry, which holds only where the cut is a true entry
 * boundary (the part before is scanned from a true start, so its entries end where the file's
 * do; a cut inside a string or a nested value is passed over, and the whole scan is redone on
 * one thread). Any part that declines, or anything unusual, redoes the plain scan
 * (parse_results): the outcome is always the one-thread scan's. */
#define MAX_PARTS 8
#define PART_BYTES (4 << 20) /* by default, at least this much of the file per part */
#define CUT_SEARCH (1 << 20) /* how far past a part's nominal end a cut is looked for */

typedef struct {
    Scan s;
    Column c[R_COUNT];
    const char *stop; /* just past the '}' of the part's last entry; NULL: up to the ']' */
    int r;
} Part;

/* Where the entry after `from` begins ('{' after "}" ws "," ws), its '}' end in *stop; NULL
 * when none within CUT_SEARCH bytes. */
static const char *find_cut(const char *from, const char *end, const char **stop) {
    const char *limit = end - from > CUT_SEARCH ? from + CUT_SEARCH : end;
    for (const char *p = from; p < limit; p++) {
        p = memchr(p, '}', (size_t)(limit - p));
        if (p == NULL) return NULL;
        const char *q = p + 1;
        while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) q++;
        if (q >= end || *q != ',') continue;
        q++;
        while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) q++;
        if (q < end && *q == '{') {
            *stop = p + 1;
            return q;
        }
    }
    return NULL;
}

/* One part's entries (it starts at an entry's '{'): up to its stop, or the closing ']' and the
 * end of the document for the last part. */
static void scan_entries(Part *t) {
    Scan *s = &t->s;
    for (;;) {
        if (result_entry(s, t->c)) return;
        if (t->stop != NULL && s->p >= t->stop) {
            if (s->p == t->stop) t->r = 0;
            return;
        }
        int ch = peek(s);
        s->p++;
        if (ch == ']') break;
        if (ch != ',') return;
    }
    if (t->stop == NULL && !at_end(s)) t->r = 0;
}

static void *scan_part(void *arg) {
    Part *t = arg;
    int faulted;
    t->r = DECLINE;
    BUS_GUARDED(faulted, scan_entries(t));
    if (faulted) t->r = DECLINE;
    return NULL;
}

/* Part j's columns appended to part 0's, part j's freed (nonzero: out of memory). */
static int join_columns(Column *into, Column *from) {
    for (int j = 0; j < R_COUNT; j++) {
        Buf *a = &into[j].buf, *b = &from[j].buf;
        if (b->len && buf_reserve(a, b->len)) return DECLINE;
        if (b->len) memcpy(a->data + a->len * a->item, b->data, b->len * b->item);
        a->len += b->len;
        buf_free(b);
    }
    return 0;
}

/* parse_results on up to `threads` threads, parts of at least `part_bytes` (see above). */
static int parse_results_parts(Scan *s, Column *c, int threads, long part_bytes) {
    const char *start = s->p;
    skip_ws(s);
    size_t size = (size_t)(s->end - s->p);
    int n = threads < MAX_PARTS ? threads : MAX_PARTS;
    if (part_bytes < 1) part_bytes = 1;
    if ((size_t)n > size / (size_t)part_bytes) n = (int)(size / (size_t)part_bytes);
#ifdef _WIN32
    n = 1;
#endif
    if (n < 2 || *s->p != '[' || s->masks) {
        s->p = start;
        return parse_results(s, c);
    }
    Part *parts = calloc((size_t)n, sizeof(Part));
    if (!parts) return DECLINE;
    const char *body = s->p + 1, *from = body;
    int k = 0, r = 0; /* k: parts set up */
    while (k < n) {
        Part *t = &parts[k];
        t->s = (Scan){from, s->end, {0}, s->masks, {0}};
        buf_init(&t->s.blob, 1);
        buf_init(&t->s.spans, 8);
        buf_init(&t->s.kp_spans, 8);
        columns_init(t->c, RESULT_COLUMNS, R_COUNT);
        k++;
        const char *nominal = body + (size_t)(s->end - body) * (size_t)k / (size_t)n;
        const char *next = k < n ? find_cut(nominal > from ? nominal : from, s->end, &t->stop) : NULL;
        if (k < n && next == NULL) { r = DECLINE; break; }
        from = next;
    }
    if (r == 0) {
        /* the first part starts at the first entry ('[' then whitespace) */
        Scan *s0 = &parts[0].s;
        skip_ws(s0);
        if (s0->p >= s0->end || *s0->p != '{') r = DECLINE;
    }
#ifndef _WIN32
    if (r == 0) {
        pthread_t th[MAX_PARTS];
        int started[MAX_PARTS] = {0};
        for (int j = 1; j < n; j++) started[j] = pthread_create(&th[j], NULL, scan_part, &parts[j]) == 0;
        scan_part(&parts[0]);
        for (int j = 1; j < n; j++) {
            if (started[j]) pthread_join(th[j], NULL);
            else scan_part(&parts[j]);
        }
        for (int j = 0; j < n && r == 0; j++) r = parts[j].r;
        for (int j = 0; j < n && r == 0; j++) r = parts[j].s.blob.len || parts[j].s.spans.len;
    }
#endif
    for (int j = 1; j < n && r == 0; j++) r = join_columns(parts[0].c, parts[j].c);
    for (int j = 0; j < n && r == 0; j++) { /* the parts' keypoint lists, in file order */
        Buf *a = &s->kp_spans, *b = &parts[j].s.kp_spans;
        if (b->len && buf_reserve(a, b->len)) r = DECLINE;
        if (r == 0 && b->len) memcpy(a->data + a->len * a->item, b->data, b->len * b->item);
        a->len += r == 0 ? b->len : 0;
    }
    if (r == 0) {
        for (int j = 0; j < R_COUNT; j++) { /* part 0's columns become the result's */
            buf_free(&c[j].buf);
            c[j].buf = parts[0].c[j].buf;
            buf_init(&parts[0].c[j].buf, c[j].buf.item);
        }
        s->p = s->end;
        r = read_keypoints(s, &c[RESULT_OBJECT.kp].buf); /* (every part's lists at once) */
    }
    for (int j = 0; j < k; j++) {
        columns_free(parts[j].c, R_COUNT);
        buf_free(&parts[j].s.blob);
        buf_free(&parts[j].s.spans);
        buf_free(&parts[j].s.kp_spans);
    }
    free(parts);
    if (r == 0) return 0;
    for (int j = 0; j < R_COUNT; j++) c[j].buf.len = 0; /* (nothing was written there) */
    s->kp_spans.len = 0;
    s->p = start;
    return parse_results(s, c);
}

/* ---------------------------------------------------------------------------------------- */
/* Ground-truth files                                                                        */

/* A kept string, or (-1, 0) when absent. */
static int kept_string(Scan *s, int64_t *off, int64_t *len) { return scan_kept_string(s, off, len); }

static int image_entry(Scan *s, Column *c) {
    enum { ID, WIDTH, HEIGHT, FILE_NAME, URL, NEG, NEX };
    unsigned seen = 0;
    int64_t id = 0, width = 0, height = 0, foff = -1, flen = 0, uoff = -1, ulen = 0;
    int64_t nneg = 0, nnex = 0;
    int first, r;
    const char *k;
    size_t n;
    if (expect(s, '{')) return DECLINE;
    FOR_MEMBERS(s, r, first, k, n) {
        if (key_is(k, n, "id")) {
            if (scan_int(s, &id)) return DECLINE;
            MARK(ID);
        } else if (key_is(k, n, "width")) {
            if (scan_int(s, &width) || width <= 0) return DECLINE;
        } else if (key_is(k, n, "height")) {
            if (scan_int(s, &height) || height <= 0) return DECLINE;
        } else if (key_is(k, n, "file_name")) {
            if (kept_string(s, &foff, &flen)) return DECLINE;
        } else if (key_is(k, n, "coco_url")) {
            if (kept_string(s, &uoff, &ulen)) return DECLINE;
        } else if (key_is(k, n, "neg_category_ids")) {
            if (SEEN(NEG) || scan_ints(s, &c[I_NEG].buf, &nneg)) return DECLINE;
            MARK(NEG);
        } else if (key_is(k, n, "not_exhaustive_category_ids")) {
            if (SEEN(NEX) || scan_ints(s, &c[I_NEX].buf, &nnex)) return DECLINE;
            MARK(NEX);
        } else if (skip_value(s, 3)) {
            return DECLINE;
        }
    }
    if (r || !SEEN(ID)) return DECLINE;
    return (push_i64(&c[I_ID].buf, id) | push_i64(&c[I_WIDTH].buf, width) |
            push_i64(&c[I_HEIGHT].buf, height) | push_i64(&c[I_FILE_OFF].buf, foff) |
            push_i64(&c[I_FILE_LEN].buf, flen) | push_i64(&c[I_URL_OFF].buf, uoff) |
            push_i64(&c[I_URL_LEN].buf, ulen) | push_i64(&c[I_NEG_LEN].buf, nneg) |
            push_u8(&c[I_HAS_NEG].buf, SEEN(NEG) != 0) | push_i64(&c[I_NEX_LEN].buf, nnex) |
            push_u8(&c[I_HAS_NEX].buf, SEEN(NEX) != 0))
               ? DECLINE
               : 0;
}

static int category_entry(Scan *s, Column *c) {
    enum { ID, NAME, KPN, SKEL };
    unsigned seen = 0;
    int64_t id = 0, noff = -1, nlen = 0, soff = -1, slen = 0, foff = -1, flen = 0;
    int64_t nkpn = 0, nskel = 0;
    int first, r, f2, r2;
    const char *k;
    size_t n;
    if (expect(s, '{')) return DECLINE;
    FOR_MEMBERS(s, r, first, k, n) {
        if (key_is(k, n, "id")) {
            if (scan_int(s, &id)) return DECLINE;
            MARK(ID);
        } else if (key_is(k, n, "name")) {
            if (kept_string(s, &noff, &nlen)) return DECLINE;
            MARK(NAME);
        } else if (key_is(k, n, "supercategory")) {
            if (kept_string(s, &soff, &slen)) return DECLINE;
        } else if (key_is(k, n, "frequency")) {
            if (kept_string(s, &foff, &flen)) return DECLINE;
        } else if (key_is(k, n, "keypoints")) {
            if (SEEN(KPN) || expect(s, '[')) return DECLINE;
            MARK(KPN);
            FOR_ELEMENTS(s, r2, f2) {
                int64_t o, l;
                if (kept_string(s, &o, &l) || push_i64(&c[C_KPN_OFF].buf, o) ||
                    push_i64(&c[C_KPN_LEN].buf, l))
                    return DECLINE;
                nkpn++;
            }
            if (r2) return DECLINE;
        } else if (key_is(k, n, "skeleton")) {
            if (SEEN(SKEL) || expect(s, '[')) return DECLINE;
            MARK(SKEL);
            FOR_ELEMENTS(s, r2, f2) {
                int64_t a, b;
                if (scan_int_pair(s, &a, &b) || a < 0 || b < 0 || a >= (1LL << 31) ||
                    b >= (1LL << 31) || push_i64(&c[C_SKEL].buf, a) || push_i64(&c[C_SKEL].buf, b))
                    return DECLINE;
                nskel++;
            }
            if (r2) return DECLINE;
        } else if (skip_value(s, 3)) {
            return DECLINE;
        }
    }
    if (r || !SEEN(ID) || !SEEN(NAME)) return DECLINE;
    return (push_i64(&c[C_ID].buf, id) | push_i64(&c[C_NAME_OFF].buf, noff) |
            push_i64(&c[C_NAME_LEN].buf, nlen) | push_i64(&c[C_SUP_OFF].buf, soff) |
            push_i64(&c[C_SUP_LEN].buf, slen) | push_i64(&c[C_KPN_COUNT].buf, nkpn) |
            push_i64(&c[C_SKEL_LEN].buf, nskel) | push_i64(&c[C_FREQ_OFF].buf, foff) |
            push_i64(&c[C_FREQ_LEN].buf, flen))
               ? DECLINE
               : 0;
}

/* A list segmentation: polygons (lists of numbers) into A_XY, their lengths into A_PART_LEN. */
static int polygons(Scan *s, Column *c, int64_t *nparts) {
    int first, r;
    *nparts = 0;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        int64_t len;
        if (scan_doubles(s, &c[A_XY].buf, &len) || push_i64(&c[A_PART_LEN].buf, len))
            return DECLINE;
        (*nparts)++;
    }
    return r;
}

static const ObjectColumns ANNOTATION_OBJECT = {
    A_IMAGE_ID, A_CATEGORY_ID, A_BBOX, -1, A_HAS_KP, A_KP_LEN, A_KP,
};

/* An annotation's own members. */
typedef struct {
    unsigned seen;
    int64_t id, nparts, rh, rw, nrle, numkp;
    double area;
    uint8_t crowd, ignore, kind; /* kind: 0 no segmentation, 1 polygons, 2 RLE */
} AnnotationOwn;
enum { ANN_ID, ANN_AREA, ANN_CROWD, ANN_SEGM, ANN_NKP };

static int annotation_member(Scan *s, const char *k, size_t n, Column *c, void *own) {
    AnnotationOwn *e = own;
    if (key_is(k, n, "id")) {
        if (scan_int(s, &e->id)) return DECLINE;
        SET(e, ANN_ID);
    } else if (key_is(k, n, "area")) {
        if (scan_double(s, &e->area)) return DECLINE;
        SET(e, ANN_AREA);
    } else if (key_is(k, n, "iscrowd")) {
        if (scan_flag(s, &e->crowd)) return DECLINE;
        SET(e, ANN_CROWD);
    } else if (key_is(k, n, "ignore")) {
        if (scan_flag(s, &e->ignore)) return DECLINE;
    } else if (key_is(k, n, "num_keypoints")) {
        if (scan_int(s, &e->numkp)) return DECLINE;
        SET(e, ANN_NKP);
    } else if (key_is(k, n, "segmentation")) {
        if (HAS(e, ANN_SEGM)) return DECLINE;
        SET(e, ANN_SEGM);
        e->kind = peek(s) == '[' ? 1 : 2;
        if (e->kind == 1 ? polygons(s, c, &e->nparts)
                         : scan_rle(s, &c[A_RLE].buf, &e->nrle, &e->rh, &e->rw, 0))
            return DECLINE;
    } else {
        return NOT_SHARED;
    }
    return 0;
}

static int annotation_entry(Scan *s, Column *c) {
    Object o = {0};
    AnnotationOwn e = {0};
    if (object_entry(s, c, &ANNOTATION_OBJECT, &o, annotation_member, &e, 3)) return DECLINE;
    if (!HAS(&o, OBJ_IMG) || !HAS(&o, OBJ_CAT) || !HAS(&o, OBJ_BBOX) || !HAS(&e, ANN_ID) ||
        !HAS(&e, ANN_AREA))
        return DECLINE;
    if (HAS(&o, OBJ_KP) && !HAS(&e, ANN_NKP)) return DECLINE; /* defaulted with a problem */
    return (push_object(c, &ANNOTATION_OBJECT, &o) | push_i64(&c[A_ID].buf, e.id) |
            push_f64(&c[A_AREA].buf, e.area) | push_u8(&c[A_ISCROWD].buf, e.crowd) |
            push_u8(&c[A_HAS_ISCROWD].buf, HAS(&e, ANN_CROWD)) |
            push_u8(&c[A_SEGM_KIND].buf, e.kind) | push_i64(&c[A_NPARTS].buf, e.nparts) |
            push_i64(&c[A_RLE_H].buf, e.rh) | push_i64(&c[A_RLE_W].buf, e.rw) |
            push_i64(&c[A_RLE_LEN].buf, e.nrle) | push_i64(&c[A_NUM_KP].buf, e.numkp) |
            push_u8(&c[A_HAS_NUM_KP].buf, HAS(&e, ANN_NKP)) | push_u8(&c[A_IGNORE].buf, e.ignore))
               ? DECLINE
               : 0;
}

typedef int (*EntryFn)(Scan *, Column *);

static int entries(Scan *s, Column *c, EntryFn fn) {
    int first, r;
    if (expect(s, '[')) return DECLINE;
    FOR_ELEMENTS(s, r, first) {
        if (fn(s, c)) return DECLINE;
    }
    return r;
}

static int parse_annotations(Scan *s, Column *c) {
    enum { IMAGES, CATS, ANNS };
    unsigned seen = 0;
    int first, r;
    const char *k;
    size_t n;
    if (expect(s, '{')) return DECLINE;
    FOR_MEMBERS(s, r, first, k, n) {
        int bit = key_is(k, n, "images") ? IMAGES
                  : key_is(k, n, "categories") ? CATS
                  : key_is(k, n, "annotations") ? ANNS
                  : -1;
        if (bit < 0) {
            if (skip_value(s, 1)) return DECLINE;
            continue;
        }
        if (SEEN(bit)) return DECLINE;
        MARK(bit);
        EntryFn fn = bit == IMAGES ? image_entry : bit == CATS ? category_entry : annotation_entry;
        if (entries(s, c, fn)) return DECLINE;
    }
    if (r || !SEEN(IMAGES) || !SEEN(CATS)) return DECLINE;
    return at_end(s) ? DECLINE : read_keypoints(s, &c[ANNOTATION_OBJECT.kp].buf);
}

/* ---------------------------------------------------------------------------------------- */
/* Python bindings                                                                           */

static int parse_annotations_any(Scan *s, Column *c, int threads, long part_bytes) {
    (void)threads, (void)part_bytes;
    return parse_annotations(s, c);
}

typedef int (*ParseFn)(Scan *, Column *, int threads, long part_bytes);


/* The buffer as a 1-d array that takes over its memory (no copy: a results file's runs can
 * take hundreds of MB); the buffer is left empty. */
static PyObject *take_array(Buf *b, int type) {
    npy_intp len = (npy_intp)b->len;
    if (len == 0) return PyArray_SimpleNew(1, &len, type);
    char *data = realloc(b->data, b->len * b->item); /* give back the unused capacity */
    PyObject *a = array_owning(data ? data : b->data, len, type);
    b->data = NULL;
    b->len = b->cap = 0;
    return a;
}

/* The dict {name: array} of the columns (plus "blob": the kept strings), or NULL. */
static PyObject *columns_dict(Column *c, int n, Buf *blob) {
    PyObject *out = PyDict_New();
    if (!out) return NULL;
    for (int j = 0; j < n; j++) {
        PyObject *a = take_array(&c[j].buf, c[j].type);
        if (!a) goto fail;
        int e = PyDict_SetItemString(out, c[j].name, a);
        Py_DECREF(a);
        if (e) goto fail;
    }
    PyObject *b = PyBytes_FromStringAndSize(blob->data ? blob->data : "", (Py_ssize_t)blob->len);
    if (!b || PyDict_SetItemString(out, "blob", b)) {
        Py_XDECREF(b);
        goto fail;
    }
    Py_DECREF(b);
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *run(PyObject *arg, int masks, int threads, long part_bytes, ParseFn parse,
                     const Column *spec, int n) {
    Py_buffer view;
    char *writable = NULL;
    if (masks == 2 && PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE) == 0) {
        writable = view.buf;
    } else {
        PyErr_Clear();
        if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE)) return NULL;
    }
    Column *cols = malloc(sizeof(Column) * (size_t)n);
    if (!cols) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    columns_init(cols, spec, n);
    Scan s = {(const char *)view.buf, (const char *)view.buf + view.len, {0}, masks, {0}, writable};
    s.base = (const char *)view.buf;
    buf_init(&s.blob, 1);
    buf_init(&s.spans, 8);
    buf_init(&s.kp_spans, 8);
    int r = DECLINE, faulted;
    Py_BEGIN_ALLOW_THREADS;
    bus_guard_enter(); /* (the data may be a mapped file cut short meanwhile) */
    BUS_GUARDED(faulted, r = parse(&s, cols, threads, part_bytes));
    bus_guard_leave();
    Py_END_ALLOW_THREADS;
    if (faulted) r = DECLINE;
    PyBuffer_Release(&view);
    PyObject *out = NULL;
    if (r == 0) out = columns_dict(cols, n, &s.blob);
    columns_free(cols, n);
    buf_free(&s.blob);
    buf_free(&s.spans);
    buf_free(&s.kp_spans);
    free(cols);
    if (r == 0) return out;
    Py_RETURN_NONE;
}

static PyObject *py_results(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *data;
    int masks = 1, threads = 1;
    long part_bytes = PART_BYTES;
    if (!PyArg_ParseTuple(args, "O|iil", &data, &masks, &threads, &part_bytes)) return NULL;
    if (masks < 0 || masks > 3) {
        PyErr_SetString(PyExc_ValueError, "masks: 0, 1, 2 or 3");
        return NULL;
    }
    return run(data, masks, threads, part_bytes, parse_results_parts, RESULT_COLUMNS, R_COUNT);
}

static PyObject *py_annotations(PyObject *self, PyObject *arg) {
    (void)self;
    return run(arg, 1, 1, 0, parse_annotations_any, GT_COLUMNS, G_COUNT);
}

static PyMethodDef methods[] = {
    {"results", py_results, METH_VARARGS,
     "results(data: bytes, masks: int = 1, threads: int = 1, part_bytes: int = 4 MiB)\n"
     "    -> dict | None\n\nA COCO results array as columns, or None; masks 1: RLE strings "
     "decoded (rle), 2: kept as strings (rle_chars, rle_nchars; data writable: moved to its "
     "front, rle_chars empty), 3: located where they are (rle_start, rle_nchars: offsets in "
     "data, escapes as written; None if one has an escape other than an escaped backslash), "
     "0: segmentations only checked to be valid JSON, and the file scanned in parts of at "
     "least part_bytes on up to `threads` threads (the same columns)."},
    {"annotations", py_annotations, METH_O,
     "annotations(data: bytes) -> dict | None\n\nA COCO / LVIS ground-truth object as "
     "columns, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_json", "COCO-style JSON into columns (happy path only).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__json(void) {
    import_array();
#ifdef _WIN32
    c_locale = _create_locale(LC_NUMERIC, "C");
#else
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
#endif
    if (!c_locale) {
        PyErr_SetString(PyExc_ImportError, "no C locale for strtod");
        return NULL;
    }
    return PyModule_Create(&module);
}
