#version 450
// Example compute4: deterministic pattern from the pixel position and a seed.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push { uint seed; } pc;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  uint h = (uint(p.x) * 73856093u) ^ (uint(p.y) * 19349663u) ^ (pc.seed * 83492791u);
  h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
  imageStore(dst, p, vec4(float(h & 255u), float((h >> 8) & 255u), float((h >> 16) & 255u), 255.0) / 255.0);
}
