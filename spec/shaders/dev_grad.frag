#version 450
// Device-layer test: fragment-only program on the built-in fullscreen triangle.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { float blue; } pc;
void main() { color = vec4(uv, pc.blue, 1.0); }
