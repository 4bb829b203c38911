#version 450
// deferred example, shadow map: the mesh seen from the sun, in the orthographic
// box def_shadow.frag traces (depth = distance from the box's plane / (2 far)).
layout(location = 0) in vec3 position;
layout(push_constant) uniform Cam {
  vec4 eye; vec4 target; vec4 sun; vec4 params; vec4 model;
} pc;
vec3 place(vec3 p) {
  float a = pc.params.x * 0.6 + 0.4, c = cos(a), s = sin(a);
  return pc.model.xyz + vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) * pc.model.w;
}
void main() {
  vec3 ld = -pc.sun.xyz;
  vec3 lr = normalize(cross(ld, vec3(0.0, 0.0, 1.0)));
  vec3 lu = cross(lr, ld);
  float far = pc.params.y, ext = pc.sun.w;
  vec3 q = place(position) + ld * far;
  gl_Position = vec4(dot(q, lr) / ext, dot(q, lu) / ext, dot(q, ld) / (2.0 * far), 1.0);
}
