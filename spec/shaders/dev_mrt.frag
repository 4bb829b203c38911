#version 450
// Device-layer test: two color outputs and a sampled image + separate sampler.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 a;
layout(location = 1) out vec4 b;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler smp;
void main() { vec4 t = texture(sampler2D(tex, smp), uv); a = t; b = 1.0 - t; }
