# plug-in-cuda-deconvolve in real GIMP 3, from Python: its arguments (the
# mask's as plug-in-cuda-convolve has them), no menu entry; its result the
# tool's --deconvolve on the same pixels (PFM, PGM, PPM, PAM) for
# Richardson-Lucy and Wiener, RGB, RGBA (alpha kept) and gray, 8-bit and
# float; a selection; what it returns; refusals, the image clean; a
# photograph's PSNR raised.  plug-in-cuda-estimate-blur: a photograph's disc
# blur found and restored (an effect on a layer where GIMP has the
# operation), a flat layer refused.  Run by tests/test-gimp.sh without the
# operation and again with it (CC_OP); it raises when anything failed.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import math
import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

from gi.repository import Gio, GLib  # noqa: E402

DPROC = "plug-in-cuda-deconvolve"
dproc = pdb.lookup_procedure(DPROC)
EPROC = "plug-in-cuda-estimate-blur"
eproc = pdb.lookup_procedure(EPROC)
SCRATCH = os.environ["CC_SCRATCH"]

MASK_ARGUMENTS = ["preset", "mask-width", "mask-height", "matrix", "divisor", "offset",
                  "normalize", "shape", "radius", "angle", "blades", "inner", "mask-drawable"]


def deconvolve(image, drawables, **args):
    return run(image, drawables, procedure=dproc, **args)


def test_registered():
    """The arguments: the mask's exactly as plug-in-cuda-convolve has them,
    border (mirror), method, linear, the channels, and the deconvolution's
    own with cuda:deconvolve's defaults and ranges; the return values; no
    menu path (the menu's entry is cuda:deconvolve's own dialog)."""
    if not check(dproc is not None, "%s is registered" % DPROC):
        return
    specs = {s.name: s for s in dproc.get_arguments()}
    want = (["run-mode", "image", "drawables"] + MASK_ARGUMENTS +
            ["border", "method", "linear", "red", "green", "blue", "algorithm", "iterations",
             "init", "tv-weight", "noise"])
    check(sorted(specs) == sorted(want), "its arguments are %s: %s" % (want, list(specs)))
    convolve = {s.name: s for s in proc.get_arguments()}

    def described(spec):
        return (type(spec).__name__, spec.get_default_value(), getattr(spec, "minimum", None),
                getattr(spec, "maximum", None), spec.get_blurb())

    shared = MASK_ARGUMENTS + ["method"]
    differ = [n for n in shared if n in specs and described(specs[n]) != described(convolve[n])]
    check(not differ, "the mask's arguments and method are plug-in-cuda-convolve's, type, "
          "default, range and blurb: %s differ" % differ)
    defaults = dict(border="mirror", method="auto", linear=True, red=True, green=True,
                    blue=True, algorithm="richardson-lucy", iterations=30, init="flat",
                    noise=0.01, shape="matrix")
    got = {n: specs[n].get_default_value() for n in defaults if n in specs}
    check(got == defaults, "defaults %s: %s" % (defaults, got))
    got = {n: (specs[n].minimum, specs[n].maximum, specs[n].get_default_value())
           for n in ("iterations", "tv-weight", "noise") if n in specs}
    want = {"iterations": (1, 1000, 30), "tv-weight": (0.0, 0.1, 0.0),
            "noise": (0.0, GLib.MAXDOUBLE, 0.01)}
    check(got == want, "ranges and defaults %s: %s" % (want, got))
    names = [s.name for s in dproc.get_return_values()]
    check(names == ["method-used", "device", "elapsed-ms"],
          "return values method-used, device, elapsed-ms: %s" % names)
    check(list(dproc.get_menu_paths()) == [], "no menu path of its own: %s"
          % list(dproc.get_menu_paths()))


# Each case: the sample type, the model, the procedure's arguments and the
# tool's options for the same settings, beside --deconvolve ALGORITHM.
CASES = [
    ("float", "RGB", dict(shape="disc", radius=2.0), ["--shape", "disc", "--radius", "2"],
     "Richardson-Lucy from flat (the defaults), disc, mirror"),
    ("float", "Y", dict(shape="disc", radius=2.0, algorithm="wiener", noise=0.02,
                        border="wrap"),
     ["--shape", "disc", "--radius", "2", "--noise", "0.02", "--border", "wrap"],
     "Wiener, noise 0.02, wrap"),
    ("u8", "RGB", dict(shape="gaussian", radius=2.0, init="image", iterations=12,
                       tv_weight=0.004, border="extend"),
     ["--shape", "gaussian", "--radius", "2", "--init", "image", "--iterations", "12",
      "--tv-weight", "0.004", "--border", "extend"],
     "Richardson-Lucy from the image, 12 iterations, total variation, extend"),
    ("u8", "RGBA", dict(mask_width=3, mask_height=3, matrix=[1, 2, 1, 2, 4, 2, 1, 2, 1],
                        divisor=16.0, algorithm="wiener", noise=0.005),
     ["--matrix", "1,2,1;2,4,2;1,2,1", "--divisor", "16", "--noise", "0.005"],
     "Wiener, a matrix and divisor"),
    ("u8", "RGBA", dict(shape="disc", radius=1.5, red=False, iterations=20),
     ["--shape", "disc", "--radius", "1.5", "--channels", "gba", "--iterations", "20"],
     "Richardson-Lucy, red off"),
    ("u8", "Y", dict(shape="box", radius=1.0, linear=False, iterations=20),
     ["--shape", "box", "--radius", "1", "--perceptual", "--iterations", "20"],
     "Richardson-Lucy on the perceptual values (linear off)"),
]


def test_equals_tool():
    """Its result is the tool's on the same pixels: within 1e-4 on linear
    floats, one code on 8-bit codes; alpha and a channel left out exactly
    as they were; one call, what ran returned."""
    for n, (stype, model, args, options, what) in enumerate(CASES):
        what = "%s (%s %s)" % (what, model, stype)
        image, layer = photo_image(47, 39, stype, model, blur=dict(shape="disc", radius=2.0))
        px = work_pixels(layer, stype, model)
        before = px.read()
        algorithm = args.get("algorithm", "richardson-lucy")
        if algorithm == "wiener" and not wiener_runs(47, 39, args.get("border", "mirror")):
            check_wiener_refused(image, px, what, lambda: deconvolve(image, [layer], **args))
            image.delete()
            continue
        want = tool(px, ["--deconvolve", algorithm] + options, "case%d" % n, SCRATCH)
        status, values = deconvolve(image, [layer], **args)
        if not check(status == Gimp.PDBStatusType.SUCCESS, "%s: runs %s" % (what, values)):
            image.delete()
            continue
        got = px.read()
        worst = worst_difference(got, want)
        bound = 1e-4 if stype == "float" else 1.0 / 255 + 1e-9
        check(worst <= bound and worst_difference(got, before) > 10 * bound,
              "%s: equals the tool's --deconvolve within %g (worst %.3g) and changes the "
              "layer" % (what, bound, worst))
        kept = [c for c in range(px.channels)
                if (MODELS[model][3] and c == px.channels - 1) or
                (c == 0 and args.get("red") is False)]
        if kept:
            check(all(p[c] == q[c] for ra, rb in zip(got, before) for p, q in zip(ra, rb)
                      for c in kept), "%s: channels %s kept exactly" % (what, kept))
        check(image.is_dirty() and values[0] in METHODS and values[1] and values[2] > 0.0,
              "%s: the image is dirty; returns method %r, device %r, %r ms"
              % (what, *values))
        image.delete()


def test_returns():
    """What ran, said: the CPU and its threads without a GPU; on a GPU
    (CC_GPU) a GPU method and its name.  A selection that misses the layer
    runs nothing, and says so."""
    image, layer = photo_image(23, 19, "u8", blur=dict(shape="disc", radius=1.5))
    status, values = deconvolve(image, [layer], shape="disc", radius=1.5)
    if os.environ.get("CC_GPU"):
        check(status == Gimp.PDBStatusType.SUCCESS and values[0] in METHODS[1:] and
              not values[1].startswith("CPU"), "on a GPU: returns a GPU method: %r" % values)
    else:
        check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "cpu" and
              values[1].startswith("CPU (") and values[2] > 0.0,
              "without a GPU: returns method cpu, the CPU's threads: %r" % values)
    image.delete()
    image = Gimp.Image.new(30, 20, Gimp.ImageBaseType.RGB)
    layer = Gimp.Layer.new(image, "small", 8, 6, Gimp.ImageType.RGB_IMAGE, 100,
                           Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    px = Pixels(layer, "R'G'B' u8", "u8", 3)
    px.write(random_image(8, 6, 3, False))
    image.select_rectangle(Gimp.ChannelOps.REPLACE, 20, 10, 5, 5)
    image.clean_all()
    raw = px.raw()
    status, values = deconvolve(image, [layer], shape="disc", radius=1.5)
    check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "" and px.raw() == raw,
          "a selection that misses the layer: nothing runs, method \"\": %r" % values)
    image.delete()


def test_selection():
    """Only the selection is written, from the whole image's restoration:
    inside, the tool's result on the whole image; outside, every byte as
    it was."""
    image, layer = photo_image(41, 33, "u8", "RGBA", blur=dict(shape="disc", radius=2.0))
    px = work_pixels(layer, "u8", "RGBA")
    before_raw, before = px.raw(), px.read()
    want = tool(px, ["--deconvolve", "richardson-lucy", "--shape", "disc", "--radius", "2"],
                "selection", SCRATCH)
    x0, y0, w, h = 9, 7, 17, 12
    image.select_rectangle(Gimp.ChannelOps.REPLACE, x0, y0, w, h)
    image.clean_all()
    status, values = deconvolve(image, [layer], shape="disc", radius=2.0)
    check(status == Gimp.PDBStatusType.SUCCESS, "selection: runs %s" % (values,))
    got, raw = px.read(), px.raw()
    inside = [(x, y) for y in range(y0, y0 + h) for x in range(x0, x0 + w)]
    worst = max(abs(got[y][x][c] - want[y][x][c]) for x, y in inside for c in range(4))
    changed = sum(got[y][x] != before[y][x] for x, y in inside)
    check(worst <= 1.0 / 255 + 1e-9 and changed > len(inside) // 2,
          "selection: inside is the whole image's restoration within one code (worst %.3g), "
          "%d of %d pixels changed" % (worst, changed, len(inside)))
    outside = [(x, y) for y in range(33) for x in range(41)
               if not (x0 <= x < x0 + w and y0 <= y < y0 + h)]
    same = all(raw[(y * 41 + x) * 4:(y * 41 + x + 1) * 4] ==
               before_raw[(y * 41 + x) * 4:(y * 41 + x + 1) * 4] for x, y in outside)
    check(same, "selection: every pixel outside is byte-identical")
    image.delete()


def test_refused():
    """Bad input: refused with the words that say why, the image's pixels
    as they were and the image clean (no undo step).  Values out of an
    argument's range (0 iterations, NaN noise) GIMP refuses before the
    plug-in runs; Python's config cannot even hold them: procedure.scm
    passes them."""
    image, layer = photo_image(19, 15, "u8", "RGBA", blur=dict(shape="disc", radius=1.5))
    px = work_pixels(layer, "u8", "RGBA")
    sharpen = [0, -1, 0, -1, 5, -1, 0, -1, 0]
    bad = [
        ("negative weights for Richardson-Lucy", dict(matrix=sharpen), "negative weights"),
        ("an offset", dict(matrix=[1, 2, 1, 2, 4, 2, 1, 2, 1], offset=0.1), "offset"),
        ("weights summing to 0 (Wiener)", dict(mask_width=3, mask_height=1,
                                              matrix=[1, -2, 1], algorithm="wiener"),
         "add up to more than 0"),
        ("a matrix of the wrong length", dict(matrix=[1, 2, 3, 4]), "matrix"),
        ("NaN in the matrix", dict(matrix=[1, 1, 1, 1, float("nan"), 1, 1, 1, 1]), "finite"),
        ("divisor 0", dict(matrix=[1] * 9, divisor=0.0), "divisor"),
        ("an even mask-width", dict(mask_width=4), "odd"),
        ("an unknown algorithm", dict(algorithm="blind"), "algorithm 'blind'"),
        ("an unknown start", dict(init="zero"), "init 'zero'"),
        ("an unknown border", dict(border="sideways"), "border"),
        ("an unknown method", dict(method="fastest"), "method"),
    ]
    check_refusals(image, layer, px, bad, dproc)
    check_gpu_method(image, layer, px, dproc, shape="disc", radius=1.5)
    image.delete()

    image, layer = indexed_image()
    status, values = deconvolve(image, [layer])
    check(status != Gimp.PDBStatusType.SUCCESS and "cannot deconvolve an indexed" in
          str(values[0]), "an indexed image is refused: %r" % values[0])
    status, values = deconvolve(image, [])
    check(status != Gimp.PDBStatusType.SUCCESS and "one drawable" in str(values[0]),
          "no drawable is refused: %r" % values[0])
    image.delete()


def test_restores():
    """The procedure restores a blurred photograph (check_restores)."""
    def restore(image, layer, **args):
        return deconvolve(image, [layer], **args)

    check_restores(restore)


def test_estimate_registered():
    """plug-in-cuda-estimate-blur: its arguments and their defaults, its
    return values, and its menu entry under Filters > Enhance."""
    if not check(eproc is not None, "%s is registered" % EPROC):
        return
    specs = {s.name: s for s in eproc.get_arguments()}
    got = {n: specs[n].get_default_value() for n in ("shape", "restore") if n in specs}
    check(sorted(specs) == ["drawables", "image", "restore", "run-mode", "shape"] and
          got == {"shape": "auto", "restore": True},
          "estimate: arguments image, drawables, shape (auto), restore (TRUE): %s %s"
          % (sorted(specs), got))
    names = [s.name for s in eproc.get_return_values()]
    check(names == ["shape", "radius", "angle", "confidence"],
          "estimate: return values shape, radius, angle, confidence: %s" % names)
    menu = (list(eproc.get_menu_paths()), eproc.get_menu_label())
    check(menu == (["<Image>/Filters/Enhance"], "Estimate and Restore on the GPU..."),
          "estimate: in Filters > Enhance as 'Estimate and Restore on the GPU...': %s"
          % (menu,))


def loaded_photograph():
    """data/photo-astronaut.ppm as File > Open gives it (8-bit sRGB), or,
    where a slimmed GIMP has no PNM loader, photograph()'s own reading."""
    if not pdb.procedure_exists("file-pnm-load"):
        return photograph("astronaut")
    path = os.path.join(os.environ["CC_TEST_DIR"], "..", "..", "data", "photo-astronaut.ppm")
    image = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(path))
    return image, image.get_layers()[0]


def byte_psnr(a, b):
    mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return 10 * math.log10(255.0 ** 2 / mse)


def test_estimate():
    """The photograph blurred by a disc of radius 6 (mirror border): the
    estimate says a disc of radius 6 within 10%, with a confidence in
    (0, 1]; restore FALSE leaves the image as it was; restore TRUE adds
    cuda:deconvolve of the returned radius as an effect where GIMP has it
    (the layer's own pixels untouched), else restores the pixels; either
    way what is shown is nearer the sharp photograph; a channel's pixels
    are restored (GIMP keeps effects on layers alone).  A flat layer is
    refused, saying so, the image as it was."""
    image, layer = loaded_photograph()
    shown = Pixels(layer, "R'G'B'A u8", "u8", 4)
    sharp = shown.raw()
    status, values = run(image, [layer], shape="disc", radius=6.0, border="mirror")
    if status != Gimp.PDBStatusType.SUCCESS:
        raise Exception("the blur failed: %s" % values)
    channel = Gimp.Channel.new_from_component(image, Gimp.ChannelType.GREEN, "green")
    image.insert_channel(channel, None, 0)
    image.clean_all()
    blurred, filters = shown.raw(), len(layer.get_filters())
    status, values = run(image, [layer], procedure=eproc, restore=False)
    check(status == Gimp.PDBStatusType.SUCCESS and values[0] == "disc" and
          abs(values[1] - 6.0) <= 0.6 and 0.0 < values[3] <= 1.0,
          "estimate: a disc of radius 6 found as a disc within 10%%, confidence in (0, 1]: "
          "%r" % (values,))
    check(shown.raw() == blurred and not image.is_dirty() and
          len(layer.get_filters()) == filters,
          "estimate, restore FALSE: the layer as it was, no effect, the image clean")
    status, values = run(image, [layer], procedure=eproc)
    added = layer.get_filters()[filters:]
    if os.environ.get("CC_OP"):
        check(status == Gimp.PDBStatusType.SUCCESS and len(added) == 1 and
              added[0].get_operation_name() == "cuda:deconvolve" and
              added[0].get_config().get_property("radius") == values[1],
              "estimate, restore: cuda:deconvolve of radius %r added as an effect: %s"
              % (values[1], [(f.get_operation_name(),
                              f.get_config().get_property("radius")) for f in added]))
        check(shown.raw() == blurred, "estimate, restore: the layer's own pixels untouched")
        restored = rendered(image)
    else:
        check(status == Gimp.PDBStatusType.SUCCESS and not added and image.is_dirty(),
              "estimate, restore without the operation: the pixels restored, no effect: %r"
              % (values,))
        restored = shown.raw()
    before, after = byte_psnr(blurred, sharp), byte_psnr(restored, sharp)
    check(restored != blurred and after > before,
          "estimate, restore: what is shown differs from the blurred layer and is nearer "
          "the sharp photograph: %.2f dB to %.2f dB" % (before, after))
    green = Pixels(channel, "Y u8", "u8", 1)
    raw = green.raw()
    status, values = run(image, [channel], procedure=eproc, shape="disc")
    check(status == Gimp.PDBStatusType.SUCCESS and abs(values[1] - 6.0) <= 0.6 and
          green.raw() != raw and not channel.get_filters(),
          "estimate, restore on a channel: its blur found, its pixels restored (GIMP keeps "
          "effects on layers alone): %r" % (values,))
    image.delete()

    image, layer, px = new_image(128, 128, "RGB", "u8")
    px.write([[[0.5] * 3] * 128] * 128)
    image.clean_all()
    raw = px.raw()
    status, values = run(image, [layer], procedure=eproc)
    check(status != Gimp.PDBStatusType.SUCCESS and "flat" in str(values[0]),
          "estimate: a flat layer is refused, saying so: %s %r" % (status, values[0]))
    check(px.raw() == raw and not image.is_dirty() and not layer.get_filters(),
          "estimate, a flat layer: pixels untouched, no effect, the image clean")
    status, values = run(image, [layer], procedure=eproc, shape="disk")
    check(status != Gimp.PDBStatusType.SUCCESS and "shape 'disk'" in str(values[0]),
          "estimate: an unknown shape is refused: %s %r" % (status, values[0]))
    image.delete()


test_registered()
test_equals_tool()
test_returns()
test_selection()
test_refused()
test_restores()
test_estimate_registered()
test_estimate()
summary("deconvolve")
