# plug-in-cuda-convolve under environments set before GIMP starts
# (tests/test-gimp.sh starts GIMP once for each):
#   CC_TEST_MODE=bands   CUDA_CONVOLVE_HOST_BUDGET tiny: the layer goes through
#                        in many bands, masks taller than a band, folds at
#                        the top and bottom edges, a selection;
#   CC_TEST_MODE=fault   CUDA_CONVOLVE_FAULT=cpu: the engine fails; the call
#                        says so and leaves pixels and undo state as they were;
#   CC_TEST_MODE=killed  the plug-in is killed mid-run, as GIMP's Cancel
#                        does: the same.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys
import time

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403


def test_bands():
    for border in ("zero", "extend", "wrap", "mirror", "black", "white"):
        for mh, rect in ((9, None), (15, (2, 3, 9, 14))):
            image, layer, px = new_image(13, 23)
            before = px.read()
            if rect:
                image.select_rectangle(Gimp.ChannelOps.REPLACE, *rect)
            m = [rng.uniform(-0.5, 1.0) for _ in range(3 * mh)]
            status, values = run(image, [layer], mask_width=3, mask_height=mh, matrix=m,
                                 divisor=sum(m), border=border, linear=False)
            check(status == Gimp.PDBStatusType.SUCCESS, "bands, 3x%d, %s: runs %s"
                  % (mh, border, values))
            compare(px.read(), reference.convolve(before, m, 3, mh, sum(m), 0.0, border,
                                                  True, True, rect=rect),
                    tolerance("u8", m, sum(m)),
                    "bands, 3x%d mask, border %s%s" % (mh, border,
                                                       ", selection" if rect else ""))
            image.delete()


def test_fault():
    image, layer, px = new_image(9, 7)
    raw = px.raw()
    status, values = run(image, [layer], preset="box-3", method="cpu")
    check(status == Gimp.PDBStatusType.EXECUTION_ERROR and "memory" in str(values[0]),
          "an engine failure is an execution error: %s %r" % (status, values[0]))
    check(px.raw() == raw and not image.is_dirty(),
          "after an engine failure the pixels and the undo state are as they were")
    image.delete()


def test_killed():
    """GIMP's Cancel on the progress bar kills the plug-in; tests/test-gimp.sh
    does the same from outside, half a second into this long call, and
    writes the time it did so to CC_KILL_FILE.  The call must fail at once
    and leave the layer and its undo state as they were (the one merge
    comes last).  The call must take seconds: at 800x600 it took under one
    on two cores, and a kill half a second in, late on a loaded machine,
    once landed in that merge; since the CPU path transforms large masks,
    the image is 4800x3600 (scaled up from random pixels, which Python
    makes slowly)."""
    image, layer, px = new_image(1600, 1200)
    image.scale(4800, 3600)
    image.clean_all()
    px = Pixels(layer, px.fmt, px.stype, px.channels)
    raw = px.raw()
    m = [rng.uniform(-0.5, 1.0) for _ in range(127 * 127)]
    status, values = run(image, [layer], mask_width=127, mask_height=127, matrix=m,
                         divisor=sum(m), method="cpu")
    returned = time.time()
    try:
        with open(os.environ["CC_KILL_FILE"]) as f:
            killed = float(f.read())
    except (OSError, ValueError):
        killed = None
    check(killed is not None and status != Gimp.PDBStatusType.SUCCESS,
          "killed mid-run (at %s), the call fails: %s %r" % (killed, status, values))
    if killed is not None:
        check(returned - killed < 1.0, "the call returns %.2f s after the kill"
              % (returned - killed))
    check(px.raw() == raw and not image.is_dirty(),
          "after the kill the pixels and the undo state are as they were")
    image.delete()


{"bands": test_bands, "fault": test_fault, "killed": test_killed}[os.environ["CC_TEST_MODE"]]()
summary("GIMP %s" % os.environ["CC_TEST_MODE"])
