#version 450
// Runtime spec: samples a texture (nearest, texel centres) into a storage image.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 sz = imageSize(dst);
  if (any(greaterThanEqual(p, sz))) return;
  imageStore(dst, p, texelFetch(src, p, 0));
}
