#version 450
// taa example, scene: one ray per pixel through a sub-pixel jittered point
// (or an n x n grid of rays for the supersampled reference) into an SDF scene
// full of edges that alias: a checkerboard running to the horizon, thin
// posts, a sphere and a box; sun light with a soft SDF shadow. Linear colour.
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push {
  vec4 eye;      // xyz camera position, w = tan(fov / 2)
  vec4 target;   // xyz look-at point, w = aspect
  vec4 jitter;   // xy sub-pixel offset in pixels (-0.5..0.5), z = n (n x n rays per pixel), w unused
  vec2 size;     // target size in pixels
} pc;

float sd_box(vec3 p, vec3 b) { vec3 q = abs(p) - b; return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0); }

vec2 map(vec3 p) {
  vec2 d = vec2(p.y, 0.0);
  float s = length(p - vec3(-1.0, 0.9, 0.0)) - 0.9;
  if (s < d.x) d = vec2(s, 1.0);
  float b = sd_box(p - vec3(1.3, 0.6, -0.4), vec3(0.6));
  if (b < d.x) d = vec2(b, 2.0);
  vec3 q = p - vec3(0.0, 0.0, -2.5);
  q.x -= 0.5 * clamp(round(q.x / 0.5), -8.0, 8.0);
  float post = sd_box(q - vec3(0.0, 1.0, 0.0), vec3(0.03, 1.0, 0.03));
  if (post < d.x) d = vec2(post, 3.0);
  return d;
}

vec2 trace(vec3 ro, vec3 rd) {
  float t = 0.0;
  for (int i = 0; i < 160; i++) {
    vec2 h = map(ro + rd * t);
    if (h.x < 0.0003 * t + 0.0002) return vec2(t, h.y);
    t += h.x;
    if (t > 80.0) break;
  }
  return vec2(-1.0, 0.0);
}

vec3 calc_normal(vec3 p) {
  const vec2 e = vec2(0.0005, -0.0005);
  return normalize(e.xyy * map(p + e.xyy).x + e.yyx * map(p + e.yyx).x +
                   e.yxy * map(p + e.yxy).x + e.xxx * map(p + e.xxx).x);
}

float soft_shadow(vec3 ro, vec3 rd) {
  float res = 1.0, t = 0.02;
  for (int i = 0; i < 48 && t < 12.0; i++) {
    float h = map(ro + rd * t).x;
    res = min(res, 10.0 * h / t);
    if (res < 0.001) break;
    t += clamp(h, 0.02, 0.4);
  }
  return clamp(res, 0.0, 1.0);
}

vec3 shade(vec2 pixel) {
  vec3 fwd = normalize(pc.target.xyz - pc.eye.xyz);
  vec3 right = normalize(cross(fwd, vec3(0.0, 1.0, 0.0)));
  vec3 up = cross(right, fwd);
  vec2 ndc = pixel / pc.size * 2.0 - 1.0;
  vec3 rd = normalize(fwd + right * ndc.x * pc.eye.w * pc.target.w - up * ndc.y * pc.eye.w);
  vec3 sky = mix(vec3(0.7, 0.8, 0.95), vec3(0.25, 0.45, 0.85), clamp(rd.y * 2.0, 0.0, 1.0));
  vec2 h = trace(pc.eye.xyz, rd);
  if (h.x < 0.0) return sky;
  vec3 p = pc.eye.xyz + rd * h.x;
  vec3 n = calc_normal(p);
  vec3 alb;
  int m = int(h.y + 0.5);
  if (m == 0) alb = mix(vec3(0.08), vec3(0.9), mod(floor(p.x * 2.0) + floor(p.z * 2.0), 2.0));
  else if (m == 1) alb = vec3(0.9, 0.2, 0.1);
  else if (m == 2) alb = vec3(0.1, 0.4, 0.9);
  else alb = vec3(0.95, 0.85, 0.3);
  vec3 l = normalize(vec3(-0.5, 0.7, 0.4));
  float dif = max(dot(n, l), 0.0) * soft_shadow(p + n * 0.002, l);
  vec3 col = alb * (vec3(1.2, 1.1, 0.95) * dif + vec3(0.15, 0.2, 0.3) * (0.5 + 0.5 * n.y));
  return mix(col, sky, 1.0 - exp(-0.0004 * h.x * h.x));
}

void main() {
  int n = max(int(pc.jitter.z + 0.5), 1);
  vec3 sum = vec3(0.0);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      vec2 o = n == 1 ? pc.jitter.xy : (vec2(i, j) + 0.5) / float(n) - 0.5;
      sum += shade(floor(gl_FragCoord.xy) + 0.5 + o);
    }
  color = vec4(sum / float(n * n), 1.0);
}
