# plug-in-cuda-convolve in real GIMP 3, from Python: presets, explicit and
# 1D masks, every border mode, selections, layer offsets, masks and channels,
# every precision, linear light, and every bad input.  Pixels are compared
# with reference.py, an independent implementation of the definition.
# Run by tests/test-gimp.sh inside gimp-console-3.0 (python-fu-eval); it
# raises at the end when anything failed, which makes GIMP exit non-zero.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import math
import os
import random
import struct
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
import reference  # noqa: E402

from gi.repository import Babl, Gegl, Gimp, GObject  # noqa: E402

PROC = "plug-in-cuda-convolve"
pdb = Gimp.get_pdb()
proc = pdb.lookup_procedure(PROC)
rng = random.Random(int(os.environ.get("CHECK_SEED", "20261121")))
checks = 0
failures = []

# The shipped presets, exactly as issue #3 defines them.
def outer(v):
    return [a * b for a in v for b in v]

PRESETS = {
    "identity": (3, 3, [0, 0, 0, 0, 1, 0, 0, 0, 0], 1, 0),
    "box-3": (3, 3, [1] * 9, 9, 0),
    "box-5": (5, 5, [1] * 25, 25, 0),
    "gaussian-3": (3, 3, outer([1, 2, 1]), 16, 0),
    "gaussian-5": (5, 5, outer([1, 4, 6, 4, 1]), 256, 0),
    "gaussian-7": (7, 7, outer([1, 6, 15, 20, 15, 6, 1]), 4096, 0),
    "sharpen": (3, 3, [0, -1, 0, -1, 5, -1, 0, -1, 0], 1, 0),
    "motion-blur-h-9": (9, 1, [1] * 9, 9, 0),
    "motion-blur-v-9": (1, 9, [1] * 9, 9, 0),
    "edge-laplacian": (3, 3, [0, 1, 0, 1, -4, 1, 0, 1, 0], 1, 0.5),
    "sobel-x": (3, 3, [-1, 0, 1, -2, 0, 2, -1, 0, 1], 4, 0.5),
    "sobel-y": (3, 3, [-1, -2, -1, 0, 0, 0, 1, 2, 1], 4, 0.5),
    "prewitt-x": (3, 3, [-1, 0, 1] * 3, 3, 0.5),
    "prewitt-y": (3, 3, [-1, -1, -1, 0, 0, 0, 1, 1, 1], 3, 0.5),
    "emboss": (3, 3, [-2, -1, 0, -1, 1, 1, 0, 1, 2], 1, 0),
}

# sample type -> (precision, struct code, integer max or None)
TYPES = {
    "u8": (Gimp.Precision.U8_NON_LINEAR, "B", 255),
    "u16": (Gimp.Precision.U16_NON_LINEAR, "H", 65535),
    "u32": (Gimp.Precision.U32_NON_LINEAR, "I", 4294967295),
    "half": (Gimp.Precision.HALF_NON_LINEAR, "e", None),
    "float": (Gimp.Precision.FLOAT_NON_LINEAR, "f", None),
    "double": (Gimp.Precision.DOUBLE_NON_LINEAR, "d", None),
}
MODELS = {  # name -> (base type, layer type, channels, alpha)
    "Y": (Gimp.ImageBaseType.GRAY, Gimp.ImageType.GRAY_IMAGE, 1, False),
    "YA": (Gimp.ImageBaseType.GRAY, Gimp.ImageType.GRAYA_IMAGE, 2, True),
    "RGB": (Gimp.ImageBaseType.RGB, Gimp.ImageType.RGB_IMAGE, 3, False),
    "RGBA": (Gimp.ImageBaseType.RGB, Gimp.ImageType.RGBA_IMAGE, 4, True),
}


def check(ok, what):
    global checks
    checks += 1
    if ok:
        print("ok   - " + what)
    else:
        print("FAIL - " + what)
        failures.append(what)
    return ok


def babl_name(model, stype, linear=False):
    if not linear:
        model = {"Y": "Y'", "YA": "Y'A", "RGB": "R'G'B'", "RGBA": "R'G'B'A"}[model]
    return "%s %s" % (model, stype)


def own_format(drawable):
    return Babl.format_get_encoding(drawable.get_format())


class Pixels:
    """A drawable's pixels in one babl format, as 0..1 values."""

    def __init__(self, drawable, fmt, stype, channels):
        self.drawable, self.fmt, self.stype, self.channels = drawable, fmt, stype, channels
        self.w, self.h = drawable.get_width(), drawable.get_height()
        self.code, self.max = TYPES[stype][1], TYPES[stype][2]

    def raw(self):
        buf = self.drawable.get_buffer()
        return bytes(buf.get(Gegl.Rectangle.new(0, 0, self.w, self.h), 1.0, self.fmt,
                             Gegl.AbyssPolicy.NONE))

    def read(self):
        data = self.raw()
        n = self.w * self.h * self.channels
        vals = struct.unpack("<%d%s" % (n, self.code), data)
        if self.max:
            vals = [v / self.max for v in vals]
        c = self.channels
        return [[list(vals[(y * self.w + x) * c:(y * self.w + x + 1) * c])
                 for x in range(self.w)] for y in range(self.h)]

    def write(self, image):
        flat = [v for row in image for p in row for v in p]
        if self.max:
            flat = [int(round(min(max(v, 0.0), 1.0) * self.max)) for v in flat]
        data = struct.pack("<%d%s" % (len(flat), self.code), *flat)
        buf = self.drawable.get_buffer()
        buf.set(Gegl.Rectangle.new(0, 0, self.w, self.h), self.fmt, data)
        buf.flush()
        self.drawable.update(0, 0, self.w, self.h)


def random_image(w, h, channels, alpha, hdr=False):
    lo, hi = (-0.25, 1.25) if hdr else (0.0, 1.0)
    img = []
    for _ in range(h):
        row = []
        for _ in range(w):
            p = [rng.uniform(lo, hi) for _ in range(channels)]
            if alpha and rng.random() < 0.2:
                p[-1] = 0.0          # transparent now and then: the weighted fallback
            row.append(p)
        img.append(row)
    return img


def new_image(w, h, model="RGBA", stype="u8", hdr=False, precision=None):
    base, ltype, channels, alpha = MODELS[model]
    image = Gimp.Image.new_with_precision(w, h, base, precision or TYPES[stype][0])
    layer = Gimp.Layer.new(image, "layer", w, h, ltype, 100, Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    px = Pixels(layer, babl_name(model, stype), stype, channels)
    px.write(random_image(w, h, channels, alpha, hdr))
    image.clean_all()
    return image, layer, px


def run(image, drawables, **args):
    cfg = proc.create_config()
    cfg.set_property("image", image)
    cfg.set_core_object_array("drawables", drawables)
    for key, value in args.items():
        key = key.replace("_", "-")
        if key == "matrix":
            gv = GObject.Value(Gimp.DoubleArray)
            Gimp.value_set_double_array(gv, [float(v) for v in value])
            cfg.set_property("matrix", gv.get_boxed())
        else:
            cfg.set_property(key, value)
    result = proc.run(cfg)
    values = [result.index(i) for i in range(result.length())]
    return values[0], values[1:]


def tolerance(stype, matrix, divisor, hdr=False):
    """(absolute, relative): integers within one step, floats within the
    engine's bound, halves within their own rounding as well."""
    if stype in ("u8", "u16", "u32"):
        return 1.0 / TYPES[stype][2] + 1e-6, 0.0
    bound = (1e-5 * sum(abs(k) for k in matrix) / abs(divisor) + 1e-6) * (1.25 if hdr else 1)
    return bound, 2.0 ** -11 if stype == "half" else 0.0


def compare(got, want, tol, what):
    if not isinstance(tol, tuple):
        tol = (tol, 0.0)
    worst, where = 0.0, None
    for y, row in enumerate(want):
        for x, p in enumerate(row):
            for c, v in enumerate(p):
                e = abs(got[y][x][c] - v) / (tol[0] + tol[1] * abs(v))
                if not e <= worst:          # NaN counts as the worst
                    worst, where = e, (x, y, c, got[y][x][c], v)
    return check(worst <= 1.0, "%s (worst error %.3g of the tolerance at %s)"
                 % (what, worst, where))


def convolve_case(what, model="RGBA", stype="u8", w=13, h=9, hdr=False, matrix=None,
                  mw=3, mh=3, divisor=1.0, offset=0.0, border="extend", clamp=True,
                  alpha_weighting=True, affect_alpha=True, normalize=False, **extra):
    image, layer, px = new_image(w, h, model, stype, hdr)
    before = px.read()
    args = dict(extra, border=border, clamp=clamp, alpha_weighting=alpha_weighting,
                affect_alpha=affect_alpha)
    if "preset" not in extra:
        args.update(mask_width=mw, mask_height=mh, matrix=matrix, divisor=divisor,
                    offset=offset, normalize=normalize)
    status, values = run(image, [layer], **args)
    if check(status == Gimp.PDBStatusType.SUCCESS, "%s: runs (%s)" % (what, values)):
        if normalize:
            d, o = reference.normalize(matrix)
            divisor, offset = d, offset if o is None else o
        want = reference.convolve(before, matrix, mw, mh, divisor, offset, border, clamp,
                                  MODELS[model][3], alpha_weighting, affect_alpha)
        compare(px.read(), want, tolerance(stype, matrix, divisor, hdr), what)
        check(image.is_dirty(), "%s: the image is dirty afterwards" % what)
        check(values[0] in ("cpu", "basic", "constant", "tiled", "caching")
              and values[1] and values[2] >= 0.0,
              "%s: returns method %r, device %r, %r ms" % (what, *values))
    image.delete()


def test_presets():
    ids = pdb.lookup_procedure("plug-in-cuda-convolve-presets")
    listed = list(ids.run(ids.create_config()).index(1))
    check(set(PRESETS) <= set(listed), "every shipped preset is listed: %s" % listed)
    check("my-blur" in listed and listed.count("box-3") == 1,
          "the user's preset is listed, its copy of a shipped id is not")
    for pid, (mw, mh, m, d, o) in PRESETS.items():
        convolve_case("preset %s" % pid, preset=pid, matrix=m, mw=mw, mh=mh, divisor=d,
                      offset=o)
    # The user's preset, written by test-gimp.sh: 3x1 [1 2 1] / 4.
    convolve_case("user preset my-blur", preset="my-blur", matrix=[1, 2, 1], mw=3, mh=1,
                  divisor=4)


def test_matrices():
    for border in ("zero", "extend", "wrap", "mirror"):
        m = [rng.uniform(-0.5, 1.0) for _ in range(15)]
        convolve_case("5x3 random mask, border %s" % border, model="RGB", matrix=m, mw=5,
                      mh=3, divisor=sum(abs(v) for v in m), offset=0.1, border=border)
        convolve_case("1D horizontal 9x1, border %s" % border, matrix=[1, 2, 3, 4, 5, 4, 3, 2, 1],
                      mw=9, mh=1, divisor=25, border=border)
        convolve_case("1D vertical 1x7, border %s" % border, model="YA",
                      matrix=[1, -1, 2, 3, 2, -1, 1], mw=1, mh=7, divisor=7, border=border)
        # A mask larger than the image: the halo folds many times.
        m = [rng.uniform(0, 1) for _ in range(15 * 13)]
        convolve_case("15x13 mask on a 7x5 image, border %s" % border, model="Y", w=7, h=5,
                      matrix=m, mw=15, mh=13, divisor=sum(m), border=border)
    convolve_case("1x1 mask", matrix=[2.0], mw=1, mh=1, divisor=2.0)
    convolve_case("normalize, negative sum", matrix=[-1, -2, -1, 0, 1, 0, -1, -2, -1],
                  normalize=True, divisor=123.0)
    convolve_case("normalize, zero sum", matrix=[-1, 0, 1, -2, 0, 2, -1, 0, 1],
                  normalize=True)
    identity5 = [0.0] * 25
    identity5[12] = 1.0
    image, layer, px = new_image(9, 7)
    before = px.raw()
    status, _ = run(image, [layer], mask_width=5, mask_height=5)
    check(status == Gimp.PDBStatusType.SUCCESS and px.raw() == before,
          "no matrix means the identity: pixels unchanged")
    image.delete()
    convolve_case("no alpha weighting", model="YA", stype="float", matrix=[1] * 9, divisor=9,
                  alpha_weighting=False)
    convolve_case("keep alpha", model="RGBA", stype="u16", matrix=[1, 2, 1, 2, 4, 2, 1, 2, 1],
                  divisor=16, affect_alpha=False)


def test_precisions():
    k = 0
    for stype in TYPES:
        for model in MODELS:
            border = ("zero", "extend", "wrap", "mirror")[k % 4]
            hdr = stype in ("half", "float", "double")
            m = [rng.uniform(-0.5, 1.0) for _ in range(9)]
            convolve_case("%s %s, border %s%s" % (model, stype, border,
                                                  ", HDR, clamp off" if hdr else ""),
                          model=model, stype=stype, w=9, h=7, hdr=hdr, matrix=m,
                          divisor=sum(m) or 1.0, border=border, clamp=not hdr)
            k += 1


def test_selection():
    image, layer, px = new_image(17, 13)
    before_raw, before = px.raw(), px.read()
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 4, 3, 7, 5)
    image.clean_all()
    mw, mh, m, d, o = PRESETS["gaussian-5"]
    status, _ = run(image, [layer], preset="gaussian-5", border="zero")
    after = px.read()
    want = reference.convolve(before, m, mw, mh, d, o, "zero", True, True, rect=(4, 3, 7, 5))
    ok = status == Gimp.PDBStatusType.SUCCESS
    check(ok, "selection: runs")
    compare(after, want, tolerance("u8", m, d), "selection: inside, halo from real pixels")
    bpp = 4
    raw = px.raw()
    outside_same = all(raw[(y * 17 + x) * bpp:(y * 17 + x + 1) * bpp] ==
                       before_raw[(y * 17 + x) * bpp:(y * 17 + x + 1) * bpp]
                       for y in range(13) for x in range(17)
                       if not (4 <= x < 11 and 3 <= y < 8))
    check(outside_same, "selection: every pixel outside is byte-identical")
    image.delete()

    # Touching the left edge with wrap: the far side folds in.
    image, layer, px = new_image(17, 13)
    before = px.read()
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 0, 2, 5, 6)
    m = [1, 2, 3, 2, 1]
    run(image, [layer], mask_width=5, mask_height=1, matrix=m, divisor=9, border="wrap")
    want = reference.convolve(before, m, 5, 1, 9, 0, "wrap", True, True, rect=(0, 2, 5, 6))
    compare(px.read(), want, tolerance("u8", m, 9), "selection at the edge, border wrap")
    image.delete()


def test_layers():
    # A layer smaller than the image, at an offset, and a selection in image
    # coordinates overlapping it.
    image = Gimp.Image.new(20, 16, Gimp.ImageBaseType.RGB)
    layer = Gimp.Layer.new(image, "small", 9, 7, Gimp.ImageType.RGBA_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    layer.set_offsets(5, 4)
    px = Pixels(layer, "R'G'B'A u8", "u8", 4)
    px.write(random_image(9, 7, 4, True))
    before = px.read()
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 8, 6, 10, 8)
    m = [1, 2, 1, 2, 4, 2, 1, 2, 1]
    status, _ = run(image, [layer], matrix=m, divisor=16, border="mirror")
    want = reference.convolve(before, m, 3, 3, 16, 0, "mirror", True, True, rect=(3, 2, 6, 5))
    check(status == Gimp.PDBStatusType.SUCCESS, "layer at an offset: runs")
    compare(px.read(), want, tolerance("u8", m, 16), "layer at an offset, selection across it")
    image.delete()

    # A layer mask and a channel: gray drawables of their own format.
    image, layer, _ = new_image(11, 9)
    mask = layer.create_mask(Gimp.AddMaskType.WHITE)
    layer.add_mask(mask)
    channel = Gimp.Channel.new(image, "channel", 11, 9, 100, Gegl.Color.new("black"))
    image.insert_channel(channel, None, 0)
    for what, drawable in (("layer mask", mask), ("channel", channel)):
        fmt = own_format(drawable)
        stype = fmt.split()[-1]
        px = Pixels(drawable, fmt, stype, 1)
        px.write(random_image(11, 9, 1, False))
        before = px.read()
        m = [0, 1, 0, 1, 4, 1, 0, 1, 0]
        # Work in the drawable's own light so no conversion rounds the values.
        status, values = run(image, [drawable], matrix=m, divisor=8, linear="'" not in fmt)
        check(status == Gimp.PDBStatusType.SUCCESS, "%s (%s): runs %s" % (what, fmt, values))
        compare(px.read(), reference.convolve(before, m, 3, 3, 8),
                tolerance(stype, m, 8), "%s (%s)" % (what, fmt))
    image.delete()


def test_linear():
    # Float linear image: linear=TRUE works on its own values...
    image, layer, _ = new_image(9, 7, "RGB", "float", precision=Gimp.Precision.FLOAT_LINEAR)
    lin = Pixels(layer, "RGB float", "float", 3)
    lin.write(random_image(9, 7, 3, False))
    before = lin.read()
    m = [1, 2, 1, 2, 4, 2, 1, 2, 1]
    run(image, [layer], matrix=m, divisor=16, linear=True)
    compare(lin.read(), reference.convolve(before, m, 3, 3, 16), 1e-5,
            "linear=TRUE on a linear float layer")
    # ... and linear=FALSE on its perceptual R'G'B' values.
    per = Pixels(layer, "R'G'B' float", "float", 3)
    before = per.read()
    run(image, [layer], matrix=m, divisor=16, linear=False)
    compare(per.read(), reference.convolve(before, m, 3, 3, 16), 1e-4,
            "linear=FALSE on a linear float layer: perceptual values")
    image.delete()

    # An 8-bit perceptual layer: the two give different results.
    results = []
    for linear in (False, True):
        image, layer, px = new_image(9, 7, "RGB", "u8")
        px.write([[[float((x + y) % 2)] * 3 for x in range(9)] for y in range(7)])
        run(image, [layer], matrix=[1] * 9, divisor=9, linear=linear)
        results.append(px.read()[3][3][0])
        image.delete()
    # A checkerboard box-blurred: 4/9 or 5/9 of white; in linear light that
    # mixes to a brighter perceptual grey.
    check(results[1] > results[0] + 0.1,
          "linear light mixes brighter than perceptual: %.3f vs %.3f" % tuple(results[::-1]))


def test_errors():
    image, layer, px = new_image(9, 7)
    raw = px.raw()
    bad = [
        ("even mask-width", dict(mask_width=4), "odd"),
        ("matrix length", dict(matrix=[1, 2, 3, 4, 5, 6, 7, 8]), "matrix"),
        ("NaN in the matrix", dict(matrix=[1, 1, 1, 1, float("nan"), 1, 1, 1, 1]), "finite"),
        ("infinity in the matrix", dict(matrix=[1, 1, 1, 1, float("inf"), 1, 1, 1, 1]), "finite"),
        ("divisor 0", dict(matrix=[1] * 9, divisor=0.0), "divisor"),
        ("unknown preset", dict(preset="no-such-preset"), "no-such-preset"),
        ("preset id with a path", dict(preset="../../etc/passwd"), "preset id"),
        ("GPU method without a GPU", dict(method="tiled"), "GPU"),
        ("unknown border", dict(border="sideways"), "border"),
        ("unknown method", dict(method="fastest"), "method"),
    ]
    for what, args, word in bad:
        status, values = run(image, [layer], **args)
        check(status != Gimp.PDBStatusType.SUCCESS and word in str(values[0]),
              "%s: refused with a clear message: %s %r" % (what, status, values[0]))
        check(px.raw() == raw and not image.is_dirty(), "%s: pixels untouched" % what)

    status, values = run(image, [layer], matrix=[1] * 9, divisor=0.0, normalize=True)
    check(status == Gimp.PDBStatusType.SUCCESS, "divisor 0 with normalize on is fine")
    status, values = run(image, [layer], method="auto")
    check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "cpu"
          and values[1].startswith("CPU"), "auto without a GPU takes the CPU: %r" % values)

    other = Gimp.Layer.new(image, "other", 9, 7, Gimp.ImageType.RGBA_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(other, None, 0)
    image.clean_all()
    raw = px.raw()
    for what, drawables in (("two drawables", [layer, other]), ("no drawable", [])):
        status, values = run(image, drawables)
        check(status != Gimp.PDBStatusType.SUCCESS and "one drawable" in str(values[0]),
              "%s: refused: %r" % (what, values[0]))
        check(px.raw() == raw and not image.is_dirty(), "%s: pixels untouched" % what)

    group = Gimp.GroupLayer.new(image, "group")
    image.insert_layer(group, None, 0)
    status, values = run(image, [group])
    check(status != Gimp.PDBStatusType.SUCCESS and "group" in str(values[0]),
          "a layer group is refused: %r" % values[0])
    image.delete()

    image = Gimp.Image.new(5, 5, Gimp.ImageBaseType.INDEXED)
    layer = Gimp.Layer.new(image, "i", 5, 5, Gimp.ImageType.INDEXED_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    status, values = run(image, [layer])
    check(status != Gimp.PDBStatusType.SUCCESS and "indexed" in str(values[0]),
          "an indexed image is refused: %r" % values[0])
    image.delete()


for test in (test_presets, test_matrices, test_precisions, test_selection, test_layers,
             test_linear, test_errors):
    test()

print("GIMP Python: %d checks, %d failures" % (checks, len(failures)))
if failures:
    raise Exception("%d of %d checks failed" % (len(failures), checks))
