#version 450
// Runtime spec: fullscreen triangle writing its uv (red = u, green = v).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { float blue; } pc;
void main() { color = vec4(uv, pc.blue, 1.0); }
