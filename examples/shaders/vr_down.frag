#version 450
// Multiplexing examples: one bloom downsample (4 bilinear taps = a 4x4 box);
// the first level keeps only what is brighter than pc.threshold.
layout(set = 0, binding = 0) uniform sampler2D src;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 dst;
layout(push_constant) uniform Push { float threshold; } pc;
void main() {
  vec2 t = 1.0 / vec2(textureSize(src, 0));
  vec3 c = 0.25 * (texture(src, uv + vec2(-t.x, -t.y)).rgb + texture(src, uv + vec2(t.x, -t.y)).rgb +
                   texture(src, uv + vec2(-t.x, t.y)).rgb + texture(src, uv + vec2(t.x, t.y)).rgb);
  dst = vec4(max(c - vec3(pc.threshold), vec3(0.0)), 1.0);
}
