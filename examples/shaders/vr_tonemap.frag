#version 450
// Multiplexing examples: HDR + bloom -> display (ACES fit, gamma 2.2).
layout(set = 0, binding = 0) uniform sampler2D hdr;
layout(set = 0, binding = 1) uniform sampler2D bloom;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { float bloom_strength; } pc;
void main() {
  vec3 c = texelFetch(hdr, ivec2(gl_FragCoord.xy), 0).rgb;
  if (pc.bloom_strength > 0.0) c += pc.bloom_strength * texture(bloom, uv).rgb;
  c = clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
  color = vec4(pow(c, vec3(1.0 / 2.2)), 1.0);
}
