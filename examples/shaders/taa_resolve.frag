#version 450
// taa example, resolve: blends this frame's jittered image into the history
// (last frame's accumulation): weight 1/k on frame k averages every jitter
// position seen so far, the weight's floor turns it into a moving average.
layout(set = 0, binding = 0) uniform sampler2D current;
layout(set = 0, binding = 1) uniform sampler2D history;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { float weight; } pc;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 c = texelFetch(current, p, 0).rgb;
  vec3 h = texelFetch(history, p, 0).rgb;
  color = vec4(pc.weight >= 1.0 ? c : mix(h, c, pc.weight), 1.0);
}
