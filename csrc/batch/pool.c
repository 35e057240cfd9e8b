// SPDX-License-Identifier: Apache-2.0
// The batch's thread pool: nthread workers created with the pool and joined when it is freed.
//
// A run publishes (fn, ctx, n) under the mutex, bumps the generation counter and broadcasts;
// worker t runs chunk t, [n t / T, n (t+1) / T), then decrements `pending`, and the last one
// signals the caller, which sleeps on `done` meanwhile. The chunk rule depends only on n and T, so
// which thread computes a world never changes its result (worlds share nothing writable). With
// nthread == 0 the caller runs the single chunk itself and no thread exists.
#include <pthread.h>
#include <stdlib.h>

#include "px/pxbatch.h"

typedef struct {
  pxPool* pool;
  int index;
} workerArg;

struct pxPool_ {
  int nthread;
  pthread_t* threads;
  workerArg* args;
  int nstarted;  // threads actually created (for joining after a failed make)

  pthread_mutex_t mutex;
  pthread_cond_t start;  // workers wait here for a new generation or stop
  pthread_cond_t done;   // the caller waits here for pending == 0
  unsigned long generation;
  int pending;
  int stop;

  // the current run
  pxfTask fn;
  void* ctx;
  int n;
};

// the first world of chunk t of T over n worlds
static int chunkBegin(int n, int t, int T) {
  return (int)(((long long)n * t) / T);
}

static void* workerMain(void* argp) {
  workerArg* arg = (workerArg*)argp;
  pxPool* p = arg->pool;
  int t = arg->index;
  unsigned long seen = 0;
  pthread_mutex_lock(&p->mutex);
  for (;;) {
    while (!p->stop && p->generation == seen) pthread_cond_wait(&p->start, &p->mutex);
    if (p->stop) break;
    seen = p->generation;
    pxfTask fn = p->fn;
    void* ctx = p->ctx;
    int n = p->n, T = p->nthread;
    pthread_mutex_unlock(&p->mutex);

    // this worker's chunk, outside the lock
    int begin = chunkBegin(n, t, T), end = chunkBegin(n, t + 1, T);
    if (begin < end) fn(ctx, begin, end, t);

    pthread_mutex_lock(&p->mutex);
    if (--p->pending == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mutex);
  return NULL;
}

pxPool* pxb_poolMake(int nthread, pxStatus* st) {
  if (nthread < 0 || nthread > PX_MAXTHREAD) {
    PX_FAIL(st, PX_ERR_ARG, "num_threads must be in [0, %d], got %d", PX_MAXTHREAD, nthread);
    return NULL;
  }
  pxPool* p = (pxPool*)calloc(1, sizeof(pxPool));
  if (!p) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating a thread pool");
    return NULL;
  }
  p->nthread = nthread;
  if (nthread == 0) return p;
  p->threads = (pthread_t*)calloc((size_t)nthread, sizeof(pthread_t));
  p->args = (workerArg*)calloc((size_t)nthread, sizeof(workerArg));
  if (!p->threads || !p->args) {
    pxb_poolFree(p);
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating a thread pool");
    return NULL;
  }
  pthread_mutex_init(&p->mutex, NULL);
  pthread_cond_init(&p->start, NULL);
  pthread_cond_init(&p->done, NULL);
  for (int t = 0; t < nthread; t++) {
    p->args[t].pool = p;
    p->args[t].index = t;
    if (pthread_create(&p->threads[t], NULL, workerMain, &p->args[t]) != 0) {
      pxb_poolFree(p);
      PX_FAIL(st, PX_ERR_NOMEM, "could not start thread %d of %d", t + 1, nthread);
      return NULL;
    }
    p->nstarted++;
  }
  return p;
}

void pxb_poolRun(pxPool* p, pxfTask fn, void* ctx, int n) {
  if (n <= 0) return;
  if (p->nthread == 0) {
    fn(ctx, 0, n, 0);
    return;
  }
  pthread_mutex_lock(&p->mutex);
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  p->pending = p->nthread;
  p->generation++;
  pthread_cond_broadcast(&p->start);
  while (p->pending > 0) pthread_cond_wait(&p->done, &p->mutex);
  pthread_mutex_unlock(&p->mutex);
}

void pxb_poolFree(pxPool* p) {
  if (!p) return;
  if (p->nthread > 0 && p->threads && p->args) {
    pthread_mutex_lock(&p->mutex);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mutex);
    for (int t = 0; t < p->nstarted; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->start);
    pthread_mutex_destroy(&p->mutex);
  }
  free(p->threads);
  free(p->args);
  free(p);
}
