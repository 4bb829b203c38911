#version 450
// async example, bloom downsample in compute: one mip of the chain from the
// one above (13 bilinear taps, as def_down.frag); the first level also keeps
// only what is brighter than the threshold.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push { vec2 texel; vec2 size; float threshold; } pc;   // texel of src, size of dst

vec3 tap(vec2 uv) { return textureLod(src, uv, 0.0).rgb; }

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  vec2 uv = (vec2(p) + 0.5) / pc.size;
  vec2 t = pc.texel;
  vec3 a = tap(uv + t * vec2(-2, -2)), b = tap(uv + t * vec2(0, -2)), c = tap(uv + t * vec2(2, -2));
  vec3 d = tap(uv + t * vec2(-1, -1)), e = tap(uv + t * vec2(1, -1));
  vec3 f = tap(uv + t * vec2(-2, 0)), g = tap(uv), h = tap(uv + t * vec2(2, 0));
  vec3 i = tap(uv + t * vec2(-1, 1)), j = tap(uv + t * vec2(1, 1));
  vec3 k = tap(uv + t * vec2(-2, 2)), l = tap(uv + t * vec2(0, 2)), m = tap(uv + t * vec2(2, 2));
  vec3 col = (d + e + i + j) * 0.125 + (a + c + k + m) * 0.03125 + (b + f + h + l) * 0.0625 + g * 0.125;
  if (pc.threshold > 0.0) {
    float lum = max(col.r, max(col.g, col.b));
    col *= max(lum - pc.threshold, 0.0) / max(lum, 1e-4);
  }
  imageStore(dst, p, vec4(min(col, vec3(64.0)), 1.0));
}
