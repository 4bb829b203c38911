#version 450
// examples/host: one directional light and some ambient, in HDR.
layout(location = 0) in vec3 n;
layout(location = 1) in vec3 albedo;
layout(location = 0) out vec4 color;
void main() {
  vec3 l = normalize(vec3(0.4, 0.7, 0.6));
  float d = max(dot(normalize(n), l), 0.0);
  color = vec4(albedo * (0.2 + 1.8 * d), 1.0);
}
