#version 450
// examples/view.lua: an animated pattern per eye (push: time, eye offset, rings).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { float time; float eye; float rings; } pc;
void main() {
  vec2 p = (uv - 0.5) * vec2(2.0, 1.2) + vec2(pc.eye * 0.08, 0.0);
  float r = length(p);
  float a = atan(p.y, p.x);
  float wave = sin(r * pc.rings - pc.time * 3.0) * 0.5 + 0.5;
  float spokes = sin(a * 6.0 + pc.time) * 0.5 + 0.5;
  vec3 c = mix(vec3(0.02, 0.04, 0.25), vec3(4.0, 1.5, 0.35), pow(wave, 2.0) * (0.5 + 0.5 * spokes));
  color = vec4(c * (1.2 - r * 0.5), 1.0);
}
