#version 450
// Example compute4: 3x3 box blur with clamped edges.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 sz = imageSize(dst);
  if (any(greaterThanEqual(p, sz))) return;
  vec4 s = vec4(0.0);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      s += imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), sz - 1));
  imageStore(dst, p, s / 9.0);
}
