/* libFuzzer target: one image reader of cuda-convolve, picked at build time
 * by FUZZ_FORMAT (1 pfm, 2 pnm, 3 pam).  The input's first two bytes are
 * forced to that reader's magic (a real file keeps its own), so the fuzzer
 * spends its time past the magic and the seed corpus is plain image files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imageio.h"

static char
magic (uint8_t byte)
{
#if FUZZ_FORMAT == 1
  return byte == 'f' || byte == 'F' ? byte : (byte & 1) ? 'F' : 'f';
#elif FUZZ_FORMAT == 2
  static const char pnm[4] = { '2', '3', '5', '6' };
  return memchr (pnm, byte, 4) ? byte : pnm[byte % 4];
#else
  return '7';
#endif
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  uint8_t *buf = malloc (size < 2 ? 2 : size);
  size_t n = size < 2 ? 2 : size;
  IoImage im;
  char error[512] = "";

  if (!buf)
    return 0;
  memcpy (buf, data, size);
  buf[0] = 'P';
  buf[1] = magic (size > 1 ? data[1] : 0);

  if (io_read_memory (buf, n, &im, error, sizeof error))
    {
      /* Whatever is read is a consistent image. */
      const CcImage *ci = &im.image;

      if (ci->width < 1 || ci->height < 1 || ci->channels < 1 || ci->channels > 4 ||
          ci->stride != ci->width * ci->channels * (int64_t) cc_type_size (ci->type) ||
          !ci->data)
        abort ();
      io_free (&im);
    }
  else if (!error[0])
    abort ();      /* refused without a reason */
  free (buf);
  return 0;
}
