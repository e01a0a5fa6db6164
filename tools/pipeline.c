/* The tool's read / convolve / write pipeline (pipeline.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "estimate.h"
#include "pipeline.h"

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  changed;
  Job            *item;
  bool            full;
} Slot;

static void
slot_put (Slot *q, Job *job)
{
  pthread_mutex_lock (&q->lock);
  while (q->full)
    pthread_cond_wait (&q->changed, &q->lock);
  q->item = job;
  q->full = true;
  pthread_cond_broadcast (&q->changed);
  pthread_mutex_unlock (&q->lock);
}

static Job *
slot_take (Slot *q)
{
  Job *job;

  pthread_mutex_lock (&q->lock);
  while (!q->full)
    pthread_cond_wait (&q->changed, &q->lock);
  job = q->item;
  q->full = false;
  pthread_cond_broadcast (&q->changed);
  pthread_mutex_unlock (&q->lock);
  return job;
}

typedef struct
{
  Job            *jobs;
  int             n_jobs;
  const Settings *settings;
  Slot            decoded;
  Slot            computed;
  /* The progress line, on a terminal. */
  pthread_mutex_t print_lock;
  bool            tty;
  int             done;
  int             failed;
  const char     *current;
} Run;

static void
progress_draw (Run *run)
{
  if (run->tty && run->n_jobs > 1)
    fprintf (stderr, "\r\033[K[%d/%d] %s", run->done, run->n_jobs,
             run->current ? run->current : "");
}

static void *
decoder (void *data)
{
  Run *run = data;

  for (int i = 0; i < run->n_jobs; i++)
    {
      job_decode (&run->jobs[i]);
      slot_put (&run->decoded, &run->jobs[i]);
    }
  slot_put (&run->decoded, NULL);
  return NULL;
}

static void
report (Run *run, Job *job)
{
  const CcResult *r = &job->result;
  struct rusage usage;
  char estimate[256];

  estimate_format (&job->estimate, false, estimate, sizeof estimate);
  pthread_mutex_lock (&run->print_lock);
  run->done++;
  if (run->tty && run->n_jobs > 1)
    fputs ("\r\033[K", stderr);
  if (job->failed)
    {
      run->failed++;
      fprintf (stderr, "cuda-convolve: %s\n", job->error);
    }
  else if (run->settings->verbose && !run->settings->batch)
    {
      if (job->estimated)
        printf ("estimate: %s (%.3f ms)\n", estimate, job->estimate_ms);
      printf ("method: %s\ndevice: %s\n", cc_method_name (r->method_used), r->device);
      if (r->kernel[0])
        printf ("kernels: %s\n", r->kernel);
      printf ("time: %.3f ms (upload %.3f, kernel %.3f, download %.3f) in %d strip%s\n",
              r->total_ms, r->upload_ms, r->kernel_ms, r->download_ms, r->strips,
              r->strips == 1 ? "" : "s");
      if (r->message[0])
        printf ("note: %s\n", r->message);
      if (getrusage (RUSAGE_SELF, &usage) == 0)
        printf ("peak host memory: %.1f MB\n", usage.ru_maxrss / 1024.0);
    }
  else if (run->settings->verbose)
    {
      if (job->estimated)
        printf ("%s: estimate: %s (%.3f ms)\n", job->out, estimate, job->estimate_ms);
      printf ("%s: %s on %s, %.3f ms\n", job->out, cc_method_name (r->method_used), r->device,
              r->total_ms);
    }
  progress_draw (run);
  pthread_mutex_unlock (&run->print_lock);
}

static void *
encoder (void *data)
{
  Run *run = data;
  Job *job;

  while ((job = slot_take (&run->computed)))
    {
      job_encode (job);
      report (run, job);
      free (job->out);
      job->out = NULL;
    }
  return NULL;
}

int
run_jobs (Job *jobs, int n_jobs, const Settings *settings)
{
  Run run = { .jobs = jobs, .n_jobs = n_jobs, .settings = settings,
              .tty = isatty (STDERR_FILENO) };
  pthread_t read_thread, write_thread;
  Job *job;

  pthread_mutex_init (&run.decoded.lock, NULL);
  pthread_cond_init (&run.decoded.changed, NULL);
  pthread_mutex_init (&run.computed.lock, NULL);
  pthread_cond_init (&run.computed.changed, NULL);
  pthread_mutex_init (&run.print_lock, NULL);
  pthread_create (&read_thread, NULL, decoder, &run);
  pthread_create (&write_thread, NULL, encoder, &run);
  while ((job = slot_take (&run.decoded)))
    {
      pthread_mutex_lock (&run.print_lock);
      run.current = job->in;
      progress_draw (&run);
      pthread_mutex_unlock (&run.print_lock);
      job_compute (job, settings);
      slot_put (&run.computed, job);
    }
  slot_put (&run.computed, NULL);
  pthread_join (read_thread, NULL);
  pthread_join (write_thread, NULL);
  if (run.tty && n_jobs > 1)
    fprintf (stderr, "\r\033[K%d file%s, %d failed\n", n_jobs, n_jobs == 1 ? "" : "s",
             run.failed);
  return run.failed ? 1 : 0;
}

