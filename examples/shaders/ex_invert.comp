#version 450
// Example compute4: dst = 1 - src (alpha kept).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  vec4 c = imageLoad(src, p);
  imageStore(dst, p, vec4(1.0 - c.rgb, c.a));
}
