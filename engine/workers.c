/* A pool of threads that runs one loop at a time: the GPU path's staging
 * copies between the caller's pageable memory and page-locked buffers,
 * which one thread moves at a fifth of what the memory can (docs:
 * performance.md).  The threads start with the pool and wait between loops,
 * so a loop costs a wake-up, not a thread's start.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdlib.h>

#include "engine.h"

struct _CcWorkers
{
  pthread_mutex_t lock;
  pthread_cond_t  start;      /* a new loop, or the end */
  pthread_cond_t  finished;   /* a part is done */
  pthread_t      *threads;
  int             n_threads;
  bool            quit;
  uint64_t        loop;       /* which loop the fields below are */
  CcWorkFn        fn;
  void           *data;
  int64_t         n;
  int             parts;
  int             next;       /* the next part to take */
  int             done;       /* parts run */
};

/* Takes and runs parts of the current loop; called with the lock held. */
static void
take_parts (CcWorkers *w)
{
  while (w->next < w->parts)
    {
      const int part = w->next++;
      const int64_t begin = w->n * part / w->parts, end = w->n * (part + 1) / w->parts;

      pthread_mutex_unlock (&w->lock);
      w->fn (begin, end, w->data);
      pthread_mutex_lock (&w->lock);
      if (++w->done == w->parts)
        pthread_cond_signal (&w->finished);
    }
}

static void *
worker (void *data)
{
  CcWorkers *w = data;
  uint64_t seen = 0;

  pthread_mutex_lock (&w->lock);
  for (;;)
    {
      while (!w->quit && w->loop == seen)
        pthread_cond_wait (&w->start, &w->lock);
      if (w->quit)
        break;
      seen = w->loop;
      take_parts (w);
    }
  pthread_mutex_unlock (&w->lock);
  return NULL;
}

CcWorkers *
cc_workers_new (int threads)
{
  CcWorkers *w = calloc (1, sizeof *w);

  if (!w)
    return NULL;
  pthread_mutex_init (&w->lock, NULL);
  pthread_cond_init (&w->start, NULL);
  pthread_cond_init (&w->finished, NULL);
  w->threads = calloc (threads > 0 ? (size_t) threads : 1, sizeof *w->threads);
  for (int i = 0; w->threads && i < threads; i++)
    {
      if (pthread_create (&w->threads[i], NULL, worker, w) != 0)
        break;   /* fewer threads: the caller's does the rest */
      w->n_threads++;
    }
  return w;
}

void
cc_workers_free (CcWorkers *w)
{
  if (!w)
    return;
  pthread_mutex_lock (&w->lock);
  w->quit = true;
  pthread_cond_broadcast (&w->start);
  pthread_mutex_unlock (&w->lock);
  for (int i = 0; i < w->n_threads; i++)
    pthread_join (w->threads[i], NULL);
  pthread_cond_destroy (&w->start);
  pthread_cond_destroy (&w->finished);
  pthread_mutex_destroy (&w->lock);
  free (w->threads);
  free (w);
}

void
cc_workers_run (CcWorkers *w, int64_t n, int64_t grain, CcWorkFn fn, void *data)
{
  int64_t parts = grain > 0 ? (n + grain - 1) / grain : n;

  if (n <= 0)
    return;
  if (!w || w->n_threads == 0 || parts <= 1)
    {
      fn (0, n, data);
      return;
    }
  if (parts > w->n_threads + 1)
    parts = w->n_threads + 1;
  pthread_mutex_lock (&w->lock);
  w->fn = fn;
  w->data = data;
  w->n = n;
  w->parts = (int) parts;
  w->next = 0;
  w->done = 0;
  w->loop++;
  pthread_cond_broadcast (&w->start);
  take_parts (w);
  while (w->done < w->parts)
    pthread_cond_wait (&w->finished, &w->lock);
  pthread_mutex_unlock (&w->lock);
}
