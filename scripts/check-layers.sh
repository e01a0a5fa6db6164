#!/bin/sh
# The engine's files call one another without a circle: from the symbols
# each object file defines and uses (nm), the graph of engine/'s objects
# has no cycle, so that the ground floor (engine/ground.c) and each room
# above it can be read and changed from the bottom up.  The GPU's side
# (gpu/, kernels/) is not in it: its launchers report to the scheduler,
# which reads the method table, which names the launchers' kernels.
# Usage: scripts/check-layers.sh BUILD_DIR (run by make check as
# tests/test-layers.sh).
set -u
build=${1:-_build}
command -v nm >/dev/null && command -v python3 >/dev/null || {
  echo "SKIP: nm and python3 are needed"; exit 77; }
objs=$(ls "$build"/engine/*.o 2>/dev/null)
[ -n "$objs" ] || { echo "SKIP: no engine objects in $build"; exit 77; }
for o in $objs; do
  echo "== $(basename "$o" .o | sed 's/^libconvolve_a-//')"
  nm "$o"
done | python3 -c '
import sys, collections
defs, uses, name = {}, collections.defaultdict(set), None
for line in sys.stdin:
    p = line.split()
    if line.startswith("== "):
        name = p[1]
    elif len(p) == 3 and p[1] in "TDBRW":
        defs[p[2]] = name
    elif len(p) == 2 and p[0] == "U":
        uses[name].add(p[1])
graph = {n: {defs[u] for u in us if u in defs and defs[u] != n} for n, us in uses.items()}
seen, done, cycles = set(), set(), []
def walk(v, path):
    seen.add(v); path.append(v)
    for w in sorted(graph.get(v, ())):
        if w in path:
            cycles.append(path[path.index(w):] + [w])
        elif w not in seen:
            walk(w, path)
    path.pop(); done.add(v)
for v in sorted(graph):
    if v not in seen:
        walk(v, [])
for c in cycles:
    print("FAIL - a circle: " + " -> ".join(c))
print("layers: %d objects, %d circles" % (len(graph), len(cycles)))
sys.exit(1 if cycles else 0)
'
