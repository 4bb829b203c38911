#version 450
// deferred example, transparents: an analytic glass sphere blended over the
// lit HDR image (premultiplied alpha), depth-tested against the G-buffer's
// depth, which this pass only reads.
layout(location = 0) out vec4 color;
// ---- camera and sun, as push constants (the same block in every def_ shader) ----
layout(push_constant) uniform Cam {
  vec4 eye;     // xyz camera position, w = tan(fov / 2)
  vec4 target;  // xyz look-at point, w = aspect (width / height)
  vec4 sun;     // xyz unit vector towards the sun, w = half extent of the shadow map's box
  vec4 params;  // x = time, y = far distance, zw = this pass's target size in pixels
} pc;


// Camera basis and the ray through a point of the screen (uv in [0,1]^2, y down).
void basis(out vec3 fwd, out vec3 right, out vec3 up) {
  fwd = normalize(pc.target.xyz - pc.eye.xyz);
  right = normalize(cross(fwd, vec3(0.0, 1.0, 0.0)));
  up = cross(right, fwd);
}
vec3 ray_dir(vec2 uv) {
  vec3 f, r, u;
  basis(f, r, u);
  vec2 ndc = uv * 2.0 - 1.0;
  return normalize(f + r * ndc.x * pc.eye.w * pc.target.w - u * ndc.y * pc.eye.w);
}

void main() {
  vec2 uv = gl_FragCoord.xy / pc.params.zw;
  vec3 ro = pc.eye.xyz, rd = ray_dir(uv);
  const vec3 c = vec3(2.7, 0.7, 1.6);
  const float r = 0.7;
  vec3 oc = ro - c;
  float b = dot(oc, rd), k = dot(oc, oc) - r * r, disc = b * b - k;
  if (disc < 0.0) discard;
  float t = -b - sqrt(disc);
  if (t <= 0.0) discard;
  vec3 n = normalize(ro + rd * t - c);
  float fres = pow(1.0 - max(dot(n, -rd), 0.0), 3.0);
  vec3 h = normalize(pc.sun.xyz - rd);
  float spec = pow(max(dot(n, h), 0.0), 200.0) * 30.0;
  float a = 0.2 + 0.7 * fres;
  vec3 tint = vec3(0.3, 0.8, 0.7);
  color = vec4(tint * a + vec3(spec), a);
  gl_FragDepth = t / pc.params.y;
}
