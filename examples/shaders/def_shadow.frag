#version 450
// deferred example, shadow map: sphere-traces the SDF scene along the sun's
// direction from a plane behind the scene (orthographic) and writes the hit
// distance / (2 far) as depth; 1 where nothing is hit.
// ---- camera and sun, as push constants (the same block in every def_ shader) ----
layout(push_constant) uniform Cam {
  vec4 eye;     // xyz camera position, w = tan(fov / 2)
  vec4 target;  // xyz look-at point, w = aspect (width / height)
  vec4 sun;     // xyz unit vector towards the sun, w = half extent of the shadow map's box
  vec4 params;  // x = time, y = far distance, zw = this pass's target size in pixels
} pc;


// ---- scene (the same SDF in def_gbuffer.frag and def_shadow.frag) ----
float sd_box(vec3 p, vec3 b, float r) { vec3 q = abs(p) - b; return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0) - r; }
float sd_torus(vec3 p, vec2 t) { vec2 q = vec2(length(p.xz) - t.x, p.y); return length(q) - t.y; }

// x = distance, y = material: 0 ground, 1 red sphere, 2 box, 3 torus, 4 pillars, 5 emissive orb
vec2 map(vec3 p) {
  vec2 d = vec2(p.y, 0.0);
  float s = length(p - vec3(-1.2, 1.0, 0.3)) - 1.0;
  if (s < d.x) d = vec2(s, 1.0);
  vec3 q = p - vec3(1.5, 0.75, -0.6);
  float c = cos(0.6), sn = sin(0.6);
  q.xz = mat2(c, -sn, sn, c) * q.xz;
  float b = sd_box(q, vec3(0.6, 0.6, 0.6), 0.12);
  if (b < d.x) d = vec2(b, 2.0);
  float t = sd_torus(p - vec3(0.4, 0.35, 1.9), vec2(0.75, 0.3));
  if (t < d.x) d = vec2(t, 3.0);
  vec3 r = p - vec3(0.0, 0.0, -3.2);
  r.x = r.x - 1.6 * clamp(round(r.x / 1.6), -2.0, 2.0);
  float pl = sd_box(r - vec3(0.0, 1.4, 0.0), vec3(0.22, 1.4, 0.22), 0.03);
  if (pl < d.x) d = vec2(pl, 4.0);
  float o = length(p - vec3(-0.2, 2.6, -1.2)) - 0.35;
  if (o < d.x) d = vec2(o, 5.0);
  return d;
}

// Sphere tracing; returns (t, material) with t < 0 on a miss.
vec2 trace(vec3 ro, vec3 rd, float tmax) {
  float t = 0.0;
  for (int i = 0; i < 128; i++) {
    vec2 h = map(ro + rd * t);
    if (h.x < 0.0005 * t + 0.0005) return vec2(t, h.y);
    t += h.x;
    if (t > tmax) break;
  }
  return vec2(-1.0, 0.0);
}

// The sun's orthographic box: centred on the scene, 'extent' half-wide, depth 2 * far.
void sun_basis(out vec3 ld, out vec3 lr, out vec3 lu) {
  ld = -pc.sun.xyz;
  lr = normalize(cross(ld, vec3(0.0, 0.0, 1.0)));
  lu = cross(lr, ld);
}

void main() {
  vec2 uv = gl_FragCoord.xy / pc.params.zw;
  vec3 ld, lr, lu;
  sun_basis(ld, lr, lu);
  float far = pc.params.y, ext = pc.sun.w;
  vec3 ro = -ld * far + (lr * (uv.x * 2.0 - 1.0) + lu * (uv.y * 2.0 - 1.0)) * ext;
  vec2 h = trace(ro, ld, 2.0 * far);
  gl_FragDepth = h.x < 0.0 ? 1.0 : h.x / (2.0 * far);
}
