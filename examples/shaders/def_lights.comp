#version 450
// deferred example, lights: copies the four point lights (position, radius;
// colour, intensity) from push constants into the uniform buffer `lights`
// that the lighting pass reads.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) writeonly buffer Lights { vec4 v[8]; } lights;
layout(push_constant) uniform Push { vec4 v[8]; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < 8u) lights.v[i] = pc.v[i];
}
