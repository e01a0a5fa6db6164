# Estimate and restore in GIMP, timed (issue 63's targets: an estimate of
# 16 MP within 1 s on the H200, estimate and restore merged within 1.5 s):
# a photograph from data/ mirrored into 4608x3456 (18 x 18 copies, every
# other one flipped, so that its detail stays a photograph's), blurred by
# cuda:convolve (a disc of radius 10, mirror border, merged), then
# plug-in-cuda-estimate-blur
# without restoring, and with (cuda:deconvolve added as an effect, then
# merged).  Run in GIMP (scripts/run-gimp.sh python-fu-eval, or through
# ../shared/tools/gimp-on-gpu on the GPU machine).  A benchmark, not a test.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys
import time

os.environ.setdefault("CC_TEST_DIR", os.path.join(os.getcwd(), "tests", "gimp"))
sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import photograph, run  # noqa: E402

from gi.repository import Gimp  # noqa: E402

W, H = (int(v) for v in os.environ.get("BENCH_SIZE", "4608x3456").split("x"))
eproc = Gimp.get_pdb().lookup_procedure("plug-in-cuda-estimate-blur")
photo, tile = photograph("astronaut")
w, h = photo.get_width(), photo.get_height()
image = Gimp.Image.new_with_precision(W, H, Gimp.ImageBaseType.RGB, photo.get_precision())
for j in range(H // h):
    for i in range(W // w):
        copy = Gimp.Layer.new_from_drawable(tile, image)
        image.insert_layer(copy, None, 0)
        if i % 2:
            copy.transform_flip_simple(Gimp.OrientationType.HORIZONTAL, True, 0.0)
        if j % 2:
            copy.transform_flip_simple(Gimp.OrientationType.VERTICAL, True, 0.0)
        copy.set_offsets(i * w, j * h)
layer = image.flatten()
blur = Gimp.DrawableFilter.new(layer, "cuda:convolve", "cuda:convolve")
cfg = blur.get_config()
cfg.set_property("shape", "disc")
cfg.set_property("radius", 10.0)
cfg.set_property("border", "mirror")
blur.update()
layer.merge_filter(blur)
image.clean_all()
# Each run on a copy of the blurred layer, so that the second restoring
# does not start from the first's result.
for restore in (False, False, True, True):
    work = Gimp.Layer.new_from_drawable(layer, image)
    image.insert_layer(work, None, 0)
    t0 = time.perf_counter()
    status, values = run(image, [work], procedure=eproc, restore=restore)
    if restore and status == Gimp.PDBStatusType.SUCCESS:
        work.merge_filters()
    ms = (time.perf_counter() - t0) * 1000.0
    image.remove_layer(work)
    print("estimate%s, %dx%d: %s %s, %.0f ms" % (" and restore, merged" if restore else "",
                                                W, H, status.value_nick, values, ms))
    image.undo_disable()
    image.undo_enable()
