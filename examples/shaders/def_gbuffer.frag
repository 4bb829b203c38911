#version 450
// deferred example, G-buffer: sphere-traces the SDF scene from the camera and
// writes albedo (a = emission), normal (w = specular strength) and depth as
// distance / far, so later passes rebuild positions from the camera ray alone.
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;
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

vec3 calc_normal(vec3 p) {
  const vec2 e = vec2(0.0008, -0.0008);
  return normalize(e.xyy * map(p + e.xyy).x + e.yyx * map(p + e.yyx).x +
                   e.yxy * map(p + e.yxy).x + e.xxx * map(p + e.xxx).x);
}

void main() {
  vec2 uv = gl_FragCoord.xy / pc.params.zw;
  vec3 ro = pc.eye.xyz, rd = ray_dir(uv);
  float far = pc.params.y;
  vec2 h = trace(ro, rd, far);
  if (h.x < 0.0) {  // sky: depth 1, no albedo
    albedo = vec4(0.0);
    normal = vec4(0.0);
    gl_FragDepth = 1.0;
    return;
  }
  vec3 p = ro + rd * h.x;
  vec3 n = calc_normal(p);
  vec3 col = vec3(0.8);
  float spec = 0.3, emit = 0.0;
  int m = int(h.y + 0.5);
  if (m == 0) {       // checkered floor
    float k = mod(floor(p.x) + floor(p.z), 2.0);
    col = mix(vec3(0.35, 0.35, 0.33), vec3(0.75, 0.73, 0.68), k);
    spec = 0.1;
  } else if (m == 1) { col = vec3(0.85, 0.12, 0.08); spec = 0.9; }
  else if (m == 2) { col = vec3(0.15, 0.35, 0.8); spec = 0.5; }
  else if (m == 3) { col = vec3(0.95, 0.7, 0.2); spec = 1.0; }
  else if (m == 4) { col = vec3(0.7, 0.7, 0.72); spec = 0.2; }
  else { col = vec3(1.0, 0.55, 0.2); emit = 1.0; spec = 0.0; }
  albedo = vec4(col, emit);
  normal = vec4(n, spec);
  gl_FragDepth = h.x / far;
}
