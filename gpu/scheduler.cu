/* The scheduler: a convolution's run on the GPU, in strips: each strip's
 * rows gathered onto the device with the vertical border resolved (staged
 * through page-locked memory when the caller's is pageable), converted to
 * float, convolved, converted back and copied out, up to LANES strips in
 * flight on their own streams.  Deconvolution's steps (kernels/deconvolve.cu,
 * kernels/wiener.cu) queue on the legacy default stream, which waits for
 * these streams and they for it: one job at a time, under the context's lock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.cuh"

pthread_mutex_t cc_constant_mask_lock = PTHREAD_MUTEX_INITIALIZER;

/* What the launchers named for the job this thread runs (cc_kernel_ran),
 * and whether they queued a kernel that may fall back. */
static __thread const char *kernel_ran;
static __thread bool may_fall_back;

void
cc_kernel_ran (const char *kernels)
{
  kernel_ran = kernels;
}

void
cc_kernel_may_fall_back (void)
{
  may_fall_back = true;
}

/* How the job's buffers are laid out on the device. */
typedef struct
{
  bool    direct_in;      /* the source is float on the device: read it in place */
  bool    direct_out;     /* the output is float on the device: write it in place */
  size_t  raw_in_row;     /* bytes a row of each buffer; 0 = not needed */
  size_t  float_in_row;
  size_t  float_out_row;
  size_t  raw_out_row;
  size_t  pass_row;       /* separable: a row of the row pass's output */
  size_t  pass_fixed;     /* separable on a device source: all its rows at once */
  bool    fft;            /* planes for the transform, sized per strip */
  bool    fft_work;       /* and as much again for cuFFT's work area */
  int     halo;           /* ry: extra input rows above and below a strip */
  int64_t strip;          /* output rows a strip */
  int     lanes;          /* strips in flight */
  bool    stage_in;       /* the source is pageable host memory: staged */
  bool    stage_out;      /* the output is pageable host memory: staged */
  size_t  host_out_row;   /* bytes a row the device sends back to the host */
  bool    exact_after;    /* the exact kernel follows, where a NaN was seen */
} Plan;

/* Pipelined strips of about this many host bytes each, at most this many
 * strips for the pipeline's sake, and at most this much staging a lane. */
#define PIPE_STRIP_BYTES (4u << 20)
#define PIPE_STRIPS      8
#define STAGE_MAX_BYTES  (64u << 20)

/* Each buffer starts on a 256-byte boundary, whatever the sample size. */
static size_t
align_up (size_t bytes)
{
  return (bytes + 255) & ~(size_t) 255;
}

/* Page-locked staging a lane needs for a strip of 'rows' output rows. */
static size_t
stage_bytes (const Plan *p, int64_t rows)
{
  return (p->stage_in ? align_up ((rows + 2 * p->halo) * p->raw_in_row) : 0) +
         (p->stage_out ? rows * p->host_out_row : 0);
}

static size_t
plan_bytes (const Plan *p, int64_t rows)
{
  const int64_t in_rows = rows + 2 * p->halo;

  return align_up (in_rows * p->raw_in_row) + align_up (in_rows * p->float_in_row) +
         align_up (rows * p->float_out_row) + align_up (rows * p->raw_out_row) +
         align_up (in_rows * p->pass_row + p->pass_fixed);
}

/* What a strip of 'rows' output rows needs on the device, the transform's
 * planes included, and cuFFT's work area (about as large) where the
 * context transforms fft's rows with cuFFT. */
static size_t
strip_bytes (const Plan *p, const CcJob *job, int64_t rows)
{
  size_t b = plan_bytes (p, rows);

  if (p->fft && rows > 0)
    b += (p->fft_work ? 2 : 1) *
         align_up (cc_fft_bytes (job, (int) job->dst->width, (int) rows));
  return b;
}

/* The job's buffers a strip, and how its images come and go. */
static void
plan_layout (struct _CcGpu *g, const CcKernels *k, const CcJob *job, int max_lanes, Plan *p)
{
  const CcImage *src = job->src, *dst = job->dst;
  const size_t C = job->channels;

  memset (p, 0, sizeof *p);
  p->direct_in  = src->on_device && src->type == CC_TYPE_FLOAT;
  p->direct_out = dst->on_device && dst->type == CC_TYPE_FLOAT;
  p->halo = p->direct_in ? 0 : (job->mask_height - 1) / 2;
  if (!p->direct_in)
    {
      p->raw_in_row = src->width * C * cc_type_size (src->type);
      if (src->type != CC_TYPE_FLOAT)
        p->float_in_row = src->width * C * sizeof (float);
    }
  if (!p->direct_out)
    {
      p->float_out_row = dst->width * C * sizeof (float);
      if (!dst->on_device && dst->type != CC_TYPE_FLOAT)
        p->raw_out_row = dst->width * C * cc_type_size (dst->type);
    }
  p->fft = k->planes;
  p->fft_work = p->fft && g->fft_cufft;
  /* Only floating-point samples (half, float, double) can be infinite or
   * NaN.  A followed job's planes hold finite values (the deconvolution
   * reads a non-finite sample as 0), and the exact kernel would write past
   * the step. */
  p->exact_after = (src->type == CC_TYPE_FLOAT || src->type == CC_TYPE_HALF ||
                    src->type == CC_TYPE_DOUBLE) && k->reach_past && k->reach_past (g, job) &&
                   job->follow.step == CC_FOLLOW_NONE;
  if (k->passes && job->mask_width > 1 && job->mask_height > 1 &&
      !(k->one_pass && k->one_pass (g, job)))
    {
      /* The row pass filters every input row the column pass reads: on a
       * device source that is all of them, in one strip. */
      if (p->direct_in)
        p->pass_fixed = (size_t) dst->width * C * sizeof (float) * src->height;
      else
        p->pass_row = dst->width * C * sizeof (float);
    }

  if (!dst->on_device)
    p->host_out_row = p->raw_out_row ? p->raw_out_row : p->float_out_row;
  p->stage_in = g->pipeline && !src->on_device && !cc_gpu_host_pinned (src->data);
  p->stage_out = g->pipeline && !dst->on_device && !cc_gpu_host_pinned (dst->data);
  p->lanes = !g->pipeline || (src->on_device && dst->on_device) || k->one_lane ? 1
                                                                               : max_lanes;
}

/* The device bytes a lane may take: what is free, with what this context
 * already holds, less room for the runtime, within 'budget'. */
static size_t
plan_limit (const struct _CcGpu *g, uint64_t budget, const Plan *p)
{
  size_t free_bytes = 0, total = 0, limit;

  cudaMemGetInfo (&free_bytes, &total);
  limit = free_bytes;
  for (int l = 0; l < LANES; l++)
    limit += g->lane[l].scratch_bytes;
  limit = limit > (64u << 20) ? limit - (64u << 20) : 0;
  if (budget && budget < limit)
    limit = budget;
  return limit / p->lanes;
}

/* Shorter strips where lanes overlap them or staging bounds them. */
static void
plan_pipeline (const CcJob *job, Plan *p)
{
  const CcImage *dst = job->dst;

  if (p->lanes > 1)
    {
      /* Enough strips to overlap transfers with kernels, not so many that
       * launches and halo rows cost more than they save. */
      const size_t bytes = (p->raw_in_row + p->host_out_row) * dst->height;
      int64_t pipe = (int64_t) (bytes / PIPE_STRIP_BYTES), rows;

      pipe = pipe < 1 ? 1 : pipe > PIPE_STRIPS ? PIPE_STRIPS : pipe;
      rows = (dst->height + pipe - 1) / pipe;
      /* fft's strips a whole number of its tiles, so that they transform
       * no more rows than one strip would. */
      if (p->fft)
        rows = cc_fft_strip_rows (job, rows);
      if (rows < p->strip)
        p->strip = rows;
    }
  if ((p->stage_in || p->stage_out) && !p->pass_fixed)
    {
      const size_t row = (p->stage_in ? p->raw_in_row : 0) + p->host_out_row;
      const int64_t rows = (int64_t) (STAGE_MAX_BYTES / (row ? row : 1)) - 2 * p->halo;

      p->strip = rows < 1 ? 1 : rows < p->strip ? rows : p->strip;
    }
  if (p->lanes > (dst->height + p->strip - 1) / p->strip)
    p->lanes = (int) ((dst->height + p->strip - 1) / p->strip);
}

/* How the job runs: its buffers, and its strips' rows and lanes within the
 * device memory it may take; out of memory where one strip does not fit. */
static CcStatus
make_plan (struct _CcGpu *g, uint64_t budget, CcMethod method, const CcJob *job,
           int max_lanes, Plan *p, CcResult *r)
{
  const CcImage *dst = job->dst;
  size_t limit, per_row, fixed;

  plan_layout (g, cc_methods[method].kernels, job, max_lanes, p);
  limit = plan_limit (g, budget, p);
  per_row = p->raw_in_row + p->float_in_row + p->float_out_row + p->raw_out_row +
            p->pass_row;
  fixed = plan_bytes (p, 0) + 5 * 256;   /* the halo rows, and alignment */
  if (per_row == 0 || p->pass_fixed)
    {
      p->strip = dst->height;
      if (plan_bytes (p, p->strip) > limit)
        return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                        "not enough device memory: %s needs %.1f MB, %.1f MB are available%s",
                        cc_method_name (method), plan_bytes (p, p->strip) / 1048576.0,
                        limit / 1048576.0, budget ? " under the device budget" : "");
    }
  else if (limit <= fixed || (p->strip = (limit - fixed) / per_row) < 1)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                    "not enough device memory: one output row needs %.1f MB, %.1f MB are "
                    "available%s",
                    (fixed + per_row) / 1048576.0, limit / 1048576.0,
                    budget ? " under the device budget" : "");
  if (p->strip > dst->height)
    p->strip = dst->height;
  plan_pipeline (job, p);
  /* The transform's planes grow with the strip: shrink it until they fit. */
  while (p->fft && p->strip > 1 && strip_bytes (p, job, p->strip) > limit)
    p->strip = p->strip * 3 / 4;
  if (strip_bytes (p, job, p->strip) > limit)
    return cc_fail (r, CC_ERROR_OUT_OF_MEMORY,
                    "not enough device memory: %s needs %.1f MB for one strip, %.1f MB "
                    "are available%s", cc_method_name (method),
                    strip_bytes (p, job, p->strip) / 1048576.0, limit / 1048576.0,
                    budget ? " under the device budget" : "");
  return CC_OK;
}

/* Staging copies between the caller's pageable rows and a lane's
 * page-locked buffer, a range of rows on each of the workers' threads. */
typedef struct
{
  const CcJob *job;
  const Plan  *p;
  int64_t      first;   /* the source row (before the border) of staged row 0 */
  char        *stage;
  char        *out;     /* the caller's output rows, for results */
} Staging;

static void
stage_in_rows (int64_t begin, int64_t end, void *data)
{
  const Staging *st = (const Staging *) data;
  const CcImage *src = st->job->src;
  const size_t row = st->p->raw_in_row;

  for (int64_t r = begin; r < end; r++)
    {
      const int64_t my = cc_border_index (st->first + r, src->height, st->job->border);

      if (my < 0)
        memset (st->stage + r * row, 0, row);
      else
        memcpy (st->stage + r * row, (const char *) src->data + my * src->stride, row);
    }
}

static void
stage_out_rows (int64_t begin, int64_t end, void *data)
{
  const Staging *st = (const Staging *) data;
  const size_t row = st->p->host_out_row;

  for (int64_t r = begin; r < end; r++)
    memcpy (st->out + r * st->job->dst->stride, st->stage + r * row, row);
}

/* Rows a staging thread takes at least: a few hundred KB, so that waking
 * it costs less than it copies. */
static int64_t
stage_grain (size_t row)
{
  return (int64_t) ((256u << 10) / (row ? row : 1)) + 1;
}

/* The strip's input rows for gather_rows, and the first error. */
typedef struct
{
  const CcJob *job;
  const Plan  *p;
  char        *to;
  cudaStream_t stream;
  cudaError_t  err;
} Gather;

/* A run of consecutive source rows (or of ghost rows, zeroed) in one async
 * copy. */
static bool
gather_run (int64_t at, int64_t from, int64_t rows, void *data)
{
  Gather *g = (Gather *) data;
  const CcImage *src = g->job->src;
  const size_t row = g->p->raw_in_row;
  char *to = g->to + at * row;

  g->err = from < 0
           ? cudaMemset2DAsync (to, row, 0, row, rows, g->stream)
           : cudaMemcpy2DAsync (to, row, (const char *) src->data + from * src->stride,
                                src->stride, row, rows, cudaMemcpyDefault, g->stream);
  return g->err == cudaSuccess;
}

/* Copies the strip's input rows, vertical border resolved, into 'to' on the
 * device with async copies. */
static cudaError_t
gather_rows (const CcJob *job, const Plan *p, int64_t y0, int64_t rows, char *to,
             cudaStream_t stream)
{
  Gather g = { job, p, to, stream, cudaSuccess };

  cc_border_runs (job->out_y + y0 - p->halo, rows, job->src->height, (CcBorder) job->border,
                  gather_run, &g);
  return g.err;
}

static float
elapsed (const Lane *lane, int a, int b)
{
  float ms = 0.0f;

  cudaEventElapsedTime (&ms, lane->ev[a], lane->ev[b]);
  return ms;
}

/* A kernel that stops at a trap: the sticky error that leaves the process's
 * CUDA context unusable, for the fault tests (CUDA_CONVOLVE_FAULT=trap). */
static __global__ void
fault_trap (void)
{
  __trap ();
}

static cudaError_t
launch (struct _CcGpu *g, const CcKernels *k, Lane *lane, const CcJob *job, const ConvArgs &a,
        float *pass, float *planes)
{
  if (cc_fault ("launch"))
    return cudaErrorLaunchFailure;
  if (cc_fault ("trap"))
    {
      fault_trap<<<1, 1, 0, lane->stream>>> ();
      return cudaStreamSynchronize (lane->stream);
    }
  return k->launch (g, lane, job, a, pass, planes);
}

DevTransfer
cc_dev_transfer (const char *block, const CcTransfer *t, int colour)
{
  const char *host = (const char *) t->steps;
  DevTransfer d;

  d.steps = (const CcTransferStep *) block;
  d.to_linear = (const float *) (block + ((const char *) t->to_linear - host));
  d.midpoints = (const float *) (block + ((const char *) t->midpoints - host));
  d.codes = t->codes;
  d.buckets = t->buckets;
  d.single = t->single;
  d.curves = t->curves;
  d.colour = colour;
  return d;
}

/* Puts a transfer's tables on the device, unless they are there from the
 * last call (a plug-in's bands and a preview repeat one). */
static cudaError_t
upload_transfer (struct _CcGpu *g, const CcTransfer *t)
{
  cudaError_t err;

  if (g->transfer_serial == t->serial)
    return cudaSuccess;
  g->transfer_serial = 0;
  if (g->transfer_bytes < t->bytes)
    {
      cudaFree (g->transfer);
      g->transfer = NULL;
      g->transfer_bytes = 0;
      if ((err = cudaMalloc ((void **) &g->transfer, t->bytes)) != cudaSuccess)
        return err;
      g->transfer_bytes = t->bytes;
    }
  if ((err = cudaMemcpyAsync (g->transfer, t->steps, t->bytes, cudaMemcpyHostToDevice,
                              g->stream)) != cudaSuccess)
    return err;
  g->transfer_serial = t->serial;
  return cudaSuccess;
}

/* A strip's buffers in its lane's scratch and staging, as plan_bytes
 * sizes them. */
typedef struct
{
  int64_t  in_rows;      /* the strip's rows and its halo rows */
  char    *raw_in;
  float   *float_in;
  float   *float_out;
  char    *raw_out;
  float   *pass;
  float   *planes;
  char    *stage_out;
  char    *dst_rows;     /* the strip's first output row */
} StripBuffers;

static void
strip_buffers (const CcJob *job, const Plan *p, const Lane *lane, int64_t y0, int64_t rows,
               StripBuffers *b)
{
  b->in_rows = rows + 2 * p->halo;
  b->raw_in = (char *) lane->scratch;
  b->float_in = (float *) (b->raw_in + align_up (b->in_rows * p->raw_in_row));
  b->float_out = (float *) ((char *) b->float_in + align_up (b->in_rows * p->float_in_row));
  b->raw_out = (char *) b->float_out + align_up (rows * p->float_out_row);
  b->pass = (float *) (b->raw_out + align_up (rows * p->raw_out_row));
  b->planes = (float *) ((char *) b->pass +
                         align_up (b->in_rows * p->pass_row + p->pass_fixed));
  b->stage_out = lane->stage + (p->stage_in ? align_up (b->in_rows * p->raw_in_row) : 0);
  b->dst_rows = (char *) job->dst->data + y0 * job->dst->stride;
}

/* The strip's source rows onto the device (staged where pageable) and to
 * float, or read in place from a float device source; sets a->src. */
static cudaError_t
strip_up (struct _CcGpu *g, const CcJob *job, const Plan *p, Lane *lane,
          const StripBuffers *b, int64_t y0, ConvArgs *a)
{
  const CcImage *src = job->src;
  const int C = job->channels;
  cudaError_t err = cudaSuccess;

  if (p->direct_in)
    {
      a->src = DevImage { (float *) src->data, src->stride / 4, (int) src->width,
                          (int) src->height };
      a->out_y = (int) (job->out_y + y0);
      a->border_y = job->border;
    }
  else
    {
      if (p->stage_in)
        {
          /* The lane is idle (finish_strip), so its staging is free. */
          Staging st = { job, p, job->out_y + y0 - p->halo, lane->stage, NULL };

          cc_workers_run (g->stagers, b->in_rows, stage_grain (p->raw_in_row), stage_in_rows,
                          &st);
          err = cudaMemcpyAsync (b->raw_in, lane->stage, b->in_rows * p->raw_in_row,
                                 cudaMemcpyHostToDevice, lane->stream);
        }
      else
        err = gather_rows (job, p, y0, b->in_rows, b->raw_in, lane->stream);
      if (err != cudaSuccess)
        return err;
      a->src = DevImage { (float *) b->raw_in, src->width * C, (int) src->width,
                          (int) b->in_rows };
      a->out_y = p->halo;
      a->border_y = CC_BORDER_EXTEND;   /* never reached: every row is there */
    }
  cudaEventRecord (lane->ev[1], lane->stream);

  if (!p->float_in_row)
    return cudaSuccess;
  if (job->transfer)
    err = cc_convert_to_linear (src->type, b->raw_in, src->width * C, b->float_in,
                                src->width * C, src->width * C, (int) b->in_rows, C,
                                cc_dev_transfer (g->transfer, job->transfer, job->colour),
                                lane->stream);
  else
    err = cc_convert_to_float (src->type, b->raw_in, src->width * C, b->float_in,
                               src->width * C, src->width * C, (int) b->in_rows, lane->stream);
  a->src.data = b->float_in;
  return err;
}

/* The strip's float output back to the output's samples, on the device. */
static cudaError_t
strip_convert_back (struct _CcGpu *g, const CcJob *job, const Plan *p, const StripBuffers *b,
                    int64_t rows, cudaStream_t stream)
{
  const CcImage *src = job->src, *dst = job->dst;
  const int C = job->channels;
  /* Copied channels come bit for bit from the source when types match. */
  const bool same = !p->direct_in && src->type == dst->type;
  const size_t tsize = cc_type_size (dst->type);
  const void *copy = same ? b->raw_in + p->halo * p->raw_in_row + job->out_x * C * tsize
                          : NULL;
  void *out = dst->on_device ? (void *) b->dst_rows : (void *) b->raw_out;
  long long out_pitch = dst->on_device ? dst->stride / (long long) tsize : dst->width * C;

  if (job->transfer)
    return cc_convert_from_linear (dst->type, b->float_out, dst->width * C, out, out_pitch,
                                   dst->width * C, (int) rows, copy, src->width * C, C,
                                   job->mode,
                                   cc_dev_transfer (g->transfer, job->transfer, job->colour),
                                   stream);
  return cc_convert_from_float (dst->type, b->float_out, dst->width * C, out, out_pitch,
                                dst->width * C, (int) rows, copy, src->width * C, C,
                                job->mode, stream);
}

/* The strip's output rows to a host output (through staging where
 * pageable), and its fallbacks' counts where they may have changed. */
static cudaError_t
strip_down (const CcJob *job, const Plan *p, Lane *lane, const StripBuffers *b, int64_t rows)
{
  const CcImage *dst = job->dst;
  cudaError_t err;

  if (!dst->on_device)
    {
      const char *from = p->raw_out_row ? b->raw_out : (const char *) b->float_out;

      if (p->stage_out)
        err = cudaMemcpyAsync (b->stage_out, from, rows * p->host_out_row,
                               cudaMemcpyDeviceToHost, lane->stream);
      else
        err = cudaMemcpy2DAsync (b->dst_rows, dst->stride, from, p->host_out_row,
                                 p->host_out_row, rows, cudaMemcpyDefault, lane->stream);
      if (err != cudaSuccess)
        return err;
    }
  if (p->exact_after || may_fall_back)
    return cudaMemcpyAsync (lane->ran, &lane->claims->ran, sizeof *lane->ran,
                            cudaMemcpyDeviceToHost, lane->stream);
  return cudaSuccess;
}

/* Queues one strip, output rows y0 .. y0 + rows - 1, on a lane: upload,
 * conversion, kernels, conversion back, download.  A pageable source is
 * staged here, on the caller's thread, while other lanes keep the GPU busy. */
static cudaError_t
start_strip (struct _CcGpu *g, const CcKernels *k, const CcJob *job, const Plan *p,
             Lane *lane, ConvArgs a, int64_t y0, int64_t rows)
{
  const CcImage *dst = job->dst;
  const int C = job->channels;
  const cudaStream_t stream = lane->stream;
  StripBuffers b;
  cudaError_t err;

  strip_buffers (job, p, lane, y0, rows, &b);
  lane->y0 = y0;
  lane->rows = rows;
  lane->strip_rows = p->strip;
  a.claims = lane->claims;
  a.nan = p->exact_after ? &lane->claims->nan : NULL;
  cudaEventRecord (lane->ev[0], stream);
  if ((err = strip_up (g, job, p, lane, &b, y0, &a)) != cudaSuccess)
    return err;

  if (p->direct_out)
    a.dst = DevImage { (float *) b.dst_rows, dst->stride / 4, (int) dst->width, (int) rows };
  else
    a.dst = DevImage { b.float_out, dst->width * C, (int) dst->width, (int) rows };
  a.follow = job->follow.step;
  a.with = job->follow.with ? job->follow.with + y0 * (dst->stride / 4) : NULL;
  a.vec4 = ((uintptr_t) a.src.data % 16 == 0) && (a.src.pitch % 4 == 0);
  if ((err = launch (g, k, lane, job, a, b.pass, b.planes)) != cudaSuccess ||
      (a.nan && (err = cc_exact_launch (a, g->facts, stream)) != cudaSuccess))
    return err;
  if (!p->direct_out && (dst->on_device || p->raw_out_row) &&
      (err = strip_convert_back (g, job, p, &b, rows, stream)) != cudaSuccess)
    return err;
  cudaEventRecord (lane->ev[2], stream);
  if ((err = strip_down (job, p, lane, &b, rows)) != cudaSuccess)
    return err;
  cudaEventRecord (lane->ev[3], stream);
  return cudaSuccess;
}

/* Waits for a lane's strip, copies a staged result out and counts it. */
static cudaError_t
finish_strip (struct _CcGpu *g, const CcJob *job, const Plan *p, Lane *lane, CcResult *r)
{
  const CcImage *dst = job->dst;
  const int64_t rows = lane->rows;
  cudaError_t err;

  if (rows == 0)
    return cudaSuccess;
  lane->rows = 0;
  if ((err = cudaStreamSynchronize (lane->stream)) != cudaSuccess)
    return err;
  if (p->stage_out)
    {
      Staging st = { job, p, 0,
                     lane->stage + (p->stage_in ? align_up ((rows + 2 * p->halo) *
                                                            p->raw_in_row) : 0),
                     (char *) dst->data + lane->y0 * dst->stride };

      cc_workers_run (g->stagers, rows, stage_grain (p->host_out_row), stage_out_rows, &st);
    }
  r->upload_ms   += elapsed (lane, 0, 1);
  r->kernel_ms   += elapsed (lane, 1, 2);
  r->download_ms += elapsed (lane, 2, 3);
  r->strips++;
  return cudaSuccess;
}

/* A lane's page-locked staging, grown to 'bytes' and kept. */
static cudaError_t
lane_stage (Lane *lane, size_t bytes)
{
  cudaError_t err;

  if (bytes <= lane->stage_bytes)
    return cudaSuccess;
  cudaFreeHost (lane->stage);
  lane->stage = NULL;
  lane->stage_bytes = 0;
  if ((err = cudaHostAlloc ((void **) &lane->stage, bytes, cudaHostAllocPortable)) !=
      cudaSuccess)
    return err;
  lane->stage_bytes = bytes;
  return cudaSuccess;
}

/* Device buffers and staging for each lane, kept for the next call. */
static cudaError_t
lanes_reserve (struct _CcGpu *g, const CcJob *job, const Plan *p)
{
  const size_t need = strip_bytes (p, job, p->strip), stage = stage_bytes (p, p->strip);
  cudaError_t err;

  for (int l = 0; l < p->lanes; l++)
    {
      Lane *lane = &g->lane[l];

      if (need > lane->scratch_bytes)
        {
          cudaFree (lane->scratch);
          lane->scratch = NULL;
          lane->scratch_bytes = 0;
          if ((err = cudaMalloc (&lane->scratch, need)) != cudaSuccess)
            return err;
          lane->scratch_bytes = need;
        }
      if ((err = lane_stage (lane, stage)) != cudaSuccess)
        return err;
    }
  return cudaSuccess;
}

static ConvArgs
conv_args (struct _CcGpu *g, const CcJob *job)
{
  ConvArgs a;

  memset (&a, 0, sizeof a);
  a.out_x       = (int) job->out_x;
  a.channels    = job->channels;
  a.alpha       = job->alpha;
  a.weighted    = job->weighted;
  memcpy (a.mode, job->mode, sizeof a.mode);
  a.mask_width  = job->mask_width;
  a.mask_height = job->mask_height;
  a.border_x    = job->border;
  a.inv_divisor = job->inv_divisor;
  a.offset      = job->offset;
  a.sum_abs     = job->sum_abs;
  a.clamp       = job->clamp;
  a.mask        = g->mask;
  return a;
}

/* Waits for everything this context queued; drops the strips in flight. */
static cudaError_t
lanes_sync (struct _CcGpu *g)
{
  cudaError_t err = cudaStreamSynchronize (g->stream);

  for (int l = 0; l < LANES; l++)
    {
      cudaError_t e = cudaStreamSynchronize (g->lane[l].stream);

      g->lane[l].rows = 0;
      if (err == cudaSuccess)
        err = e;
    }
  return err;
}

/* After a failure: a sticky error leaves the context unusable, so later calls
 * are told so at once (and 'auto' takes the CPU). */
static CcStatus
gpu_failed (struct _CcGpu *g, cudaError_t err, CcResult *r)
{
  CcStatus status = cc_gpu_status_of (err);

  cudaGetLastError ();
  if (lanes_sync (g) != cudaSuccess)
    cc_gpu_set_status (g, CC_ERROR_GPU, "the GPU failed earlier: %s", cudaGetErrorString (err));
  return cc_fail (r, status == CC_ERROR_OUT_OF_MEMORY ? status : CC_ERROR_GPU,
                  "%s on the GPU: %s", status == CC_ERROR_OUT_OF_MEMORY ?
                  "out of memory" : "error", cudaGetErrorString (err));
}

/* CcResult.kernel: what the launchers named, then each fallback whose
 * count moved in any lane (their copies, once every lane is done). */
static void
name_kernels (const struct _CcGpu *g, int lanes, CcResult *r)
{
  Fallbacks ran = { 0, 0, 0 };

  for (int l = 0; l < lanes; l++)
    {
      const Fallbacks *f = g->lane[l].ran, *b = &g->lane[l].ran_before;

      ran.redo |= f->redo != b->redo;
      ran.exact |= f->exact != b->exact;
      ran.fft_exact |= f->fft_exact != b->fft_exact;
    }
  snprintf (r->kernel, sizeof r->kernel, "%s%s%s%s", kernel_ran,
            ran.redo ? ", FP32 redo" : "", ran.fft_exact ? ", exact pixels" : "",
            ran.exact ? ", exact kernel" : "");
}

/* The job's mask (and the exact kernel's, where it follows) and transfer
 * tables on the device before any lane reads them. */
static cudaError_t
set_up_job (struct _CcGpu *g, const CcKernels *k, const CcJob *job, const Plan *p)
{
  cudaError_t err = k->set_mask ? k->set_mask (g, job) : cudaSuccess;

  /* The exact kernel reads the mask where basic does. */
  if (err == cudaSuccess && p->exact_after)
    err = cc_kernels_basic.set_mask (g, job);
  if (err == cudaSuccess && job->transfer)
    err = upload_transfer (g, job->transfer);
  for (int l = 0; l < p->lanes; l++)
    g->lane[l].ran_before = *g->lane[l].ran;
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (g->stream);
  return err;
}

/* The job's strips, strip i on lane i % lanes: a lane's previous strip is
 * finished (and its result copied out) before the lane takes the next.  A
 * cancel sets 'status'; the strips in flight are then waited for, their
 * results dropped. */
static cudaError_t
run_strips (struct _CcGpu *g, const CcKernels *k, const CcJob *job, const Plan *p,
            const ConvArgs &a, CcStatus *status, CcResult *r)
{
  cudaError_t err = cudaSuccess;
  int64_t y0, i;

  for (y0 = 0, i = 0; err == cudaSuccess && y0 < job->dst->height; y0 += p->strip, i++)
    {
      Lane *lane = &g->lane[i % p->lanes];
      int64_t rows = job->dst->height - y0 < p->strip ? job->dst->height - y0 : p->strip;

      if ((err = finish_strip (g, job, p, lane, r)) != cudaSuccess)
        return err;
      if (i >= p->lanes && cc_job_tick (job, (double) y0 / job->dst->height))
        {
          *status = cc_fail (r, CC_ERROR_CANCELLED, "cancelled");
          return lanes_sync (g);
        }
      err = start_strip (g, k, job, p, lane, a, y0, rows);
    }
  /* The strips in flight, oldest first (gpu_failed waits for them after a
   * failure). */
  for (int l = 0; l < p->lanes && err == cudaSuccess; l++)
    err = finish_strip (g, job, p, &g->lane[(i + l) % p->lanes], r);
  return err;
}

extern "C" CcStatus
cc_gpu_run (struct _CcGpu *g, uint64_t budget, CcMethod method, const CcJob *job,
            CcResult *r)
{
  const CcKernels *k;
  CcStatus status;
  cudaError_t err;
  Plan p;
  ConvArgs a;

  if ((status = cc_gpu_check (g, method, job, r->message, sizeof r->message)) != CC_OK)
    return r->status = status;
  k = cc_methods[method].kernels;
  r->message[0] = '\0';      /* the check leaves the device's name there */
  /* Lanes share the memory: where that is too tight, one lane. */
  if ((status = make_plan (g, budget, method, job, LANES, &p, r)) == CC_ERROR_OUT_OF_MEMORY)
    status = make_plan (g, budget, method, job, 1, &p, r);
  if (status != CC_OK)
    return status;
  r->message[0] = '\0';
  r->status = CC_OK;
  if (cc_job_tick (job, 0.0))
    return cc_fail (r, CC_ERROR_CANCELLED, "cancelled");
  if ((status = cc_gpu_wait_modules (g, k->modules, job, r)) != CC_OK)
    return status;

  if (cc_fault ("alloc"))
    return gpu_failed (g, cudaErrorMemoryAllocation, r);
  if ((p.stage_in || p.stage_out) && !g->stagers)
    g->stagers = cc_workers_new (g->stage_threads);
  if ((err = lanes_reserve (g, job, &p)) != cudaSuccess)
    return gpu_failed (g, err, r);

  r->method_used = method;
  snprintf (r->device, sizeof r->device, "%s", g->name);
  kernel_ran = cc_method_name (method);
  may_fall_back = false;
  a = conv_args (g, job);

  if (k->constant)
    pthread_mutex_lock (&cc_constant_mask_lock);
  if ((err = set_up_job (g, k, job, &p)) == cudaSuccess)
    err = run_strips (g, k, job, &p, a, &status, r);
  if (err != cudaSuccess)
    status = gpu_failed (g, err, r);
  else if (status == CC_OK)
    {
      name_kernels (g, p.lanes, r);
      cc_job_tick (job, 1.0);
    }
  if (k->constant)
    pthread_mutex_unlock (&cc_constant_mask_lock);   /* every lane is finished */
  return status;
}

/* A piece of rows between the caller's pageable rows and a lane's
 * page-locked buffer, on the stagers' threads. */
typedef struct
{
  char  *stage, *host;
  size_t stride, row;
  bool   up;
} RowPiece;

static void
copy_piece_rows (int64_t begin, int64_t end, void *data)
{
  const RowPiece *pc = (const RowPiece *) data;

  for (int64_t r = begin; r < end; r++)
    if (pc->up)
      memcpy (pc->stage + r * pc->row, pc->host + r * pc->stride, pc->row);
    else
      memcpy (pc->host + r * pc->stride, pc->stage + r * pc->row, pc->row);
}

/* Pieces of STAGED_PIECE bytes: large enough that a crossing outlasts its
 * launch, small enough that the first and last pieces' copies, which
 * nothing overlaps, stay short. */
#define STAGED_PIECE (8u << 20)

/* Piece k of 'rows' through lane k % 2: its rows, its piece and buffer. */
static RowPiece
piece_of (struct _CcGpu *g, char *host, size_t stride, size_t row, int64_t rows, int64_t piece,
          int64_t k, bool up, int64_t *y, int64_t *n, Lane **lane)
{
  *lane = &g->lane[k % 2];
  *y = k * piece;
  *n = rows - *y < piece ? rows - *y : piece;
  return RowPiece { (*lane)->stage, host + *y * stride, stride, row, up };
}

/* Up: piece k is copied into its lane's buffer once that lane's last
 * crossing is done, and crosses while piece k + 1 is copied. */
static cudaError_t
rows_up (struct _CcGpu *g, char *device, char *host, size_t stride, size_t row, int64_t rows,
         int64_t piece, int64_t pieces)
{
  cudaError_t err = cudaSuccess;

  for (int64_t k = 0; k < pieces && err == cudaSuccess; k++)
    {
      int64_t y, n;
      Lane *lane;
      RowPiece pc = piece_of (g, host, stride, row, rows, piece, k, true, &y, &n, &lane);

      if ((err = cudaStreamSynchronize (lane->stream)) != cudaSuccess)
        break;
      cc_workers_run (g->stagers, n, stage_grain (row), copy_piece_rows, &pc);
      err = cudaMemcpyAsync (device + y * row, lane->stage, (size_t) n * row,
                             cudaMemcpyHostToDevice, lane->stream);
    }
  return err;
}

/* Down: piece k + 1 crosses while piece k is copied out. */
static cudaError_t
rows_down (struct _CcGpu *g, char *device, char *host, size_t stride, size_t row,
           int64_t rows, int64_t piece, int64_t pieces)
{
  cudaError_t err = cudaSuccess;

  for (int64_t k = -1; k < pieces && err == cudaSuccess; k++)
    {
      int64_t y, n;
      Lane *lane;

      if (k + 1 < pieces)
        {
          piece_of (g, host, stride, row, rows, piece, k + 1, false, &y, &n, &lane);
          if ((err = cudaMemcpyAsync (lane->stage, device + y * row, (size_t) n * row,
                                      cudaMemcpyDeviceToHost, lane->stream)) != cudaSuccess)
            break;
        }
      if (k >= 0)
        {
          RowPiece pc = piece_of (g, host, stride, row, rows, piece, k, false, &y, &n, &lane);

          if ((err = cudaStreamSynchronize (lane->stream)) == cudaSuccess)
            cc_workers_run (g->stagers, n, stage_grain (row), copy_piece_rows, &pc);
        }
    }
  return err;
}

cudaError_t
cc_gpu_copy_rows (struct _CcGpu *g, char *device, char *host, size_t stride, size_t row,
                  int64_t rows, bool up)
{
  const int64_t piece = (int64_t) (STAGED_PIECE / row) + 1;
  const int64_t pieces = (rows + piece - 1) / piece;
  bool staged = g->pipeline && pieces >= 2 && !cc_gpu_host_pinned (host);
  cudaError_t err = cudaSuccess;

  /* Without page-locked room the driver stages the pageable rows itself. */
  for (int l = 0; l < 2 && staged; l++)
    if (lane_stage (&g->lane[l], (size_t) piece * row) != cudaSuccess)
      {
        cudaGetLastError ();
        staged = false;
      }
  if (!staged)
    return up ? cudaMemcpy2D (device, row, host, stride, row, (size_t) rows,
                              cudaMemcpyHostToDevice)
              : cudaMemcpy2D (host, stride, device, row, row, (size_t) rows,
                              cudaMemcpyDeviceToHost);
  if (!g->stagers)
    g->stagers = cc_workers_new (g->stage_threads);
  err = up ? rows_up (g, device, host, stride, row, rows, piece, pieces)
           : rows_down (g, device, host, stride, row, rows, piece, pieces);
  for (int l = 0; l < 2; l++)
    {
      const cudaError_t done = cudaStreamSynchronize (g->lane[l].stream);

      err = err == cudaSuccess ? done : err;
    }
  return err;
}
