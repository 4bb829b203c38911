#version 450
// Multiplexing examples: one bloom upsample: this level plus a 3x3 tent of the
// smaller one.
layout(set = 0, binding = 0) uniform sampler2D small;
layout(set = 0, binding = 1) uniform sampler2D level;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 dst;
void main() {
  vec2 t = 1.0 / vec2(textureSize(small, 0));
  vec3 s = 4.0 * texture(small, uv).rgb;
  s += 2.0 * (texture(small, uv + vec2(t.x, 0.0)).rgb + texture(small, uv - vec2(t.x, 0.0)).rgb +
              texture(small, uv + vec2(0.0, t.y)).rgb + texture(small, uv - vec2(0.0, t.y)).rgb);
  s += texture(small, uv + t).rgb + texture(small, uv - t).rgb + texture(small, uv + vec2(t.x, -t.y)).rgb +
       texture(small, uv + vec2(-t.x, t.y)).rgb;
  dst = vec4(texture(level, uv).rgb + s / 16.0, 1.0);
}
