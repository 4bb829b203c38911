#version 450
// Content spec: a matrix vertex input, which vertex buffers do not feed.
layout(location = 0) in mat4 m;
void main() { gl_Position = m[0] + m[3]; }
