#version 450
// async example, SSAO at half resolution in compute (def_ssao.frag as a
// dispatch): rebuilds the position from the full-resolution depth, takes 16
// samples in the normal's hemisphere and counts those behind the depth buffer.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D depth_tex;   // distance / far
layout(set = 0, binding = 1) uniform sampler2D normal_tex;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D ao_img;
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

float hash(vec2 p) { return fract(sin(dot(p, vec2(12.9898, 78.233))) * 43758.5453); }

void main() {
  ivec2 gid = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(gid, imageSize(ao_img)))) return;
  vec2 frag = vec2(gid) + 0.5;
  vec2 uv = frag / pc.params.zw;
  ivec2 full = textureSize(depth_tex, 0);
  ivec2 px = clamp(ivec2(uv * vec2(full)), ivec2(0), full - 1);
  float d = texelFetch(depth_tex, px, 0).r;
  if (d >= 1.0) { imageStore(ao_img, gid, vec4(1.0)); return; }
  float far = pc.params.y;
  vec3 fwd, right, up;
  basis(fwd, right, up);
  vec3 p = pc.eye.xyz + ray_dir((vec2(px) + 0.5) / vec2(full)) * d * far;
  vec3 n = normalize(texelFetch(normal_tex, px, 0).xyz);
  // a per-pixel rotation of the kernel (4x4 pattern, no noise texture)
  float a = 6.2831853 * hash(mod(frag, 4.0));
  vec3 t = normalize(abs(n.y) < 0.9 ? cross(n, vec3(0.0, 1.0, 0.0)) : cross(n, vec3(1.0, 0.0, 0.0)));
  vec3 b = cross(n, t);
  t = t * cos(a) + b * sin(a);
  b = cross(n, t);
  const float radius = 0.5;
  float occ = 0.0;
  for (int i = 0; i < 16; i++) {
    float fi = float(i);
    float r = radius * mix(0.1, 1.0, (fi + 0.5) / 16.0);
    float phi = fi * 2.39996;                         // golden angle spiral
    float ct = sqrt(1.0 - (fi + 0.5) / 16.0 * 0.9);  // cosine of the elevation
    float st = sqrt(1.0 - ct * ct);
    vec3 s = p + (t * cos(phi) * st + b * sin(phi) * st + n * ct) * r;
    vec3 v = s - pc.eye.xyz;
    float z = dot(v, fwd);
    if (z <= 0.0) continue;
    vec2 suv = vec2(dot(v, right) / (z * pc.eye.w * pc.target.w), -dot(v, up) / (z * pc.eye.w)) * 0.5 + 0.5;
    if (any(lessThan(suv, vec2(0.0))) || any(greaterThan(suv, vec2(1.0)))) continue;
    float sd = texelFetch(depth_tex, clamp(ivec2(suv * vec2(full)), ivec2(0), full - 1), 0).r * far;
    float dist = length(v);
    if (sd < dist - 0.02) occ += smoothstep(0.0, 1.0, radius / max(dist - sd, 1e-3) * 0.5);
  }
  // fade out in the distance, where the floor meets the rays at grazing angles
  float fade = clamp((18.0 - d * far) / 6.0, 0.0, 1.0);
  imageStore(ao_img, gid, vec4(mix(1.0, clamp(1.0 - occ / 16.0, 0.0, 1.0), fade)));
}
