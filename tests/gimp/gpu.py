# cuda:convolve and plug-in-cuda-convolve on the GPU, inside GIMP's process
# (tests/test-gimp.sh runs this where a GPU is usable; CI has none).
#
# Without CC_TEST_MODE: for masks each GPU method takes (register, its
# tensor 9x9, separable, its one pass, fft to 127x127 and past it to 1023x1023,
# alpha-weighted too) on photo-like
# 8-bit and float layers, the op merged with method auto lands within one
# step (8-bit) or 1e-4 (float) of the op merged with method cpu; its
# report shows the GPU method ran, once for the layer (and in bands for one
# of more pixels than CUDA_CONVOLVE_GPU_BLOCK); the procedure returns the GPU
# method and the GPU's name.
#
# CC_TEST_MODE=launch or alloc (CUDA_CONVOLVE_FAULT set for GIMP's whole
# process): every GPU launch or allocation fails; auto and an explicit GPU
# method give the CPU's result byte for byte, and GIMP carries on.
# CC_TEST_MODE=trap: a kernel traps, which leaves the process's CUDA context
# unusable: that call and every later one give the CPU's bytes, and GIMP
# carries on.  (The shell checks GIMP's log for one warning each.)
# CC_TEST_MODE=jit (GIMP started with CUDA_FORCE_PTX_JIT=1 and an empty
# CUDA_CACHE_PATH: the GPU as one newer than the build's cubins): the op
# with auto or a GPU method runs on the CPU while the driver compiles the
# kernels, at once, then on the GPU within one step of it; the procedure's
# own path (a partial selection) waits for its compile and runs on the
# GPU.  (The shell checks GIMP's log for the plug-in's word on the compile,
# and the operation's where a GPU method took the CPU.)
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys
import tempfile
import time

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

OP = "cuda:convolve"
GPU_METHODS = ("basic", "constant", "tiled", "caching", "register", "separable", "fft")
# test-gimp.sh starts GIMP with CUDA_CONVOLVE_GPU_BLOCK small, so that a
# layer of moderate size is cut into bands.
BLOCK = int(os.environ.get("CUDA_CONVOLVE_GPU_BLOCK", str(64 << 20)))


def matrix_text(w, h, values):
    return ";".join(",".join("%.17g" % values[j * w + i] for i in range(w)) for j in range(h))


def binomial(n):
    row = [1]
    for _ in range(n - 1):
        row = [a + b for a, b in zip([0] + row, row + [0])]
    return row


def gaussian(n):
    """Normalized, so that the text holds the outer product exactly enough
    for the engine to find it rank-1."""
    b = [v / 2.0 ** (n - 1) for v in binomial(n)]
    return n, [x * y for x in b for y in b]


def random_mask(n):
    return n, [rng.uniform(-0.5, 1.0) for _ in range(n * n)]


def photo_image(w, h, model, stype):
    base, ltype, channels, alpha = MODELS[model]
    precision = {"u8": Gimp.Precision.U8_NON_LINEAR, "float": Gimp.Precision.FLOAT_LINEAR}[stype]
    image = Gimp.Image.new_with_precision(w, h, base, precision)
    layer = Gimp.Layer.new(image, "photo", w, h, ltype, 100, Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    Pixels(layer, "%s float" % model, "float", channels).write(
        photo(w, h, channels - (1 if alpha else 0), alpha))
    fmt = babl_name(model, stype, linear=(stype == "float"))
    return image, layer, Pixels(layer, fmt, stype, channels)


def merged(image, layer, report=None, aux=None, **props):
    """A copy of the layer with the op merged (cuda:convolve-layer with a
    drawable on 'aux'); its pixels and report."""
    copy = layer.copy()
    image.insert_layer(copy, None, 0)
    f = Gimp.DrawableFilter.new(copy, OP + "-layer" if aux else OP, "cuda")
    if aux:
        f.set_aux_input("aux", aux)
    cfg = f.get_config()
    for key, value in props.items():
        cfg.set_property(key.replace("_", "-"), value)
    if report:
        cfg.set_property("report", report)
    f.update()
    copy.merge_filter(f)
    return copy


def read_report(path):
    """[(method, device, pixels, calls)] from the op's report file."""
    rows = []
    if os.path.exists(path):
        for line in open(path).read().splitlines():
            m, d, p, c = line.split("\t")[:4]
            rows.append((m, d, int(p), int(c)))
    return rows


def read_kernels(path):
    """The kernels each engine call named, from the op's report file."""
    names = []
    if os.path.exists(path):
        for line in open(path).read().splitlines():
            names += line.split("\t")[5].split("+")
    return names


def near(a, b, stype):
    """Within one step (8-bit) or 1e-4 (float) everywhere."""
    if stype == "u8":
        worst = max(abs(x - y) for x, y in zip(a, b))
        return worst <= 1, "%d steps" % worst
    worst = max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b))
    return worst <= 1e-4, "%.2g" % worst


def values(px, layer):
    return [v for row in Pixels(layer, px.fmt, px.stype, px.channels).read() for p in row
            for v in p]


def blocks(w, h):
    """The bands the op cuts a w x h layer into (one where it fits a block)."""
    if w * h <= BLOCK:
        return 1
    rows = max(1, BLOCK // w)
    return (h + rows - 1) // rows


def test_gpu_against_cpu():
    report = os.path.join(tempfile.mkdtemp(), "report")
    cases = [
        ("RGB u8, box-5", 512, 384, "RGB", "u8", dict(preset="box-5"), "register"),
        ("RGB u8, random 9x9", 512, 384, "RGB", "u8", random_mask(9), "register"),
        ("RGBA u8, random 9x9, unweighted (tensor cores)", 512, 384, "RGBA", "u8",
         random_mask(9), "register tensor 9x9"),
        ("RGB u8, 25x25 Gaussian", 512, 384, "RGB", "u8", gaussian(25), "separable"),
        ("RGBA u8, 31x31 Gaussian, unweighted (one pass)", 512, 384, "RGBA", "u8",
         gaussian(31), "separable one pass, tensor cores"),
        ("RGB u8, random 31x31", 512, 384, "RGB", "u8", random_mask(31), "fft"),
        ("RGBA u8, random 31x31, alpha-weighted", 512, 384, "RGBA", "u8", random_mask(31),
         "fft"),
        ("RGB u8, random 127x127", 512, 384, "RGB", "u8", random_mask(127), "fft"),
        ("RGBA float, random 127x127, unweighted", 384, 256, "RGBA", "float", random_mask(127),
         "fft"),
        ("RGB u8 of more pixels than a block, in bands, random 31x31", 1900, 420, "RGB",
         "u8", random_mask(31), "fft"),
        ("RGBA u8, disc radius 150 (301x301), alpha-weighted", 512, 384, "RGBA", "u8",
         dict(shape="disc", radius=150.0), "fft"),
        ("RGB float, polygon radius 400 (801x801)", 640, 480, "RGB", "float",
         dict(shape="polygon", radius=400.0, blades=6), "fft"),
        ("RGB u8, disc radius 511 (1023x1023, the largest mask)", 640, 480, "RGB", "u8",
         dict(shape="disc", radius=511.0), "fft"),
    ]
    for what, w, h, model, stype, mask, want in cases:
        image, layer, px = photo_image(w, h, model, stype)
        if isinstance(mask, dict):
            props = dict(mask)
        else:
            n, m = mask
            props = dict(matrix=matrix_text(n, n, m), normalize=True)
        if model == "RGBA" and "alpha-weighted" not in what:
            props["alpha_weighting"] = False
        if os.path.exists(report):
            os.unlink(report)
        gpu = merged(image, layer, report, **props)
        rows = read_report(report)
        kernels = read_kernels(report)
        cpu = merged(image, layer, method="cpu", **props)
        ok, worst = near(values(px, gpu), values(px, cpu), stype)
        check(ok, "%s: the GPU within one step of the CPU (worst %s)" % (what, worst))
        # The kernels each call named: the fast path asked for, or for fft
        # the paths its tiles' rows and columns took.
        ran = "fft, rows" if want == "fft" else want
        check(kernels and all(k.startswith(ran) for k in kernels),
              "%s: the kernels that ran in GIMP are %s: %s" % (what, ran, kernels))
        want = want.split()[0]
        # One call for a layer that fits a block; for bands, one a band at
        # least (GIMP's chunks across two bands have both computed).
        n = blocks(w, h)
        check(len(rows) == 1 and rows[0][0] == want and
              (rows[0][2] == w * h and rows[0][3] == 1 if n == 1 else
               rows[0][2] >= w * h and rows[0][3] >= n),
              "%s: %s ran on the GPU, %s: report %s"
              % (what, want, "in one call" if n == 1 else "in %d bands" % n, rows))
        image.delete()


def test_layer():
    """A 255x201 mask layer through cuda:convolve-layer: fft on the GPU, the
    whole layer in one call (the first region asks for it too, before the
    mask layer is read), within one step of the CPU."""
    report = os.path.join(tempfile.mkdtemp(), "report")
    image, layer, px = photo_image(512, 384, "RGBA", "u8")
    mask = Gimp.Layer.new(image, "aperture", 255, 201, Gimp.ImageType.RGBA_IMAGE, 100,
                          Gimp.LayerMode.NORMAL)
    image.insert_layer(mask, None, 1)
    Pixels(mask, "RGBA float", "float", 4).write(
        [[(1.0, 1.0, 1.0, 1.0) if (x - 127) ** 2 + (y - 100) ** 2 < 90 ** 2 else
          (0.0, 0.0, 0.0, 0.0) for x in range(255)] for y in range(201)])
    gpu = merged(image, layer, report, aux=mask)
    rows = read_report(report)
    cpu = merged(image, layer, aux=mask, method="cpu")
    ok, worst = near(values(px, gpu), values(px, cpu), "u8")
    check(ok, "a 255x201 mask layer: the GPU within one step of the CPU (worst %s)" % worst)
    check(len(rows) == 1 and rows[0][0] == "fft" and rows[0][2:] == (512 * 384, 1),
          "a 255x201 mask layer: fft ran on the GPU, in one call: report %s" % rows)
    image.delete()


def test_procedure():
    image, layer, px = photo_image(256, 192, "RGB", "u8")
    # A large mask waits for CUDA to start in GIMP's process; box-5 then
    # takes the GPU too (while it starts, it would take the CPU).
    merged(image, layer, matrix=matrix_text(31, 31, [1.0] * 961), normalize=True)
    status, vals = run(image, [layer], preset="box-5")
    check(status == Gimp.PDBStatusType.SUCCESS and vals[0] in GPU_METHODS and
          not vals[1].startswith("CPU") and vals[2] > 0,
          "the procedure returns the GPU method and the GPU that ran in GIMP: %r" % vals)
    image.delete()
    return vals[1]


def test_fault(mode):
    """Every call of this GIMP session takes the CPU's path and bytes.  The
    CPU's bytes depend on the regions GEGL asks for (a large region may take
    FFT tiles where a small one sums directly): where the method cpu run was
    cut into other regions than the fallback (GIMP 3.2 cuts them otherwise
    than 3.0), its result is matched within one step instead."""
    report = os.path.join(tempfile.mkdtemp(), "report")
    cpu_report = report + "-cpu"
    for what, props in (("random 31x31, auto", dict(matrix=matrix_text(*((31,) * 2),
                                                                         random_mask(31)[1]),
                                                      normalize=True)),
                        ("box-5, register", dict(preset="box-5", method="register")),
                        ("box-5, auto", dict(preset="box-5"))):
        image, layer, px = photo_image(320, 200, "RGB", "u8")
        for path in (report, cpu_report):
            if os.path.exists(path):
                os.unlink(path)
        gpu = merged(image, layer, report, **props)
        rows = read_report(report)
        cpu = merged(image, layer, cpu_report, **dict(props, method="cpu"))
        cpu_rows = read_report(cpu_report)
        if [r[2:] for r in rows] == [r[2:] for r in cpu_rows]:
            check(Pixels(gpu, px.fmt, "u8", 3).raw() == Pixels(cpu, px.fmt, "u8", 3).raw(),
                  "%s fault, %s: the CPU's result byte for byte" % (mode, what))
        else:
            ok, worst = near(values(px, gpu), values(px, cpu), "u8")
            check(ok, "%s fault, %s: the CPU's result within one step (method cpu ran in "
                  "other regions: %s against %s): %s" % (mode, what, cpu_rows, rows, worst))
        check([r[0] for r in rows] == ["cpu"], "%s fault, %s: the CPU ran: %s"
              % (mode, what, rows))
        image.delete()
    image, layer, px = photo_image(64, 48, "RGB", "u8")
    status, vals = run(image, [layer], preset="sharpen")
    check(status == Gimp.PDBStatusType.SUCCESS and vals[0] == "cpu",
          "%s fault: the procedure returns what ran: %r" % (mode, vals))
    check(image.get_width() == 64, "%s fault: GIMP carries on" % mode)
    image.delete()


def test_jit():
    image, layer, px = photo_image(256, 192, "RGB", "u8")
    report = os.path.join(tempfile.mkdtemp(), "report")
    props = dict(matrix=matrix_text(31, 31, random_mask(31)[1]), normalize=True)
    start = time.monotonic()
    first = merged(image, layer, report, **props)
    took = time.monotonic() - start
    rows = read_report(report)
    check([r[0] for r in rows] == ["cpu"] and took < 1.0,
          "the op's first merge while the kernels compile: the CPU, in %.2f s: %s"
          % (took, rows))
    os.unlink(report)
    asked = time.monotonic()
    merged(image, layer, report, method="register", **props)
    took = time.monotonic() - asked
    rows = read_report(report)
    check([r[0] for r in rows] == ["cpu"] and took < 1.0,
          "an explicit GPU method meanwhile: the CPU too, in %.2f s: %s" % (took, rows))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        os.unlink(report)
        gpu = merged(image, layer, report, **props)
        rows = read_report(report)
        if rows and rows[0][0] != "cpu":
            break
        image.remove_layer(gpu)
        time.sleep(1)
    waited = time.monotonic() - start
    check(rows and rows[0][0] in GPU_METHODS,
          "the op on the GPU once the kernels compiled, %.0f s after: %s" % (waited, rows))
    ok, worst = near(values(px, gpu), values(px, first), "u8")
    check(ok, "compiled from the PTX, the GPU's result within one step of the CPU's: %s"
          % worst)
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 10, 10, 100, 80)
    status, vals = run(image, [layer], preset="box-5", method="register")
    check(status == Gimp.PDBStatusType.SUCCESS and vals[0] == "register" and
          not vals[1].startswith("CPU"),
          "the procedure's own path waits for its compile, then the GPU: %r" % vals)
    image.delete()


mode = os.environ.get("CC_TEST_MODE")
if mode == "jit":
    test_jit()
    summary("GPU in GIMP, its kernels compiled from the PTX")
elif mode:
    test_fault(mode)
    summary("GPU in GIMP under a %s fault" % mode)
else:
    print("GPU in GIMP: %s" % test_procedure())
    test_gpu_against_cpu()
    test_layer()
    summary("GPU in GIMP")
