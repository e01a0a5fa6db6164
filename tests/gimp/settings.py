# The two procedures' arguments and the two operations' properties against
# the settings' table (engine/setting-table.h), which tests/test-settings
# --print wrote to CC_SETTINGS_TABLE: each front end has every setting that
# applies to it, with the table's label, description, range and default
# (run by tests/test-gimp.sh with the operation loaded).
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import sys

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403
from gi.repository import Gegl, GObject  # noqa: E402

DECONVOLUTION = {"algorithm", "iterations", "init", "tv-weight", "noise"}
CONVOLUTION = {"alpha-weighting", "affect-alpha"}


def table():
    rows = {}
    with open(os.environ["CC_SETTINGS_TABLE"]) as f:
        for line in f:
            name, kind, lo, hi, default, label, blurb = line.rstrip("\n").split("\t")
            rows[name] = dict(kind=kind, min=float(lo), max=float(hi), default=default,
                              label=label, blurb=blurb)
    return rows


def default_text(spec, row):
    """The spec's default in the table's words: a number, a choice's name."""
    value = spec.get_default_value()
    if value is None:
        return ""   # an empty text, as GIMP reads it back from its pluginrc
    if row["kind"] == "choice" and not isinstance(value, str):
        return GObject.enum_to_string(spec.value_type, int(value))
    if row["kind"] == "bool":
        return "1" if value else "0"
    return value


def check_spec(where, name, spec, row, border):
    check(spec is not None, "%s has %s" % (where, name))
    if spec is None:
        return
    blurb = spec.get_blurb() or ""
    check(blurb.startswith(row["blurb"]), "%s %s: the table's description (%s)"
          % (where, name, blurb[:40]))
    check(spec.get_nick().replace("_", "") == row["label"],
          "%s %s: the label '%s'" % (where, name, spec.get_nick()))
    want = border if name == "border" else row["default"]
    got = default_text(spec, row)
    if row["kind"] in ("int", "double"):
        check(float(got) == float(want) and spec.minimum == row["min"] and
              spec.maximum == row["max"], "%s %s: %s in %g..%g (the table: %s in %g..%g)"
              % (where, name, got, spec.minimum, spec.maximum, want, row["min"], row["max"]))
    elif not (name == "preset" and where.startswith("cuda:")):
        # The operations' preset is a list of the presets found, none first.
        check(str(got) == str(want), "%s %s: the default %r (the table: %r)"
              % (where, name, got, want))


rows = table()
check(len(rows) >= 20, "the table has its rows: %d" % len(rows))
Gegl.init(None)
for where, skipped, border in (("plug-in-cuda-convolve", DECONVOLUTION | {"matrix"}, "extend"),
                               ("plug-in-cuda-deconvolve",
                                CONVOLUTION | {"clamp", "matrix"}, "mirror")):
    procedure = pdb.lookup_procedure(where)
    specs = {spec.name: spec for spec in procedure.get_arguments()}
    for name, row in rows.items():
        if name not in skipped:
            check_spec(where, name, specs.get(name), row, border)
for where, skipped, border in (("cuda:convolve", DECONVOLUTION, "extend"),
                               ("cuda:deconvolve", CONVOLUTION, "mirror")):
    specs = {spec.name: spec for spec in Gegl.Operation.list_properties(where)}
    for name, row in rows.items():
        if name not in skipped:
            check_spec(where, name, specs.get(name), row, border)
summary("settings")
