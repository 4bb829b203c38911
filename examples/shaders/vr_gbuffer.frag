#version 450
// Multiplexing examples (vr, screenshot, split_screen): ray-marches the analytic
// scene (an SDF: ground, spheres, a box, a torus, a glowing ball, a pillar)
// into the G-buffer. The ray depends only on the pixel's position in the full
// image (pc.full), so a tile rendered at an offset gives exactly the pixels
// the whole image would have there.
layout(location = 0) out vec4 albedo;   // rgb: base colour x ambient occlusion, a: emissive
layout(location = 1) out vec4 normal;   // xyz: world normal
layout(location = 2) out float depth;   // ray distance, -1 for the sky
layout(push_constant) uniform Push {
  vec4 eye;     // xyz: camera position, w: tan(vertical fov / 2)
  vec4 target;  // xyz: point looked at
  vec4 full;    // xy: full image size in pixels, zw: this image's pixel offset in it
} pc;

float box(vec3 p, vec3 b) { vec3 q = abs(p) - b; return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0); }
float torus(vec3 p, vec2 t) { return length(vec2(length(p.xz) - t.x, p.y)) - t.y; }

vec2 map(vec3 p) {
  vec2 r = vec2(p.y, 0.0);
  float d = length(p - vec3(-1.4, 1.0, 0.0)) - 1.0;             if (d < r.x) r = vec2(d, 1.0);
  d = box(p - vec3(1.5, 0.7, 0.5), vec3(0.65)) - 0.05;          if (d < r.x) r = vec2(d, 2.0);
  d = torus(p - vec3(0.2, 0.32, -2.2), vec2(1.0, 0.32));        if (d < r.x) r = vec2(d, 3.0);
  d = length(p - vec3(0.1, 0.45, 1.9)) - 0.45;                  if (d < r.x) r = vec2(d, 4.0);
  d = box(p - vec3(-3.2, 1.6, -2.8), vec3(0.35, 1.6, 0.35));    if (d < r.x) r = vec2(d, 5.0);
  d = length(p - vec3(2.9, 0.5, -1.2)) - 0.5;                   if (d < r.x) r = vec2(d, 6.0);
  return r;
}

vec3 calc_normal(vec3 p) {
  const vec2 e = vec2(0.0005, 0.0);
  return normalize(vec3(map(p + e.xyy).x - map(p - e.xyy).x, map(p + e.yxy).x - map(p - e.yxy).x,
                        map(p + e.yyx).x - map(p - e.yyx).x));
}

float occlusion(vec3 p, vec3 n) {
  float o = 0.0, w = 1.0;
  for (int i = 1; i <= 5; i++) {
    float h = 0.06 * float(i);
    o += w * (h - map(p + n * h).x);
    w *= 0.7;
  }
  return clamp(1.0 - 3.0 * o, 0.0, 1.0);
}

vec3 material(float id, vec3 p) {
  if (id < 0.5) {
    float c = mod(floor(p.x) + floor(p.z), 2.0);
    return mix(vec3(0.35), vec3(0.75), c);
  }
  if (id < 1.5) return vec3(0.8, 0.12, 0.1);
  if (id < 2.5) return vec3(0.12, 0.3, 0.85);
  if (id < 3.5) return vec3(0.85, 0.65, 0.15);
  if (id < 4.5) return vec3(1.0, 0.75, 0.35);
  if (id < 5.5) return vec3(0.6, 0.58, 0.55);
  return vec3(0.2, 0.75, 0.3);
}

void main() {
  vec2 px = gl_FragCoord.xy + pc.full.zw;
  vec2 ndc = px / pc.full.xy * 2.0 - 1.0;
  vec3 f = normalize(pc.target.xyz - pc.eye.xyz);
  vec3 r = normalize(cross(f, vec3(0.0, 1.0, 0.0)));
  vec3 u = cross(r, f);
  float aspect = pc.full.x / pc.full.y;
  vec3 dir = normalize(f + r * (ndc.x * pc.eye.w * aspect) - u * (ndc.y * pc.eye.w));
  float t = 0.01;
  vec2 h = vec2(1.0, -1.0);
  for (int i = 0; i < 160 && t < 40.0; i++) {
    h = map(pc.eye.xyz + dir * t);
    if (h.x < 0.0005 * t) break;
    t += h.x;
  }
  if (t >= 40.0) {
    albedo = vec4(0.0);
    normal = vec4(0.0, 1.0, 0.0, 0.0);
    depth = -1.0;
    return;
  }
  vec3 p = pc.eye.xyz + dir * t;
  vec3 n = calc_normal(p);
  albedo = vec4(material(h.y, p) * occlusion(p, n), h.y > 3.5 && h.y < 4.5 ? 1.0 : 0.0);
  normal = vec4(n, 0.0);
  depth = t;
}
