#version 450
// Example compute4: dst = a * wa + b * (1 - wa).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D a;
layout(set = 0, binding = 1, rgba8) uniform readonly image2D b;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push { float wa; } pc;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  imageStore(dst, p, imageLoad(a, p) * pc.wa + imageLoad(b, p) * (1.0 - pc.wa));
}
