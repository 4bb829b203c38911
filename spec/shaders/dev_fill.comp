#version 450
// Device-layer test: out[i] = in[i] * mul + add (+ i when index_bias != 0).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint mul; uint add; uint count; uint index_bias; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  dst[i] = src[i] * pc.mul + pc.add + (pc.index_bias != 0u ? i : 0u);
}
