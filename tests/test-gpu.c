/* The GPU methods against the gold: hand-computed results, the whole sweep
 * with host and device-resident images, strips, and concurrent callers;
 * with CHECK_REDUCED set, the reduced matrix for compute-sanitizer.
 * Skips (77) where no GPU is usable, saying why.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "check.h"
#include "engine.h"

/* 'auto' must take the GPU when there is one. */
static void
test_auto_takes_gpu (CcContext *ctx)
{
  float in[3 * 5] = { 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f,
                      0.1f, 0.2f, 0.3f, 0.4f, 0.5f }, out[15];
  double m[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  CcImage src = { in, CC_TYPE_FLOAT, 1, 5, 3, 20, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 1, 5, 3, 20, false };
  CcMask mask = { 3, 3, m, 9.0, 0.0 };
  CcOptions o;
  CcResult r;

  cc_options_init (&o);
  CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
         cc_method_is_gpu (r.method_used) &&
         strcmp (r.device, cc_context_device_name (ctx)) == 0,
         "auto used %s on '%s'", cc_method_name (r.method_used), r.device);
}

/* Each gate that picks a kernel within a method takes the path it should
 * (CcResult.kernel says which ran): register's 3x3, tensor 9x9 and column
 * kernels, separable's one pass (on tensor cores from 27x27) and two
 * passes.  The tensor kernels need compute capability 8.0. */
static void
test_kernels_named (CcContext *ctx)
{
  static const struct
  {
    CcMethod method;
    int w, h, channels;
    bool weighted, rank1, tensor;
    const char *kernels;
  } cases[] = {
    { CC_METHOD_REGISTER, 3, 3, 4, false, false, false, "register 3x3" },
    { CC_METHOD_REGISTER, 3, 3, 3, false, false, false, "register" },
    { CC_METHOD_REGISTER, 3, 3, 4, true, false, false, "register" },
    { CC_METHOD_REGISTER, 1, 9, 4, false, false, false, "register column" },
    { CC_METHOD_REGISTER, 9, 9, 4, false, false, true, "register tensor 9x9" },
    { CC_METHOD_REGISTER, 9, 9, 4, true, false, false, "register" },
    { CC_METHOD_REGISTER, 9, 9, 3, false, false, false, "register" },
    { CC_METHOD_SEPARABLE, 7, 7, 4, false, true, false, "separable one pass" },
    { CC_METHOD_SEPARABLE, 25, 25, 4, false, true, false, "separable one pass" },
    { CC_METHOD_SEPARABLE, 31, 31, 4, false, true, true, "separable one pass, tensor cores" },
    { CC_METHOD_SEPARABLE, 31, 31, 3, false, true, false, "separable two passes" },
    { CC_METHOD_SEPARABLE, 33, 33, 4, false, true, false, "separable two passes" },
    { CC_METHOD_FFT, 31, 31, 4, true, false, false, "fft, rows staged, columns staged" },
  };
  enum { W = 96, H = 64 };
  static float in[W * H * 4], out[W * H * 4];
  static double m[33 * 33];
  int major = 0;
  CcOptions o;
  CcResult r;

#ifdef HAVE_CUDA
  int device = 0;

  cudaGetDevice (&device);
  cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, device);
#endif
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    in[i] = (float) ((i * 37 % 101) / 100.0);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      const int w = cases[c].w, h = cases[c].h, C = cases[c].channels;
      CcImage src = { in, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcImage dst = { out, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
      CcMask mask = { w, h, m, 0.0, 0.0 };

      if (cases[c].tensor && major < 8)
        continue;
      /* A rank-1 product, or with its diagonal raised, a mask of full rank. */
      for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
          mask.divisor += m[j * w + i] = (1.0 + i % 3) * (1.0 + j % 2) +
                                         (!cases[c].rank1 && i == j);
      cc_options_init (&o);
      o.method = cases[c].method;
      o.has_alpha = C == 4;
      o.alpha_weighting = cases[c].weighted;
      /* The path named, then any fallback that computed something (a
       * weighted fft's exact pixels, by the data). */
      const size_t n = strlen (cases[c].kernels);

      CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
             strncmp (r.kernel, cases[c].kernels, n) == 0 &&
             (!r.kernel[n] || strncmp (r.kernel + n, ", ", 2) == 0),
             "%s, %dx%d, %d channels%s: ran '%s', not '%s' (%s)",
             cc_method_name (cases[c].method), w, h, C, cases[c].weighted ? ", weighted" : "",
             r.kernel, cases[c].kernels, r.message);
    }
}

/* 'auto' follows the method table's tuning (engine/methods.c), whatever
 * GPU it was tuned on: for rank-1 masks (boxes here) separable from its
 * taps bound, the lower one where its one pass takes the mask (one RGBA
 * term of a square mask up to 31x31, on a GPU with the shared memory for
 * it, as the H100 and H200 have); otherwise register up to its bound, fft
 * beyond.  Sizes on both sides of each bound, on three and four channels. */
static CcMethod
table_pick (int k, bool rank1, int channels)
{
  const CcMethodInfo *sep = &cc_methods[CC_METHOD_SEPARABLE];
  const int taps = cc_mask_width_class (k) * k;
  const bool one_pass = channels == 4 && k <= 31;

  if (rank1 && taps >= (one_pass ? sep->auto_min_taps_one_pass : sep->auto_min_taps))
    return CC_METHOD_SEPARABLE;
  if (taps <= cc_methods[CC_METHOD_REGISTER].auto_max_taps)
    return CC_METHOD_REGISTER;
  return CC_METHOD_FFT;
}

static void
test_auto_picks (CcContext *ctx)
{
  static float in[40 * 30 * 4], out[40 * 30 * 4];
  static double m[31 * 31];
  int picked[CC_METHOD_COUNT] = { 0 };
  CcOptions o;
  CcResult r;

  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    in[i] = (float) ((i * 37 % 101) / 100.0);
  cc_options_init (&o);
  for (int k = 3; k <= 31; k += 2)
    for (int rank1 = 0; rank1 < 2; rank1++)
      for (int C = 3; C <= 4; C++)
        {
          CcImage src = { in, CC_TYPE_FLOAT, C, 40, 30, 40 * C * 4, false };
          CcImage dst = { out, CC_TYPE_FLOAT, C, 40, 30, 40 * C * 4, false };
          CcMask mask = { k, k, m, 0.0, 0.0 };
          const CcMethod want = table_pick (k, rank1, C);

          /* A box, or with its diagonal raised, a mask of full rank. */
          for (int j = 0; j < k; j++)
            for (int i = 0; i < k; i++)
              mask.divisor += m[j * k + i] = 1.0 + (!rank1 && i == j);
          CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
                 r.method_used == want,
                 "auto on a %dx%d %s mask, %d channels, used %s, not %s (the table's)", k, k,
                 rank1 ? "rank-1" : "full-rank", C, cc_method_name (r.method_used),
                 cc_method_name (want));
          picked[want]++;
        }
  /* The sizes reach past each bound: each of the three is expected somewhere. */
  CHECK (picked[CC_METHOD_REGISTER] && picked[CC_METHOD_SEPARABLE] && picked[CC_METHOD_FFT],
         "auto's cases cover register, separable and fft: %d, %d, %d",
         picked[CC_METHOD_REGISTER], picked[CC_METHOD_SEPARABLE], picked[CC_METHOD_FFT]);
}

static void
test_strips (CcContext *ctx, const CcMethod *methods, int n, int n_shapes)
{
  static const int shapes[][2] = { { 9, 31 }, { 5, 5 }, { 1, 63 } };
  CcMethod direct[CC_METHOD_COUNT];
  int n_direct = 0;
  bool fft = false;

  /* fft's planes for alpha-weighted RGBA (twice the channels) need more
   * than the others' tiles: its own budget, still a few of its strips. */
  for (int m = 0; m < n; m++)
    if (methods[m] == CC_METHOD_FFT)
      fft = true;
    else
      direct[n_direct++] = methods[m];
  for (int pass = 0; pass < (fft ? 2 : 1); pass++)
    {
      cc_context_set_device_budget (ctx, pass == 0 ? 600 * 1024 : 2560 * 1024);
      for (int s = 0; s < n_shapes; s++)
        for (int b = 0; b < CC_BORDER_COUNT; b++)
          {
            CheckCase c;

            memset (&c, 0, sizeof c);
            c.mask_width = shapes[s][0];
            c.mask_height = shapes[s][1];
            c.src_width = 301;
            c.src_height = 203;
            c.out_x = 3;
            c.out_y = 4;
            c.out_width = 290;
            c.out_height = 197;
            c.channels = 4;
            c.alpha = c.alpha_weighting = c.affect_alpha = true;
            c.src_type = CC_TYPE_U8;
            c.dst_type = s == 1 ? CC_TYPE_U16 : CC_TYPE_U8;
            c.border = (CcBorder) b;
            c.clamp = true;
            c.min_strips = 4;
            if (pass == 0)
              check_case (ctx, &c, direct, n_direct);
            else
              check_case (ctx, &c, (const CcMethod[]) { CC_METHOD_FFT }, 1);
          }
    }

  /* Too small for one row: a GPU method says so, auto takes the CPU. */
  {
    uint8_t in[64 * 4], out[64 * 4];
    double m[3] = { 1, 2, 1 };
    CcImage src = { in, CC_TYPE_U8, 4, 8, 8, 32, false };
    CcImage dst = { out, CC_TYPE_U8, 4, 8, 8, 32, false };
    CcMask mask = { 3, 1, m, 4.0, 0.0 };
    CcOptions o;
    CcResult r;
    CcStatus st;

    memset (in, 7, sizeof in);
    cc_context_set_device_budget (ctx, 256);
    cc_options_init (&o);
    o.method = CC_METHOD_TILED;
    st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
    CHECK (st == CC_ERROR_OUT_OF_MEMORY && strstr (r.message, "device memory"),
           "tiled under a 256-byte budget: %s '%s'", cc_status_name (st), r.message);
    o.method = CC_METHOD_AUTO;
    st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
    CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU && strstr (r.message, "fell back"),
           "auto under a 256-byte budget: %s, %s, '%s'", cc_status_name (st),
           cc_method_name (r.method_used), r.message);
  }
  cc_context_set_device_budget (ctx, 0);
}

/* A float image of one mask shape against the gold, its border and clamping
 * by its place in a table; under all of 'methods' where the mask is a sum of
 * outer products, else under the first.  'reduced': it runs under
 * compute-sanitizer too. */
typedef struct
{
  int mask_width, mask_height, channels, width, height, rank, reduced;
  const char *kernel;   /* non-NULL: what must have run (CheckCase.kernel) */
} ImageCase;

static void
check_images (CcContext *ctx, const char *what, const ImageCase *images, int n, bool reduced,
              const CcMethod *methods, int n_methods)
{
  int failed = 0, cases = 0;

  for (int i = 0; i < n; i++)
    {
      CheckCase c;

      if (reduced && !images[i].reduced)
        continue;
      memset (&c, 0, sizeof c);
      c.mask_width = images[i].mask_width;
      c.mask_height = images[i].mask_height;
      c.src_width = c.out_width = images[i].width;
      c.src_height = c.out_height = images[i].height;
      c.channels = images[i].channels;
      c.src_type = c.dst_type = CC_TYPE_FLOAT;
      c.border = (CcBorder) (i % CC_BORDER_COUNT);
      c.clamp = i % 2;
      c.mask_rank = images[i].rank;
      c.kernel = images[i].kernel;
      failed += check_case (ctx, &c, methods, c.mask_rank ? n_methods : 1) ? 1 : 0;
      cases++;
    }
  printf ("%s: %d cases, %d failed\n", what, cases, failed);
}

/* Images with more tiles than the GPU holds blocks at once, so that each
 * block walks several tiles: its first two by its index, then claimed ones
 * (on an H100, the 1x31, 5x5, 7x7 RGBA and 9x9 RGBA walks and the 1D
 * signal claim), with its next tile prefetched into the second buffer
 * where two fit, most tiles loaded by the bulk-copy engine.  The sweep's
 * images give a block a tile or so.  The rank-1 RGBA ones take separable's
 * one pass over several steps and row segments, one for each count of
 * padded taps but 8 (the sweep's 3x3 to 7x7): 11x11 16, 19x19 24 (its
 * steps 24 rows); 27x27 and 31x31 run it on tensor cores, over several
 * bands and segments. */
static void
test_walks (CcContext *ctx, bool reduced)
{
  static const ImageCase walks[] = {
    { 3, 3, 4, 2300, 1100, 0, 0, NULL }, { 9, 9, 3, 1300, 900, 0, 0, NULL },
    { 15, 15, 2, 1000, 900, 0, 0, NULL }, { 25, 25, 1, 1400, 1000, 1, 0, NULL },
    { 25, 1, 1, 12000000, 1, 0, 0, NULL }, { 1, 31, 4, 700, 3000, 0, 1, NULL },
    { 5, 5, 3, 600, 2900, 0, 1, NULL }, { 7, 7, 1, 1700, 1500, 0, 0, NULL },
    { 7, 7, 4, 1900, 1300, 0, 0, NULL }, { 9, 9, 4, 1100, 1700, 0, 1, NULL },
    { 31, 31, 4, 400, 700, 1, 0, NULL }, { 11, 11, 4, 300, 600, 1, 1, NULL },
    { 19, 19, 4, 333, 517, 1, 1, NULL }, { 27, 27, 4, 700, 900, 1, 0, NULL }
  };
  static const CcMethod methods[] = { CC_METHOD_REGISTER, CC_METHOD_SEPARABLE };

  check_images (ctx, "walks", walks, sizeof walks / sizeof walks[0], reduced, methods, 2);
}

/* fft's overlap-save tiles, several to a side, of each power of two its cost
 * picks (256, 512, 1024, 2048; the sweep's images give one, or several of
 * 256), and a one-row mask's rank-1 transforms across 512-pixel tiles.
 * Rows 256 to 2048 wide go through fft_rows_in_registers, the others
 * fft_rows.  Tiles 256 to 1024 tall take fft_columns, whose blocks take a
 * tile's row spectra some columns at a time: 129 of them in groups of 32
 * (the last one column) and of 16, 8 in one of 16 (some warps idle, one
 * holding two columns), 10 in groups of 8; 2048 and 4096 tall, and under
 * 256, take fft_columns_staged (two columns a block, and one).  Each case
 * asserts the paths its tiles took (CcResult.kernel). */
#define BOTH_IN_REGISTERS "fft, rows in registers, columns in registers"
#define ROWS_IN_REGISTERS "fft, rows in registers, columns staged"
#define COLUMNS_IN_REGISTERS "fft, rows staged, columns in registers"
#define STAGED "fft, rows staged, columns staged"

static void
test_fft_tiles (CcContext *ctx, bool reduced)
{
  static const ImageCase tiles[] = {
    { 25, 25, 4, 600, 300, 0, 1, ROWS_IN_REGISTERS },    /* 256 across, under 256 down */
    { 15, 15, 3, 600, 700, 0, 1, BOTH_IN_REGISTERS },    /* 3 of 256 across and down */
    { 63, 3, 4, 1300, 12, 0, 1, ROWS_IN_REGISTERS },     /* 3 of 512 across, 64 down */
    { 3, 63, 3, 12, 1300, 0, 1, COLUMNS_IN_REGISTERS },  /* 3 of 512 down */
    { 9, 63, 1, 300, 1300, 0, 0, COLUMNS_IN_REGISTERS }, /* 3 of 128 across, 3 of 512 down */
    { 127, 5, 1, 2000, 9, 0, 0, ROWS_IN_REGISTERS },     /* 3 of 1024 across, 64 down */
    { 401, 3, 1, 3000, 9, 0, 1, ROWS_IN_REGISTERS },     /* 2 of 2048 across */
    { 5, 127, 2, 13, 2600, 0, 1, COLUMNS_IN_REGISTERS }, /* 3 of 1024 down */
    { 3, 127, 1, 7, 1900, 0, 0, STAGED },                /* 1 of 2048 down */
    { 3, 1023, 2, 5, 3000, 0, 0, STAGED },               /* 1 of 4096 down */
    { 31, 1, 2, 5000, 3, 0, 1, "fft, rows in registers only" } /* rank 1, 11 of 512 across */
  };
  static const CcMethod fft[] = { CC_METHOD_FFT };

  check_images (ctx, "fft tiles", tiles, sizeof tiles / sizeof tiles[0], reduced, fft, 1);
}

/* fft where a block may have 64 KB of shared memory, as on sm_75
 * (CUDA_CONVOLVE_SHARED_LIMIT makes this GPU say so): rows and columns
 * that would go through registers (72 to 83 KiB a block) take the staged
 * kernels, with the same results. */
static void
test_fft_small_shared (bool reduced)
{
  static const ImageCase tiles[] = {
    { 25, 25, 4, 600, 300, 0, 1, STAGED },          /* rows 256 wide, 128 down */
    { 15, 15, 3, 600, 700, 0, 1, STAGED },          /* 256 wide and down */
    { 3, 63, 3, 12, 1300, 0, 1, STAGED },           /* 512 down */
    { 5, 127, 2, 13, 2600, 0, 1, STAGED },          /* 1024 down */
    { 127, 5, 1, 2000, 9, 0, 1, STAGED },           /* rows 1024 wide */
    { 401, 3, 1, 3000, 9, 0, 1, STAGED },           /* rows 2048 wide */
    { 31, 1, 2, 5000, 3, 0, 1, "fft, rows staged only" } /* rows 512 wide */
  };
  static const CcMethod fft[] = { CC_METHOD_FFT };
  CcContext *small;
  char why[256];

  setenv ("CUDA_CONVOLVE_SHARED_LIMIT", "64K", 1);
  small = cc_context_new ();
  /* The status waits for the context's start, which reads the environment. */
  CHECK (cc_context_gpu_status (small, why, sizeof why) == CC_OK,
         "a context with 64 KB of shared memory a block: %s", why);
  unsetenv ("CUDA_CONVOLVE_SHARED_LIMIT");
  check_images (small, "fft in 64 KB", tiles, sizeof tiles / sizeof tiles[0], reduced, fft, 1);
  cc_context_free (small);
}

/* fft past the direct methods' 127x127, to 1023x1023, against the gold on
 * images small enough for it (it sums up to a million taps a sample): one
 * channel under the largest mask, alpha-weighted RGBA 8-bit (fft_exact
 * reads the mask from global memory), a one-row mask, strips under a
 * device budget, and an infinity in a float image (the exact kernel after
 * the transform, the mask again from global memory); each ran fft. */
static void
test_fft_large (CcContext *ctx, bool reduced)
{
  static const struct { int mw, mh, W, H, C; CcType type; bool weighted; CcBorder border;
                        uint64_t budget; int strips; } cases[] = {
    { 1023, 1023, 40, 30, 1, CC_TYPE_FLOAT, false, CC_BORDER_MIRROR, 0, 0 },
    { 129, 513, 48, 40, 4, CC_TYPE_U8, true, CC_BORDER_EXTEND, 0, 0 },
    { 1023, 1, 300, 5, 2, CC_TYPE_FLOAT, false, CC_BORDER_WRAP, 0, 0 },
    { 191, 191, 260, 180, 1, CC_TYPE_FLOAT, false, CC_BORDER_BLACK, 5u << 20, 2 },
  };
  static const CcMethod fft[] = { CC_METHOD_FFT };
  enum { W = 64, H = 40 };
  static float in[W * H], out[W * H];
  static double gold[W * H], m[255 * 255];
  CcImage src = { in, CC_TYPE_FLOAT, 1, W, H, W * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 1, W, H, W * 4, false };
  CcImage ref = { gold, CC_TYPE_DOUBLE, 1, W, H, W * 8, false };
  CcMask mask = { 255, 255, m, 0.0, 0.0 };
  CcOptions o;
  CcResult r;
  size_t first = 0;
  int failed = 0, runs = 0;

  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    {
      CheckCase c;

      if (reduced && cases[k].mw == 1023 && cases[k].mh == 1023)
        continue;
      memset (&c, 0, sizeof c);
      c.mask_width = cases[k].mw;
      c.mask_height = cases[k].mh;
      c.src_width = c.out_width = cases[k].W;
      c.src_height = c.out_height = cases[k].H;
      c.channels = cases[k].C;
      c.alpha = c.alpha_weighting = c.affect_alpha = cases[k].weighted;
      c.src_type = c.dst_type = cases[k].type;
      c.border = cases[k].border;
      c.clamp = cases[k].type != CC_TYPE_FLOAT;
      c.min_strips = cases[k].strips;
      cc_context_set_device_budget (ctx, cases[k].budget);
      failed += check_case (ctx, &c, fft, 1) ? 1 : 0;
      runs++;
    }
  cc_context_set_device_budget (ctx, 0);

  for (int i = 0; i < 255 * 255; i++)
    mask.divisor += m[i] = check_uniform (0.0, 1.0);
  for (int i = 0; i < W * H; i++)
    in[i] = (float) (0.5 + 0.3 * sin (i * 0.02) + check_uniform (-0.02, 0.02));
  in[17 * W + 30] = INFINITY;
  cc_options_init (&o);
  o.method = CC_METHOD_FFT;
  o.clamp = false;
  runs++;
  if (!CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK &&
              cc_convolve_gold (&src, 0, 0, &ref, &mask, &o) == CC_OK &&
              r.method_used == CC_METHOD_FFT && strstr (r.kernel, ", exact kernel"),
              "fft, 255x255, an infinity, the exact kernel after it: %s ran '%s', %s",
              cc_method_name (r.method_used), r.kernel, r.message))
    failed++;
  else
    {
      const int bad = check_off_gold (out, gold, W * H, 1e-4, &first);

      if (!CHECK (bad == 0, "fft, 255x255, an infinity: %d outputs off the gold, the first "
                  "(%d,%d): %g, gold %g", bad, (int) (first % W), (int) (first / W),
                  out[first], gold[first]))
        failed++;
    }
  printf ("fft past 127x127: %d cases, %d failed\n", runs, failed);
}

/* Separable's one pass keeps the row pass's output in shared memory, so it
 * asks no device memory for it: a device-resident RGBA image whose two
 * passes would need its 3.7 MB of filtered rows runs under a 1 MB budget,
 * equal to the gold.  Its rows 16-byte aligned, as the one pass reads a
 * device source in place (others take two passes). */
static void
test_one_pass_memory (CcContext *ctx)
{
  static const CcMethod separable[] = { CC_METHOD_SEPARABLE };
  CheckCase c;

  memset (&c, 0, sizeof c);
  c.mask_width = c.mask_height = 5;
  c.mask_rank = 1;
  c.src_width = c.out_width = 600;
  c.src_height = c.out_height = 400;
  c.channels = 4;
  c.src_type = c.dst_type = CC_TYPE_FLOAT;
  c.src_on_device = c.dst_on_device = true;
  c.row_pad = 16;
  c.border = CC_BORDER_MIRROR;
  c.clamp = true;
  cc_context_set_device_budget (ctx, 1 << 20);
  CHECK (check_case (ctx, &c, separable, 1) == 0,
         "separable's one pass under a 1 MB device budget");
  cc_context_set_device_budget (ctx, 0);
}

/* Register's 3x3 RGBA kernel on a float source on the device with 16-byte
 * aligned rows, which it reads in place: there it applies the border rules
 * down the image itself (a host image comes in strips that hold their
 * border rows).  Each border mode, a region inside a larger source, copied
 * alpha, and (not under compute-sanitizer) an image taller than the
 * kernel's grid of 65535 blocks of 32 rows, so that its blocks step down
 * by the grid.  Rows 4 bytes out of line take the tile kernel instead. */
static void
test_3x3 (CcContext *ctx, bool reduced)
{
  /* src w, h, then the output rectangle: x, y, w, h; bytes after a row */
  static const int64_t sizes[][7] = {
    { 37, 29, 0, 0, 37, 29, 16 }, { 70, 45, 5, 3, 33, 40, 16 }, { 37, 29, 0, 0, 37, 29, 4 },
    { 2, 2100000, 0, 0, 2, 2100000, 16 }
  };
  static const CcMethod methods[] = { CC_METHOD_REGISTER };
  int failed = 0, cases = 0;

  for (int s = 0; s < (reduced ? 3 : 4); s++)
    for (int b = 0; b < (s == 3 ? 1 : CC_BORDER_BLACK); b++)
      {
        CheckCase c;

        memset (&c, 0, sizeof c);
        c.mask_width = c.mask_height = 3;
        c.src_width = sizes[s][0];
        c.src_height = sizes[s][1];
        c.out_x = sizes[s][2];
        c.out_y = sizes[s][3];
        c.out_width = sizes[s][4];
        c.out_height = sizes[s][5];
        c.row_pad = (int) sizes[s][6];
        c.channels = 4;
        c.alpha = b % 2;            /* then copied, not convolved */
        c.affect_alpha = !c.alpha;
        c.src_type = c.dst_type = CC_TYPE_FLOAT;
        c.border = (CcBorder) (s == 3 ? CC_BORDER_MIRROR : b);
        c.clamp = b / 2;
        c.src_on_device = c.dst_on_device = true;
        c.kernel = c.row_pad % 16 == 0 ? "register 3x3" : "register";
        failed += check_case (ctx, &c, methods, 1) ? 1 : 0;
        cases++;
      }
  printf ("3x3: %d cases, %d failed\n", cases, failed);
}

/* Tensor kernels sum in half precision, which ends at 65520: register's
 * 9x9 RGBA kernel and separable's one pass for 27x27 to 31x31.  Samples
 * half precision holds they take (a column sum of the separable one may
 * still leave it); one of 1e5, an infinity or a NaN sends the job to the
 * FP32 kernel (register), or the blocks whose outputs it reaches do theirs
 * again in FP32 (separable: on an H200 the sample mid-image reaches two of
 * six blocks).  Each result against the gold, the bound scaled
 * by the largest sample, a non-finite output where the gold's is; then a
 * plain image again, after the fallback.  Clamped with every channel
 * convolved (the plain finish); unclamped with red kept (by each
 * channel's mode); unclamped, a zero border and the sample by the top left
 * corner (the border's ghosts in the FP32 redo).  The separable masks rank 1, so that the one pass takes
 * them; 'tap_scale' scales the mask, 1e-36 past what half precision's
 * taps can be scaled to. */
static void
test_half_range (CcContext *ctx, CcMethod method, int mw, int mh, bool rank1, double tap_scale,
                 const char *kernels)
{
  enum { W = 340, H = 70, C = 4, N = W * H * C };
  static const float odd[] = { 1000.0f, -30000.0f, 60000.0f, 1e5f, INFINITY, NAN, 0.0f };
  static float in[N], out[N];
  static double gold[N];
  double m[31 * 31], u[31], v[31], sum_abs = 0.0;
  CcImage src = { in, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
  CcImage dst = { out, CC_TYPE_FLOAT, C, W, H, W * C * 4, false };
  CcImage ref = { gold, CC_TYPE_DOUBLE, C, W, H, W * C * 8, false };
  CcMask mask = { mw, mh, m, 0.0, 0.0 };
  CcOptions o;
  CcResult r;

  for (int i = 0; i < mw; i++)
    v[i] = check_uniform (-0.5, 1.0);
  for (int j = 0; j < mh; j++)
    u[j] = check_uniform (-0.5, 1.0);
  for (int j = 0; j < mh; j++)
    for (int i = 0; i < mw; i++)
      sum_abs += fabs (m[j * mw + i] = (rank1 ? u[j] * v[i] : check_uniform (-0.5, 1.0)) *
                                        tap_scale);
  mask.divisor = sum_abs;
  cc_options_init (&o);
  o.method = method;
  for (size_t k = 0; k < 3 * (sizeof odd / sizeof odd[0]); k++)
    {
      const int set = (int) (k / (sizeof odd / sizeof odd[0]));
      /* A blue sample mid-image, or by the corner. */
      const int at = (set < 2 ? 37 * W + 150 : 3 * W + 5) * C + 2;
      const float sample = odd[k % (sizeof odd / sizeof odd[0])];
      const double scale = isfinite (sample) && fabs (sample) > 1.0 ? fabs (sample) : 1.0;
      static const char *const sets[] = { "clamped", "red kept", "zero border" };

      o.clamp = set == 0;
      o.keep_colour[0] = set == 1;
      o.border = set == 2 ? CC_BORDER_ZERO : CC_BORDER_EXTEND;
      for (int i = 0; i < N; i++)
        in[i] = (float) check_uniform (0.0, 1.0);
      in[at] = sample;
      CHECK (cc_convolve_gold (&src, 0, 0, &ref, &mask, &o) == CC_OK, "gold refused");
      if (!CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK,
                  "%s, %dx%d, a sample of %g: %s", cc_method_name (method), mw, mh, sample,
                  r.message))
        continue;
      const int bad = check_off_gold (out, gold, N, (1e-5 + 1e-6) * scale, NULL);

      CHECK (bad == 0, "%s, %dx%d RGBA, taps x %g, %s, a sample of %g: %d outputs off the gold",
             cc_method_name (method), mw, mh, tap_scale, sets[set], sample, bad);
      /* The FP32 redo where half precision cannot hold the sample, not where
       * it holds it with room; a sum near its end may go either way. */
      const bool redo = strstr (kernels, "tensor") &&
                        (!isfinite (sample) || fabs (sample) > 65520.0);
      const bool held = fabs (sample) <= 1000.0;
      char want[128];

      snprintf (want, sizeof want, "%s%s", kernels, redo ? ", FP32 redo" : "");
      CHECK (strcmp (r.kernel, want) == 0 || (!redo && !held && strstr (r.kernel, kernels) == r.kernel),
             "%s, %dx%d RGBA, taps x %g, a sample of %g: ran '%s', not '%s'",
             cc_method_name (method), mw, mh, tap_scale, sample, r.kernel, want);
    }
}

static void
test_tensor (CcContext *ctx)
{
  test_half_range (ctx, CC_METHOD_REGISTER, 9, 9, false, 1.0, "register tensor 9x9");
  test_half_range (ctx, CC_METHOD_SEPARABLE, 31, 31, true, 1.0,
                   "separable one pass, tensor cores");
  test_half_range (ctx, CC_METHOD_SEPARABLE, 27, 27, true, 1.0,
                   "separable one pass, tensor cores");
  /* Taps half precision's scaling cannot take: the FP32 one pass. */
  test_half_range (ctx, CC_METHOD_SEPARABLE, 31, 31, true, 1e-36, "separable one pass");
}

/* Injected faults: an allocation or a launch that fails.  An explicit GPU
 * method returns the error with the output untouched; auto takes the CPU,
 * says why, and gets the right result; afterwards the GPU works. */
static void
test_faults (CcContext *ctx)
{
  static const char *const faults[] = { "alloc", "launch" };
  float in[37 * 29 * 4], out[37 * 29 * 4], keep[37 * 29 * 4];
  double m[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  CcImage src = { in, CC_TYPE_FLOAT, 4, 37, 29, 37 * 16, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 4, 37, 29, 37 * 16, false };
  CcMask mask = { 3, 3, m, 16.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;

  for (int i = 0; i < 37 * 29 * 4; i++)
    in[i] = (float) check_uniform (0, 1);
  cc_options_init (&o);
  for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++)
    {
      setenv ("CUDA_CONVOLVE_FAULT", faults[f], 1);
      for (int i = 0; i < 37 * 29 * 4; i++)
        out[i] = keep[i] = -1.0f;
      o.method = CC_METHOD_REGISTER;
      st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
      CHECK (st == (f == 0 ? CC_ERROR_OUT_OF_MEMORY : CC_ERROR_GPU) &&
             memcmp (out, keep, sizeof out) == 0,
             "%s fault, register: %s '%s', output %s", faults[f], cc_status_name (st),
             r.message, memcmp (out, keep, sizeof out) ? "touched" : "untouched");
      o.method = CC_METHOD_AUTO;
      st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
      CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU && strstr (r.message, "fell back"),
             "%s fault, auto: %s, %s, '%s'", faults[f], cc_status_name (st),
             cc_method_name (r.method_used), r.message);
      unsetenv ("CUDA_CONVOLVE_FAULT");
    }
  /* The GPU is fine afterwards, and agrees with the gold. */
  {
    CheckCase c;
    static const CcMethod after[] = { CC_METHOD_REGISTER, CC_METHOD_AUTO };

    memset (&c, 0, sizeof c);
    c.mask_width = c.mask_height = 5;
    c.src_width = c.out_width = 37;
    c.src_height = c.out_height = 29;
    c.channels = 4;
    c.src_type = c.dst_type = CC_TYPE_U8;
    c.border = CC_BORDER_MIRROR;
    c.clamp = true;
    check_case (ctx, &c, after, 2);
  }
}

/* A trap in a kernel: a sticky error, after which no CUDA call in the
 * process succeeds.  The call that met it fails with the output untouched;
 * the context then says the GPU failed, explicit methods fail at once and
 * auto takes the CPU with the right result.  It breaks the process's CUDA
 * context, so it runs last. */
static void
test_trap (CcContext *ctx)
{
  float in[23 * 17 * 4], out[23 * 17 * 4], keep[23 * 17 * 4];
  double m[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  CcImage src = { in, CC_TYPE_FLOAT, 4, 23, 17, 23 * 16, false };
  CcImage dst = { out, CC_TYPE_FLOAT, 4, 23, 17, 23 * 16, false };
  CcMask mask = { 3, 3, m, 16.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;
  char why[256];

  for (int i = 0; i < 23 * 17 * 4; i++)
    {
      in[i] = (float) check_uniform (0, 1);
      out[i] = keep[i] = -1.0f;
    }
  cc_options_init (&o);
  o.method = CC_METHOD_REGISTER;
  setenv ("CUDA_CONVOLVE_FAULT", "trap", 1);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  unsetenv ("CUDA_CONVOLVE_FAULT");
  CHECK (st == CC_ERROR_GPU && memcmp (out, keep, sizeof out) == 0,
         "trap, register: %s '%s', output %s", cc_status_name (st), r.message,
         memcmp (out, keep, sizeof out) ? "touched" : "untouched");
  st = cc_context_gpu_status (ctx, why, sizeof why);
  CHECK (st == CC_ERROR_GPU && strstr (why, "failed"),
         "after the trap the context says: %s '%s'", cc_status_name (st), why);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_ERROR_GPU && memcmp (out, keep, sizeof out) == 0,
         "after the trap, register: %s '%s'", cc_status_name (st), r.message);
  o.method = CC_METHOD_AUTO;
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_OK && r.method_used == CC_METHOD_CPU && strstr (r.message, "no GPU used"),
         "after the trap, auto: %s, %s, '%s'", cc_status_name (st),
         cc_method_name (r.method_used), r.message);
  {
    float ref[23 * 17 * 4];
    CcImage gold = dst;

    gold.data = ref;
    o.method = CC_METHOD_CPU;
    cc_convolve (ctx, &src, 0, 0, &gold, &mask, &o, &r);
    CHECK (memcmp (out, ref, sizeof out) == 0, "after the trap, auto gives the CPU's result");
  }
}

/* Cancel through the engine's hook while strips are in flight on several
 * streams: the call stops and says so; the next call works. */
static void
test_cancel (CcContext *ctx)
{
  const int64_t w = 4096, h = 1024;
  uint8_t *in = malloc (w * h * 4), *out = malloc (w * h * 4);
  double m[25];
  CcImage src = { in, CC_TYPE_U8, 4, w, h, w * 4, false };
  CcImage dst = { out, CC_TYPE_U8, 4, w, h, w * 4, false };
  CcMask mask = { 5, 5, m, 25.0, 0.0 };
  CcOptions o;
  CcResult r;
  CcStatus st;
  CheckCancel c;

  for (int i = 0; i < 25; i++)
    m[i] = 1.0;
  for (int64_t i = 0; i < w * h * 4; i++)
    in[i] = (uint8_t) check_rand ();
  cc_options_init (&o);
  o.method = CC_METHOD_REGISTER;
  check_cancel_hooks (&o, &c, 2);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_ERROR_CANCELLED && r.strips < 8,
         "cancel with strips in flight: %s after %d strips", cc_status_name (st), r.strips);
  check_cancel_reset (&c, INT_MAX);
  st = cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r);
  CHECK (st == CC_OK && r.strips > 1, "after a cancel: %s, %d strips '%s'",
         cc_status_name (st), r.strips, r.message);
  free (in);
  free (out);
}

#ifdef HAVE_CUDA
/* Repeated calls reuse the context's buffers: device memory stays put, and
 * freeing the context gives it back. */
static void
test_no_leak (void)
{
  CcContext *ctx = cc_context_new ();
  static uint8_t in[301 * 203 * 4], out[301 * 203 * 4];
  double m[25];
  CcImage src = { in, CC_TYPE_U8, 4, 301, 203, 301 * 4, false };
  CcImage dst = { out, CC_TYPE_U8, 4, 301, 203, 301 * 4, false };
  CcMask mask = { 5, 5, m, 25.0, 0.0 };
  static const CcMethod methods[] = { CC_METHOD_REGISTER, CC_METHOD_SEPARABLE, CC_METHOD_FFT,
                                      CC_METHOD_TILED };
  size_t before, first = 0, after, total;
  CcOptions o;
  CcResult r;

  for (int i = 0; i < 25; i++)
    m[i] = 1.0;
  cc_options_init (&o);
  cc_context_gpu_status (ctx, NULL, 0);
  cudaMemGetInfo (&before, &total);
  for (int k = 0; k < 40; k++)
    {
      o.method = methods[k % 4];
      CHECK (cc_convolve (ctx, &src, 0, 0, &dst, &mask, &o, &r) == CC_OK, "%s", r.message);
      if (k == 3)
        cudaMemGetInfo (&first, &total);
    }
  cudaMemGetInfo (&after, &total);
  CHECK (after == first, "device memory after 4 calls %zu, after 40 %zu: leaked %zd bytes",
         first, after, (ssize_t) (first - after));
  cc_context_free (ctx);
  cudaMemGetInfo (&after, &total);
  CHECK (after + (1 << 20) >= before,
         "device memory before the context %zu, after freeing it %zu", before, after);
}
#endif

int
main (void)
{
  static const CcMethod methods[] = { CC_METHOD_BASIC, CC_METHOD_CONSTANT, CC_METHOD_TILED,
                                      CC_METHOD_CACHING, CC_METHOD_REGISTER,
                                      CC_METHOD_SEPARABLE, CC_METHOD_FFT, CC_METHOD_AUTO };
  const int n = sizeof methods / sizeof methods[0];
  CcContext *ctx;
  char why[512];

  ctx = cc_context_new ();
  if (cc_context_gpu_status (ctx, why, sizeof why) != CC_OK)
    {
      printf ("SKIP: no usable GPU: %s\n", why);
      cc_context_free (ctx);
      return CHECK_SKIP;
    }
  check_seed ();
  printf ("GPU: %s\n", cc_context_device_name (ctx));

  test_auto_takes_gpu (ctx);
  test_auto_picks (ctx);
  test_kernels_named (ctx);
  if (getenv ("CHECK_REDUCED"))
    {
      /* For compute-sanitizer, which runs each kernel many times slower. */
      check_reduced (ctx, methods, n);
      test_walks (ctx, true);
      test_fft_tiles (ctx, true);
      test_fft_small_shared (true);
      test_fft_large (ctx, true);
      test_3x3 (ctx, true);
      test_strips (ctx, methods, n, 1);
      test_one_pass_memory (ctx);
      test_tensor (ctx);
      check_odd_samples (ctx, methods, n, true);
      check_deconvolve_gpu (ctx, true);
      check_estimate_gpu (ctx, true);
      test_faults (ctx);
    }
  else
    {
      check_known (ctx, methods, n);
      check_sweep (ctx, methods, n, true);
      test_walks (ctx, false);
      test_fft_tiles (ctx, false);
      test_fft_small_shared (false);
      test_fft_large (ctx, false);
      test_3x3 (ctx, false);
      test_strips (ctx, methods, n, 3);
      test_one_pass_memory (ctx);
      test_tensor (ctx);
      check_odd_samples (ctx, methods, n, false);
      check_deconvolve_gpu (ctx, false);
      check_estimate_gpu (ctx, false);
      check_fallback_gpu (ctx);
      check_threads (ctx, CC_METHOD_CONSTANT);
      check_threads (ctx, CC_METHOD_TILED);
      check_threads (ctx, CC_METHOD_REGISTER);
      test_cancel (ctx);
      test_faults (ctx);
#ifdef HAVE_CUDA
      test_no_leak ();
#endif
      test_trap (ctx);
    }

  cc_context_free (ctx);
  printf ("%s: %d failure%s\n", check_failures ? "FAIL" : "PASS", (int) check_failures,
          check_failures == 1 ? "" : "s");
  return check_failures ? 1 : 0;
}
