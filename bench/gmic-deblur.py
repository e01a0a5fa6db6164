"""Richardson-Lucy on the CPU against G'MIC's deblur_richardsonlucy, side by
side in one run (the issue's CPU target): a 4096x4096 RGBA 8-bit mosaic of
scikit-image's photographs at their own resolution, blurred by a Gaussian
of sigma 2 (our --shape gaussian --radius 6: three standard deviations at
the radius) in its 8-bit values with 1% noise; each restores it with 30
iterations, alternating, RUNS times; medians of the wall times and each
result's PSNR against the sharp mosaic.  G'MIC takes its values as they
are, so ours runs --perceptual (the same values) with the cpu method; its
result runs past 255 (to 333 on astronaut) and is cut to 0..255 before it
is written, as ours is clamped.

    scripts/gimp-root.sh run python3 bench/gmic-deblur.py _build/tools/cuda-convolve [RUNS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image
from scipy import signal
from skimage import data

TOOL = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SIDE, SIGMA, RADIUS, ITERATIONS = 4096, 2.0, 6, 30


def mosaic():
    photos = [data.astronaut(), data.coffee(), data.chelsea(), data.rocket(),
              np.stack([data.camera()] * 3, axis=-1)]
    out = np.zeros((SIDE, SIDE, 3), dtype=np.float64)
    y, i = 0, 0
    while y < SIDE:
        x, row = 0, 0
        while x < SIDE:
            p = photos[i % len(photos)]
            i += 1
            h, w = min(p.shape[0], SIDE - y), min(p.shape[1], SIDE - x)
            out[y:y + h, x:x + w] = p[:h, :w] / 255.0
            x += w
            row = max(row, h)
        y += row
    return out


def psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


def timed(args):
    start = time.monotonic()
    subprocess.run(args, check=True, capture_output=True)
    return time.monotonic() - start


def main():
    sharp = mosaic()
    text = subprocess.run([TOOL, "--print-matrix", "--shape", "gaussian", "--radius",
                           str(RADIUS)], capture_output=True, text=True, check=True).stdout
    mask = np.array([[float(v) for v in r.split(",")] for r in text.strip().split(";")])
    rng = np.random.default_rng(2026)
    blurred = np.stack([signal.fftconvolve(np.pad(sharp[..., c], 32, mode="reflect"),
                                           mask[::-1, ::-1], mode="same")[32:-32, 32:-32]
                        for c in range(3)], axis=-1)
    noisy = np.clip(blurred + rng.normal(0, 0.01, blurred.shape), 0, 1)
    rgba = np.concatenate([np.uint8(noisy * 255 + 0.5), np.full((SIDE, SIDE, 1), 255, np.uint8)],
                          axis=-1)
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        src = os.path.join(tmp, "blurred.png")
        Image.fromarray(rgba, "RGBA").save(src, compress_level=1)
        ours_out, gmic_out = os.path.join(tmp, "ours.png"), os.path.join(tmp, "gmic.png")
        times = {"ours": [], "gmic": []}
        for _ in range(RUNS):
            times["gmic"].append(timed(["gmic", "-v", "-1", src, "deblur_richardsonlucy",
                                        "%g,%d,1" % (SIGMA, ITERATIONS), "cut", "0,255",
                                        "round", "o", gmic_out]))
            times["ours"].append(timed([TOOL, "--deconvolve", "richardson-lucy", "--method",
                                        "cpu", "--perceptual", "--shape", "gaussian",
                                        "--radius", str(RADIUS), src, ours_out]))
        got = {k: np.asarray(Image.open(p).convert("RGB"), dtype=np.float64) / 255.0
               for k, p in (("ours", ours_out), ("gmic", gmic_out))}
    print("4096x4096 RGBA 8-bit, Gaussian sigma %g, %d iterations, %d CPU threads, %d runs"
          % (SIGMA, ITERATIONS, os.cpu_count(), RUNS))
    print("blurred with 1%% noise: PSNR %.2f dB" % psnr(noisy, sharp))
    for k in ("gmic", "ours"):
        print("%-5s median %.1f s (%s), PSNR %.2f dB" % (
            k, statistics.median(times[k]), ", ".join("%.1f" % t for t in times[k]),
            psnr(got[k], sharp)))
    print("ours / gmic: %.2fx the time" % (statistics.median(times["ours"]) /
                                          statistics.median(times["gmic"])))


main()
