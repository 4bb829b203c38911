#version 450
// examples/view.lua: tone-maps the HDR scene and tints it (push: tint rgb).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D scene;
layout(push_constant) uniform Push { vec3 tint; } pc;
void main() {
  vec3 hdr = texture(scene, uv).rgb * pc.tint;
  vec3 mapped = hdr / (1.0 + hdr);                      // Reinhard
  float vignette = 1.0 - 0.6 * dot(uv - 0.5, uv - 0.5);
  color = vec4(mapped * vignette, 1.0);                 // the viewer shows UNORM values as they are
}
