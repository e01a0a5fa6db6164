"""cuda-convolve --deconvolve against scikit-image, an implementation nobody
here wrote, on its own photographs (skimage.data), and the restoration's
quality.  Run by tests/test-skimage.sh: python3 deconvolve.py TOOL TMPDIR.

- Richardson-Lucy as skimage.restoration.richardson_lucy (its flat 0.5
  start, zero padding, clip=False) and Wiener as skimage.restoration.wiener
  (its Laplacian, periodic borders, clip=False), within 1e-4.  Each check
  also shows it would catch an iteration too many or too few and a kernel
  not turned in the correlation step: those answers lie farther off.
  Where the tool has no Wiener (CC_TOOL_WIENER=0: a build without FFTW, no
  usable GPU), its refusal instead: exit status 1, one line naming FFTW.
- 30 iterations of Richardson-Lucy raise the PSNR against the sharp
  photograph by 3 dB or more, for a disc of radius 4 and a 15-pixel motion
  line, each with Gaussian noise of 1%.
"""
import os
import subprocess
import sys

import numpy as np
from scipy import signal
from skimage import data, restoration

TOOL, TMP = sys.argv[1], sys.argv[2]
TOLERANCE = 1e-4
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok:
        failures += 1


def write_pfm(path, image):
    image = np.asarray(image, dtype="<f4")
    kind = b"PF" if image.ndim == 3 else b"Pf"
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n-1.0\n" % (kind, image.shape[1], image.shape[0]))
        f.write(np.ascontiguousarray(image[::-1]).tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        width, height = map(int, f.readline().split())
        scale = float(f.readline())
        dtype = "<f4" if scale < 0 else ">f4"
        channels = 3 if kind == b"PF" else 1
        pixels = np.frombuffer(f.read(), dtype=dtype)
    shape = (height, width, channels) if channels == 3 else (height, width)
    return pixels.reshape(shape)[::-1].astype(np.float64)


def matrix_text(mask):
    return ";".join(",".join(repr(float(v)) for v in row) for row in mask)


def run_tool(image, args):
    """The tool on 'image', written as a PFM: its finished process and its
    output's path."""
    src, dst = os.path.join(TMP, "in.pfm"), os.path.join(TMP, "out.pfm")
    write_pfm(src, image)
    return subprocess.run([TOOL] + args + [src, dst], capture_output=True, text=True), dst


def tool(image, args):
    run, dst = run_tool(image, args)
    if run.returncode != 0:
        raise SystemExit("cuda-convolve %s: %s" % (" ".join(args), run.stderr.strip()))
    return read_pfm(dst)


def print_matrix(args):
    run = subprocess.run([TOOL, "--print-matrix"] + args, capture_output=True, text=True,
                         check=True)
    return np.array([[float(v) for v in row.split(",")]
                     for row in run.stdout.strip().split(";")])


def rl_not_turned(image, mask, iterations):
    """Richardson-Lucy with the second step's kernel left as it is: the
    mistake the comparison has to catch."""
    psf = mask[::-1, ::-1]
    estimate = np.full(image.shape, 0.5)
    for _ in range(iterations):
        relative = image / (signal.convolve(estimate, psf, mode="same") + 1e-12)
        estimate *= signal.convolve(relative, psf, mode="same")
    return estimate


def psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


rng = np.random.default_rng(2026)
photo = data.camera()[128:320, 160:352].astype(np.float64) / 255.0

# A blur with no symmetry, so that a kernel used the wrong way round shows.
# The engine's mask is a correlation (GIMP's Convolution Matrix): its
# convolution kernel, scikit-image's psf, is the mask turned half a turn.
mask = np.array([[0.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
                 [0.0, 2.0, 6.0, 3.0, 1.0, 0.0, 0.0],
                 [1.0, 3.0, 9.0, 7.0, 4.0, 2.0, 0.0],
                 [0.0, 1.0, 4.0, 5.0, 3.0, 2.0, 1.0],
                 [0.0, 0.0, 1.0, 2.0, 1.0, 1.0, 0.0]])
mask /= mask.sum()
psf = mask[::-1, ::-1]
blurred = signal.convolve(photo, psf, mode="same") + rng.normal(0, 0.005, photo.shape)
blurred = np.clip(blurred, 0, 1).astype(np.float32).astype(np.float64)
matrix = ["--matrix", matrix_text(mask)]

# Richardson-Lucy.
iterations = 10
ours = tool(blurred, ["--deconvolve", "richardson-lucy", "--iterations", str(iterations),
                      "--init", "flat", "--border", "zero", "--no-clamp"] + matrix)
theirs = restoration.richardson_lucy(blurred, psf, num_iter=iterations, clip=False)
error = np.abs(ours - theirs).max()
check(error <= TOLERANCE,
      "Richardson-Lucy, %d iterations, 7x5 mask: scikit-image's within %.1e (%.2e)"
      % (iterations, TOLERANCE, error))
for wrong in (iterations - 1, iterations + 1):
    off = np.abs(ours - restoration.richardson_lucy(blurred, psf, num_iter=wrong,
                                                    clip=False)).max()
    check(off > 10 * TOLERANCE,
          "  %d iterations would be caught: %.2e from ours" % (wrong, off))
off = np.abs(ours - rl_not_turned(blurred, mask, iterations)).max()
check(off > 10 * TOLERANCE, "  a kernel not turned in the correlation step would be caught: "
      "%.2e from ours" % off)

# Wiener, periodic: scikit-image's Laplacian regulariser.
balance = 0.02
wiener = ["--deconvolve", "wiener", "--noise", str(balance), "--border", "wrap",
          "--no-clamp"] + matrix
if os.environ.get("CC_TOOL_WIENER") == "0":
    print("SKIP: Wiener against scikit-image: this build is without FFTW and no GPU is "
          "usable (the tool's refusal checked)")
    run, _ = run_tool(blurred, wiener)
    said = run.stderr.splitlines()
    check(run.returncode == 1 and len(said) == 1 and "FFTW" in said[0],
          "Wiener refused: exit status 1, one line naming FFTW: %d %r"
          % (run.returncode, run.stderr))
else:
    ours = tool(blurred, wiener)
    theirs = restoration.wiener(blurred, psf, balance, clip=False)
    error = np.abs(ours - theirs).max()
    check(error <= TOLERANCE,
          "Wiener, balance %g, 7x5 mask: scikit-image's within %.1e (%.2e)"
          % (balance, TOLERANCE, error))
    off = np.abs(ours - restoration.wiener(blurred, mask, balance, clip=False)).max()
    check(off > 10 * TOLERANCE, "  a kernel the wrong way round would be caught: %.2e from "
          "ours" % off)
    off = np.abs(ours - restoration.wiener(blurred, psf, 2 * balance, clip=False)).max()
    check(off > 10 * TOLERANCE, "  twice the noise term would be caught: %.2e from ours"
          % off)

# Quality: a colour photograph, blurred by a defocus and by a motion, with
# 1% noise, restored by 30 iterations with the defaults (the image as the
# start, a mirrored border).
sharp = data.astronaut().astype(np.float64) / 255.0
for name, args in (("disc of radius 4", ["--shape", "disc", "--radius", "4"]),
                   ("15-pixel motion line", ["--shape", "motion", "--radius", "7",
                                             "--angle", "30"])):
    blur = print_matrix(args)
    # Past the edges, the scene goes on as the border mode says.
    blurred = np.stack([signal.convolve(np.pad(sharp[..., c], 64, mode="reflect"),
                                        blur[::-1, ::-1], mode="same")[64:-64, 64:-64]
                        for c in range(3)], axis=-1)
    noisy = np.clip(blurred + rng.normal(0, 0.01, blurred.shape), 0, 1)
    restored = tool(noisy, ["--deconvolve", "richardson-lucy"] + args)
    before, after = psnr(noisy, sharp), psnr(restored, sharp)
    check(after - before >= 3.0,
          "30 iterations restore a %s with 1%% noise: PSNR %.2f -> %.2f dB (+%.2f)"
          % (name, before, after, after - before))

print("deconvolution against scikit-image: %d checks, %d failures" % (checks, failures))
sys.exit(1 if failures else 0)
