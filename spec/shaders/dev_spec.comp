#version 450
// Device-layer test: specialisable work-group size (gl_WorkGroupSize is a spec constant composite).
layout(local_size_x_id = 0, local_size_y = 4) in;
layout(constant_id = 0) const uint X = 16;
layout(set = 0, binding = 2) buffer Out { uint v[]; } o;
layout(set = 0, binding = 5) uniform sampler2D tex[3];
void main() { o.v[gl_LocalInvocationIndex] = gl_WorkGroupSize.x + uint(textureSize(tex[1], 0).x); }
