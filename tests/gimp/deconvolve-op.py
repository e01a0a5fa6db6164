# The GEGL operations cuda:deconvolve and cuda:deconvolve-layer in real
# GIMP 3 (their module where GEGL looks, XDG_DATA_HOME): registered with
# their properties and GIMP's menu keys; merged through Gimp.DrawableFilter
# they equal the tool's --deconvolve on the same pixels (written here as
# PFM or PPM) for Richardson-Lucy and Wiener, float and 8-bit; the start
# matters; restoring a blurred photograph raises its PSNR; the whole
# layer is one engine call; appended, the effect stays on the layer and
# follows its config; a layer as the mask equals its weights as a matrix;
# masks the engine cannot take as a blur leave the layer as it was
# (test-gimp.sh checks GIMP's log for the warnings).
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

from gi.repository import Gegl, GLib, GObject  # noqa: E402

OP = "cuda:deconvolve"
LAYER_OP = "cuda:deconvolve-layer"
SCRATCH = os.environ["CC_GEGL_DIR"]


def test_registered():
    """Both operations, GIMP's menu keys, the property list (no alpha
    weighting nor affect alpha: the engine keeps alpha), the new properties'
    ranges, defaults and visibility, and the layer op's aux pad."""
    Gegl.init(None)
    check(Gegl.has_operation(OP) and Gegl.has_operation(LAYER_OP),
          "GEGL lists %s and %s" % (OP, LAYER_OP))
    for op, label in ((OP, "Deconvolve on the GPU..."),
                      (LAYER_OP, "Deconvolve with a layer on the GPU...")):
        keys = [Gegl.Operation.get_key(op, k)
                for k in ("categories", "gimp:menu-path", "gimp:menu-label")]
        check(keys == ["enhance", "<Image>/Filters/Enhance", label],
              "%s: category, GIMP's menu path and label: %s" % (op, keys))
    specs = {p.name: p for p in Gegl.Operation.list_properties(OP)}
    want = ["shape", "radius", "angle", "blades", "inner", "preset", "matrix", "divisor",
            "offset", "normalize", "algorithm", "iterations", "init", "tv-weight", "noise",
            "border", "method", "clamp", "linear", "red", "green", "blue", "report"]
    check(sorted(specs) == sorted(want), "%s's properties are %s: %s"
          % (OP, want, sorted(specs)))
    layer_specs = [p.name for p in Gegl.Operation.list_properties(LAYER_OP)]
    check(sorted(layer_specs) == sorted(want), "%s has the same: %s" % (LAYER_OP, layer_specs))

    def choices(name):
        spec = specs[name]
        return ([GObject.enum_to_string(spec.value_type, i) for i in enum_values(spec)],
                GObject.enum_to_string(spec.value_type, int(spec.get_default_value())))

    for name, names, default in (("algorithm", ["richardson-lucy", "wiener"],
                                  "richardson-lucy"),
                                 ("init", ["image", "flat"], "flat"),
                                 ("border", ["zero", "extend", "wrap", "mirror", "black",
                                             "white"], "mirror")):
        check(choices(name) == (names, default), "%s: the choices %s, default %s: %s"
              % (name, names, default, choices(name)))
    for name, low, high, default in (("iterations", 1, 1000, 30), ("tv-weight", 0.0, 0.1, 0.0),
                                     ("noise", 0.0, GLib.MAXDOUBLE, 0.01)):
        s = specs[name]
        got = (s.minimum, s.maximum, s.get_default_value())
        check(got == (low, high, default), "%s: range %s..%s, default %s: %s"
              % (name, low, high, default, got))
    for name, visible in (("iterations", "algorithm {richardson-lucy}"),
                          ("init", "algorithm {richardson-lucy}"),
                          ("tv-weight", "algorithm {richardson-lucy}"),
                          ("noise", "algorithm {wiener}"), ("report", "0")):
        got = Gegl.param_spec_get_property_key(specs[name], "visible")
        check(got == visible, "%s is visible where %r: %r" % (name, visible, got))
    graph = Gegl.Node()
    node = graph.create_child(LAYER_OP)
    check(node.has_pad("aux") and not graph.create_child(OP).has_pad("aux"),
          "%s has an aux pad, %s none" % (LAYER_OP, OP))


# The op's properties and the tool's options for the same settings, beside
# --deconvolve ALGORITHM.
CASES = [
    ("float", dict(shape="disc", radius=2.0), ["--shape", "disc", "--radius", "2"],
     "Richardson-Lucy from flat (the defaults), disc, mirror"),
    ("float", dict(shape="gaussian", radius=2.0, init="image", iterations=12, tv_weight=0.004,
                   border="extend"),
     ["--shape", "gaussian", "--radius", "2", "--init", "image", "--iterations", "12",
      "--tv-weight", "0.004", "--border", "extend"],
     "Richardson-Lucy from the image, 12 iterations, total variation, extend"),
    ("float", dict(shape="disc", radius=2.0, algorithm="wiener", noise=0.02, border="wrap"),
     ["--shape", "disc", "--radius", "2", "--noise", "0.02",
      "--border", "wrap"], "Wiener, noise 0.02, wrap"),
    ("u8", dict(preset="gaussian-5"), ["--preset", "gaussian-5"],
     "Richardson-Lucy, preset gaussian-5, sRGB codes through linear light"),
    ("u8", dict(matrix="1,2,1;2,4,2;1,2,1", algorithm="wiener", noise=0.005),
     ["--matrix", "1,2,1;2,4,2;1,2,1", "--noise", "0.005"],
     "Wiener, a matrix, sRGB codes"),
    ("u8", dict(shape="box", radius=1.0, linear=False, iterations=20),
     ["--shape", "box", "--radius", "1", "--perceptual", "--iterations", "20"],
     "Richardson-Lucy on the perceptual values (linear off)"),
]


def test_equals_tool():
    """Merged, the op's result is the tool's on the same pixels: within
    1e-4 on linear floats, one code on sRGB codes."""
    for n, (stype, props, args, what) in enumerate(CASES):
        image, layer = photo_image(47, 39, stype, blur=dict(shape="disc", radius=2.0))
        px = work_pixels(layer, stype)
        before = px.read()
        algorithm = props.get("algorithm", "richardson-lucy")
        if algorithm == "wiener" and not wiener_runs(47, 39, props.get("border", "mirror")):
            check_wiener_refused(image, px, "%s (%s)" % (what, stype),
                                 lambda: layer.merge_filter(op_filter(layer, OP, **props)))
            image.delete()
            continue
        want = tool(px, ["--deconvolve", algorithm] + args, "case%d" % n, SCRATCH)
        layer.merge_filter(op_filter(layer, OP, **props))
        got = px.read()
        worst = worst_difference(got, want)
        bound = 1e-4 if stype == "float" else 1.0 / 255 + 1e-9
        check(worst <= bound and worst_difference(got, before) > 10 * bound,
              "%s (%s): the op merged equals the tool's --deconvolve within %g (worst %.3g) "
              "and changes the layer" % (what, stype, bound, worst))
        image.delete()


def test_start_matters():
    """init image and flat give different results, as do the two
    algorithms (where Wiener runs)."""
    results = {}
    for key, props in (("flat", dict(init="flat")), ("image", dict(init="image")),
                       ("wiener", dict(algorithm="wiener"))):
        image, layer = photo_image(31, 27, "float", blur=dict(shape="disc", radius=2.0))
        px = work_pixels(layer, "float")

        def merge():
            layer.merge_filter(op_filter(layer, OP, shape="disc", radius=2.0, iterations=10,
                                         **props))

        if key == "wiener" and not wiener_runs(31, 27, "mirror"):
            check_wiener_refused(image, px, "wiener", merge)
        else:
            merge()
            results[key] = px.read()
        image.delete()
    for a, b in (("flat", "image"), ("flat", "wiener")):
        if b in results:
            worst = worst_difference(results[a], results[b])
            check(worst > 1e-3, "%s and %s differ (by up to %.3g)" % (a, b, worst))


def test_restores():
    """Merged, the operation restores a blurred photograph (check_restores)."""
    def restore(image, layer, **props):
        layer.merge_filter(op_filter(layer, OP, **props))

    check_restores(restore)


def test_one_call():
    """The whole layer in one engine call, whatever chunks GIMP renders."""
    report = os.path.join(SCRATCH, "report.txt")
    image, layer = photo_image(301, 203, "u8", blur=dict(shape="disc", radius=2.0))
    layer.merge_filter(op_filter(layer, OP, shape="disc", radius=2.0, report=report))
    with open(report) as f:
        lines = [line.rstrip("\n").split("\t") for line in f]
    check(len(lines) == 1 and lines[0][2] == str(301 * 203) and lines[0][3] == "1" and
          "richardson-lucy, 30 iterations" in lines[0][5],
          "the report: one engine call for the %d pixels (%s)" % (301 * 203, lines))
    image.delete()


def test_alpha_and_kept():
    """Alpha is kept, as is a channel left out; the others are restored."""
    image, layer, px = new_image(29, 23, "RGBA", "u8")
    before = px.read()
    layer.merge_filter(op_filter(layer, OP, shape="disc", radius=2.0, red=False))
    after = px.read()
    for c, name, kept in ((0, "red", True), (1, "green", False), (3, "alpha", True)):
        same = all(p[c] == q[c] for ra, rb in zip(before, after) for p, q in zip(ra, rb))
        check(same == kept, "%s %s" % (name, "kept" if kept else "restored"))
    image.delete()


def test_appended():
    """Appended, the layer's own pixels stay; the rendered image is the
    merged result, and follows the config's changes (to Wiener, where it
    cannot run, the layer's own pixels)."""
    image, layer = photo_image(37, 31, "u8", blur=dict(shape="disc", radius=2.0))
    px = Pixels(layer, "R'G'B'A u8", "u8", 4)
    own = px.raw()

    def merged(**props):
        dup = image.duplicate()
        top = dup.get_layers()[0]
        top.merge_filter(op_filter(top, OP, shape="disc", radius=2.0, **props))
        data = Pixels(top, "R'G'B'A u8", "u8", 4).raw()
        dup.delete()
        return data

    expected = [merged(), merged(iterations=5),
                merged(algorithm="wiener") if wiener_runs(37, 31, "mirror") else own]
    f = op_filter(layer, OP, shape="disc", radius=2.0)
    layer.append_filter(f)
    check(px.raw() == own, "appended: the layer's own pixels are untouched")
    names = [g.get_operation_name() for g in layer.get_filters()]
    check(names == [OP], "appended: get_filters() lists it: %s" % names)
    shown = [rendered(image)]
    f.get_config().set_property("iterations", 5)
    f.update()
    shown.append(rendered(image))
    f.get_config().set_property("algorithm", "wiener")
    f.update()
    shown.append(rendered(image))
    check(shown[0] != own and shown == expected and len(set(shown)) == 3,
          "appended: the rendered image is the merged result, and again after iterations "
          "5 and then algorithm wiener, each different")
    check(px.raw() == own, "the layer's own pixels are still untouched")
    image.delete()


def image_weights(mpx):
    """A layer's weights as the mask: luminance times alpha as "YA float"
    gives them, an even side padded with zeros, over the sum, as text
    that parses to the same doubles."""
    rows = mpx.read()
    w, h = mpx.w | 1, mpx.h | 1
    weights = [[0.0] * w for _ in range(h)]
    for y, row in enumerate(rows):
        for x, (lum, alpha) in enumerate(row):
            weights[y][x] = lum * alpha
    total = 0.0
    for y in range(mpx.h):
        for x in range(mpx.w):
            total += weights[y][x]
    return ";".join(",".join(repr(v / total) for v in row) for row in weights)


def test_layer_mask():
    """cuda:deconvolve-layer with a layer on aux equals cuda:deconvolve with
    the layer's weights as its matrix, byte for byte, for both algorithms;
    without a layer it is cuda:deconvolve."""
    mimage, mlayer, _ = new_image(4, 3, "RGBA", "u8")
    matrix = image_weights(Pixels(mlayer, "YA float", "float", 2))
    for props in ({}, dict(algorithm="wiener")):
        image, layer = photo_image(41, 33, "u8", blur=dict(shape="disc", radius=1.5))
        px = work_pixels(layer, "u8")
        original = px.raw()
        copy = merged_copy(image, layer)
        f = op_filter(layer, LAYER_OP, **props)
        f.set_aux_input("aux", mlayer)
        f.update()
        layer.merge_filter(f)
        copy.merge_filter(op_filter(copy, OP, matrix=matrix, **props))
        if props and not wiener_runs(41, 33, "mirror"):
            check(px.raw() == original and work_pixels(copy, "u8").raw() == original,
                  "wiener: a 4x3 layer on aux and its weights as the matrix both pass the "
                  "layer through unchanged")
        else:
            check(px.raw() != original and px.raw() == work_pixels(copy, "u8").raw(),
                  "%s: a 4x3 layer on aux equals its weights as the matrix, byte for byte"
                  % props.get("algorithm", "richardson-lucy"))
        image.delete()
    mimage.delete()
    image, layer = photo_image(23, 17, "u8", blur=dict(shape="disc", radius=1.5))
    copy = merged_copy(image, layer)
    layer.merge_filter(op_filter(layer, LAYER_OP, shape="disc", radius=1.5))
    copy.merge_filter(op_filter(copy, OP, shape="disc", radius=1.5))
    check(work_pixels(layer, "u8").raw() == work_pixels(copy, "u8").raw(),
          "%s without an aux image equals %s" % (LAYER_OP, OP))
    image.delete()


def test_refused():
    """Masks that are no blur leave the layer as it was (GIMP's log says
    why: test-gimp.sh); the same image with a blur's mask changes."""
    cases = [("negative weights for Richardson-Lucy",
              dict(matrix="0,-1,0;-1,5,-1;0,-1,0")),
             ("an offset", dict(matrix="1,2,1", offset=0.1)),
             ("weights summing to 0 (Wiener)", dict(matrix="1,-2,1", algorithm="wiener")),
             ("a matrix that does not parse", dict(matrix="1,x,1")),
             ("a 2x2 matrix", dict(matrix="1,2;3,4")),
             ("divisor 0", dict(matrix="1,2,1", divisor=0.0))]
    for what, props in cases + [("a blur", dict(matrix="1,2,1"))]:
        image, layer, px = new_image(19, 15, "RGBA", "u8")
        before = px.raw()
        layer.merge_filter(op_filter(layer, OP, **props))
        refused = what != "a blur"
        check((px.raw() == before) == refused, "%s: the layer %s" % (
            what, "passes through unchanged" if refused else "changes"))
        image.delete()
    image, layer, px = new_image(19, 15, "RGBA", "u8")
    before = px.raw()
    mimage = Gimp.Image.new(5, 3, Gimp.ImageBaseType.RGB)
    mlayer = Gimp.Layer.new(mimage, "m", 5, 3, Gimp.ImageType.RGBA_IMAGE, 100,
                            Gimp.LayerMode.NORMAL)
    mimage.insert_layer(mlayer, None, 0)
    f = op_filter(layer, LAYER_OP)
    f.set_aux_input("aux", mlayer)
    f.update()
    layer.merge_filter(f)
    check(px.raw() == before, "an all-zero layer on aux: the layer passes through unchanged")
    mimage.delete()
    image.delete()


test_registered()
test_equals_tool()
test_start_matters()
test_restores()
test_one_call()
test_alpha_and_kept()
test_appended()
test_layer_mask()
test_refused()
summary("deconvolve op")
