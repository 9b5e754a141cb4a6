/* Splitting work over [0, n) across threads (included by _rle.c, _oks.c and _voc.c; each module
 * compiles its own static copy). The caller releases the GIL first; `work` touches no Python
 * object. Include after <Python.h>.
 */
#ifndef VOCVIEWER_KERNEL_THREADS_H
#define VOCVIEWER_KERNEL_THREADS_H

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 8

typedef void (*RangeWork)(void *ctx, Py_ssize_t lo, Py_ssize_t hi);
typedef struct {
    RangeWork work;
    void *ctx;
    Py_ssize_t lo, hi;
} RangeJob;

static void *range_job(void *arg)
{
    RangeJob *job = (RangeJob *)arg;
    job->work(job->ctx, job->lo, job->hi);
    return NULL;
}

/* Threads worth starting for n items, at least `per_thread` each: 1 .. min(cores, MAX_THREADS). */
static int thread_count(Py_ssize_t n, Py_ssize_t per_thread)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long by_work = (long)(n / per_thread);
    long k = cores < by_work ? cores : by_work;
    if (k > MAX_THREADS) k = MAX_THREADS;
    return k < 1 ? 1 : (int)k;
}

/* Run `work(ctx, lo, hi)` over [0, n) in equal shares on thread_count(n, per_thread) threads,
 * this one included; a share whose thread cannot be started runs here. */
static void split_range(RangeWork work, void *ctx, Py_ssize_t n, Py_ssize_t per_thread)
{
    int k = thread_count(n, per_thread);
    pthread_t threads[MAX_THREADS];
    RangeJob jobs[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 0; t < k; t++) {
        jobs[t] = (RangeJob){work, ctx, n * t / k, n * (t + 1) / k};
        if (t > 0) started[t] = pthread_create(&threads[t], NULL, range_job, &jobs[t]) == 0;
    }
    range_job(&jobs[0]);
    for (int t = 1; t < k; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else range_job(&jobs[t]);
    }
}

#endif
