# The whole GIMP call, timed from a script in one GIMP run (scripts/bench-gimp.sh
# starts it): cuda:convolve through Gimp.DrawableFilter, merged, and
# plug-in-cuda-convolve, against GIMP's built-in Convolution Matrix
# (gegl:convolution-matrix, merged), on one 4096x4096 RGBA 8-bit image of
# random pixels.  The op's first call of the session comes first (CUDA
# starts in GIMP's process then), then its second; then medians of several
# calls, each from the call to its return with the layer changed and one
# undo step pushed, the undo stack emptied between calls.  The op's rows
# say what ran (its report: methods, devices, engine calls).  A benchmark,
# not a test.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import random
import statistics
import sys
import tempfile
import time

# The GIMP tests' helpers call the procedure the same way.
os.environ.setdefault("CC_TEST_DIR", os.path.join(os.getcwd(), "tests", "gimp"))
sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import run  # noqa: E402

from gi.repository import Gegl, Gimp  # noqa: E402

SIZE = int(os.environ.get("BENCH_SIZE", "4096"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
rng = random.Random(20261121)
REPORT = os.path.join(tempfile.mkdtemp(), "report")


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


def timed_ms(call):
    t0 = time.perf_counter()
    call()
    ms = (time.perf_counter() - t0) * 1000.0
    # Each call pushes a 64 MB undo step; emptying the stack keeps the
    # later cases from paying for the earlier ones' memory.
    image.undo_disable()
    image.undo_enable()
    return ms


def median_ms(call, runs):
    return statistics.median(timed_ms(call) for _ in range(runs))


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


def op(image, layer, name="cuda:convolve", **props):
    """cuda:convolve (or another of ours) through Gimp.DrawableFilter,
    merged, as a script would."""
    if os.path.exists(REPORT):
        os.unlink(REPORT)
    f = Gimp.DrawableFilter.new(layer, name, name)
    cfg = f.get_config()
    for key, value in props.items():
        cfg.set_property(key, value)
    cfg.set_property("report", REPORT)
    f.update()
    layer.merge_filter(f)


def op_layer(image, layer, mask):
    """cuda:convolve-layer with a layer on its aux input, merged."""
    if os.path.exists(REPORT):
        os.unlink(REPORT)
    f = Gimp.DrawableFilter.new(layer, "cuda:convolve-layer", "cuda:convolve-layer")
    f.get_config().set_property("report", REPORT)
    f.set_aux_input("aux", mask)
    f.update()
    layer.merge_filter(f)


def op_said():
    """The last op call's report: method on device, engine calls and their
    time."""
    if not os.path.exists(REPORT):
        return "nothing reported"
    parts = []
    for line in open(REPORT).read().splitlines():
        method, device, pixels, calls, ms = line.split("\t")[:5]
        parts.append("%s on %s, %s call%s, %.0f ms in the engine"
                     % (method, device, calls, "" if calls == "1" else "s", float(ms)))
    return "; ".join(parts)


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


def text(w, values):
    return ";".join(",".join("%.9g" % values[j * w + i] for i in range(w))
                    for j in range(len(values) // w))


g25 = binomial(25)
gauss25 = [a * b for a in g25 for b in g25]
general25 = [rng.uniform(-0.5, 1.0) for _ in range(25 * 25)]
random31 = [rng.uniform(-0.5, 1.0) for _ in range(31 * 31)]
random127 = [rng.uniform(-0.5, 1.0) for _ in range(127 * 127)]

image, layer = new_image()


# BENCH_FIRST=builtin or op: only a session's first three calls of that
# (scripts/bench-gimp.sh runs these in sessions of their own, the op's also
# without a GPU, for what a first call costs GIMP without CUDA).
def first_calls(only_first):
    call = (lambda: builtin_5x5(image, layer)) if only_first == "builtin" else \
        (lambda: op(image, layer, preset="box-5"))
    times = [timed_ms(call) for _ in range(3)]
    print("first calls of a session, %s%s: %s ms" % (
        "built-in 5x5" if only_first == "builtin" else "op merged box-5",
        " (CUDA_CONVOLVE_NO_GPU)" if os.environ.get("CUDA_CONVOLVE_NO_GPU") else "",
        ", ".join("%.0f" % t for t in times)))


# BENCH_ONLY=masks: the masks a user makes (shapes, a layer, a random
# 127x127) against box-5, in this session.
def masks():
    # A large mask waits for CUDA to start in GIMP's process (box-5 would
    # take the CPU until it has): the session's first call pays the start.
    op(image, layer, shape="disc", radius=60.0)
    mask_image = Gimp.Image.new(511, 511, Gimp.ImageBaseType.RGB)
    mask = Gimp.Layer.new(mask_image, "mask", 511, 511, Gimp.ImageType.RGBA_IMAGE, 100,
                          Gimp.LayerMode.NORMAL)
    mask_image.insert_layer(mask, None, 0)
    mbuf = mask.get_buffer()
    mbuf.set(Gegl.Rectangle.new(0, 0, 511, 511), "R'G'B'A u8", rng.randbytes(511 * 511 * 4))
    mbuf.flush()
    cases = [("box5", "op merged, box-5", lambda: op(image, layer, preset="box-5")),
             ("disc60", "op merged, disc radius 60",
              lambda: op(image, layer, shape="disc", radius=60.0)),
             ("poly60", "op merged, polygon radius 60, 6 blades",
              lambda: op(image, layer, shape="polygon", radius=60.0)),
             ("r127", "op merged, random 127x127",
              lambda: op(image, layer, matrix=text(127, random127), normalize=True)),
             ("layer511", "cuda:convolve-layer merged, a 511x511 layer",
              lambda: op_layer(image, layer, mask))]
    got = {}
    print("| call | ms | vs op box-5 | what ran |")
    print("|---|---|---|---|")
    for key, name, call in cases:
        got[key] = median_ms(call, RUNS)
        print("| %s | %.0f | %.2fx | %s |" % (name, got[key], got[key] / got["box5"],
                                              op_said()))
    b = got["box5"]
    print("targets: GPU: disc 60 / box-5 %.2fx (<= 1.5x), 511x511 layer / box-5 %.2fx "
          "(<= 2x); CPU: disc 60 %.1f s (<= 3 s), random 127x127 %.1f s (<= 3 s)"
          % (got["disc60"] / b, got["layer511"] / b, got["disc60"] / 1000,
             got["r127"] / 1000))
    mask_image.delete()


def full():
    rows = []
    first = timed_ms(lambda: op(image, layer, preset="box-5"))
    rows.append(("op merged, box-5: the session's first call", first, None, op_said()))
    second = timed_ms(lambda: op(image, layer, preset="box-5"))
    rows.append(("op merged, box-5: the second call", second, None, op_said()))
    third = timed_ms(lambda: op(image, layer, preset="box-5"))
    rows.append(("op merged, box-5: the third call", third, None, op_said()))
    # Until CUDA has started, box-5 takes the CPU; a large mask waits for it.
    op(image, layer, shape="disc", radius=60.0)

    builtin = median_ms(lambda: builtin_5x5(image, layer), RUNS)
    rows.append(("built-in Convolution Matrix, 5x5 box", builtin, None, "GEGL"))

    op_rows = {}
    gpu = True
    for key, name, props in [
            ("box5", "op merged, box-5", dict(preset="box-5")),
            ("g25", "op merged, 25x25 Gaussian", dict(matrix=text(25, gauss25), normalize=True)),
            ("r31", "op merged, random 31x31", dict(matrix=text(31, random31), normalize=True)),
            ("r127", "op merged, random 127x127", dict(matrix=text(127, random127),
                                                        normalize=True))]:
        ms = median_ms(lambda: op(image, layer, **props), RUNS)
        op_rows[key] = ms
        rows.append((name, ms, None, op_said()))
        gpu = gpu and not op_said().startswith("cpu")

    # What GIMP itself spends passing a 127x127 mask's text (180 KB) to the op
    # and merging it: the same two masks on a 64x64 layer, where the op's own
    # work is small.
    small_image, small_layer = Gimp.Image.new(64, 64, Gimp.ImageBaseType.RGB), None
    small_layer = Gimp.Layer.new(small_image, "small", 64, 64, Gimp.ImageType.RGBA_IMAGE, 100,
                                 Gimp.LayerMode.NORMAL)
    small_image.insert_layer(small_layer, None, 0)
    for key, name, props in [] if not gpu else [
            ("small_box5", "op merged on a 64x64 layer, box-5", dict(preset="box-5")),
            ("small_r127", "op merged on a 64x64 layer, random 127x127",
             dict(matrix=text(127, random127), normalize=True))]:
        ms = median_ms(lambda: op(small_image, small_layer, **props), RUNS)
        op_rows[key] = ms
        rows.append((name, ms, None, op_said()))
    small_image.delete()

    proc = {}
    for key, name, args in [
            ("id", "procedure, 1x1 identity", dict(mask_width=1, mask_height=1, matrix=[1.0])),
            ("box5", "procedure, box-5 (linear light, the default)", dict(preset="box-5")),
            ("box5p", "procedure, box-5, linear FALSE", dict(preset="box-5", linear=False)),
            ("g7", "procedure, gaussian-7", dict(preset="gaussian-7")),
            ("g25", "procedure, 25x25 Gaussian", dict(mask_width=25, mask_height=25,
                                                      matrix=gauss25, normalize=True)),
            ("r25", "procedure, 25x25 general", dict(mask_width=25, mask_height=25,
                                                     matrix=general25, normalize=True))]:
        info = {}

        def call():
            info["r"] = ours(image, layer, **args)
        ms = median_ms(call, RUNS)
        proc[key] = ms
        method, device, returned_ms = info["r"]
        rows.append((name, ms, returned_ms, "%s on %s" % (method, device)))

    print()
    print("| call | ms | returned ms | vs built-in 5x5 | vs op box-5 | what ran |")
    print("|---|---|---|---|---|---|")
    for name, ms, returned, said in rows:
        print("| %s | %.0f | %s | %.2fx | %.2fx | %s |"
              % (name, ms, "%.0f" % returned if returned is not None else "-", ms / builtin,
                 ms / op_rows["box5"], said))
    print()
    b = op_rows["box5"]
    if gpu:
        print("targets: op random 127x127 / op box-5 %.2fx (<= 1.5x); random 31x31 / box-5 %.2fx "
              "(<= 1.2x); op box-5 / built-in %.2fx (<= 0.16x); procedure box-5 - op box-5 "
              "%+.0f ms (<= +80); first op call - second %+.0f ms (<= +150)"
              % (op_rows["r127"] / b, op_rows["r31"] / b, b / builtin, proc["box5"] - b,
                 first - second))
        print("the 127x127 text's cost in GIMP (64x64 layer: random 127x127 - box-5): %+.0f ms; "
              "op random 127x127 / op box-5 without it: %.2fx"
              % (op_rows["small_r127"] - op_rows["small_box5"],
                 (op_rows["r127"] - (op_rows["small_r127"] - op_rows["small_box5"])) / b))
    print("the CPU path's rows (README): procedure box-5 / built-in %.2fx; op box-5 / built-in "
          "%.2fx; op 25x25 Gaussian / built-in %.2fx; linear light's cost (box-5 / linear FALSE) "
          "%.2fx" % (proc["box5"] / builtin, b / builtin, op_rows["g25"] / builtin,
                     proc["box5"] / proc["box5p"]))


# BENCH_ONLY=deconvolve: cuda:deconvolve merged, the job
# (Richardson-Lucy, 30 iterations, a disc of radius 10), and Wiener.
def deconvolve():
    disc = dict(name="cuda:deconvolve", shape="disc", radius=10.0)
    rows = [("op merged, Richardson-Lucy, 30 iterations: the session's first call",
             timed_ms(lambda: op(image, layer, **disc)), op_said())]
    for name, props in [
            ("op merged, Richardson-Lucy, 30 iterations", dict(disc)),
            ("op merged, Richardson-Lucy, 100 iterations", dict(disc, iterations=100)),
            ("op merged, Wiener", dict(disc, algorithm="wiener"))]:
        ms = median_ms(lambda: op(image, layer, **props), RUNS)
        rows.append((name, ms, op_said()))
    print("| call | ms | what ran |")
    print("|---|---|---|")
    for name, ms, said in rows:
        print("| %s | %.0f | %s |" % (name, ms, said))
    print("target: op merged, Richardson-Lucy 30 iterations, disc 10: %.2f s (<= 0.5 s)"
          % (rows[1][1] / 1000))


# BENCH_FIRST=builtin or op: only a session's first three calls of that;
# BENCH_ONLY=masks: the masks a user makes; BENCH_ONLY=deconvolve:
# deconvolution; else the whole table.
if os.environ.get("BENCH_FIRST"):
    first_calls(os.environ["BENCH_FIRST"])
else:
    print("image: %dx%d RGBA u8, %d calls a case (median), GEGL_THREADS=%s"
          % (SIZE, SIZE, RUNS, os.environ.get("GEGL_THREADS", "default")))
    if os.environ.get("BENCH_ONLY") == "masks":
        masks()
    elif os.environ.get("BENCH_ONLY") == "deconvolve":
        deconvolve()
    else:
        full()
image.delete()
