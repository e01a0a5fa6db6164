# The whole GIMP call, timed from a script in one GIMP run (scripts/bench-gimp.sh
# starts it): plug-in-cuda-convolve against GIMP's built-in Convolution Matrix
# (gegl:convolution-matrix through Gimp.DrawableFilter, merged), on one
# 4096x4096 RGBA 8-bit image of random pixels; box-5 both in linear light
# (the default) and on perceptual values, for what linear light costs.  Each time is the median of
# several calls, each from the PDB call to its return with the layer
# changed and one undo step pushed; the undo stack is emptied between calls.  A benchmark, not a test.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import random
import statistics
import sys
import time

# The GIMP tests' helpers call the procedure the same way.
os.environ.setdefault("CC_TEST_DIR", os.path.join(os.getcwd(), "tests", "gimp"))
sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import run  # noqa: E402

from gi.repository import Gegl, Gimp  # noqa: E402

SIZE = int(os.environ.get("BENCH_SIZE", "4096"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
rng = random.Random(20261121)


def new_image():
    image = Gimp.Image.new(SIZE, SIZE, Gimp.ImageBaseType.RGB)
    layer = Gimp.Layer.new(image, "noise", SIZE, SIZE, Gimp.ImageType.RGBA_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    buf = layer.get_buffer()
    buf.set(Gegl.Rectangle.new(0, 0, SIZE, SIZE), "R'G'B'A u8",
            rng.randbytes(SIZE * SIZE * 4))
    buf.flush()
    image.clean_all()
    return image, layer


def median_ms(call, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000.0)
        # Each call pushes a 64 MB undo step; emptying the stack keeps the
        # later cases from paying for the earlier ones' memory.
        image.undo_disable()
        image.undo_enable()
    return statistics.median(times), times


def builtin_5x5(image, layer):
    """GIMP's own Convolution Matrix, 5x5 of ones, normalized."""
    f = Gimp.DrawableFilter.new(layer, "gegl:convolution-matrix", "Convolution Matrix")
    cfg = f.get_config()
    for row in "abcde":
        for col in "12345":
            cfg.set_property(row + col, 1.0)
    cfg.set_property("normalize", True)
    f.update()
    layer.merge_filter(f)


def op(image, layer, **props):
    """cuda:convolve through Gimp.DrawableFilter, merged, as a script would."""
    f = Gimp.DrawableFilter.new(layer, "cuda:convolve", "cuda:convolve")
    cfg = f.get_config()
    for key, value in props.items():
        cfg.set_property(key, value)
    f.update()
    layer.merge_filter(f)


def ours(image, layer, **args):
    status, values = run(image, [layer], **args)
    if status != Gimp.PDBStatusType.SUCCESS:
        raise RuntimeError("plug-in-cuda-convolve failed: %s" % values[0])
    return values


def binomial(n):
    row = [1]
    for _ in range(n - 1):
        row = [a + b for a, b in zip([0] + row, row + [0])]
    return row


g25 = binomial(25)
gauss25 = [a * b for a in g25 for b in g25]
general25 = [rng.uniform(-0.5, 1.0) for _ in range(25 * 25)]

image, layer = new_image()
print("image: %dx%d RGBA u8, %d calls a case (median)" % (SIZE, SIZE, RUNS))
rows = []

builtin, _ = median_ms(lambda: builtin_5x5(image, layer), RUNS)
rows.append(("built-in Convolution Matrix, 5x5 box", builtin, None, ""))

cases = [
    ("ours, 1x1 identity (the round trip alone)", dict(mask_width=1, mask_height=1,
                                                         matrix=[1.0])),
    ("ours, box-5 (linear light, the default)", dict(preset="box-5")),
    ("ours, box-5, linear FALSE (perceptual)", dict(preset="box-5", linear=False)),
    ("ours, gaussian-7", dict(preset="gaussian-7")),
    ("ours, 25x25 Gaussian (separable)", dict(mask_width=25, mask_height=25,
                                              matrix=gauss25, normalize=True)),
    ("ours, 25x25 general", dict(mask_width=25, mask_height=25, matrix=general25,
                                 normalize=True)),
]
for name, args in cases:
    info = {}

    def call():
        info["r"] = ours(image, layer, **args)
    ms, _ = median_ms(call, RUNS)
    method, device, engine_ms = info["r"]
    rows.append((name, ms, engine_ms, "%s on %s" % (method, device)))

g25_text = ";".join(",".join(str(gauss25[j * 25 + i]) for i in range(25)) for j in range(25))
for name, props in [("op cuda:convolve merged, box-5", dict(preset="box-5")),
                    ("op cuda:convolve merged, 25x25 Gaussian",
                     dict(matrix=g25_text, normalize=True))]:
    ms, _ = median_ms(lambda: op(image, layer, **props), RUNS)
    rows.append((name, ms, None, "GEGL op, GEGL_THREADS=%s"
                 % os.environ.get("GEGL_THREADS", "default")))

box5 = rows[2][1]
print()
print("| call | ms | engine ms | vs built-in 5x5 | vs ours box-5 | path |")
print("|---|---|---|---|---|---|")
for name, ms, engine_ms, path in rows:
    print("| %s | %.0f | %s | %.2fx | %.2fx | %s |"
          % (name, ms, "%.0f" % engine_ms if engine_ms is not None else "-",
             ms / builtin, ms / box5, path or "GEGL"))
print()
print("targets: the op merged <= 0.25x the built-in (%.2fx); the procedure's box-5 <= 0.35x "
      "(%.2fx); the op's 25x25 Gaussian <= 0.35x (%.2fx)"
      % (rows[-2][1] / builtin, box5 / builtin, rows[-1][1] / builtin))
print()
print("box-5 against the built-in: %.2fx; gaussian-7 and separable 25x25 against box-5: "
      "%.2fx, %.2fx" % (box5 / builtin, rows[4][1] / box5, rows[5][1] / box5))
print("linear light's cost: box-5 by default (linear) against linear FALSE: %.2fx "
      "(target <= 1.1x)" % (box5 / rows[3][1]))
image.delete()
