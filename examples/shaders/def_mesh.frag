#version 450
// deferred example, G-buffer: the mesh's texel as albedo (a = no emission),
// its normal (w = specular strength) and depth as distance / far, as
// def_gbuffer.frag writes the traced scene.
layout(location = 0) in vec3 v_world;
layout(location = 1) in vec3 v_normal;
layout(location = 2) in vec2 v_uv;
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform Cam {
  vec4 eye; vec4 target; vec4 sun; vec4 params; vec4 model;
} pc;
void main() {
  albedo = vec4(texture(tex, v_uv).rgb, 0.0);
  normal = vec4(normalize(v_normal), 0.6);
  gl_FragDepth = length(v_world - pc.eye.xyz) / pc.params.y;
}
