#version 450
// screenshot and split_screen: copies one cell (a tile, a player's view) into
// the big image at its place in a grid of cells of the source's size, row by
// row: cell i sits at column i % cols, row i / cols, cols = dst width / src
// width. pc.border darkens that many pixels at the cell's edges (split lines).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push { uint cell; uint border; } pc;
void main() {
  ivec2 ss = textureSize(src, 0);
  int cols = max(imageSize(dst).x / ss.x, 1);
  ivec2 at = ivec2(int(pc.cell) % cols, int(pc.cell) / cols) * ss;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy) + at;
  ivec2 q = p - at;
  if (any(greaterThanEqual(q, ss)) || any(greaterThanEqual(p, imageSize(dst)))) return;
  vec4 c = texelFetch(src, q, 0);
  int b = int(pc.border);
  if (any(lessThan(q, ivec2(b))) || any(greaterThanEqual(q, ss - b))) c.rgb *= 0.15;
  imageStore(dst, p, c);
}
