#version 450
// Device-layer test: reads two inputs, so it needs its own vertex shader.
layout(location = 0) in vec2 uv;
layout(location = 1) in float k;
layout(location = 0) out vec4 color;
void main() { color = vec4(uv, k, 1.0); }
