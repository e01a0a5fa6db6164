/* The CPU path's last step, which its direct tiles (cpu.c) and its FFTW
 * tiles (cpu-fft.c) share: a row of results stored in the output's samples,
 * the channels kept copied from the source; and when two passes pay.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include "cpu.h"
#include "samples.h"

/* Two passes pay once the mask is 5x5 or so (h + w well under h * w). */
bool
cc_cpu_two_passes_pay (int width, int height)
{
  return width > 1 && height > 1 && 2 * (width + height) <= width * height;
}

void
cc_cpu_store_row_from (const CcJob *job, int64_t x0, int64_t y, int64_t tw, const float *out,
                       const char *src_row)
{
  const CcImage *src = job->src, *dst = job->dst;
  const int C = job->channels;
  char *out_row = (char *) dst->data + y * dst->stride;

  if (job->transfer)
    cc_samples_encode (out, tw * C, C, job->colour, job->transfer,
                       out_row + x0 * C * cc_type_size (dst->type));
  else
    cc_samples_from_float (out, tw * C, dst->type, out_row + x0 * C * cc_type_size (dst->type));
  for (int c = 0; c < C; c++)
    if (job->mode[c] == CC_MODE_COPY)
      for (int64_t x = 0; x < tw; x++)
        cc_sample_set (out_row, dst->type, (x0 + x) * C + c,
                       cc_sample_get (src_row, src->type, (job->out_x + x0 + x) * C + c));
}

void
cc_cpu_store_row (const CcJob *job, int64_t x0, int64_t y, int64_t tw, const float *out)
{
  cc_cpu_store_row_from (job, x0, y, tw, out,
                         (const char *) job->src->data + (job->out_y + y) * job->src->stride);
}
