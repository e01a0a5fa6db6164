# The same pixels as GIMP's own Convolution Matrix: gegl:convolution-matrix
# through Gimp.DrawableFilter, merged, against plug-in-cuda-convolve on a
# copy of the same layer.  Images that look like photographs (smooth
# gradients, deep shadows, noise, hard edges); RGB, gray and RGBA (alpha
# weighting off on both); 8-, 16- and 32-bit perceptual and float linear;
# 3x3 and 5x5 masks, random and classic, with and without normalize; every
# border both have; ours with its defaults and with linear TRUE said
# explicitly.  8- and 16-bit results agree within one step of the
# drawable's encoding, 32-bit and float ones within the engine's float
# bound.
# Run by tests/test-gimp.sh inside GIMP 3's console (python-fu-eval).
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import math
import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

# Our border name -> GEGL's abyss policy, as the built-in names it.
BORDERS = {"zero": "none", "extend": "clamp", "wrap": "loop", "black": "black",
           "white": "white"}

PRECISIONS = {  # name -> (precision, sample type, babl model prefix)
    "u8": (Gimp.Precision.U8_NON_LINEAR, "u8", "'"),
    "u16": (Gimp.Precision.U16_NON_LINEAR, "u16", "'"),
    "u32": (Gimp.Precision.U32_NON_LINEAR, "u32", "'"),
    "float": (Gimp.Precision.FLOAT_LINEAR, "float", ""),
}


def classic_masks():
    """(name, width, height, matrix, divisor, offset, normalize)"""
    return [
        ("sharpen", 3, 3, [0, -1, 0, -1, 5, -1, 0, -1, 0], 1, 0, False),
        ("emboss", 3, 3, [-2, -1, 0, -1, 1, 1, 0, 1, 2], 1, 0, False),
        ("sobel-x, offset 0.5", 3, 3, [-1, 0, 1, -2, 0, 2, -1, 0, 1], 4, 0.5, False),
        ("laplacian, normalize", 3, 3, [0, 1, 0, 1, -4, 1, 0, 1, 0], 1, 0, True),
        ("gaussian-5, normalize", 5, 5,
         [a * b for a in (1, 4, 6, 4, 1) for b in (1, 4, 6, 4, 1)], 1, 0, True),
        ("box-5", 5, 5, [1] * 25, 25, 0, False),
    ]


def random_mask(size, normalize):
    m = [rng.uniform(-0.5, 1.0) for _ in range(size * size)]
    divisor = 1.0 if normalize else rng.uniform(0.7, 1.3) * sum(abs(v) for v in m)
    offset = 0.0 if normalize else rng.uniform(-0.1, 0.1)
    what = "random %dx%d%s" % (size, size, ", normalize" if normalize else "")
    return (what, size, size, m, divisor, offset, normalize)


def make_image(w, h, model, precision):
    base, ltype, channels, alpha = MODELS[model]
    prec, stype, prime = PRECISIONS[precision]
    image = Gimp.Image.new_with_precision(w, h, base, prec)
    layer = Gimp.Layer.new(image, "photo", w, h, ltype, 100, Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    # Written as linear float, converted by babl into the layer's encoding.
    lin = Pixels(layer, "%s float" % model, "float", channels)
    lin.write(photo(w, h, channels - (1 if alpha else 0), alpha))
    fmt = "%s %s" % (model if not prime else
                     {"Y": "Y'", "RGB": "R'G'B'", "RGBA": "R'G'B'A"}[model], stype)
    return image, layer, Pixels(layer, fmt, stype, channels)


def builtin(layer, mw, mh, m, divisor, offset, normalize, border, alpha_weight):
    """GIMP's own filter, merged: its 5x5 grid holds the mask centred, the
    letter the column and the digit the row."""
    f = Gimp.DrawableFilter.new(layer, "gegl:convolution-matrix", "built-in")
    cfg = f.get_config()
    ox, oy = (5 - mw) // 2, (5 - mh) // 2
    for j in range(5):
        for i in range(5):
            inside = ox <= i < ox + mw and oy <= j < oy + mh
            cfg.set_property("abcde"[i] + str(j + 1),
                             float(m[(j - oy) * mw + (i - ox)]) if inside else 0.0)
    cfg.set_property("divisor", float(divisor))
    cfg.set_property("offset", float(offset))
    cfg.set_property("normalize", normalize)
    cfg.set_property("alpha-weight", alpha_weight)
    cfg.set_property("border", BORDERS[border])
    f.update()
    layer.merge_filter(f)


def agree(got, want, precision, what):
    """8- and 16-bit within one step of the encoding; float, and 32-bit
    integers (both filters compute in float, far coarser than 2^-32),
    within the engine's float bound, relative to the value."""
    worst, where, samples = 0.0, None, 0
    for y, row in enumerate(want):
        for x, p in enumerate(row):
            for c, v in enumerate(p):
                samples += 1
                g = got[y][x][c]
                if precision in ("float", "u32"):
                    e = abs(g - v) / (2e-5 * max(1.0, abs(v)))
                else:
                    e = round(abs(g - v) * TYPES[PRECISIONS[precision][1]][2])
                if not e <= worst:
                    worst, where = e, (x, y, c, g, v)
    return check(worst <= 1.0, "%s: %d samples, worst %.3g of a step at %s"
                 % (what, samples, worst, where))


def case(model, precision, mask, border, explicit):
    what, mw, mh, m, divisor, offset, normalize = mask
    alpha = MODELS[model][3]
    image, layer, px = make_image(29, 23, model, precision)
    copy = layer.copy()
    image.insert_layer(copy, None, 0)
    theirs = Pixels(copy, px.fmt, px.stype, px.channels)

    builtin(copy, mw, mh, m, divisor, offset, normalize, border, not alpha)
    args = dict(mask_width=mw, mask_height=mh, matrix=m, divisor=divisor, offset=offset,
                normalize=normalize, border=border)
    if alpha:
        args["alpha_weighting"] = False
    if precision == "float":
        args["clamp"] = False      # the built-in keeps values outside [0,1]
    if explicit:
        args["linear"] = True
    status, values = run(image, [layer], **args)
    label = "%s %s, %s, border %s, %s" % (model, precision, what, border,
                                          "linear TRUE" if explicit else "defaults")
    if check(status == Gimp.PDBStatusType.SUCCESS, "%s: runs %s" % (label, values)):
        stats["cases"] = stats.get("cases", 0) + 1
        agree(px.read(), theirs.read(), precision, label)
    image.delete()


def test_parity():
    masks = classic_masks() + [random_mask(3, False), random_mask(3, True),
                               random_mask(5, False), random_mask(5, True)]
    k = 0
    for precision in PRECISIONS:
        for model in ("RGB", "Y", "RGBA"):
            for border in BORDERS:
                # Two masks a combination, one of each size, rotating.
                threes = [mk for mk in masks if mk[1] == 3]
                fives = [mk for mk in masks if mk[1] == 5]
                case(model, precision, threes[k % len(threes)], border, k % 2 == 1)
                case(model, precision, fives[k % len(fives)], border, k % 2 == 0)
                k += 1


def test_defaults():
    """linear defaults to TRUE: a call without it equals one with it."""
    image, layer, px = make_image(17, 13, "RGB", "u8")
    copy = layer.copy()
    image.insert_layer(copy, None, 0)
    m = [0, -1, 0, -1, 5, -1, 0, -1, 0]
    run(image, [layer], matrix=m)
    run(image, [copy], matrix=m, linear=True)
    check(px.raw() == Pixels(copy, px.fmt, "u8", 3).raw(),
          "without linear the result is linear TRUE's, byte for byte")
    image.delete()


test_defaults()
test_parity()
print("parity: %d cases compared with the built-in" % stats.get("cases", 0))
summary("GIMP parity")
