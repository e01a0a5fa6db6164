# Helpers for the GIMP tests: images of every precision with random pixels,
# running plug-in-cuda-convolve, reading pixels back, and comparing them
# with reference.py within each sample type's tolerance.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import math
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
import reference  # noqa: E402

from gi.repository import Babl, Gegl, Gimp, GObject  # noqa: E402

PROC = "plug-in-cuda-convolve"
pdb = Gimp.get_pdb()
proc = pdb.lookup_procedure(PROC)
rng = random.Random(int(os.environ.get("CHECK_SEED", "20261121")))
stats = {"checks": 0}
failures = []
skips = []

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

# What the procedure may return as the method that ran: the CPU, or where
# test-gimp.sh found a usable GPU (CC_GPU), any method that runs there.
METHODS = ("cpu",) + (("basic", "constant", "tiled", "caching", "register", "separable", "fft")
                      if os.environ.get("CC_GPU") else ())

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


def skip(what):
    """Notes a part left out; summary() says it once."""
    if what not in skips:
        skips.append(what)


def check(ok, what):
    stats["checks"] += 1
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


def photo(w, h, channels, alpha):
    """Linear-light values that look like a photograph: a sky-like gradient,
    a deep shadow (values under 1% of white, where sRGB codes are sparse in
    linear light), a bright disc with a hard edge, and grain."""
    img = []
    for y in range(h):
        row = []
        for x in range(w):
            u, v = x / (w - 1), y / (h - 1)
            base = [0.15 + 0.6 * u, 0.25 + 0.5 * v, 0.55 - 0.4 * u * v][:channels]
            if x < w // 3 and y > h // 2:
                base = [0.002 + 0.008 * u * 3 + 0.004 * c for c in range(channels)]
            if (x - 0.65 * w) ** 2 + (y - 0.35 * h) ** 2 < (0.18 * w) ** 2:
                base = [0.95, 0.9, 0.7][:channels]
            p = [min(max(b * (1 + rng.gauss(0, 0.04)) + rng.gauss(0, 0.002), 0.0), 1.0)
                 for b in base]
            if channels < 3:
                p = p[:1]
            if alpha:
                p.append(min(max(0.2 + 0.8 * (1 - u) + rng.gauss(0, 0.02), 0.0), 1.0))
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


def run(image, drawables, procedure=None, **args):
    """Runs plug-in-cuda-convolve, or 'procedure', non-interactively:
    (status, the return values or the error's message)."""
    procedure = procedure or proc
    cfg = procedure.create_config()
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
    result = procedure.run(cfg)
    values = [result.index(i) for i in range(result.length())]
    return values[0], values[1:]


def check_refusals(image, layer, px, bad, procedure=None):
    """Each (what, arguments, word) of 'bad' refused with a message holding
    'word', the pixels as they were and the image clean (no undo step)."""
    raw = px.raw()
    for what, args, word in bad:
        status, values = run(image, [layer], procedure=procedure, **args)
        check(status != Gimp.PDBStatusType.SUCCESS and word in str(values[0]),
              "%s: refused with a clear message: %s %r" % (what, status, values[0]))
        check(px.raw() == raw and not image.is_dirty(), "%s: pixels untouched" % what)


def check_gpu_method(image, layer, px, procedure=None, **args):
    """An explicit GPU method: on the GPU where one is usable (CC_GPU); else
    refused by the plug-in's own pixel path, the image as it was, and run
    on the CPU by the operation in GIMP (which never fails a region), the
    return value saying so."""
    raw = px.raw()
    status, values = run(image, [layer], procedure=procedure, method="tiled", **args)
    if os.environ.get("CC_GPU"):
        check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "tiled",
              "an explicit GPU method runs on the GPU: %r" % values)
    elif os.environ.get("CC_OP"):
        check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "cpu",
              "an explicit GPU method without a GPU runs on the CPU in GIMP: %r" % values)
    else:
        check(status != Gimp.PDBStatusType.SUCCESS and "GPU" in str(values[0]),
              "an explicit GPU method without a GPU is refused: %s %r" % (status, values[0]))
        check(px.raw() == raw and not image.is_dirty(), "refused: pixels untouched")


def indexed_image():
    image = Gimp.Image.new(5, 5, Gimp.ImageBaseType.INDEXED)
    layer = Gimp.Layer.new(image, "i", 5, 5, Gimp.ImageType.INDEXED_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    return image, layer


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
    # The reference works on the values as they are: GIMP 2's perceptual rule.
    args = dict(dict(linear=False), **extra)
    args.update(border=border, clamp=clamp, alpha_weighting=alpha_weighting,
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
        check(values[0] in METHODS and values[1] and values[2] >= 0.0,
              "%s: returns method %r, device %r, %r ms" % (what, *values))
    image.delete()


def op_filter(layer, op="cuda:convolve", **props):
    """A GEGL operation on the layer through Gimp.DrawableFilter, its
    properties set (underscores for dashes)."""
    f = Gimp.DrawableFilter.new(layer, op, "cuda")
    cfg = f.get_config()
    for key, value in props.items():
        cfg.set_property(key.replace("_", "-"), value)
    f.update()
    return f


def merged_copy(image, layer):
    copy = layer.copy()
    image.insert_layer(copy, None, 0)
    return copy


def enum_values(spec):
    """An enum property's values, in order.  PyGObject 3.50 (Debian 13)
    gives its GEnumClass, with n_values; 3.58 (Debian forky, GIMP 3.2) a
    Python enum: whichever this one has."""
    klass = spec.enum_class
    if hasattr(klass, "n_values"):
        return range(klass.n_values)
    return sorted(int(member) for member in klass)


def rendered(image):
    """The image as GIMP shows it, effects included: a duplicate, merged."""
    dup = image.duplicate()
    layer = dup.get_layers()[0]
    layer.merge_filters()
    data = Pixels(layer, "R'G'B'A u8", "u8", 4).raw()
    dup.delete()
    return data


# ---- Deconvolution: photograph-like images, and the tool on the same pixels


def photo_image(w, h, stype, model="RGB", blur=None):
    """An image of that sample type (float: linear light; u8: sRGB codes)
    and model holding a photograph-like picture, blurred by
    plug-in-cuda-convolve with the arguments 'blur' (border mirror unless
    they say) where given: through cuda:convolve where GIMP has it."""
    precision = {"float": Gimp.Precision.FLOAT_LINEAR,
                 "u8": Gimp.Precision.U8_NON_LINEAR}[stype]
    _, _, channels, alpha = MODELS[model]
    image, layer, _ = new_image(w, h, model, stype, precision=precision)
    Pixels(layer, babl_name(model, "float", linear=True), "float", channels).write(
        photo(w, h, channels - alpha, alpha))
    if blur:
        args = dict(border="mirror")
        args.update(blur)
        status, values = run(image, [layer], **args)
        if status != Gimp.PDBStatusType.SUCCESS:
            raise Exception("the blur failed: %s" % values)
    image.clean_all()
    return image, layer


def work_pixels(layer, stype, model="RGB"):
    """The layer as the tool's file holds it: linear floats or sRGB codes."""
    channels = MODELS[model][2]
    return Pixels(layer, babl_name(model, stype, linear=stype == "float"), stype, channels)


# (sample type, channels) -> the file's magic and extension
FILE_KINDS = {("float", 1): (b"Pf", "pfm"), ("float", 3): (b"PF", "pfm"),
              ("u8", 1): (b"P5", "pgm"), ("u8", 3): (b"P6", "ppm"), ("u8", 4): (b"P7", "pam")}


def write_file(px, path):
    """PFM (bottom row first, little-endian floats), binary PGM and PPM, or
    PAM with alpha."""
    data = px.raw()
    magic = FILE_KINDS[(px.stype, px.channels)][0]
    row = px.w * px.channels * (4 if px.stype == "float" else 1)
    with open(path, "wb") as f:
        if px.stype == "float":
            f.write(b"%s\n%d %d\n-1.0\n" % (magic, px.w, px.h))
            for y in reversed(range(px.h)):
                f.write(data[y * row:(y + 1) * row])
        else:
            if magic == b"P7":
                f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\n"
                        b"ENDHDR\n" % (px.w, px.h))
            else:
                f.write(b"%s\n%d %d\n255\n" % (magic, px.w, px.h))
            f.write(data)


def read_file(path, stype):
    """A PFM, PGM, PPM or PAM the tool wrote, as rows of pixels in the 0..1
    scale."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"P7":
        pos = data.index(b"ENDHDR\n") + 7
        header = dict(line.split(None, 1) for line in data[3:pos - 7].decode().splitlines()
                      if line.strip())
        w, h, c = int(header["WIDTH"]), int(header["HEIGHT"]), int(header["DEPTH"])
        fields = ["P7", w, h, header["MAXVAL"]]
    else:
        fields, pos = [], 0
        while len(fields) < 4:
            while data[pos:pos + 1].isspace():
                pos += 1
            end = pos
            while not data[end:end + 1].isspace():
                end += 1
            fields.append(data[pos:end].decode())
            pos = end
        pos += 1
        w, h = int(fields[1]), int(fields[2])
        c = 1 if fields[0] in ("Pf", "P5") else 3
    n = w * h * c
    if stype == "float":
        order = "<" if float(fields[3]) < 0 else ">"
        values = struct.unpack("%s%df" % (order, n), data[pos:pos + 4 * n])
        rows = [values[(h - 1 - y) * w * c:(h - y) * w * c] for y in range(h)]
    else:
        values = [v / 255.0 for v in data[pos:pos + n]]
        rows = [values[y * w * c:(y + 1) * w * c] for y in range(h)]
    return [[list(r[x * c:x * c + c]) for x in range(w)] for r in rows]


def tool(px, args, name, scratch):
    """The tool (CC_TOOL) on the layer's pixels, written to a file in
    'scratch' and read back."""
    ext = FILE_KINDS[(px.stype, px.channels)][1]
    src = os.path.join(scratch, "%s.%s" % (name, ext))
    out = os.path.join(scratch, "%s-out.%s" % (name, ext))
    write_file(px, src)
    done = subprocess.run([os.environ["CC_TOOL"]] + args + [src, out], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise Exception("the tool failed: %s" % done.stderr)
    return read_file(out, px.stype)


def worst_difference(a, b):
    return max(abs(p[c] - q[c]) for ra, rb in zip(a, b) for p, q in zip(ra, rb)
               for c in range(len(p)))


def psnr(a, b):
    n = sum(len(p) for row in a for p in row)
    mse = sum((p[c] - q[c]) ** 2 for ra, rb in zip(a, b) for p, q in zip(ra, rb)
              for c in range(len(p))) / n
    return 10 * math.log10(1.0 / mse)


# Whether Wiener runs on the CPU (test-gimp.sh's CC_CPU_WIENER): through
# FFTW, which a build configured --without-fftw lacks; its engine then
# refuses it there, naming FFTW.
CPU_WIENER = os.environ.get("CC_CPU_WIENER") != "0"


def smooth(n):
    """Whether n has no prime factor past 7: a side the GPU's transforms take."""
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
    return n == 1


def wiener_runs(w, h, border):
    """Whether Wiener on a w x h layer runs: on a GPU (CC_GPU), but for a
    wrapped side with a prime factor past 7, which the engine leaves to the
    CPU; on the CPU where it has FFTW.  Where not, the suite's summary says
    so once, and the caller checks the refusal (check_wiener_refused)."""
    if CPU_WIENER or (os.environ.get("CC_GPU") and
                      (border != "wrap" or (smooth(w) and smooth(h)))):
        return True
    skip("Wiener on the CPU: this build is without FFTW (its refusal checked)")
    return False


def check_wiener_refused(image, px, what, apply):
    """Wiener where it cannot run: apply() leaves the layer as it was.  The
    procedure on its own pixel path (apply() returns its status and values)
    fails naming FFTW, the image clean.  The operation merged (apply()
    returns None) passes its input through, saying why in GIMP's log
    (test-gimp.sh checks it), and the procedure through it (CC_OP) returns
    what ran: nothing, method "".  Through the operation a gray layer goes
    to RGBA float and back, within float rounding."""
    raw, before = px.raw(), px.read()
    result = apply()
    if result is not None and not os.environ.get("CC_OP"):
        status, values = result
        check(status != Gimp.PDBStatusType.SUCCESS and "FFTW" in str(values[0]),
              "%s: refused, naming FFTW: %s %r" % (what, status, values[0]))
        check(px.raw() == raw and not image.is_dirty(), "%s: pixels untouched" % what)
    else:
        worst = worst_difference(px.read(), before)
        check(worst <= 1e-6 and (result is None or result[1][0] == ""),
              "%s: cuda:deconvolve passes the layer through (worst %.3g)%s"
              % (what, worst, "" if result is None else ", nothing ran: %r" % (result[1],)))


def photograph(name):
    """data/photo-NAME.ppm (8-bit sRGB) as a clean linear-float RGB image:
    its bytes read here, since a slimmed GIMP (the GPU machine's) may lack
    the PNM loader.  The image and its layer."""
    path = os.path.join(os.environ["CC_TEST_DIR"], "..", "..", "data", "photo-%s.ppm" % name)
    with open(path, "rb") as f:
        magic, w, h, top = f.readline().split() + f.readline().split() + f.readline().split()
        data = f.read()
    w, h = int(w), int(h)
    if magic != b"P6" or top != b"255" or len(data) != w * h * 3:
        raise Exception("%s is not an 8-bit P6 of %dx%d" % (path, w, h))
    image = Gimp.Image.new_with_precision(w, h, Gimp.ImageBaseType.RGB,
                                          Gimp.Precision.U8_NON_LINEAR)
    layer = Gimp.Layer.new(image, name, w, h, Gimp.ImageType.RGB_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    buf = layer.get_buffer()
    buf.set(Gegl.Rectangle.new(0, 0, w, h), "R'G'B' u8", data)
    buf.flush()
    image.convert_precision(Gimp.Precision.FLOAT_LINEAR)
    image.clean_all()
    return image, image.get_layers()[0]


def check_restores(restore):
    """A photograph (data/photo-astronaut.ppm: not periodic) blurred with a
    mirrored border by a disc of radius 4 and 10 and a 15-pixel motion line,
    with no noise and with 1%: Wiener at the defaults gains 2 dB of PSNR or
    more in each (engine/deconvolve-fft.c's seamless canvas), and
    Richardson-Lucy at the defaults 1 dB or more on the noisy disc of
    radius 10.  restore(image, layer, **arguments) deconvolves with the
    arguments: the procedure's status and values, or None for the
    operation merged (which passes the input through where it fails)."""
    image, layer = photograph("astronaut")
    w, h = image.get_width(), image.get_height()
    sharp = work_pixels(layer, "float").read()
    image.delete()
    noise = random.Random(2026)
    for blur in (dict(shape="disc", radius=4.0), dict(shape="disc", radius=10.0),
                 dict(shape="motion", radius=7.0, angle=30.0)):
        for sigma in (0.0, 0.01):
            cases = [("Wiener, the defaults", dict(algorithm="wiener"), 2.0)]
            if blur["radius"] == 10.0 and sigma:
                cases.append(("Richardson-Lucy, the defaults", {}, 1.0))
            for what, args, gain in cases:
                image, layer = photograph("astronaut")
                status, values = run(image, [layer], border="mirror", **blur)
                if status != Gimp.PDBStatusType.SUCCESS:
                    raise Exception("the blur failed: %s" % values)
                px = work_pixels(layer, "float")
                blurred = [[[min(max(v + noise.gauss(0, sigma), 0.0), 1.0) if sigma else v
                             for v in p] for p in row] for row in px.read()]
                px.write(blurred)
                image.clean_all()
                what = "%s, %s %g%s%s" % (what, blur["shape"], blur["radius"],
                                         " (a 15-pixel line)" if blur["shape"] == "motion"
                                         else "", ", 1% noise" if sigma else "")
                if args.get("algorithm") == "wiener" and not wiener_runs(w, h, "mirror"):
                    check_wiener_refused(image, px, what, lambda: restore(
                        image, layer, **dict(blur, **args)))
                    image.delete()
                    continue
                result = restore(image, layer, **dict(blur, **args))
                restored = px.read()
                before, after = psnr(blurred, sharp), psnr(restored, sharp)
                check((result is None or result[0] == Gimp.PDBStatusType.SUCCESS) and
                      after >= before + gain, "%s raises a photograph's PSNR by %g dB or "
                      "more: %.2f dB to %.2f dB (%+.2f)"
                      % (what, gain, before, after, after - before))
                image.delete()


def rounded(stype, v):
    """v as a sample of that type stores it: clamped and rounded to nearest."""
    if stype == "half":
        return struct.unpack("<e", struct.pack("<e", v))[0]
    if stype in ("float", "double"):
        return v
    top = TYPES[stype][2]
    return math.floor(min(max(v, 0.0), 1.0) * top + 0.5) / top


def check_rounding(got, want, stype, bound, what):
    """Every sample is 'want' rounded once to the type, to nearest: between
    the roundings of want - bound and want + bound (rounding is monotonic),
    one value where 'want' is not within 'bound' of a boundary."""
    bad, samples, where = 0, 0, None
    for y, row in enumerate(want):
        for x, p in enumerate(row):
            for c, v in enumerate(p):
                samples += 1
                g = got[y][x][c]
                if stype == "float":
                    ok = abs(g - v) <= bound
                else:
                    ok = rounded(stype, v - bound) <= g <= rounded(stype, v + bound)
                if not ok:
                    bad += 1
                    where = where or (x, y, c, g, v, rounded(stype, v))
    return check(bad == 0, "%s: %d samples rounded once to nearest, %d not (first: %s)"
                 % (what, samples, bad, where))


def summary(name):
    """Prints the count; raises (GIMP then exits non-zero) when any failed."""
    for what in skips:
        print("SKIP: " + what)
    print("%s: %d checks, %d failures" % (name, stats["checks"], len(failures)))
    if failures:
        raise Exception("%d of %d checks failed" % (len(failures), stats["checks"]))
