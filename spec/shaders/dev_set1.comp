#version 450
// Device-layer test: uses descriptor set 1, which framegraph refuses.
layout(local_size_x = 1) in;
layout(set = 1, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[0] = 1u; }
