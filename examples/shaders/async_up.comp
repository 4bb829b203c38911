#version 450
// async example, bloom upsample in compute: a 3x3 tent over the smaller level
// added to this level's downsample (as def_up.frag).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D lower;   // the smaller, already upsampled level
layout(set = 0, binding = 1) uniform sampler2D level;   // this level's downsample
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push { vec2 texel; vec2 size; } pc;   // texel of 'lower', size of dst

vec3 tap(vec2 uv) { return textureLod(lower, uv, 0.0).rgb; }

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, imageSize(dst)))) return;
  vec2 uv = (vec2(p) + 0.5) / pc.size;
  vec2 t = pc.texel;
  vec3 s = tap(uv) * 4.0;
  s += (tap(uv + vec2(t.x, 0)) + tap(uv - vec2(t.x, 0)) + tap(uv + vec2(0, t.y)) + tap(uv - vec2(0, t.y))) * 2.0;
  s += tap(uv + t) + tap(uv - t) + tap(uv + vec2(t.x, -t.y)) + tap(uv + vec2(-t.x, t.y));
  imageStore(dst, p, vec4(textureLod(level, uv, 0.0).rgb + s / 16.0, 1.0));
}
