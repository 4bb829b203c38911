#version 450
// examples/host: the host's own mesh pipeline (not framegraph's): position and
// normal per vertex; push: mvp, and the model matrix whose last column carries
// the albedo (its rotation part turns the normals).
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 nrm;
layout(push_constant) uniform Push { mat4 mvp; mat4 model; } pc;
layout(location = 0) out vec3 n;
layout(location = 1) out vec3 albedo;
void main() {
  gl_Position = pc.mvp * vec4(pos, 1.0);
  n = mat3(pc.model) * nrm;
  albedo = pc.model[3].xyz;
}
