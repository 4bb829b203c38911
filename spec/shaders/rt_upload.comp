#version 450
// Runtime upload spec: acc[i] = prev[i] * p.mul + up[i] + p.add, where p (a
// uniform block) and up (a readonly storage buffer) come from the upload ring.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint mul; uint add; uint n; uint pad; } p;
layout(set = 0, binding = 1) readonly buffer Up { uint v[]; } up;
layout(set = 0, binding = 2) readonly buffer Prev { uint v[]; } prev;
layout(set = 0, binding = 3) writeonly buffer Acc { uint v[]; } acc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  acc.v[i] = prev.v[i] * p.mul + up.v[i] + p.add;
}
