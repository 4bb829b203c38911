#version 450
// deferred example, G-buffer: the shipped glTF mesh (data/mesh/torus_knot.gltf,
// drawn with cmd:draw_indexed after the sphere-traced scene). Projects with
// the same camera the tracer's rays use (def_gbuffer.frag ray_dir), so the
// two meet in one depth buffer.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 0) out vec3 v_world;
layout(location = 1) out vec3 v_normal;
layout(location = 2) out vec2 v_uv;
// ---- camera and sun, as push constants (the same block in every def_ shader) ----
layout(push_constant) uniform Cam {
  vec4 eye;     // xyz camera position, w = tan(fov / 2)
  vec4 target;  // xyz look-at point, w = aspect (width / height)
  vec4 sun;     // xyz unit vector towards the sun, w = half extent of the shadow map's box
  vec4 params;  // x = time, y = far distance, zw = this pass's target size in pixels
  vec4 model;   // the mesh: xyz position, w scale (it turns about y with time)
} pc;

vec3 place(vec3 p) {
  float a = pc.params.x * 0.6 + 0.4, c = cos(a), s = sin(a);
  return pc.model.xyz + vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) * pc.model.w;
}

void main() {
  vec3 w = place(position);
  v_world = w;
  v_normal = place(normal) - place(vec3(0.0));
  v_uv = uv;
  vec3 fwd = normalize(pc.target.xyz - pc.eye.xyz);
  vec3 right = normalize(cross(fwd, vec3(0.0, 1.0, 0.0)));
  vec3 up = cross(right, fwd);
  vec3 v = w - pc.eye.xyz;
  float z = dot(v, fwd);  // clip w: behind the camera is clipped (0 <= 0.5 z <= z)
  gl_Position = vec4(dot(v, right) / (pc.eye.w * pc.target.w), -dot(v, up) / pc.eye.w, 0.5 * z, z);
}
