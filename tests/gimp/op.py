# The GEGL operation cuda:convolve in real GIMP 3 (its module where GEGL
# looks, XDG_DATA_HOME): through Gimp.DrawableFilter, merged, it equals
# plug-in-cuda-convolve's result byte for byte (the procedure applies
# through it); appended, it leaves the layer's own pixels alone, is listed,
# and follows its config; invalid properties pass the input through; the
# gegl tool's output of the same file equals the procedure's.
#
# CC_TEST_MODE=save CC_TEST_SAVE=FILE: only writes one merged result's bytes
# to FILE (the shell compares GEGL_THREADS=1 with 8).
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

OP = "cuda:convolve"


def wait_for_gpu():
    """With a GPU (CC_GPU), CUDA starts in GIMP's process when the op is
    first prepared and small masks take the CPU until it is ready: a 31x31
    mask waits for it, so that every comparison below sees the GPU on both
    sides (the CPU's 32-bit results may differ from it in the last code)."""
    image, layer, px = new_image(16, 16, "RGB", "u8")
    layer.merge_filter(op_filter(layer, matrix=";".join([",".join(["1"] * 31)] * 31),
                                 normalize=True))
    image.delete()


def test_equal_to_procedure():
    """Op merged vs procedure, byte for byte, in the drawable's own format."""
    cases = [("RGBA", "u8", "gaussian-5", "extend"), ("RGB", "u8", "sharpen", "zero"),
             ("RGBA", "u16", "emboss", "mirror"), ("Y", "u8", "box-5", "wrap"),
             ("RGBA", "float", "sobel-x", "black"), ("YA", "u16", "prewitt-y", "white"),
             ("RGB", "half", "gaussian-7", "extend"), ("RGBA", "u32", "box-3", "wrap")]
    for model, stype, preset, border in cases:
        image, layer, px = new_image(37, 29, model, stype)
        copy = merged_copy(image, layer)
        layer.merge_filter(op_filter(layer, preset=preset, border=border))
        status, values = run(image, [copy], preset=preset, border=border)
        check(status == Gimp.PDBStatusType.SUCCESS, "procedure runs: %s" % (values,))
        mine = Pixels(copy, px.fmt, px.stype, px.channels)
        check(px.raw() == mine.raw(), "%s %s, %s, border %s: the op merged equals the "
              "procedure byte for byte" % (model, stype, preset, border))
        image.delete()


def test_selection_and_offsets():
    """GIMP gives a filter only the selection's bounding box: the op's halo at
    its edges is the border rule, where the procedure (which computes a
    partial selection itself) reads the pixels around.  Away from the edges
    by more than the halo the two agree byte for byte."""
    image, layer, px = new_image(41, 33, "RGBA", "u8")
    layer.set_offsets(7, -5)
    copy = merged_copy(image, layer)
    copy.set_offsets(7, -5)
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 12, 3, 20, 17)
    before = px.read()
    layer.merge_filter(op_filter(layer, preset="box-5", border="wrap"))
    run(image, [copy], preset="box-5", border="wrap")
    after = px.read()
    theirs = Pixels(copy, px.fmt, "u8", 4).read()
    # The selection in layer coordinates, less the box's halo of 2.
    inner = [(x, y) for y in range(33) for x in range(41)
             if 12 + 2 <= x + 7 < 32 - 2 and 3 + 2 <= y - 5 < 20 - 2]
    check(inner and all(after[y][x] == theirs[y][x] for x, y in inner),
          "selection and layer offsets: %d pixels inside the selection, off its edges by "
          "the halo, the op equals the procedure byte for byte" % len(inner))
    # Outside the selection (layer coordinates: image minus the offsets) nothing moved.
    outside = [(x, y) for y in range(33) for x in range(41)
               if not (12 <= x + 7 < 32 and 3 <= y - 5 < 20)]
    check(all(after[y][x] == before[y][x] for x, y in outside),
          "%d pixels outside the selection untouched" % len(outside))
    check(any(after[y][x] != before[y][x] for y in range(33) for x in range(41)),
          "pixels inside the selection changed")
    image.delete()


def test_append():
    image, layer, px = new_image(31, 27, "RGBA", "u8")
    own = px.raw()
    f = op_filter(layer, preset="emboss")
    layer.append_filter(f)
    check(px.raw() == own, "appended: the layer's own pixels are untouched")
    names = [g.get_operation_name() for g in layer.get_filters()]
    check(OP in names, "appended: get_filters() lists it (%s)" % names)
    first = rendered(image)
    check(first != Pixels(layer, "R'G'B'A u8", "u8", 4).raw(),
          "appended: the rendered image shows the effect")
    f.get_config().set_property("preset", "box-5")
    f.update()
    second = rendered(image)
    check(second != first, "appended: a changed config changes the rendered result")
    image.delete()


def test_invalid():
    for what, props in [("2x2 matrix", dict(matrix="1,2;3,4")),
                        ("a matrix that does not parse", dict(matrix="1,x,1")),
                        ("divisor 0", dict(matrix="1,2,1", divisor=0.0))]:
        image, layer, px = new_image(19, 15, "RGBA", "u8")
        before = px.raw()
        layer.merge_filter(op_filter(layer, **props))
        check(px.raw() == before, "%s: the input passes through unchanged" % what)
        image.delete()


def test_gegl_tool():
    """The gegl tool's outputs (made by test-gimp.sh, on the CPU) against the
    procedure on the same files: PNG the same 8-bit codes, float TIFF the
    same floats; where the procedure ran on the GPU (with CC_GPU, once CUDA
    has started in GIMP's process), within one code and float rounding."""
    d = os.environ["CC_GEGL_DIR"]
    for name, exact in (("in.png", False), ("in.tif", True)):
        src = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE,
                             Gio.File.new_for_path(os.path.join(d, name)))
        layer = src.get_layers()[0]
        status, values = run(src, [layer], preset="gaussian-5")
        out = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE,
                             Gio.File.new_for_path(os.path.join(d, "out-" + name)))
        fmt = "R'G'B'A float"
        a = Pixels(layer, fmt, "float", 4).read()
        b = Pixels(out.get_layers()[0], fmt, "float", 4).read()
        on_gpu = status == Gimp.PDBStatusType.SUCCESS and values[0] != "cpu"
        if exact and on_gpu:
            bad = sum(1 for y, row in enumerate(a) for x, p in enumerate(row)
                      for c in range(4) if abs(p[c] - b[y][x][c]) > 2e-6 * max(1.0, abs(p[c])))
        elif on_gpu:
            bad = sum(1 for y, row in enumerate(a) for x, p in enumerate(row)
                      for c in range(4)
                      if abs(round(p[c] * 255) - round(b[y][x][c] * 255)) > 1)
        elif exact:
            bad = sum(1 for y, row in enumerate(a) for x, p in enumerate(row)
                      for c in range(4) if p[c] != b[y][x][c])
        else:
            bad = sum(1 for y, row in enumerate(a) for x, p in enumerate(row)
                      for c in range(4)
                      if round(p[c] * 255) != round(b[y][x][c] * 255))
        check(bad == 0, "gegl tool on %s equals the procedure%s (%s ran): %d samples differ"
              % (name, "" if exact else " (8-bit codes)", values[0], bad))
        src.delete()
        out.delete()


from gi.repository import Gio  # noqa: E402

def test_choices():
    """The op's border and method choices are the public names, in the
    engine's order (they are made from its tables), and the procedure takes
    each of them; its presets are a list of the procedure's."""
    from gi.repository import Gegl, GObject
    Gegl.init(None)
    want = {"border": ["zero", "extend", "wrap", "mirror", "black", "white"],
            "method": ["auto", "cpu", "basic", "constant", "tiled", "caching", "register",
                       "separable", "fft"]}
    specs = {p.name: p for p in Gegl.Operation.list_properties(OP)}
    image, layer, px = new_image(9, 7, "RGB", "u8")
    for prop, names in want.items():
        spec = specs[prop]
        got = [GObject.enum_to_string(spec.value_type, i) for i in enum_values(spec)]
        check(got == names, "the op's %s choices are %s: %s" % (prop, names, got))
        for name in got:
            if prop == "method" and name not in ("auto", "cpu"):
                continue   # a GPU method is refused where there is none
            status, values = run(image, [layer], **{prop: name})
            check(status == Gimp.PDBStatusType.SUCCESS,
                  "the procedure takes the op's %s '%s': %s" % (prop, name, values[0]))
    image.delete()
    # The presets are a list, the shipped ones and the user's, as the
    # procedure lists them; each chosen through the op is the procedure's.
    ids = pdb.lookup_procedure("plug-in-cuda-convolve-presets")
    listed = list(ids.run(ids.create_config()).index(1))
    image, layer, px = new_image(13, 11, "RGBA", "u8")
    cfg = Gimp.DrawableFilter.new(layer, OP, "presets").get_config()
    choice = Gimp.param_spec_choice_get_choice(cfg.find_property("preset"))
    got = list(choice.list_nicks())
    check(got == ["none"] + listed, "GIMP's dialog lists the op's presets, none and %s: %s "
          "(shown as %s)" % (listed, got, [choice.get_label(n) for n in got[:3]]))
    image.delete()
    for pid in listed:
        image, layer, px = new_image(13, 11, "RGBA", "u8")
        copy = merged_copy(image, layer)
        layer.merge_filter(op_filter(layer, preset=pid))
        run(image, [copy], preset=pid)
        check(px.raw() == Pixels(copy, px.fmt, "u8", 4).raw(),
              "preset %s chosen through the op is the procedure's" % pid)
        image.delete()


SHAPES = [("disc", dict(radius=3.0)), ("polygon", dict(radius=4.0, blades=5, angle=10.0)),
          ("ring", dict(radius=4.0, inner=0.4)), ("gaussian", dict(radius=2.5)),
          ("box", dict(radius=1.5)), ("motion", dict(radius=3.0, angle=30.0))]


def shape_weights(shape, params):
    """The shape's mask as the tool prints it: (width, height, values)."""
    import subprocess
    args = [os.environ["CC_TOOL"], "--shape", shape]
    for key, value in params.items():
        args += ["--" + key, str(value)]
    text = subprocess.run(args + ["--print-matrix"], capture_output=True, text=True,
                          check=True).stdout.strip()
    rows = [[float(v) for v in row.split(",")] for row in text.split(";")]
    return len(rows[0]), len(rows), [v for row in rows for v in row]


def test_shapes():
    """Each shape through the op, merged, equals the procedure with the same
    shape and the procedure given the shape's weights as a matrix, byte for
    byte; an unknown shape is refused by the procedure, and a matrix past
    1023 values a row passes the op's input through, the layer untouched."""
    for shape, params in SHAPES:
        image, layer, px = new_image(41, 33, "RGBA", "u8")
        original = px.raw()
        by_shape, by_matrix = merged_copy(image, layer), merged_copy(image, layer)
        layer.merge_filter(op_filter(layer, shape=shape, **params))
        status, values = run(image, [by_shape], shape=shape, **params)
        check(status == Gimp.PDBStatusType.SUCCESS, "procedure, %s: %s" % (shape, values[0]))
        w, h, weights = shape_weights(shape, params)
        run(image, [by_matrix], mask_width=w, mask_height=h, matrix=weights)
        op, procedure = px.raw(), Pixels(by_shape, px.fmt, "u8", 4).raw()
        matrix = Pixels(by_matrix, px.fmt, "u8", 4).raw()
        check(op != original and op == procedure and procedure == matrix,
              "%s %s: the op, the procedure and the procedure given its %dx%d weights agree "
              "byte for byte (and change the layer)" % (shape, params, w, h))
        image.delete()
    image, layer, px = new_image(19, 15, "RGBA", "u8")
    before = px.raw()
    status, values = run(image, [layer], shape="star")
    check(status != Gimp.PDBStatusType.SUCCESS and px.raw() == before,
          "the procedure refuses an unknown shape: %s" % values[0])
    layer.merge_filter(op_filter(layer, matrix=",".join(["1"] * 1025)))
    check(px.raw() == before, "the op passes a 1025-wide matrix through")
    image.delete()


def test_fault():
    """CUDA_CONVOLVE_FAULT=cpu: the engine's CPU memory fails in GIMP's
    process; the op passes the input through and GIMP goes on."""
    image, layer, px = new_image(23, 17, "RGBA", "u8")
    before = px.raw()
    layer.merge_filter(op_filter(layer, preset="box-3", method="cpu"))
    check(px.raw() == before, "a failing engine: the input passes through unchanged")
    image2, layer2, px2 = new_image(9, 7, "RGB", "u8")
    check(image2.get_width() == 9, "GIMP still runs after the failure")
    image.delete()
    image2.delete()


def test_large_mask():
    """The op's matrix past 127x127: a 255x201 mask of one tap, 90 left of
    its centre and 77 down, moves the image cyclically with border wrap,
    as the procedure given the same values does, byte for byte."""
    mw, mh, dx, dy = 255, 201, -90, 77
    rows = [["0"] * mw for _ in range(mh)]
    rows[mh // 2 + dy][mw // 2 + dx] = "1"
    image, layer, px = new_image(33, 21, "RGB", "u8")
    before, copy = px.read(), merged_copy(image, layer)
    layer.merge_filter(op_filter(layer, matrix=";".join(",".join(r) for r in rows),
                                 border="wrap"))
    weights = [float(v) for r in rows for v in r]
    status, values = run(image, [copy], mask_width=mw, mask_height=mh, matrix=weights,
                         border="wrap")
    moved = [[before[(y + dy) % 21][(x + dx) % 33] for x in range(33)] for y in range(21)]
    check(px.read() == moved and Pixels(copy, px.fmt, "u8", 3).read() == moved,
          "a 255x201 matrix through the op and the procedure moves the image by (%d,%d): %r"
          % (dx, dy, values))
    image.delete()


LUMINANCE = (0.22248794, 0.71690384, 0.06060826)   # babl's sRGB, adapted to D50


def srgb_to_linear(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def layer_weights(px):
    """A mask layer's weights computed here from its sRGB values: luminance
    in linear light times alpha, an even side padded with zeros, over the
    sum."""
    rows = px.read()
    colour = px.channels - (1 if px.channels in (2, 4) else 0)
    w, h = px.w | 1, px.h | 1
    weights = [0.0] * (w * h)
    for y, row in enumerate(rows):
        for x, p in enumerate(row):
            lum = (srgb_to_linear(p[0]) if colour == 1 else
                   sum(k * srgb_to_linear(v) for k, v in zip(LUMINANCE, p[:3])))
            weights[y * w + x] = lum * (p[-1] if colour < px.channels else 1.0)
    total = sum(weights)
    return w, h, [v / total for v in weights]


LAYER_OP = "cuda:convolve-layer"


def test_aux():
    """A layer as the mask: cuda:convolve-layer's aux input and the
    procedure's mask-drawable give the same bytes, and the procedure given the weights
    computed here as a matrix the same within a code (RGBA and gray masks,
    even sides padded, on RGB and gray images); an all-zero layer passes the
    op's input through and is refused by the procedure, as is a 1024-wide
    one, the layer untouched."""
    masks = []
    for model, w, h in (("RGBA", 6, 4), ("Y", 5, 5), ("YA", 9, 2)):
        mimage, mlayer, mpx = new_image(w, h, model, "u8")
        masks.append((model, mimage, mlayer, mpx))
    for target in ("RGB", "Y"):
        for model, mimage, mlayer, mpx in masks:
            if target == "Y" and model != "RGBA":
                continue
            image, layer, px = new_image(37, 29, target, "u8")
            original = px.raw()
            by_procedure, by_matrix = merged_copy(image, layer), merged_copy(image, layer)
            f = op_filter(layer, LAYER_OP)
            f.set_aux_input("aux", mlayer)
            f.update()
            layer.merge_filter(f)
            status, values = run(image, [by_procedure], mask_drawable=mlayer)
            w, h, weights = layer_weights(mpx)
            run(image, [by_matrix], mask_width=w, mask_height=h, matrix=weights)
            channels = px.channels
            op = px.raw()
            procedure = Pixels(by_procedure, px.fmt, "u8", channels).raw()
            matrix = Pixels(by_matrix, px.fmt, "u8", channels).raw()
            worst = max(abs(a - b) for a, b in zip(procedure, matrix))
            check(status == Gimp.PDBStatusType.SUCCESS and op != original and
                  op == procedure and worst <= 1,
                  "%s %dx%d mask on %s: the op's aux and mask-drawable agree byte for byte, "
                  "the weights computed here as a matrix within %d code (%s)"
                  % (model, mpx.w, mpx.h, target, worst, values))
            image.delete()

    image, layer, px = new_image(19, 15, "RGBA", "u8")
    before = px.raw()
    bad = []
    for what, mw, mh, word in (("an all-zero layer", 5, 3, "all zero"),
                               ("a 1024-wide layer", 1024, 1, "1023")):
        mimage = Gimp.Image.new(mw, mh, Gimp.ImageBaseType.RGB)
        mlayer = Gimp.Layer.new(mimage, "m", mw, mh, Gimp.ImageType.RGBA_IMAGE, 100,
                                Gimp.LayerMode.NORMAL)
        mimage.insert_layer(mlayer, None, 0)
        bad.append((what, mimage, mlayer))
        status, values = run(image, [layer], mask_drawable=mlayer)
        check(status != Gimp.PDBStatusType.SUCCESS and word in str(values[0]) and
              px.raw() == before and not image.is_dirty(),
              "the procedure refuses %s: %s" % (what, values[0]))
    for what, mimage, mlayer in bad:
        f = op_filter(layer, LAYER_OP)
        f.set_aux_input("aux", mlayer)
        f.update()
        layer.merge_filter(f)
        check(px.raw() == before, "the op passes %s through" % what)
        mimage.delete()
    image.delete()
    for _, mimage, _, _ in masks:
        mimage.delete()

    # Without an aux image, cuda:convolve-layer is cuda:convolve.
    image, layer, px = new_image(23, 17, "RGBA", "u8")
    copy = merged_copy(image, layer)
    layer.merge_filter(op_filter(layer, LAYER_OP, preset="emboss"))
    copy.merge_filter(op_filter(copy, preset="emboss"))
    check(px.raw() == Pixels(copy, px.fmt, "u8", 4).raw(),
          "cuda:convolve-layer without an aux image equals cuda:convolve")
    image.delete()


mode = os.environ.get("CC_TEST_MODE")
if mode == "fault-op":
    test_fault()
    summary("GEGL operation under a fault")
elif mode == "save":
    image, layer, px = new_image(257, 131, "RGBA", "u8")
    layer.merge_filter(op_filter(layer, preset="gaussian-7", border="mirror"))
    with open(os.environ["CC_TEST_SAVE"], "wb") as out:
        out.write(px.raw())
    print("ok   - saved")
else:
    if os.environ.get("CC_GPU"):
        wait_for_gpu()
    test_equal_to_procedure()
    test_selection_and_offsets()
    test_append()
    test_invalid()
    test_choices()
    test_shapes()
    test_large_mask()
    test_aux()
    test_gegl_tool()
    summary("GEGL operation")
