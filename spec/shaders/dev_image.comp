#version 450
// Device-layer test: writes a known pattern into an rgba8 storage image.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D img;
layout(set = 0, binding = 1) uniform Params { vec4 tint; } params;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(img);
  if (p.x >= size.x || p.y >= size.y) return;
  imageStore(img, p, vec4(float(p.x) / 255.0, float(p.y) / 255.0, params.tint.b, 1.0));
}
