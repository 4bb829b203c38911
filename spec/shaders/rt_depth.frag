#version 450
// Runtime spec: constant colour at a constant depth (depth test against a cleared buffer).
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { vec4 rgba; float depth; } pc;
void main() { color = pc.rgba; gl_FragDepth = pc.depth; }
