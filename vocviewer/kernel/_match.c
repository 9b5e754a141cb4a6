/* COCOeval's box IoU, greedy matching and accumulation, per category, in C.
 *
 * One call evaluates a set of categories of a prepared evaluation (vocviewer's
 * families/coco/prepare.py columns: ground truth and detections sorted by category, then
 * (image, category) group; detections of a group by descending score, stable) and writes, per
 * category, what pycocotools' evaluateImg + accumulate compute:
 *
 *   - the similarity of every (detection, ground truth) pair of a group: maskApi.c bbIou for
 *     boxes, or a precomputed similarity (masks, OKS) given in pair_up order;
 *   - the greedy matching per area range and IoU threshold (cocoeval.py evaluateImg l. 273-296;
 *     lvis/eval.py evaluate_img l. 238-278: the same loop without crowd);
 *   - dtIgnore / true / false positives (cocoeval.py l. 297-300);
 *   - precision / recall / scores at the recall thresholds for every detection cap
 *     (cocoeval.py accumulate l. 362-410).
 *
 * Categories are independent: worker threads take them from a shared counter (largest first)
 * with the GIL released. Every floating-point expression is written in the order the reference
 * evaluates it, so the results are bit-identical (no fused multiply-add: setup.py passes
 * -ffp-contract=off, and x86-64 computes doubles in SSE2).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_boxes.h" /* as_array, pair_overlap, best_scan */

/* ---------------------------------------------------------------------------------------- */
/* Inputs and outputs                                                                        */

/* What every category shares: the columns (indexed by prepared position) and the parameters. */
typedef struct {
    /* ground truth, by prepared position */
    const double *gt_box;      /* (Gall, 4) x, y, w, h (NULL with a precomputed similarity) */
    const int64_t *gt_group;   /* (image, category) group of each */
    const uint8_t *gt_crowd;   /* iscrowd: may be matched again; IoU over the detection's area */
    const uint8_t *gt_ignore;  /* ignore flag before the area range */
    const double *gt_area;     /* the annotation's area field */
    const uint8_t *gt_id0;     /* a match to it counts as none (pycocotools' dtm == 0 quirk) */
    const int64_t *gt_off;     /* (K + 1) each category's range */
    /* detections, by prepared position */
    const double *dt_box;      /* (Dall, 4) x, y, w, h (NULL with a precomputed similarity) */
    const int64_t *dt_group;
    const int64_t *dt_rank;    /* rank within its group (the cap keeps rank < maxDet) */
    const double *dt_score;
    const double *dt_area;
    const uint8_t *dt_extra;   /* ignored when unmatched whatever the area (LVIS's
                                  not-exhaustive categories); NULL: none */
    const int64_t *dt_off;
    /* precomputed similarity, pair_up order per category (NULL: box IoU here) */
    const double *sim;
    const int64_t *sim_off;
    /* parameters */
    const double *thr;         /* IoU thresholds (T) */
    const double *area_lo, *area_hi; /* area ranges (A), inclusive */
    const int64_t *caps;       /* maxDets (M) */
    const double *rec;         /* recall thresholds (R) */
    int64_t T, A, M, R;
    int8_t code_tp, code_fp, code_ignored;
    const int64_t *gt_rows;    /* by prepared position: match0 holds gt_rows[position] (the
                                  object row); NULL: the GT slice position */
    int evidence;              /* 0: no match0 / code0 (empty arrays; the curves alone) */
} Shared;

/* One category's outputs (borrowed from numpy arrays allocated before the GIL is released).
 * The full matching arrays are optional (NULL: not wanted). */
typedef struct {
    int64_t k;
    double *precision, *recall, *scores; /* (T, R, A, M), (T, A, M), (T, R, A, M) */
    int64_t *order;            /* (D,) positions in global rank order */
    int64_t *npig;             /* (A,) */
    int32_t *match0;           /* (T, D) area "all", rank order: matched GT slice position, or
                                  its gt_rows value; -1: none */
    int8_t *code0;             /* (T, D) area "all", rank order: TP / FP / ignored code */
    int64_t *match;            /* (A, T, D) or NULL */
    uint8_t *gt_ig, *dt_ig, *tp, *fp; /* (A, G), (A, T, D) x3, or NULL */
} Out;

/* A detection's position and its sort key (`score_key`). */
typedef struct {
    uint64_t key;
    int64_t pos;
} Keyed;

/* Per-thread scratch memory, grown as needed. */
typedef struct {
    double *sim; size_t n_sim;
    int64_t *groups; size_t n_groups;  /* 5 per group: d0, d1, g0, g1, e0 */
    int64_t *match; size_t n_match;    /* (T, D) of one area range */
    uint8_t *flags; size_t n_flags;    /* TP / FP flag (T, D), then GT ignore (G) */
    int64_t *tmp; size_t n_tmp;        /* merge sort buffer, GT order, selection */
    int64_t *taken; size_t n_taken;    /* GT used up at one threshold: its (group, threshold)
                                          stamp, by slice position */
    double *pr; size_t n_pr;           /* precision at each TP */
    double *best; size_t n_best;       /* each detection's largest similarity */
    int64_t *at; size_t n_at;          /* rank of each TP */
    Keyed *keys; size_t n_keys;        /* the rank sort's two buffers */
    int64_t *by_rank; size_t n_by_rank; /* each rank position's rank in its group */
    int64_t *sels; size_t n_sels;      /* (M, D) each cap's kept rank positions, */
    int64_t *n_sel; size_t n_n_sel;    /* (M,) how many (D: all, its row of `sels` unused) */
} Scratch;

static int grow(void **buf, size_t *have, size_t want, size_t size)
{
    if (want <= *have)
        return 0;
    void *p = realloc(*buf, (want > 16 ? want : 16) * size);
    if (p == NULL)
        return -1;
    *buf = p;
    *have = want > 16 ? want : 16;
    return 0;
}

#define GROW(s, field, want) grow((void **)&(s)->field, &(s)->n_##field, (want), sizeof(*(s)->field))

/* ---------------------------------------------------------------------------------------- */
/* Similarity                                                                                */

/* maskApi.c bbIou (l. 109-120) for one pair: 0 without overlap; a crowd GT divides by the
 * detection's area. `if (w <= 0) continue` lets a NaN through, as there. */
static double box_iou(const double *D, const double *G, int crowd)
{
    double ga = G[2] * G[3], da = D[2] * D[3];
    double w = fmin(D[2] + D[0], G[2] + G[0]) - fmax(D[0], G[0]);
    if (w <= 0)
        return 0.0;
    double h = fmin(D[3] + D[1], G[3] + G[1]) - fmax(D[1], G[1]);
    if (h <= 0)
        return 0.0;
    double i = w * h;
    double u = crowd ? da : da + ga - i;
    return i / u;
}

/* Every group of category [d_lo, d_hi) x [g_lo, g_hi): detections and ground truth of one
 * (image, category), and where its similarity rows start (pair_up order: by detection, then
 * GT). Groups without detections match nothing and are not listed. Returns the group count. */
static int64_t find_groups(const Shared *S, int64_t d_lo, int64_t d_hi, int64_t g_lo,
                           int64_t g_hi, Scratch *s, int64_t *n_pairs)
{
    int64_t n = 0, g = g_lo, e = 0;
    for (int64_t d = d_lo; d < d_hi;) {
        int64_t grp = S->dt_group[d], d1 = d;
        while (d1 < d_hi && S->dt_group[d1] == grp)
            d1++;
        while (g < g_hi && S->gt_group[g] < grp)
            g++;
        int64_t g1 = g;
        while (g1 < g_hi && S->gt_group[g1] == grp)
            g1++;
        if (GROW(s, groups, (size_t)(5 * (n + 1))) < 0)
            return -1;
        int64_t *q = s->groups + 5 * n++;
        q[0] = d - d_lo, q[1] = d1 - d_lo, q[2] = g - g_lo, q[3] = g1 - g_lo, q[4] = e;
        e += (d1 - d) * (g1 - g);
        d = d1;
    }
    *n_pairs = e;
    return n;
}

/* The similarity of every pair of the category's groups (box IoU), in pair_up order. */
static void box_similarities(const Shared *S, int64_t d_lo, int64_t g_lo, const int64_t *groups,
                             int64_t n_groups, double *sim)
{
    for (int64_t q = 0; q < n_groups; q++) {
        const int64_t *G = groups + 5 * q;
        double *row = sim + G[4];
        for (int64_t d = G[0]; d < G[1]; d++)
            for (int64_t g = G[2]; g < G[3]; g++)
                *row++ = box_iou(S->dt_box + 4 * (d_lo + d), S->gt_box + 4 * (g_lo + g),
                                 S->gt_crowd[g_lo + g]);
    }
}

/* Each detection's largest similarity in its group (+inf where one is NaN, which may match;
 * -inf without GT): a detection below a threshold there matches nothing at it. */
static void row_best(const int64_t *groups, int64_t n_groups, const double *sim, double *best)
{
    for (int64_t q = 0; q < n_groups; q++) {
        const int64_t *G = groups + 5 * q;
        int64_t n_gt = G[3] - G[2];
        const double *row = sim + G[4];
        for (int64_t d = G[0]; d < G[1]; d++, row += n_gt) {
            double b = -INFINITY;
            for (int64_t g = 0; g < n_gt; g++)
                b = isnan(row[g]) ? INFINITY : row[g] > b ? row[g] : b;
            best[d] = b;
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Matching                                                                                  */

/* evaluateImg's order of a group's GT for one area range: the regular ones, then the ignored
 * ones, each in their order (`np.argsort(gtIg, kind='mergesort')`, cocoeval.py l. 257). */
static void gt_order(const uint8_t *ig, int64_t g0, int64_t g1, int64_t *perm)
{
    int64_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t g = g0; g < g1; g++)
            if (ig[g] == pass)
                perm[n++] = g;
}

/* The GT one detection matches at threshold `t`, or -1 (cocoeval.py l. 276-290):
 * candidates in `perm` order; a taken non-crowd GT is skipped; once a regular GT is held the
 * scan stops at the first ignored one; a GT qualifies when its similarity is not below the
 * best so far (ties go to the later GT; a NaN passes, as `<` is false). */
static int64_t match_one(const double *row, int64_t g0, const int64_t *perm, int64_t n_gt,
                         const int64_t *taken, int64_t stamp, const uint8_t *crowd,
                         const uint8_t *ig,
                         double t)
{
    double iou = t < 1 - 1e-10 ? t : 1 - 1e-10; /* min([t, 1-1e-10]) */
    int64_t m = -1;
    for (int64_t j = 0; j < n_gt; j++) {
        int64_t g = perm[j];
        if (taken[g] == stamp && !crowd[g])
            continue;
        if (m > -1 && !ig[m] && ig[g])
            break;
        double v = row[g - g0];
        if (v < iou)
            continue;
        iou = v;
        m = g;
    }
    return m;
}

/* Match every group of the category at one area range, every threshold: match (T, D) gets the
 * GT position in the category's slice (-1: none). `ig` is the area's GT ignore flag by slice
 * position; `best` each detection's largest similarity (`row_best`: below the threshold, no
 * match); `perm` holds a group's GT order, `taken` a stamp per slice position (taken at this
 * group and threshold: the stamp of the pair, never cleared). */
static void match_area(const Shared *S, int64_t g_lo, int64_t nd, const int64_t *groups,
                       int64_t n_groups, const double *sim, const double *best,
                       const uint8_t *ig, int64_t *match, int64_t *perm, int64_t *taken)
{
    const uint8_t *crowd = S->gt_crowd + g_lo;
    int64_t stamp = 0, ng = groups != NULL && n_groups ? groups[5 * (n_groups - 1) + 3] : 0;
    for (int64_t g = 0; g < ng; g++)
        taken[g] = 0;
    for (int64_t i = 0, n = S->T * nd; i < n; i++)
        match[i] = -1;
    for (int64_t q = 0; q < n_groups; q++) {
        const int64_t *G = groups + 5 * q;
        int64_t g0 = G[2], n_gt = G[3] - G[2];
        if (n_gt == 0)
            continue; /* evaluateImg: no ious, nothing matched */
        gt_order(ig, g0, G[3], perm);
        for (int64_t t = 0; t < S->T; t++) {
            double thr = S->thr[t] < 1 - 1e-10 ? S->thr[t] : 1 - 1e-10;
            stamp++;
            for (int64_t d = G[0]; d < G[1]; d++) {
                if (best[d] < thr)
                    continue;
                const double *row = sim + G[4] + (d - G[0]) * n_gt;
                int64_t m = match_one(row, g0, perm, n_gt, taken, stamp, crowd, ig, S->thr[t]);
                if (m < 0)
                    continue;
                match[t * nd + d] = m;
                taken[m] = stamp;
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Verdicts                                                                                  */

/* GT ignore flags of one area range (cocoeval.py l. 250-254: ignore, or area outside the
 * inclusive range) by slice position; returns the count of regular GT (npig). */
static int64_t gt_ignore_at(const Shared *S, int64_t g_lo, int64_t ng, double lo, double hi,
                            uint8_t *ig)
{
    int64_t npig = 0;
    for (int64_t g = 0; g < ng; g++) {
        double a = S->gt_area[g_lo + g];
        ig[g] = S->gt_ignore[g_lo + g] || a < lo || a > hi;
        npig += !ig[g];
    }
    return npig;
}

/* dtIgnore, TP and FP of one area range (cocoeval.py l. 292-300; lvis/eval.py adds the
 * not-exhaustive categories to the unmatched ignore rule), as `flag` (T, D) in rank order
 * (`inv`: each detection's rank position): 1 TP, 2 FP, 0 ignored; as booleans in slice order
 * where `tp`, `fp`, `dt_ig` are given; for the evidence where `match0`, `code0` are given
 * (rank order). A match to a GT of id 0 counts as none where `gt_id0` says so (`dtm == 0`).
 * `out` holds D flags of scratch. */
static void verdicts(const Shared *S, int64_t g_lo, int64_t d_lo, int64_t nd, const int64_t *inv,
                     const int64_t *match, const uint8_t *ig, double lo, double hi, uint8_t *out,
                     uint8_t *flag, uint8_t *tp, uint8_t *fp, uint8_t *dt_ig, int32_t *match0,
                     int8_t *code0)
{
    const int8_t code[3] = {S->code_ignored, S->code_tp, S->code_fp};
    const uint8_t *id0 = S->gt_id0 + g_lo;
    const int64_t *rows = S->gt_rows != NULL ? S->gt_rows + g_lo : NULL;
    const double *area = S->dt_area + d_lo;
    for (int64_t d = 0; d < nd; d++) /* (no branch: NaN areas compare false either way) */
        out[d] = (area[d] < lo) | (area[d] > hi);
    if (S->dt_extra != NULL)
        for (int64_t d = 0; d < nd; d++)
            out[d] |= S->dt_extra[d_lo + d] != 0;
    for (int64_t t = 0, T = S->T; t < T; t++) {
        const int64_t *mt = match + t * nd;
        uint8_t *ft = flag + t * nd;
        for (int64_t d = 0; d < nd; d++) {
            int64_t m = mt[d];
            if (m < 0) { /* (most detections) */
                ft[inv[d]] = out[d] ? 0 : 2;
                continue;
            }
            int matched = !id0[m];
            ft[inv[d]] = ig[m] || (!matched && out[d]) ? 0 : matched ? 1 : 2;
        }
        if (tp != NULL)
            for (int64_t d = 0; d < nd; d++) {
                uint8_t f = ft[inv[d]];
                tp[t * nd + d] = f == 1, fp[t * nd + d] = f == 2, dt_ig[t * nd + d] = f == 0;
            }
        if (code0 != NULL) {
            for (int64_t d = 0; d < nd; d++) { /* (< 2**31 GT, rows: the caller's check) */
                int64_t m = mt[d];
                match0[t * nd + inv[d]] = (int32_t)(rows == NULL || m < 0 ? m : rows[m]);
            }
            for (int64_t i = 0; i < nd; i++)
                code0[t * nd + i] = code[ft[i]];
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Accumulation                                                                              */

/* A detection's sort key: descending score, NaN last (`np.argsort(-dtScores,
 * kind='mergesort')`), as an unsigned integer whose order is that of -score (-0.0 and 0.0
 * equal, as numpy compares them). */
static uint64_t score_key(double score)
{
    if (isnan(score))
        return UINT64_MAX;
    double v = score == 0 ? 0.0 : -score;
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

/* Merge the sorted runs a[lo:mid] and a[mid:hi] into b, stably (the left wins ties). */
static void merge(const Keyed *a, Keyed *b, int64_t lo, int64_t mid, int64_t hi)
{
    int64_t i = lo, j = mid, o = lo;
    while (i < mid && j < hi)
        b[o++] = a[j].key < a[i].key ? a[j++] : a[i++];
    while (i < mid)
        b[o++] = a[i++];
    while (j < hi)
        b[o++] = a[j++];
}

/* Positions [0, n) in rank order: a stable sort by descending score (ties keep the
 * positions' order, which is image then rank order: cocoeval.py l. 364-366): a merge sort
 * starting from the runs already in order (each (image, category) group is), or with many
 * runs a radix sort (stable too: the same order). `runs` holds n + 1 int64,
 * `a` and `b` n Keyed each. */
enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS, DIGITS = 6 }; /* 6 x 11 bits >= 64 */

/* `a` sorted by key, stably (a least-significant-digit radix sort through `b`: each pass
 * keeps the order of equal digits), a digit every key shares skipped; the positions into
 * `order`. */
static void radix_order(Keyed *a, Keyed *b, int64_t n, int64_t *order)
{
    int64_t count[DIGITS][RADIX];
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++)
            count[d][(a[i].key >> (d * RADIX_BITS)) & (RADIX - 1)]++;
    for (int d = 0; d < DIGITS; d++) {
        int64_t *c = count[d], sum = 0;
        if (c[(a[0].key >> (d * RADIX_BITS)) & (RADIX - 1)] == n)
            continue; /* one digit for all: the pass would keep the order */
        for (int j = 0; j < RADIX; j++) {
            int64_t here = c[j];
            c[j] = sum, sum += here;
        }
        for (int64_t i = 0; i < n; i++)
            b[c[(a[i].key >> (d * RADIX_BITS)) & (RADIX - 1)]++] = a[i];
        Keyed *swap = a;
        a = b, b = swap;
    }
    for (int64_t i = 0; i < n; i++)
        order[i] = a[i].pos;
}

static void rank_order(const double *score, int64_t n, int64_t *order, int64_t *runs, Keyed *a,
                       Keyed *b)
{
    int64_t n_runs = 0;
    for (int64_t i = 0; i < n; i++) {
        a[i].key = score_key(score[i]), a[i].pos = i;
        if (i == 0 || a[i].key < a[i - 1].key)
            runs[n_runs++] = i;
    }
    runs[n_runs] = n;
    if (n_runs > 256) { /* more merge passes (log2 of the runs) than radix passes */
        radix_order(a, b, n, order);
        return;
    }
    while (n_runs > 1) {
        int64_t kept = 0;
        for (int64_t r = 0; r < n_runs; r += 2) {
            if (r + 1 < n_runs)
                merge(a, b, runs[r], runs[r + 1], runs[r + 2]);
            else
                memcpy(b + runs[r], a + runs[r], (size_t)(n - runs[r]) * sizeof(Keyed));
            runs[kept++] = runs[r];
        }
        runs[kept] = n;
        n_runs = kept;
        Keyed *swap = a;
        a = b, b = swap;
    }
    for (int64_t i = 0; i < n; i++)
        order[i] = a[i].pos;
}

/* One (threshold, area, cap) curve (cocoeval.py l. 383-408) of the selected detections: rank
 * positions `sel[i]`, i < n (`sel` NULL: all, n of them), with `flag` (1: TP, 2: FP, 0:
 * ignored) and `score` by rank position.
 *
 * pycocotools computes precision tp / (fp + tp + eps) at every rank, takes its right-to-left
 * maximum and samples it where recall tp / npig first reaches each recall threshold
 * (searchsorted side='left'; zeros from the first threshold past the end). Those ranks are TPs
 * (the c-th TP, where c / npig first reaches the threshold) or rank 0 (a threshold <= 0);
 * between two TPs precision only falls. So the maximum right of the c-th TP is the maximum
 * over the c-th and later TPs, and only the TPs' precisions are computed, with the same
 * operations on the same values (tp, fp exact in doubles): the same bits. Without `sel`, runs
 * of 8 flags without a TP are counted in one step (their FPs: the flags' bit 1). */
static void curve(const Shared *S, const int64_t *sel, int64_t n, const uint8_t *flag,
                  const double *score, int64_t npig, double *tp_pr, int64_t *tp_at,
                  double *recall, double *precision, double *scores, int64_t r_stride)
{
    double n_pos = (double)npig;
    int64_t n_tp = 0, n_fp = 0;
    const uint64_t ones = UINT64_C(0x0101010101010101);
    for (int64_t i = 0; i < n;) {
        if (sel == NULL && i + 8 <= n) { /* 8 flags at once while they hold no TP */
            uint64_t w;
            memcpy(&w, flag + i, sizeof w);
            if ((w & ones) == 0) { /* FPs (2) and ignored (0) only: count the FPs */
                n_fp += (int64_t)((((w >> 1) & ones) * ones) >> 56);
                i += 8;
                continue;
            }
        }
        int64_t p = sel != NULL ? sel[i] : i;
        uint8_t f = flag[p];
        n_fp += f == 2;
        if (f == 1) { /* tp, fp: the cumulative sums, as doubles (exact) */
            double tp_sum = (double)(n_tp + 1), fp_sum = (double)n_fp;
            tp_pr[n_tp] = tp_sum / (fp_sum + tp_sum + DBL_EPSILON); /* + np.spacing(1) */
            tp_at[n_tp++] = p;
        }
        i++;
    }
    *recall = n ? (double)n_tp / n_pos : 0;
    for (int64_t c = n_tp - 1; c > 0; c--) /* the right-to-left maximum, at the TPs */
        if (tp_pr[c] > tp_pr[c - 1])
            tp_pr[c - 1] = tp_pr[c];
    int64_t c = 0; /* TPs needed for the threshold: the smallest c with c / npig >= it */
    for (int64_t r = 0; r < S->R; r++) {
        if (r > 0 && S->rec[r] < S->rec[r - 1]) /* thresholds not ascending: search again */
            c = 0;
        while (c <= n_tp && (double)c / n_pos < S->rec[r])
            c++;
        if (c > n_tp || n == 0)
            break; /* past the last rank */
        /* c == 0: rank 0, whose maximum to the right is the first TP's (0 without any) */
        precision[r * r_stride] = c == 0 ? (n_tp ? tp_pr[0] : 0) : tp_pr[c - 1];
        scores[r * r_stride] = score[c > 0 ? tp_at[c - 1] : sel != NULL ? sel[0] : 0];
    }
}

/* The rank positions each cap keeps (rank in its group < cap; `by_rank` by rank position):
 * `n_sel[m]` of them, listed in row m of `sels` (M, D) unless all D are. */
static void cap_selections(const Shared *S, const int64_t *by_rank, int64_t nd, int64_t *sels,
                           int64_t *n_sel)
{
    int64_t top = -1; /* the largest rank: a cap above it keeps all */
    for (int64_t i = 0; i < nd; i++)
        top = by_rank[i] > top ? by_rank[i] : top;
    for (int64_t m = 0; m < S->M; m++) {
        int64_t n = 0, cap = S->caps[m], *sel = sels + m * nd;
        if (cap > top) {
            n_sel[m] = nd;
            continue;
        }
        for (int64_t i = 0; i < nd; i++)
            if (by_rank[i] < cap)
                sel[n++] = i;
        n_sel[m] = n;
    }
}

/* All caps and thresholds of one area range `a`. `flag` (T, D) and `score` (D,) by rank
 * position; `sels` and `n_sel` the rank positions each cap keeps (`cap_selections`). Caps that keep as many detections as an earlier one keep the same ones (the caps
 * nest), so their curves are copied. */
static void accumulate_area(const Shared *S, const Out *o, int64_t a, const int64_t *sels,
                            const int64_t *n_sel, int64_t nd, const uint8_t *flag,
                            const double *score, int64_t npig, double *tp_pr, int64_t *tp_at)
{
    int64_t T = S->T, R = S->R, A = S->A, M = S->M;
    int64_t prev_n = -1, prev_m = -1;
    for (int64_t m = 0; m < M; m++) {
        int64_t n = n_sel[m];
        const int64_t *sel = sels + m * nd;
        for (int64_t t = 0; t < T; t++) {
            double *rc = o->recall + (t * A + a) * M + m;
            double *p = o->precision + ((t * R) * A + a) * M + m;
            double *sc = o->scores + ((t * R) * A + a) * M + m;
            if (n == prev_n) {
                *rc = rc[prev_m - m];
                for (int64_t r = 0; r < R; r++)
                    p[r * A * M] = p[r * A * M + prev_m - m],
                    sc[r * A * M] = sc[r * A * M + prev_m - m];
                continue;
            }
            for (int64_t r = 0; r < R; r++)
                p[r * A * M] = 0, sc[r * A * M] = 0;
            curve(S, n == nd ? NULL : sel, n, flag + t * nd, score, npig, tp_pr, tp_at, rc, p,
                  sc, A * M);
        }
        if (n != prev_n)
            prev_n = n, prev_m = m;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Category `o->k`: similarities, then per area range the matching, the verdicts and the
 * curves. 0, or -1 (out of memory), -2 (the similarity does not fit the groups). */
static int evaluate_category(const Shared *S, const Out *o, Scratch *s)
{
    int64_t k = o->k, T = S->T;
    int64_t d_lo = S->dt_off[k], nd = S->dt_off[k + 1] - d_lo;
    int64_t g_lo = S->gt_off[k], ng = S->gt_off[k + 1] - g_lo;
    int64_t n_pairs = 0;
    int64_t n_groups = find_groups(S, d_lo, d_lo + nd, g_lo, g_lo + ng, s, &n_pairs);
    if (n_groups < 0)
        return -1;
    const double *sim = S->sim != NULL ? S->sim + S->sim_off[k] : NULL;
    if (sim != NULL && S->sim_off[k + 1] - S->sim_off[k] != n_pairs)
        return -2; /* not this category's pairs */
    if (sim == NULL) {
        if (GROW(s, sim, (size_t)n_pairs) < 0)
            return -1;
        box_similarities(S, d_lo, g_lo, s->groups, n_groups, s->sim);
        sim = s->sim;
    }
    if (GROW(s, match, (size_t)(T * nd + 1)) < 0 || GROW(s, tmp, (size_t)(ng + 2 * nd + 1)) < 0 ||
        GROW(s, taken, (size_t)(ng + 1)) < 0 ||
        GROW(s, flags, (size_t)(T * nd + ng + nd + 1)) < 0 ||
        GROW(s, pr, (size_t)(2 * nd + 1)) < 0 || GROW(s, at, (size_t)(nd + 1)) < 0 ||
        GROW(s, best, (size_t)(nd + 1)) < 0 || GROW(s, keys, (size_t)(2 * nd + 1)) < 0 ||
        GROW(s, by_rank, (size_t)(nd + 1)) < 0 || GROW(s, sels, (size_t)(S->M * nd + 1)) < 0 ||
        GROW(s, n_sel, (size_t)(S->M + 1)) < 0)
        return -1;
    for (int64_t d = 0; d < nd; d++)
        s->best[d] = -INFINITY; /* (no GT in its group) */
    row_best(s->groups, n_groups, sim, s->best);
    rank_order(S->dt_score + d_lo, nd, o->order, s->tmp, s->keys, s->keys + nd);
    int64_t *inv = s->tmp + ng + nd; /* each detection's rank position */
    double *score = s->pr + nd;      /* scores by rank position */
    for (int64_t i = 0; i < nd; i++) {
        int64_t d = d_lo + o->order[i];
        inv[o->order[i]] = i, score[i] = S->dt_score[d], s->by_rank[i] = S->dt_rank[d];
    }
    cap_selections(S, s->by_rank, nd, s->sels, s->n_sel);
    for (int64_t a = 0; a < S->A; a++) {
        double lo = S->area_lo[a], hi = S->area_hi[a];
        uint8_t *flag = s->flags, *ig = s->flags + T * nd, *out = ig + ng;
        int64_t at = a * T * nd; /* this area's block of the full outputs */
        int64_t *match = o->match != NULL ? o->match + at : s->match;
        o->npig[a] = gt_ignore_at(S, g_lo, ng, lo, hi, ig);
        if (o->gt_ig != NULL)
            memcpy(o->gt_ig + a * ng, ig, (size_t)ng);
        match_area(S, g_lo, nd, s->groups, n_groups, sim, s->best, ig, match, s->tmp, s->taken);
        int full = o->tp != NULL;
        verdicts(S, g_lo, d_lo, nd, inv, match, ig, lo, hi, out, flag, full ? o->tp + at : NULL,
                 full ? o->fp + at : NULL, full ? o->dt_ig + at : NULL,
                 a == 0 ? o->match0 : NULL, a == 0 ? o->code0 : NULL);
        if (o->npig[a] > 0)
            accumulate_area(S, o, a, s->sels, s->n_sel, nd, flag, score, o->npig[a], s->pr, s->at);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Threads                                                                                   */

typedef struct {
    const Shared *S;
    const Out *outs;
    const int64_t *todo; /* category outputs, largest first */
    int64_t n;
    int64_t next;        /* shared counter, under `lock` */
    int failed;          /* the first error: -1 out of memory, -2 wrong similarity size */
    pthread_mutex_t lock;
} Pool;

/* A category's curves undefined (-1) until its accumulation fills them. */
static void fill_undefined(const Shared *S, const Out *q)
{
    int64_t n = S->T * S->R * S->A * S->M, m = S->T * S->A * S->M;
    for (int64_t j = 0; j < n; j++)
        q->precision[j] = -1, q->scores[j] = -1;
    for (int64_t j = 0; j < m; j++)
        q->recall[j] = -1;
}

static void *worker(void *arg)
{
    Pool *p = arg;
    Scratch s;
    memset(&s, 0, sizeof s);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int64_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            break;
        fill_undefined(p->S, &p->outs[p->todo[i]]);
        int rc = evaluate_category(p->S, &p->outs[p->todo[i]], &s);
        if (rc < 0) {
            pthread_mutex_lock(&p->lock);
            p->failed = p->failed ? p->failed : rc;
            pthread_mutex_unlock(&p->lock);
        }
    }
    free(s.sim), free(s.groups), free(s.match), free(s.flags), free(s.tmp), free(s.pr), free(s.taken);
    free(s.at), free(s.best), free(s.keys), free(s.by_rank), free(s.sels), free(s.n_sel);
    return NULL;
}

/* Evaluate `n` categories on up to `n_threads` threads; 0, or the first error. */
static int run_pool(const Shared *S, const Out *outs, const int64_t *todo, int64_t n,
                    int64_t n_threads)
{
    Pool p = {S, outs, todo, n, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    if (n_threads > n)
        n_threads = n;
    if (n_threads > 64)
        n_threads = 64;
    pthread_t th[64];
    int64_t started = 0;
    for (int64_t i = 1; i < n_threads; i++)
        if (pthread_create(&th[started], NULL, worker, &p) == 0)
            started++;
    worker(&p);
    for (int64_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return p.failed;
}

/* ---------------------------------------------------------------------------------------- */
/* Python interface                                                                          */

/* A new array, owned by `keep` (a borrowed reference; NULL with an error). */
static PyObject *new_array(int nd, npy_intp *dims, int type, PyObject *keep)
{
    PyObject *a = PyArray_SimpleNew(nd, dims, type);
    if (a == NULL)
        return NULL;
    int rc = PyList_Append(keep, a);
    Py_DECREF(a);
    return rc < 0 ? NULL : a;
}

/* The arguments of `evaluate`, in order. */
enum {
    GT_BOX, GT_GROUP, GT_CROWD, GT_IGNORE, GT_AREA, GT_ID0, GT_OFF,
    DT_BOX, DT_GROUP, DT_RANK, DT_SCORE, DT_AREA, DT_EXTRA, DT_OFF,
    SIM, SIM_OFF, THR, AREA_LO, AREA_HI, CAPS, REC, CODES, CATEGORIES, N_ARGS
};

static const int arg_type[N_ARGS] = {
    NPY_FLOAT64, NPY_INT64, NPY_UINT8, NPY_UINT8, NPY_FLOAT64, NPY_UINT8, NPY_INT64,
    NPY_FLOAT64, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_UINT8, NPY_INT64,
    NPY_FLOAT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_INT64, NPY_FLOAT64,
    NPY_INT8, NPY_INT64};

/* Which arguments may be None. */
static int optional(int i)
{
    return i == GT_BOX || i == DT_BOX || i == DT_EXTRA || i == SIM || i == SIM_OFF;
}

/* Whether the columns cover what the offsets promise (no read out of bounds). */
static int consistent(PyArrayObject **arr, const Shared *S, int64_t K)
{
    int64_t ng = S->gt_off[K], nd = S->dt_off[K];
    if (PyArray_SIZE(arr[DT_OFF]) != K + 1 || S->gt_off[0] < 0 || S->dt_off[0] < 0)
        return 0;
    for (int64_t k = 0; k < K; k++)
        if (S->gt_off[k + 1] < S->gt_off[k] || S->dt_off[k + 1] < S->dt_off[k])
            return 0;
    for (int i = GT_GROUP; i <= GT_ID0; i++)
        if (PyArray_SIZE(arr[i]) < ng)
            return 0;
    for (int i = DT_GROUP; i <= DT_AREA; i++)
        if (PyArray_SIZE(arr[i]) < nd)
            return 0;
    if (arr[DT_EXTRA] != NULL && PyArray_SIZE(arr[DT_EXTRA]) < nd)
        return 0;
    if (S->sim == NULL)
        return PyArray_SIZE(arr[GT_BOX]) >= 4 * ng && PyArray_SIZE(arr[DT_BOX]) >= 4 * nd;
    if (PyArray_SIZE(arr[SIM_OFF]) != K + 1 || S->sim_off[0] < 0)
        return 0;
    for (int64_t k = 0; k < K; k++)
        if (S->sim_off[k + 1] < S->sim_off[k])
            return 0;
    return PyArray_SIZE(arr[SIM]) >= S->sim_off[K];
}

/* The always-given outputs of every category, each kind one block (a large block is one
 * allocation numpy backs with huge pages: few page faults), each category's arrays views of
 * them. Kinds: precision, recall, scores, order, npig, match0, code0. */
enum { N_BLOCKS = 7 };
static const int block_type[N_BLOCKS] = {NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_INT64,
                                         NPY_INT64, NPY_INT32, NPY_INT8};

/* Category k's number of elements of block kind j. */
static npy_intp block_size(const Shared *S, int64_t k, int j)
{
    npy_intp T = S->T, R = S->R, A = S->A, M = S->M, D = S->dt_off[k + 1] - S->dt_off[k];
    switch (j) {
    case 0: case 2: return T * R * A * M;
    case 1: return T * A * M;
    case 3: return D;
    case 4: return A;
    default: return S->evidence ? T * D : 0;
    }
}

/* A view of `n` elements of `block` from element `at` with shape `dims` (NULL with an error). */
static PyObject *block_view(PyObject *block, npy_intp at, int nd, npy_intp *dims)
{
    PyArrayObject *b = (PyArrayObject *)block;
    PyArray_Descr *descr = PyArray_DESCR(b);
    Py_INCREF(descr);
    char *data = (char *)PyArray_DATA(b) + at * PyArray_ITEMSIZE(b);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, data,
                                       NPY_ARRAY_CARRAY, NULL);
    if (v == NULL)
        return NULL;
    Py_INCREF(block);
    if (PyArray_SetBaseObject((PyArrayObject *)v, block) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* Category k's outputs (into `keep` and the tuple `*tuple`), the first seven views of
 * `blocks` from the elements `at` on, and point `q` at them. The curves' -1 are written by the
 * thread that evaluates it (`fill_undefined`). */
static int category_outputs(const Shared *S, int64_t k, int full, PyObject **blocks,
                            const npy_intp *at, PyObject *keep, Out *q, PyObject **tuple)
{
    npy_intp T = S->T, R = S->R, A = S->A, M = S->M;
    npy_intp D = S->dt_off[k + 1] - S->dt_off[k], G = S->gt_off[k + 1] - S->gt_off[k];
    npy_intp d_prec[4] = {T, R, A, M}, d_rec[3] = {T, A, M}, d_td[2] = {T, D};
    npy_intp d_atd[3] = {A, T, D}, d_ag[2] = {A, G}, d_none[2] = {0, 0};
    npy_intp *td = S->evidence ? d_td : d_none;
    npy_intp *dims[N_BLOCKS] = {d_prec, d_rec, d_prec, &D, &A, td, td};
    const int nds[N_BLOCKS] = {4, 3, 4, 1, 1, 2, 2};
    PyObject *o[12] = {NULL};
    int n_out = full ? 12 : 7;
    if ((*tuple = PyTuple_New(n_out)) == NULL)
        return -1;
    for (int j = 0; j < N_BLOCKS; j++) {
        if ((o[j] = block_view(blocks[j], at[j], nds[j], dims[j])) == NULL)
            return -1;
        PyTuple_SET_ITEM(*tuple, j, o[j]); /* the tuple owns it */
    }
    if (full) {
        o[7] = new_array(3, d_atd, NPY_INT64, keep);
        o[8] = new_array(2, d_ag, NPY_BOOL, keep);
        for (int j = 9; j < 12; j++)
            o[j] = new_array(3, d_atd, NPY_BOOL, keep);
        for (int j = 7; j < 12; j++) {
            if (o[j] == NULL)
                return -1;
            Py_INCREF(o[j]);
            PyTuple_SET_ITEM(*tuple, j, o[j]);
        }
    }
#define DATA(j, t) ((t *)PyArray_DATA((PyArrayObject *)o[j]))
    memset(q, 0, sizeof *q);
    q->k = k;
    q->precision = DATA(0, double), q->recall = DATA(1, double), q->scores = DATA(2, double);
    q->order = DATA(3, int64_t), q->npig = DATA(4, int64_t);
    if (S->evidence)
        q->match0 = DATA(5, int32_t), q->code0 = DATA(6, int8_t);
    if (full) {
        q->match = DATA(7, int64_t), q->gt_ig = DATA(8, uint8_t), q->dt_ig = DATA(9, uint8_t);
        q->tp = DATA(10, uint8_t), q->fp = DATA(11, uint8_t);
    }
#undef DATA
    return 0;
}

/* Order `todo` by descending detection count, so the threads finish together. */
static void largest_first(const Shared *S, const Out *outs, int64_t *todo, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        todo[i] = i;
    for (int64_t i = 1; i < n; i++) {
        int64_t x = todo[i], j = i;
        int64_t w = S->dt_off[outs[x].k + 1] - S->dt_off[outs[x].k];
        while (j > 0 &&
               S->dt_off[outs[todo[j - 1]].k + 1] - S->dt_off[outs[todo[j - 1]].k] < w) {
            todo[j] = todo[j - 1];
            j--;
        }
        todo[j] = x;
    }
}

static PyObject *evaluate(PyObject *self, PyObject *args)
{
    PyObject *in[N_ARGS], *in_rows = Py_None;
    int full = 0, evidence = 1;
    Py_ssize_t n_threads = 1;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOOOOOpn|Op", &in[0], &in[1], &in[2], &in[3],
                          &in[4], &in[5], &in[6], &in[7], &in[8], &in[9], &in[10], &in[11],
                          &in[12], &in[13], &in[14], &in[15], &in[16], &in[17], &in[18],
                          &in[19], &in[20], &in[21], &in[22], &full, &n_threads, &in_rows,
                          &evidence))
        return NULL;
    PyArrayObject *arr[N_ARGS] = {NULL}, *rows = NULL;
    PyObject *keep = NULL, *result = NULL, *blocks[N_BLOCKS] = {NULL};
    Out *outs = NULL;
    int64_t *todo = NULL;
    for (int i = 0; i < N_ARGS; i++) {
        if (in[i] == Py_None && optional(i))
            continue;
        if ((arr[i] = as_array(in[i], arg_type[i])) == NULL)
            goto done;
    }
#define P(i, t) (arr[i] != NULL ? (const t *)PyArray_DATA(arr[i]) : NULL)
    Shared S = {P(GT_BOX, double), P(GT_GROUP, int64_t), P(GT_CROWD, uint8_t),
                P(GT_IGNORE, uint8_t), P(GT_AREA, double), P(GT_ID0, uint8_t),
                P(GT_OFF, int64_t), P(DT_BOX, double), P(DT_GROUP, int64_t),
                P(DT_RANK, int64_t), P(DT_SCORE, double), P(DT_AREA, double),
                P(DT_EXTRA, uint8_t), P(DT_OFF, int64_t), P(SIM, double), P(SIM_OFF, int64_t),
                P(THR, double), P(AREA_LO, double), P(AREA_HI, double), P(CAPS, int64_t),
                P(REC, double), 0, 0, 0, 0, 0, 0, 0};
    if ((S.sim == NULL) != (S.sim_off == NULL) ||
        (S.sim == NULL && (S.gt_box == NULL || S.dt_box == NULL))) {
        PyErr_SetString(PyExc_ValueError, "evaluate: give boxes, or sim with sim_off");
        goto done;
    }
    S.evidence = evidence;
    S.T = PyArray_SIZE(arr[THR]), S.A = PyArray_SIZE(arr[AREA_LO]);
    S.M = PyArray_SIZE(arr[CAPS]), S.R = PyArray_SIZE(arr[REC]);
    int64_t K = PyArray_SIZE(arr[GT_OFF]) - 1, n = PyArray_SIZE(arr[CATEGORIES]);
    if (PyArray_SIZE(arr[AREA_HI]) != S.A || PyArray_SIZE(arr[CODES]) != 3 || K < 0 ||
        !consistent(arr, &S, K)) {
        PyErr_SetString(PyExc_ValueError, "evaluate: columns and offsets do not agree");
        goto done;
    }
    if (in_rows != Py_None) {
        if ((rows = as_array(in_rows, NPY_INT64)) == NULL)
            goto done;
        if (PyArray_SIZE(rows) < S.gt_off[K]) {
            PyErr_SetString(PyExc_ValueError, "evaluate: gt_rows shorter than the GT columns");
            goto done;
        }
        S.gt_rows = (const int64_t *)PyArray_DATA(rows);
    }
    const int8_t *codes = P(CODES, int8_t);
    S.code_tp = codes[0], S.code_fp = codes[1], S.code_ignored = codes[2];
    const int64_t *cats = P(CATEGORIES, int64_t);
#undef P
    outs = calloc((size_t)(n > 0 ? n : 1), sizeof(Out));
    todo = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    keep = PyList_New(0);
    result = PyList_New(n);
    if (outs == NULL || todo == NULL || keep == NULL || result == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    npy_intp total[N_BLOCKS] = {0}, at[N_BLOCKS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (cats[i] < 0 || cats[i] >= K) {
            PyErr_SetString(PyExc_IndexError, "evaluate: category out of range");
            goto fail;
        }
        for (int j = 0; j < N_BLOCKS; j++)
            total[j] += block_size(&S, cats[i], j);
    }
    for (int j = 0; j < N_BLOCKS; j++)
        if ((blocks[j] = PyArray_SimpleNew(1, &total[j], block_type[j])) == NULL)
            goto fail;
    for (int64_t i = 0; i < n; i++) {
        PyObject *tuple = NULL;
        int rc_out = category_outputs(&S, cats[i], full, blocks, at, keep, &outs[i], &tuple);
        if (tuple != NULL)
            PyList_SET_ITEM(result, i, tuple);
        if (rc_out < 0)
            goto fail;
        for (int j = 0; j < N_BLOCKS; j++)
            at[j] += block_size(&S, cats[i], j);
    }
    largest_first(&S, outs, todo, n);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_pool(&S, outs, todo, n, n_threads < 1 ? 1 : (int64_t)n_threads);
    Py_END_ALLOW_THREADS
    if (rc == -2)
        PyErr_SetString(PyExc_ValueError, "evaluate: sim does not hold each group's pairs");
    else if (rc < 0)
        PyErr_NoMemory();
    if (rc < 0)
        goto fail;
    goto done;
fail:
    Py_CLEAR(result);
done:
    for (int i = 0; i < N_ARGS; i++)
        Py_XDECREF(arr[i]);
    Py_XDECREF(rows);
    Py_XDECREF(keep);
    for (int j = 0; j < N_BLOCKS; j++)
        Py_XDECREF(blocks[j]);
    free(outs);
    free(todo);
    return result;
}

/* The two entry points below: parse (det_image, det_box, offsets, obj_box[, obj_kind],
 * plus_one), check the shapes, run best_scan without the GIL and return (best, overlap), each
 * (D,) without kinds or (3, D) with them. */
static PyObject *best_entry(PyObject *args, int with_kind, const char *name)
{
    PyObject *a_img, *a_dbox, *a_off, *a_gbox, *a_kind = NULL;
    int plus_one, ok;
    if (with_kind)
        ok = PyArg_ParseTuple(args, "OOOOOp", &a_img, &a_dbox, &a_off, &a_gbox, &a_kind, &plus_one);
    else
        ok = PyArg_ParseTuple(args, "OOOOp", &a_img, &a_dbox, &a_off, &a_gbox, &plus_one);
    if (!ok)
        return NULL;
    PyArrayObject *img = as_array(a_img, NPY_INT64), *dbox = as_array(a_dbox, NPY_FLOAT64);
    PyArrayObject *off = as_array(a_off, NPY_INT64), *gbox = as_array(a_gbox, NPY_FLOAT64);
    PyArrayObject *kind = with_kind ? as_array(a_kind, NPY_UINT8) : NULL;
    PyObject *best = NULL, *best_ov = NULL, *out = NULL;
    if (!img || !dbox || !off || !gbox || (with_kind && !kind)) goto done;
    npy_intp d = PyArray_SIZE(img), n_off = PyArray_SIZE(off), g = PyArray_SIZE(gbox) / 4;
    if (PyArray_SIZE(dbox) != 4 * d || PyArray_SIZE(gbox) != 4 * g || n_off < 1
        || (kind && PyArray_SIZE(kind) != g)) {
        PyErr_Format(PyExc_ValueError, "%s: inconsistent shapes", name);
        goto done;
    }
    npy_intp dims[2] = {3, d};
    int nd = with_kind ? 2 : 1;
    npy_intp *shape = with_kind ? dims : &d;
    best = PyArray_SimpleNew(nd, shape, NPY_INT64);
    best_ov = PyArray_SimpleNew(nd, shape, NPY_FLOAT64);
    if (!best || !best_ov) goto done;
    const int64_t *im = PyArray_DATA(img), *of = PyArray_DATA(off);
    const double *db = PyArray_DATA(dbox), *gb = PyArray_DATA(gbox);
    const uint8_t *kd = kind ? PyArray_DATA(kind) : NULL;
    int64_t *bo = PyArray_DATA((PyArrayObject *)best);
    double *bv = PyArray_DATA((PyArrayObject *)best_ov);
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = best_scan(im, d, of, n_off, db, gb, g, kd, plus_one ? 1.0 : 0.0, bo, bv);
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_Format(PyExc_ValueError, "%s: an image or offset out of range", name);
        goto done;
    }
    out = Py_BuildValue("(OO)", best, best_ov);
done:
    Py_XDECREF(img); Py_XDECREF(dbox); Py_XDECREF(off); Py_XDECREF(gbox); Py_XDECREF(kind);
    Py_XDECREF(best); Py_XDECREF(best_ov);
    return out;
}

/* evaluation/matching.best_overlaps: for each detection, the first ground truth of its image
 * (annotation order) with the largest overlap (best_scan without kinds). */
static PyObject *best_overlaps(PyObject *self, PyObject *args)
{
    return best_entry(args, 0, "best_overlaps");
}

/* evaluation/pair_overlaps.PairOverlaps + best, for the false-positive diagnosis: for each
 * detection, among the objects of its image whose kind (uint8 per object) is 0 (its class),
 * 1 (a similar class) or not 0 (any other class), the first object of the largest overlap and
 * that overlap (best_scan with kinds). Returns best int64 (3, D) (-1: none) and overlap
 * float64 (3, D) (NaN where -1), rows in that order. */
static PyObject *best_by_kind(PyObject *self, PyObject *args)
{
    return best_entry(args, 1, "best_by_kind");
}

/* best_scan with each detection's own kinds: object j's kind for detection i is
 * table[cls[i] * n_cls + label[j]] (0 its class, 1 a similar class, else other). Returns 1 if
 * an image, offset, class or label is out of range. */
static int best_scan_class(const int64_t *im, npy_intp d, const int64_t *cls, const int64_t *of,
                           npy_intp n_off, const double *db, const double *gb, npy_intp g,
                           const int64_t *label, const uint8_t *table, npy_intp n_cls,
                           double one, int64_t *bo, double *bv)
{
    for (npy_intp i = 0; i < d; i++) {
        int64_t k = im[i], c = cls[i];
        if (k < 0 || k + 1 >= n_off || c < 0 || c >= n_cls) return 1;
        int64_t lo = of[k], hi = of[k + 1];
        if (lo < 0 || hi > g || lo > hi) return 1;
        const double *b = db + 4 * i;
        const uint8_t *kinds = table + c * n_cls;
        int64_t found[3] = {-1, -1, -1};
        double top[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int64_t j = lo; j < hi; j++) {
            if (label[j] < 0 || label[j] >= n_cls) return 1;
            double ov;
            if (!pair_overlap(b, gb + 4 * j, one, &ov)) continue;
            uint8_t kd = kinds[label[j]];
            int r = kd == 0 ? 0 : 2;
            if (ov > top[r]) { top[r] = ov; found[r] = j; }
            if (kd == 1 && ov > top[1]) { top[1] = ov; found[1] = j; }
        }
        for (int r = 0; r < 3; r++) {
            bo[r * d + i] = found[r];
            bv[r * d + i] = found[r] >= 0 ? top[r] : NAN;
        }
    }
    return 0;
}

/* evaluation/pair_overlaps.best_by_class: best_by_kind for detections of many classes at once,
 * each with its class's kinds (row cls[i] of the (C, C) uint8 table, by object label). */
static PyObject *best_by_class(PyObject *self, PyObject *args)
{
    PyObject *a_img, *a_dbox, *a_cls, *a_off, *a_gbox, *a_lab, *a_tab;
    int plus_one;
    if (!PyArg_ParseTuple(args, "OOOOOOOp", &a_img, &a_dbox, &a_cls, &a_off, &a_gbox, &a_lab,
                          &a_tab, &plus_one))
        return NULL;
    PyArrayObject *img = as_array(a_img, NPY_INT64), *dbox = as_array(a_dbox, NPY_FLOAT64);
    PyArrayObject *cls = as_array(a_cls, NPY_INT64), *off = as_array(a_off, NPY_INT64);
    PyArrayObject *gbox = as_array(a_gbox, NPY_FLOAT64), *lab = as_array(a_lab, NPY_INT64);
    PyArrayObject *tab = as_array(a_tab, NPY_UINT8);
    PyObject *best = NULL, *best_ov = NULL, *out = NULL;
    if (!img || !dbox || !cls || !off || !gbox || !lab || !tab) goto done;
    npy_intp d = PyArray_SIZE(img), n_off = PyArray_SIZE(off), g = PyArray_SIZE(gbox) / 4;
    npy_intp n_tab = PyArray_SIZE(tab), c = 0;
    while ((c + 1) * (c + 1) <= n_tab) c++;
    if (PyArray_SIZE(dbox) != 4 * d || PyArray_SIZE(cls) != d || PyArray_SIZE(gbox) != 4 * g
        || PyArray_SIZE(lab) != g || n_off < 1 || c * c != n_tab) {
        PyErr_SetString(PyExc_ValueError, "best_by_class: inconsistent shapes");
        goto done;
    }
    npy_intp dims[2] = {3, d};
    best = PyArray_SimpleNew(2, dims, NPY_INT64);
    best_ov = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
    if (!best || !best_ov) goto done;
    const int64_t *im = PyArray_DATA(img), *of = PyArray_DATA(off), *cl = PyArray_DATA(cls);
    const int64_t *lb = PyArray_DATA(lab);
    const double *db = PyArray_DATA(dbox), *gb = PyArray_DATA(gbox);
    const uint8_t *tb = PyArray_DATA(tab);
    int64_t *bo = PyArray_DATA((PyArrayObject *)best);
    double *bv = PyArray_DATA((PyArrayObject *)best_ov);
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = best_scan_class(im, d, cl, of, n_off, db, gb, g, lb, tb, c, plus_one ? 1.0 : 0.0, bo, bv);
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "best_by_class: an image, offset, class or label out of range");
        goto done;
    }
    out = Py_BuildValue("(OO)", best, best_ov);
done:
    Py_XDECREF(img); Py_XDECREF(dbox); Py_XDECREF(cls); Py_XDECREF(off); Py_XDECREF(gbox);
    Py_XDECREF(lab); Py_XDECREF(tab); Py_XDECREF(best); Py_XDECREF(best_ov);
    return out;
}

static PyMethodDef methods[] = {
    {"best_by_class", best_by_class, METH_VARARGS,
     "best_by_class(det_image, det_box, det_class, obj_offsets, obj_box, obj_label, table,\n"
     "              plus_one) -> (best (3, D), overlap (3, D))\n"
     "\n"
     "best_by_kind of detections of many classes in one pass: object j's kind for detection i\n"
     "is table[det_class[i], obj_label[j]] (table uint8 (C, C))."},
    {"best_by_kind", best_by_kind, METH_VARARGS,
     "best_by_kind(det_image, det_box, obj_offsets, obj_box, obj_kind, plus_one)\n"
     "    -> (best (3, D), overlap (3, D))\n"
     "\n"
     "Per detection, the best object of its image of kind 0, kind 1 and kind != 0 (see\n"
     "_match.c): evaluation.pair_overlaps.PairOverlaps(...).best(wanted) three times."},
    {"best_overlaps", best_overlaps, METH_VARARGS,
     "best_overlaps(det_image, det_box, gt_offsets, gt_box, plus_one) -> (best, best_overlap)\n"
     "\n"
     "evaluation.matching.best_overlaps in C (same arguments and results)."},
    {"evaluate", evaluate, METH_VARARGS,
     "evaluate(gt_box, gt_group, gt_crowd, gt_ignore, gt_area, gt_id0, gt_off,\n"
     "         dt_box, dt_group, dt_rank, dt_score, dt_area, dt_extra, dt_off, sim, sim_off,\n"
     "         thr, area_lo, area_hi, caps, rec, codes, categories, full, threads[, gt_rows\n"
     "         [, evidence]])\n"
     "\n"
     "Evaluate `categories` (int64, indices into the *_off ranges) on up to `threads`\n"
     "threads. Columns are by prepared position: boxes float64 (N, 4) x, y, w, h (None with\n"
     "`sim`); groups, ranks, offsets int64; flags uint8; areas, scores float64; dt_extra\n"
     "uint8 or None; sim float64 in pair_up order with sim_off (K + 1), or None; codes int8\n"
     "(TP, FP, ignored). Returns one tuple per category: precision (T, R, A, M), recall\n"
     "(T, A, M), scores (T, R, A, M), order (D,), npig (A,), match0 int32 (T, D), code0 (T, D)\n"
     "(area range 0, rank order) and, with `full`, match (A, T, D), gt_ignore (A, G),\n"
     "dt_ignore, tp, fp (A, T, D). `gt_rows` int64 by GT position (each < 2**31), or None:\n"
     "match0 then holds gt_rows at the matched position (-1: none), not the slice position.\n"
     "`evidence` false: match0 and code0 are left empty (0, 0) (the curves alone)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_match",
    "COCOeval's box IoU, greedy matching and accumulation in C (see _match.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__match(void)
{
    import_array();
    return PyModule_Create(&module);
}
