#version 450
// Multiplexing examples: deferred lighting into HDR: sun with a 3x3 PCF
// shadow from the shared shadow map, sky ambient, specular, emissive, fog.
layout(set = 0, binding = 0) uniform sampler2D albedo;
layout(set = 0, binding = 1) uniform sampler2D normal;
layout(set = 0, binding = 2) uniform sampler2D depth;
layout(set = 0, binding = 3) uniform sampler2D shadow_map;
layout(location = 0) out vec4 hdr;
layout(push_constant) uniform Push { vec4 eye; vec4 target; vec4 full; } pc;   // as vr_gbuffer.frag

const vec3 LZ = normalize(vec3(-0.7, 0.65, 0.3));   // as vr_shadow.frag
const float R = 7.0, D = 20.0;

vec3 sky(vec3 dir) {
  return mix(vec3(0.62, 0.7, 0.85), vec3(0.18, 0.3, 0.62), clamp(dir.y * 1.5, 0.0, 1.0));
}

float shadow(vec3 p, vec3 n) {
  vec3 lx = normalize(cross(vec3(0.0, 1.0, 0.0), LZ));
  vec3 ly = cross(LZ, lx);
  vec2 size = vec2(textureSize(shadow_map, 0));
  p += n * 0.05;   // normal offset: no acne on faces at grazing angles to the light
  vec2 st = (vec2(dot(p, lx), dot(p, ly)) / R * 0.5 + 0.5) * size;
  if (any(lessThan(st, vec2(1.0))) || any(greaterThanEqual(st, size - 1.0))) return 1.0;   // beyond the map: lit
  float z = (D - dot(p, LZ)) / (2.0 * D) - 0.0005;
  float lit = 0.0;
  for (int y = -1; y <= 1; y++)
    for (int x = -1; x <= 1; x++) {
      ivec2 q = clamp(ivec2(st) + ivec2(x, y), ivec2(0), ivec2(size) - 1);
      lit += z <= texelFetch(shadow_map, q, 0).r ? 1.0 : 0.0;
    }
  return lit / 9.0;
}

void main() {
  ivec2 ip = ivec2(gl_FragCoord.xy);
  vec2 px = gl_FragCoord.xy + pc.full.zw;
  vec2 ndc = px / pc.full.xy * 2.0 - 1.0;
  vec3 f = normalize(pc.target.xyz - pc.eye.xyz);
  vec3 r = normalize(cross(f, vec3(0.0, 1.0, 0.0)));
  vec3 u = cross(r, f);
  float aspect = pc.full.x / pc.full.y;
  vec3 dir = normalize(f + r * (ndc.x * pc.eye.w * aspect) - u * (ndc.y * pc.eye.w));
  float t = texelFetch(depth, ip, 0).r;
  if (t < 0.0) { hdr = vec4(sky(dir), 1.0); return; }
  vec4 a = texelFetch(albedo, ip, 0);
  vec3 n = texelFetch(normal, ip, 0).xyz;
  vec3 p = pc.eye.xyz + dir * t;
  float sh = shadow(p, n);
  float ndl = max(dot(n, LZ), 0.0);
  float spec = pow(max(dot(reflect(-LZ, n), -dir), 0.0), 40.0);
  vec3 c = a.rgb * (vec3(1.0, 0.92, 0.78) * 2.2 * ndl * sh + sky(n) * (0.22 + 0.18 * n.y));
  c += vec3(0.5) * spec * sh + a.rgb * a.a * 4.0;
  c = mix(sky(dir), c, exp(-0.012 * t));
  hdr = vec4(c, 1.0);
}
