#version 450
// Device-layer test: copies a texture through a combined image sampler (nearest).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 3) uniform sampler2D src;
void main() { color = texelFetch(src, ivec2(gl_FragCoord.xy), 0) + texture(src, uv) * 0.0; }
