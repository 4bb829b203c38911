#version 450
// Content spec: the texture's smallest mip of a 128x32 texture (level 7, 1x1).
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() { color = vec4(textureLod(tex, v_uv, 7.0).rgb, v_normal.z * 0.0 + 1.0); }
