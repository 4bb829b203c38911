#version 450
// Multiplexing examples: the directional light's shadow map, ray-marched from
// the light's orthographic view (the same SDF as vr_gbuffer.frag). View
// independent: one shadow map serves every eye, tile and player.
layout(push_constant) uniform Push { vec4 size; } pc;   // xy: shadow map size

float box(vec3 p, vec3 b) { vec3 q = abs(p) - b; return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0); }
float torus(vec3 p, vec2 t) { return length(vec2(length(p.xz) - t.x, p.y)) - t.y; }

float map(vec3 p) {
  float d = p.y;
  d = min(d, length(p - vec3(-1.4, 1.0, 0.0)) - 1.0);
  d = min(d, box(p - vec3(1.5, 0.7, 0.5), vec3(0.65)) - 0.05);
  d = min(d, torus(p - vec3(0.2, 0.32, -2.2), vec2(1.0, 0.32)));
  d = min(d, length(p - vec3(0.1, 0.45, 1.9)) - 0.45);
  d = min(d, box(p - vec3(-3.2, 1.6, -2.8), vec3(0.35, 1.6, 0.35)));
  d = min(d, length(p - vec3(2.9, 0.5, -1.2)) - 0.5);
  return d;
}

// Light basis: lz points to the light; the map covers [-R, R]^2 and depths 0..2D.
const vec3 LZ = normalize(vec3(-0.7, 0.65, 0.3));
const float R = 7.0, D = 20.0;

void main() {
  vec3 lx = normalize(cross(vec3(0.0, 1.0, 0.0), LZ));
  vec3 ly = cross(LZ, lx);
  vec2 xy = (gl_FragCoord.xy / pc.size.xy * 2.0 - 1.0) * R;
  vec3 o = lx * xy.x + ly * xy.y + LZ * D;
  float t = 0.0;
  for (int i = 0; i < 160 && t < 2.0 * D; i++) {
    float h = map(o - LZ * t);
    if (h < 0.0005 * t) break;
    t += h;
  }
  gl_FragDepth = clamp(t / (2.0 * D), 0.0, 1.0);
}
