#version 450
// taa example, output: the accumulated linear colour to 8-bit with gamma 2.2.
layout(set = 0, binding = 0) uniform sampler2D accum;
layout(location = 0) out vec4 color;

void main() {
  vec3 c = texelFetch(accum, ivec2(gl_FragCoord.xy), 0).rgb;
  color = vec4(pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
