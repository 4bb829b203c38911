#version 450
// Device-layer test: fullscreen triangle with a second output (k = 0.5).
layout(location = 0) out vec2 uv;
layout(location = 1) out float k;
void main() {
  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
  k = 0.5;
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
