"""The README's deconvolution picture, docs/deconvolve.png: a photograph
(scikit-image's astronaut, NASA's, public domain), blurred by a disc of
radius 4 and by a 15-pixel motion line with 1% Gaussian noise, and restored
by cuda-convolve --deconvolve richardson-lucy (30 iterations, the
defaults), each with its PSNR against the sharp original.  Runs where
scikit-image and Pillow are (the GIMP roots):

    scripts/gimp-root.sh run python3 scripts/demo-deconvolve.py _build/tools/cuda-convolve
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw
from scipy import signal
from skimage import data

TOOL = sys.argv[1]
OUT = sys.argv[2] if len(sys.argv) > 2 else "docs/deconvolve.png"
BLURS = (("disc, radius 4", ["--shape", "disc", "--radius", "4"]),
         ("motion, 15 pixels at 30 degrees", ["--shape", "motion", "--radius", "7",
                                              "--angle", "30"]))


def write_pfm(path, image):
    with open(path, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (image.shape[1], image.shape[0]))
        f.write(np.ascontiguousarray(image[::-1], dtype="<f4").tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        f.readline()
        width, height = map(int, f.readline().split())
        f.readline()
        pixels = np.frombuffer(f.read(), dtype="<f4")
    return pixels.reshape(height, width, 3)[::-1].astype(np.float64)


def psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


def main():
    sharp = data.astronaut()[20:276, 140:396].astype(np.float64) / 255.0
    rng = np.random.default_rng(2026)
    rows = []
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        for name, args in BLURS:
            text = subprocess.run([TOOL, "--print-matrix"] + args, capture_output=True,
                                  text=True, check=True).stdout
            mask = np.array([[float(v) for v in row.split(",")]
                             for row in text.strip().split(";")])
            blurred = np.stack([signal.convolve(np.pad(sharp[..., c], 64, mode="reflect"),
                                                mask[::-1, ::-1], mode="same")[64:-64, 64:-64]
                                for c in range(3)], axis=-1)
            noisy = np.clip(blurred + rng.normal(0, 0.01, blurred.shape), 0, 1)
            src, dst = os.path.join(tmp, "in.pfm"), os.path.join(tmp, "out.pfm")
            write_pfm(src, noisy)
            subprocess.run([TOOL, "--deconvolve", "richardson-lucy"] + args + [src, dst],
                           check=True)
            restored = read_pfm(dst)
            print("%s: blurred %.2f dB, restored %.2f dB"
                  % (name, psnr(noisy, sharp), psnr(restored, sharp)))
            rows.append((name, noisy, restored))
    side, label = sharp.shape[0], 18
    grid = Image.new("RGB", (3 * side, len(rows) * (side + label)), "white")
    draw = ImageDraw.Draw(grid)
    for r, (name, noisy, restored) in enumerate(rows):
        y = r * (side + label)
        for c, (image, caption) in enumerate(
                ((sharp, "sharp"),
                 (noisy, "%s + 1%% noise: %.1f dB" % (name, psnr(noisy, sharp))),
                 (restored, "restored: %.1f dB" % psnr(restored, sharp)))):
            grid.paste(Image.fromarray(np.uint8(np.clip(image, 0, 1) * 255 + 0.5)),
                       (c * side, y + label))
            draw.text((c * side + 4, y + 3), caption, fill="black")
    grid.save(OUT, optimize=True)


main()
