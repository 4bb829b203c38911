#!/usr/bin/env python3
"""Writes tests/host/icosphere.gltf, the glTF fixture of test_host_render:
an icosahedron subdivided once (42 vertices, 80 triangles), positions only
(the loader makes the normals), 16-bit indices, one embedded buffer.
Run it to remake the file; the test does not run it."""
import base64, json, math, struct, os

t = (1 + 5 ** 0.5) / 2
v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
     (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
     (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
     (8, 6, 7), (9, 8, 1)]
v = [tuple(c / math.sqrt(sum(x * x for x in p)) for c in p) for p in v]
mid = {}
def middle(a, b):
    k = (min(a, b), max(a, b))
    if k not in mid:
        p = [(v[a][i] + v[b][i]) / 2 for i in range(3)]
        n = math.sqrt(sum(x * x for x in p))
        v.append(tuple(x / n for x in p))
        mid[k] = len(v) - 1
    return mid[k]
g = []
for a, b, c in f:
    ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
    g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
pos = b"".join(struct.pack("<3f", *p) for p in v)
idx = b"".join(struct.pack("<3H", *tri) for tri in g)
data = pos + idx
gltf = {
    "asset": {"version": "2.0", "generator": "framegraph tests/host/make_icosphere.py"},
    "buffers": [{"byteLength": len(data),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
                    {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx), "target": 34963}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(v), "type": "VEC3",
                   "min": [-1, -1, -1], "max": [1, 1, 1]},
                  {"bufferView": 1, "componentType": 5123, "count": 3 * len(g), "type": "SCALAR"}],
    "meshes": [{"name": "icosphere", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
    "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}], "scene": 0,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "icosphere.gltf"), "w") as out:
    json.dump(gltf, out, indent=1)
    out.write("\n")
