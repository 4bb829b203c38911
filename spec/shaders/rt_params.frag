#version 450
// Push constants by name (spec/push_named_spec.lua): a named block mixing
// scalars, a vector, an int, a matrix and an array; the pixel shows them.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Params {
  float exposure;
  vec3 tint;
  int mode;
  uint count;
  mat2 m;
  float weights[3];
} pc;
void main() {
  color = vec4(pc.tint * pc.exposure,
               float(pc.mode) + float(pc.count) * 0.5 + pc.m[1][0] + pc.weights[2]);
}
