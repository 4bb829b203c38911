#version 450
// Push constants by name (spec/push_named_spec.lua): every member written
// back as it arrived, so the spec sees offsets, types and conversions.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) writeonly buffer Out { float f[12]; int i; uint u; } dst;
layout(push_constant) uniform Params {
  float exposure;
  vec3 tint;
  int mode;
  uint count;
  mat2 m;
  float weights[3];
} pc;
void main() {
  dst.f[0] = pc.exposure;
  dst.f[1] = pc.tint.x; dst.f[2] = pc.tint.y; dst.f[3] = pc.tint.z;
  dst.f[4] = pc.m[0][0]; dst.f[5] = pc.m[0][1]; dst.f[6] = pc.m[1][0]; dst.f[7] = pc.m[1][1];
  dst.f[8] = pc.weights[0]; dst.f[9] = pc.weights[1]; dst.f[10] = pc.weights[2]; dst.f[11] = 0.0;
  dst.i = pc.mode;
  dst.u = pc.count;
}
