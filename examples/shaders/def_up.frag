#version 450
// deferred example, bloom upsample: a 3x3 tent over the smaller level of the
// chain added to this level's downsample.
layout(set = 0, binding = 0) uniform sampler2D lower;   // the smaller, already upsampled level
layout(set = 0, binding = 1) uniform sampler2D level;   // this level's downsample
layout(location = 0) out vec4 color;
layout(push_constant) uniform Push { vec2 texel; vec2 size; } pc;   // texel of 'lower', size of this level

void main() {
  vec2 uv = gl_FragCoord.xy / pc.size;
  vec2 t = pc.texel;
  vec3 s = texture(lower, uv).rgb * 4.0;
  s += (texture(lower, uv + vec2(t.x, 0)).rgb + texture(lower, uv - vec2(t.x, 0)).rgb +
        texture(lower, uv + vec2(0, t.y)).rgb + texture(lower, uv - vec2(0, t.y)).rgb) * 2.0;
  s += texture(lower, uv + t).rgb + texture(lower, uv - t).rgb +
       texture(lower, uv + vec2(t.x, -t.y)).rgb + texture(lower, uv + vec2(-t.x, t.y)).rgb;
  color = vec4(texture(level, uv).rgb + s / 16.0, 1.0);
}
