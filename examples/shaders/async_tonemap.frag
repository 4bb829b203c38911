#version 450
// async example, tonemap: HDR darkened by the SSAO, plus bloom, through the
// ACES fit, then gamma 2.2 into the 8-bit output.
layout(set = 0, binding = 0) uniform sampler2D hdr;
layout(set = 0, binding = 1) uniform sampler2D bloom;
layout(set = 0, binding = 2) uniform sampler2D ao;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { vec2 size; float bloom_strength; float exposure; } pc;

vec3 aces(vec3 x) { return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0); }

void main() {
  vec2 uv = gl_FragCoord.xy / pc.size;
  float occ = mix(0.35, 1.0, texture(ao, uv).r);
  vec3 c = texelFetch(hdr, ivec2(gl_FragCoord.xy), 0).rgb * occ + texture(bloom, uv).rgb * pc.bloom_strength;
  color = vec4(pow(aces(c * pc.exposure), vec3(1.0 / 2.2)), 1.0);
}
