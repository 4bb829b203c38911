#version 450
// Runtime spec: feedback accumulator, dst = prev + step/255.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D prev;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push { float step; } pc;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  imageStore(dst, p, imageLoad(prev, p) + vec4(pc.step / 255.0));
}
