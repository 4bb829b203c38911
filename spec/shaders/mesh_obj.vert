#version 450
// Content spec: a mesh from vertex buffers (positions, normals, uvs at
// locations 0..2), scaled into the target; y up in the mesh, down on screen.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec2 v_uv;
layout(push_constant) uniform Place {
  vec2 offset;   // NDC of the mesh's origin
  float scale;   // NDC per mesh unit (x divided by aspect)
  float aspect;  // target width / height
} pc;
void main() {
  v_normal = normal;
  v_uv = uv;
  gl_Position = vec4(position.x * pc.scale / pc.aspect + pc.offset.x, -position.y * pc.scale + pc.offset.y,
                     0.5 - position.z * 0.1, 1.0);
}
