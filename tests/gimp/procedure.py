# plug-in-cuda-convolve in real GIMP 3, from Python: presets, explicit and
# 1D masks, every border mode, selections, layer offsets, masks and channels,
# every precision, linear light, and every bad input.  Pixels are compared
# with reference.py, an independent implementation of the definition.
# Run by tests/test-gimp.sh inside GIMP 3's console (python-fu-eval); it
# raises at the end when anything failed, which makes GIMP exit non-zero.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

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
    for border in ("zero", "extend", "wrap", "mirror", "black", "white"):
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


def test_native_rounding():
    """Each precision travels in its own type and is rounded once, to
    nearest: 8- and 16-bit samples are round(v * max), half samples the
    nearest half, of the exact value give or take the engine's error bound
    (for 8-bit that is one value almost everywhere)."""
    for stype in ("u8", "u16", "half", "float"):
        for model in ("Y", "RGBA"):
            hdr = stype in ("half", "float")
            m = [rng.uniform(-0.5, 1.0) for _ in range(9)]
            image, layer, px = new_image(31, 23, model, stype, hdr)
            before = px.read()
            status, values = run(image, [layer], mask_width=3, mask_height=3, matrix=m,
                                 divisor=sum(m), border="mirror", clamp=not hdr,
                                 linear=False)
            what = "native rounding, %s %s" % (model, stype)
            if check(status == Gimp.PDBStatusType.SUCCESS, "%s: runs %s" % (what, values)):
                want = reference.convolve(before, m, 3, 3, sum(m), 0.0, "mirror", not hdr,
                                          MODELS[model][3], True, True)
                bound = tolerance("float", m, sum(m), hdr)[0]
                check_rounding(px.read(), want, stype, bound, what)
            image.delete()


def test_selection():
    image, layer, px = new_image(17, 13)
    before_raw, before = px.raw(), px.read()
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 4, 3, 7, 5)
    image.clean_all()
    mw, mh, m, d, o = PRESETS["gaussian-5"]
    status, _ = run(image, [layer], preset="gaussian-5", border="zero", linear=False)
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
    run(image, [layer], mask_width=5, mask_height=1, matrix=m, divisor=9, border="wrap",
        linear=False)
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
    status, _ = run(image, [layer], matrix=m, divisor=16, border="mirror", linear=False)
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


def test_channels():
    """A colour channel that is off keeps its values; gray is convolved
    unless all three are off."""
    m = [1, 2, 1, 2, 4, 2, 1, 2, 1]
    image, layer, px = new_image(11, 9, "RGBA", "u8")
    before = px.read()
    status, _ = run(image, [layer], matrix=m, divisor=16, linear=False, red=False,
                    blue=False)
    want = reference.convolve(before, m, 3, 3, 16, 0.0, "extend", True, True)
    got = px.read()
    check(status == Gimp.PDBStatusType.SUCCESS and
          all(got[y][x][c] == before[y][x][c] for y in range(9) for x in range(11)
              for c in (0, 2)), "red and blue off: their values are kept exactly")
    compare([[[p[1], p[3]] for p in row] for row in got],
            [[[p[1], p[3]] for p in row] for row in want], tolerance("u8", m, 16),
            "red and blue off: green and alpha convolved")
    image.delete()
    for flags, convolved in (((False, False, False), False), ((False, False, True), True)):
        image, layer, px = new_image(11, 9, "Y", "u8")
        before = px.read()
        red, green, blue = flags
        run(image, [layer], matrix=m, divisor=16, linear=False, red=red, green=green,
            blue=blue)
        what = "gray with red %s, green %s, blue %s" % flags
        if convolved:
            compare(px.read(), reference.convolve(before, m, 3, 3, 16),
                    tolerance("u8", m, 16), what + ": convolved")
        else:
            check(px.read() == before, what + ": unchanged")
        image.delete()


def test_errors():
    image, layer, px = new_image(9, 7)
    bad = [
        ("even mask-width", dict(mask_width=4), "odd"),
        ("matrix length", dict(matrix=[1, 2, 3, 4, 5, 6, 7, 8]), "matrix"),
        ("NaN in the matrix", dict(matrix=[1, 1, 1, 1, float("nan"), 1, 1, 1, 1]), "finite"),
        ("infinity in the matrix", dict(matrix=[1, 1, 1, 1, float("inf"), 1, 1, 1, 1]), "finite"),
        ("divisor 0", dict(matrix=[1] * 9, divisor=0.0), "divisor"),
        ("unknown preset", dict(preset="no-such-preset"), "no-such-preset"),
        ("preset id with a path", dict(preset="../../etc/passwd"), "preset id"),
        ("unknown border", dict(border="sideways"), "border"),
        ("border in capitals", dict(border="Black"), "black, white"),
        ("border with a space", dict(border=" white"), "border"),
        ("unknown method", dict(method="fastest"), "method"),
    ]
    check_refusals(image, layer, px, bad)
    check_gpu_method(image, layer, px)
    image.clean_all()
    raw = px.raw()

    status, values = run(image, [layer], matrix=[1] * 9, divisor=0.0, normalize=True)
    check(status == Gimp.PDBStatusType.SUCCESS, "divisor 0 with normalize on is fine")
    if os.environ.get("CC_GPU"):
        # A large mask waits for CUDA to start in GIMP's process (a small one
        # would take the CPU meanwhile); after it, auto takes the GPU.
        run(image, [layer], mask_width=31, mask_height=31, matrix=[1.0] * 961, divisor=961.0)
    status, values = run(image, [layer], method="auto")
    if os.environ.get("CC_GPU"):
        check(status == Gimp.PDBStatusType.SUCCESS and values[0] in METHODS[1:]
              and not values[1].startswith("CPU"), "auto takes the GPU: %r" % values)
    else:
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

    image, layer = indexed_image()
    status, values = run(image, [layer])
    check(status != Gimp.PDBStatusType.SUCCESS and "indexed" in str(values[0]),
          "an indexed image is refused: %r" % values[0])
    image.delete()


def test_large_mask():
    """A mask past the GPU's direct methods (127x127): a 301x255 one whose
    only tap is 117 right of its centre and 101 up, border wrap, moves the
    image cyclically, exactly; 'auto' takes fft where a GPU is usable, else
    the CPU."""
    mw, mh, dx, dy = 301, 255, 117, -101
    m = [0.0] * (mw * mh)
    m[(mh // 2 + dy) * mw + mw // 2 + dx] = 1.0
    image, layer, px = new_image(40, 30, "RGB", "u8")
    before = px.read()
    status, values = run(image, [layer], mask_width=mw, mask_height=mh, matrix=m,
                         border="wrap")
    moved = [[before[(y + dy) % 30][(x + dx) % 40] for x in range(40)] for y in range(30)]
    check(status == Gimp.PDBStatusType.SUCCESS and values[0] in ("cpu", "fft") and
          px.read() == moved,
          "a 301x255 mask of one tap moves the image by (%d,%d) with border wrap: %s %r"
          % (dx, dy, status, values))
    image.delete()


for test in (test_presets, test_matrices, test_precisions, test_native_rounding,
             test_selection, test_layers, test_linear, test_channels, test_errors,
             test_large_mask):
    test()

summary("GIMP Python")
