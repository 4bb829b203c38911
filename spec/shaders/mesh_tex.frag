#version 450
// Content spec: the texture's colour unlit (rgb), the normal's z in alpha.
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() { color = vec4(texture(tex, v_uv).rgb, normalize(v_normal).z * 0.5 + 0.5); }
