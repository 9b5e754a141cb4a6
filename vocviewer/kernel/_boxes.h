/* What the matching kernels share (included by _match.c and _greedy.c; each module compiles
 * its own static copy): numpy arguments, the +1-rule box overlap and the best-overlap search.
 *
 * Include after <Python.h> and <numpy/arrayobject.h>.
 */
#ifndef VOCVIEWER_KERNEL_BOXES_H
#define VOCVIEWER_KERNEL_BOXES_H

#include <math.h>
#include <stdint.h>

/* A C-contiguous aligned array of `type` from `obj` (a new reference; NULL with an error). */
static PyArrayObject *as_array(PyObject *obj, int type)
{
    return (PyArrayObject *)PyArray_FROMANY(obj, type, 0, 0,
                                            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
}

/* The overlap of boxes b and q (x1, y1, x2, y2) in core/boxes.overlap_pairs' expression order
 * (VOCevaldet.m:79-87; one = 1 for inclusive pixel sizes, 0 without; fmin / fmax skip NaN as
 * numpy's fmin and MATLAB's min do): 1 with *ov set if the pair is considered (iw > 0 and
 * ih > 0), else 0. A NaN coordinate may still give a considered pair, with a NaN overlap. */
static inline int pair_overlap(const double *b, const double *q, double one, double *ov)
{
    double iw = fmin(b[2], q[2]) - fmax(b[0], q[0]) + one;
    double ih = fmin(b[3], q[3]) - fmax(b[1], q[1]) + one;
    if (!(iw > 0 && ih > 0))
        return 0;
    double inter = iw * ih;
    double ua = (b[2] - b[0] + one) * (b[3] - b[1] + one)
                + (q[2] - q[0] + one) * (q[3] - q[1] + one) - inter;
    *ov = inter / ua;
    return 1;
}

/* The best-overlap search: for each detection i (image im[i]), over the objects of its image
 * (rows of[im[i]] .. of[im[i] + 1] - 1, ascending), the overlap of pair_overlap, counting only
 * considered pairs; the first object of the largest overlap wins (strict '>': a NaN overlap
 * never does). Without kd, one row of results; with kd (uint8 per object), three: kind 0,
 * kind 1, kind != 0. Writes bo / bv (rows x d, -1 / NaN where none); returns 0, or 1 if an
 * image or offset is out of range. Runs without the GIL. */
static inline int best_scan(const int64_t *im, npy_intp d, const int64_t *of, npy_intp n_off,
                            const double *db, const double *gb, npy_intp g, const uint8_t *kd,
                            double one, int64_t *bo, double *bv)
{
    const int rows = kd ? 3 : 1;
    for (npy_intp i = 0; i < d; i++) {
        int64_t k = im[i];
        if (k < 0 || k + 1 >= n_off) return 1;
        int64_t lo = of[k], hi = of[k + 1];
        if (lo < 0 || hi > g || lo > hi) return 1;
        const double *b = db + 4 * i;
        int64_t found[3] = {-1, -1, -1};
        double top[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int64_t j = lo; j < hi; j++) {
            double ov;
            if (!pair_overlap(b, gb + 4 * j, one, &ov)) continue;
            int which[2] = {0, -1};
            if (kd) {
                which[0] = kd[j] == 0 ? 0 : 2;
                which[1] = kd[j] == 1 ? 1 : -1;
            }
            for (int w = 0; w < 2; w++) {
                int r = which[w];
                if (r >= 0 && ov > top[r]) { top[r] = ov; found[r] = j; }
            }
        }
        for (int r = 0; r < rows; r++) {
            bo[r * d + i] = found[r];
            bv[r * d + i] = found[r] >= 0 ? top[r] : NAN;
        }
    }
    return 0;
}

#endif
