#version 450
// Runtime spec: out[i] = in[i] * 2 + k (in may be absent: then out[i] = i + k).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { uint v[]; } dst;
layout(push_constant) uniform Push { uint k; uint n; uint use_src; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  dst.v[i] = (pc.use_src != 0u ? src.v[i] * 2u : i) + pc.k;
}
