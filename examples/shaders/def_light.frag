#version 450
// deferred example, lighting into HDR: sun with a 5x5 PCF shadow lookup,
// sky ambient darkened by the half-resolution SSAO, point lights from the
// uploaded uniform buffer, emission, distance fog and a sky with a sun disc.
layout(set = 0, binding = 0) uniform sampler2D albedo_tex;
layout(set = 0, binding = 1) uniform sampler2D normal_tex;
layout(set = 0, binding = 2) uniform sampler2D depth_tex;
layout(set = 0, binding = 3) uniform sampler2D shadow_tex;
layout(set = 0, binding = 4) uniform sampler2D ao_tex;
struct Light { vec4 pos_radius; vec4 color; };
layout(set = 0, binding = 5) uniform Lights { Light light[4]; } lights;
layout(location = 0) out vec4 hdr;
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
// The sun's orthographic box: centred on the scene, 'extent' half-wide, depth 2 * far.
void sun_basis(out vec3 ld, out vec3 lr, out vec3 lu) {
  ld = -pc.sun.xyz;
  lr = normalize(cross(ld, vec3(0.0, 0.0, 1.0)));
  lu = cross(lr, ld);
}

vec3 sky(vec3 rd) {
  vec3 col = mix(vec3(0.5, 0.6, 0.75), vec3(0.1, 0.22, 0.55), clamp(rd.y * 2.0, 0.0, 1.0));
  float s = max(dot(rd, pc.sun.xyz), 0.0);
  return col + vec3(12.0, 10.0, 7.0) * pow(s, 800.0) + vec3(0.6, 0.45, 0.3) * pow(s, 12.0);
}

float shadow(vec3 p, vec3 n) {
  vec3 ld, lr, lu;
  sun_basis(ld, lr, lu);
  float far = pc.params.y, ext = pc.sun.w;
  vec3 q = p + n * 0.03 + ld * far;
  vec2 uv = vec2(dot(q, lr), dot(q, lu)) / ext * 0.5 + 0.5;
  float d = dot(q, ld) / (2.0 * far) - 0.002;
  ivec2 size = textureSize(shadow_tex, 0);
  vec2 c = uv * vec2(size) - 0.5;
  float lit = 0.0;
  for (int y = -2; y <= 2; y++)
    for (int x = -2; x <= 2; x++) {
      ivec2 t = clamp(ivec2(floor(c)) + ivec2(x, y), ivec2(0), size - 1);
      lit += d <= texelFetch(shadow_tex, t, 0).r ? 1.0 : 0.0;
    }
  return lit / 25.0;
}

void main() {
  vec2 uv = gl_FragCoord.xy / pc.params.zw;
  ivec2 px = ivec2(gl_FragCoord.xy);
  vec3 rd = ray_dir(uv);
  float d = texelFetch(depth_tex, px, 0).r;
  if (d >= 1.0) { hdr = vec4(sky(rd), 1.0); return; }
  float far = pc.params.y;
  vec3 p = pc.eye.xyz + rd * d * far;
  vec4 alb = texelFetch(albedo_tex, px, 0);
  vec4 nrm = texelFetch(normal_tex, px, 0);
  vec3 n = normalize(nrm.xyz);
  float ao = texture(ao_tex, uv).r;
  vec3 l = pc.sun.xyz;
  vec3 h = normalize(l - rd);
  float sh = shadow(p, n);
  vec3 sun_col = vec3(2.6, 2.3, 1.9);
  vec3 col = alb.rgb * sun_col * max(dot(n, l), 0.0) * sh;
  col += nrm.w * sun_col * pow(max(dot(n, h), 0.0), 64.0) * sh * step(0.0, dot(n, l));
  col += alb.rgb * vec3(0.16, 0.2, 0.3) * (0.6 + 0.4 * n.y) * ao;
  for (int i = 0; i < 4; i++) {
    vec3 lv = lights.light[i].pos_radius.xyz - p;
    float dist = length(lv);
    float att = clamp(1.0 - dist / lights.light[i].pos_radius.w, 0.0, 1.0);
    vec3 lc = lights.light[i].color.rgb * lights.light[i].color.a * att * att;
    vec3 ln = lv / dist;
    col += alb.rgb * lc * max(dot(n, ln), 0.0) * ao;
    col += nrm.w * lc * pow(max(dot(n, normalize(ln - rd)), 0.0), 48.0);
  }
  col += alb.rgb * alb.a * 6.0;   // emission
  float fog = 1.0 - exp(-0.0008 * d * far * d * far);
  hdr = vec4(mix(col, sky(rd) * 0.8, fog), 1.0);
}
