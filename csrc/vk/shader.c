/* Shaders: a small SPIR-V reflector (entry point, local size, set-0
 * descriptor bindings, push-constant block size, fragment outputs), pipeline
 * creation with push-descriptor layouts, and the dispatch/draw primitives. */
#include "fg_vk_shader.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- SPIR-V constants (from the SPIR-V specification) ---- */
enum {
  SpvOpName = 5, SpvOpEntryPoint = 15, SpvOpExecutionMode = 16,
  SpvOpTypeVoid = 19, SpvOpTypeBool = 20, SpvOpTypeInt = 21, SpvOpTypeFloat = 22, SpvOpTypeVector = 23,
  SpvOpTypeMatrix = 24, SpvOpTypeImage = 25, SpvOpTypeSampler = 26, SpvOpTypeSampledImage = 27,
  SpvOpTypeArray = 28, SpvOpTypeRuntimeArray = 29, SpvOpTypeStruct = 30, SpvOpTypePointer = 32,
  SpvOpConstant = 43, SpvOpConstantComposite = 44, SpvOpSpecConstant = 50, SpvOpSpecConstantComposite = 51,
  SpvOpVariable = 59, SpvOpDecorate = 71, SpvOpMemberDecorate = 72, SpvOpExecutionModeId = 331,
};
enum { SpvModelVertex = 0, SpvModelFragment = 4, SpvModelGLCompute = 5 };
enum { SpvModeLocalSize = 17, SpvModeLocalSizeId = 38 };
enum {
  SpvDecBlock = 2, SpvDecBufferBlock = 3, SpvDecArrayStride = 6, SpvDecMatrixStride = 7, SpvDecBuiltIn = 11,
  SpvDecNonWritable = 24, SpvDecNonReadable = 25, SpvDecLocation = 30, SpvDecBinding = 33,
  SpvDecDescriptorSet = 34, SpvDecOffset = 35,
};
enum {
  SpvSCUniformConstant = 0, SpvSCInput = 1, SpvSCUniform = 2, SpvSCOutput = 3, SpvSCPushConstant = 9,
  SpvSCStorageBuffer = 12,
};
enum { SpvBuiltInWorkgroupSize = 25, SpvDimBuffer = 5, SpvDimSubpassData = 6 };

/* Built-in fullscreen-triangle vertex shader, generated SPIR-V
 * (glslc --target-env=vulkan1.3 -O -mfmt=num) from:
 *   #version 450
 *   layout(location = 0) out vec2 uv;
 *   void main() {
 *     uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
 *     gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
 *   } */
static const uint32_t fullscreen_vert[] = {
  0x07230203,0x00010600,0x000d000b,0x0000002c,
  0x00000000,0x00020011,0x00000001,0x0006000b,
  0x00000001,0x4c534c47,0x6474732e,0x3035342e,
  0x00000000,0x0003000e,0x00000000,0x00000001,
  0x0008000f,0x00000000,0x00000004,0x6e69616d,
  0x00000000,0x00000009,0x0000000c,0x0000001d,
  0x00040047,0x00000009,0x0000001e,0x00000000,
  0x00040047,0x0000000c,0x0000000b,0x0000002a,
  0x00050048,0x0000001b,0x00000000,0x0000000b,
  0x00000000,0x00050048,0x0000001b,0x00000001,
  0x0000000b,0x00000001,0x00050048,0x0000001b,
  0x00000002,0x0000000b,0x00000003,0x00050048,
  0x0000001b,0x00000003,0x0000000b,0x00000004,
  0x00030047,0x0000001b,0x00000002,0x00020013,
  0x00000002,0x00030021,0x00000003,0x00000002,
  0x00030016,0x00000006,0x00000020,0x00040017,
  0x00000007,0x00000006,0x00000002,0x00040020,
  0x00000008,0x00000003,0x00000007,0x0004003b,
  0x00000008,0x00000009,0x00000003,0x00040015,
  0x0000000a,0x00000020,0x00000001,0x00040020,
  0x0000000b,0x00000001,0x0000000a,0x0004003b,
  0x0000000b,0x0000000c,0x00000001,0x0004002b,
  0x0000000a,0x0000000e,0x00000001,0x0004002b,
  0x0000000a,0x00000010,0x00000002,0x00040017,
  0x00000017,0x00000006,0x00000004,0x00040015,
  0x00000018,0x00000020,0x00000000,0x0004002b,
  0x00000018,0x00000019,0x00000001,0x0004001c,
  0x0000001a,0x00000006,0x00000019,0x0006001e,
  0x0000001b,0x00000017,0x00000006,0x0000001a,
  0x0000001a,0x00040020,0x0000001c,0x00000003,
  0x0000001b,0x0004003b,0x0000001c,0x0000001d,
  0x00000003,0x0004002b,0x0000000a,0x0000001e,
  0x00000000,0x0004002b,0x00000006,0x00000020,
  0x40000000,0x0004002b,0x00000006,0x00000022,
  0x3f800000,0x0004002b,0x00000006,0x00000025,
  0x00000000,0x00040020,0x00000029,0x00000003,
  0x00000017,0x0005002c,0x00000007,0x0000002b,
  0x00000022,0x00000022,0x00050036,0x00000002,
  0x00000004,0x00000000,0x00000003,0x000200f8,
  0x00000005,0x0004003d,0x0000000a,0x0000000d,
  0x0000000c,0x000500c4,0x0000000a,0x0000000f,
  0x0000000d,0x0000000e,0x000500c7,0x0000000a,
  0x00000011,0x0000000f,0x00000010,0x0004006f,
  0x00000006,0x00000012,0x00000011,0x000500c7,
  0x0000000a,0x00000014,0x0000000d,0x00000010,
  0x0004006f,0x00000006,0x00000015,0x00000014,
  0x00050050,0x00000007,0x00000016,0x00000012,
  0x00000015,0x0003003e,0x00000009,0x00000016,
  0x0004003d,0x00000007,0x0000001f,0x00000009,
  0x0005008e,0x00000007,0x00000021,0x0000001f,
  0x00000020,0x00050083,0x00000007,0x00000024,
  0x00000021,0x0000002b,0x00050051,0x00000006,
  0x00000026,0x00000024,0x00000000,0x00050051,
  0x00000006,0x00000027,0x00000024,0x00000001,
  0x00070050,0x00000017,0x00000028,0x00000026,
  0x00000027,0x00000025,0x00000022,0x00050041,
  0x00000029,0x0000002a,0x0000001d,0x0000001e,
  0x0003003e,0x0000002a,0x00000028,0x000100fd,
  0x00010038
};

/* The same without the uv output, for fragment shaders that read no input:
 * an unconsumed output draws a warning from some validation layers. */
static const uint32_t fullscreen_vert_nouv[] = {
  0x07230203,0x00010600,0x000d000b,0x0000002c,
  0x00000000,0x00020011,0x00000001,0x0006000b,
  0x00000001,0x4c534c47,0x6474732e,0x3035342e,
  0x00000000,0x0003000e,0x00000000,0x00000001,
  0x0007000f,0x00000000,0x00000004,0x6e69616d,
  0x00000000,0x0000000c,0x0000001d,0x00040047,
  0x0000000c,0x0000000b,0x0000002a,0x00050048,
  0x0000001b,0x00000000,0x0000000b,0x00000000,
  0x00050048,0x0000001b,0x00000001,0x0000000b,
  0x00000001,0x00050048,0x0000001b,0x00000002,
  0x0000000b,0x00000003,0x00050048,0x0000001b,
  0x00000003,0x0000000b,0x00000004,0x00030047,
  0x0000001b,0x00000002,0x00020013,0x00000002,
  0x00030021,0x00000003,0x00000002,0x00030016,
  0x00000006,0x00000020,0x00040017,0x00000007,
  0x00000006,0x00000002,0x00040015,0x0000000a,
  0x00000020,0x00000001,0x00040020,0x0000000b,
  0x00000001,0x0000000a,0x0004003b,0x0000000b,
  0x0000000c,0x00000001,0x0004002b,0x0000000a,
  0x0000000e,0x00000001,0x0004002b,0x0000000a,
  0x00000010,0x00000002,0x00040017,0x00000017,
  0x00000006,0x00000004,0x00040015,0x00000018,
  0x00000020,0x00000000,0x0004002b,0x00000018,
  0x00000019,0x00000001,0x0004001c,0x0000001a,
  0x00000006,0x00000019,0x0006001e,0x0000001b,
  0x00000017,0x00000006,0x0000001a,0x0000001a,
  0x00040020,0x0000001c,0x00000003,0x0000001b,
  0x0004003b,0x0000001c,0x0000001d,0x00000003,
  0x0004002b,0x0000000a,0x0000001e,0x00000000,
  0x0004002b,0x00000006,0x00000020,0x40000000,
  0x0004002b,0x00000006,0x00000022,0x3f800000,
  0x0004002b,0x00000006,0x00000025,0x00000000,
  0x00040020,0x00000029,0x00000003,0x00000017,
  0x0005002c,0x00000007,0x0000002b,0x00000022,
  0x00000022,0x00050036,0x00000002,0x00000004,
  0x00000000,0x00000003,0x000200f8,0x00000005,
  0x0004003d,0x0000000a,0x0000000d,0x0000000c,
  0x000500c4,0x0000000a,0x0000000f,0x0000000d,
  0x0000000e,0x000500c7,0x0000000a,0x00000011,
  0x0000000f,0x00000010,0x0004006f,0x00000006,
  0x00000012,0x00000011,0x000500c7,0x0000000a,
  0x00000014,0x0000000d,0x00000010,0x0004006f,
  0x00000006,0x00000015,0x00000014,0x00050050,
  0x00000007,0x00000016,0x00000012,0x00000015,
  0x0005008e,0x00000007,0x00000021,0x00000016,
  0x00000020,0x00050083,0x00000007,0x00000024,
  0x00000021,0x0000002b,0x00050051,0x00000006,
  0x00000026,0x00000024,0x00000000,0x00050051,
  0x00000006,0x00000027,0x00000024,0x00000001,
  0x00070050,0x00000017,0x00000028,0x00000026,
  0x00000027,0x00000025,0x00000022,0x00050041,
  0x00000029,0x0000002a,0x0000001d,0x0000001e,
  0x0003003e,0x0000002a,0x00000028,0x000100fd,
  0x00010038
};

/* ---------------------------------------------------------------- reflection */

typedef struct id_info {
  uint32_t def;       /* word index of the defining instruction, 0 = none */
  int32_t set, binding, location;
  uint32_t flags;     /* bit per decoration we care about */
  uint32_t array_stride, builtin;
  const char *name;   /* into the SPIR-V words (nul-terminated literal) */
} id_info;
#define F_BLOCK 1u
#define F_BUFFERBLOCK 2u
#define F_NONWRITABLE 4u
#define F_NONREADABLE 8u
#define F_BUILTIN 16u

typedef struct reflector {
  const uint32_t *w;
  size_t nwords;
  uint32_t bound;
  id_info *ids;
  char *err;
  size_t errlen;
  const char *name;
} reflector;

static uint32_t op_of(const reflector *r, uint32_t at) { return r->w[at] & 0xffffu; }
static uint32_t len_of(const reflector *r, uint32_t at) { return r->w[at] >> 16; }

static const id_info *type_of_id(const reflector *r, uint32_t id) {
  return id < r->bound ? &r->ids[id] : NULL;
}

/* Value of a 32-bit scalar constant id (spec constants: their default). */
static int const_value(const reflector *r, uint32_t id, uint32_t *v) {
  const id_info *t = type_of_id(r, id);
  if (!t || !t->def) return 0;
  uint32_t op = op_of(r, t->def);
  if (op != SpvOpConstant && op != SpvOpSpecConstant) return 0;
  *v = r->w[t->def + 3];
  return 1;
}

/* Member decoration lookup: scans the module (only used for push blocks and
 * readonly buffers, so linear is fine). */
static int member_dec(const reflector *r, uint32_t st, uint32_t member, uint32_t dec, uint32_t *value) {
  for (size_t at = 5; at < r->nwords;) {
    uint32_t len = len_of(r, (uint32_t)at);
    if (len == 0) break;
    if (op_of(r, (uint32_t)at) == SpvOpMemberDecorate && len >= 4 && r->w[at + 1] == st &&
        r->w[at + 2] == member && r->w[at + 3] == dec) {
      if (value) *value = len >= 5 ? r->w[at + 4] : 0;
      return 1;
    }
    at += len;
  }
  return 0;
}

/* Byte size of a type inside an explicitly laid-out block (push constants). */
static uint64_t type_size(const reflector *r, uint32_t type, uint32_t matrix_stride, int depth) {
  const id_info *t = type_of_id(r, type);
  if (!t || !t->def || depth > 16) return 0;
  const uint32_t *d = r->w + t->def;
  switch (op_of(r, t->def)) {
    case SpvOpTypeBool: return 4;
    case SpvOpTypeInt:
    case SpvOpTypeFloat: return d[2] / 8;
    case SpvOpTypeVector: return d[3] * type_size(r, d[2], 0, depth + 1);
    case SpvOpTypeMatrix: {
      uint64_t col = type_size(r, d[2], 0, depth + 1);
      return (uint64_t)d[3] * (matrix_stride ? matrix_stride : fg_align_up(col, 16));
    }
    case SpvOpTypeArray: {
      uint32_t n = 0;
      if (!const_value(r, d[3], &n)) return 0;
      uint64_t stride = t->array_stride ? t->array_stride : type_size(r, d[2], matrix_stride, depth + 1);
      return (uint64_t)n * stride;
    }
    case SpvOpTypeStruct: {
      uint64_t end = 0;
      uint32_t members = len_of(r, t->def) - 2;
      for (uint32_t m = 0; m < members; m++) {
        uint32_t off = 0, ms = 0;
        member_dec(r, type, m, SpvDecOffset, &off);
        member_dec(r, type, m, SpvDecMatrixStride, &ms);
        uint64_t e = off + type_size(r, d[2 + m], ms, depth + 1);
        if (e > end) end = e;
      }
      return end;
    }
    default: return 0;
  }
}

static int struct_all_members(const reflector *r, uint32_t st, uint32_t dec) {
  const id_info *t = type_of_id(r, st);
  if (!t || !t->def || op_of(r, t->def) != SpvOpTypeStruct) return 0;
  uint32_t members = len_of(r, t->def) - 2;
  for (uint32_t m = 0; m < members; m++)
    if (!member_dec(r, st, m, dec, NULL)) return 0;
  return members > 0;
}

static const char *model_name(uint32_t m) {
  switch (m) {
    case SpvModelVertex: return "vertex";
    case SpvModelFragment: return "fragment";
    case SpvModelGLCompute: return "compute";
    case 1: return "tessellation control";
    case 2: return "tessellation evaluation";
    case 3: return "geometry";
    default: return "unknown";
  }
}

/* Reflects one module into out (bindings appended/merged, stage added).
 * entry/entry_len receive the entry point name. */
static int reflect_module(const uint32_t *spirv, size_t bytes, const char *name, fg_vk_shader_info *out,
                          uint32_t *model_out, char *entry, size_t entry_len, char *err, size_t errlen) {
  if (!spirv || bytes < 20 || bytes % 4) {
    fg_errf(err, errlen, "%s: not SPIR-V (%zu bytes; a module is a whole number of 32-bit words, at least 20 bytes)",
            name, bytes);
    return 0;
  }
  if (spirv[0] != 0x07230203u) {
    fg_errf(err, errlen, "%s: not SPIR-V (magic 0x%08x, expected 0x07230203); compile GLSL with glslc first",
            name, spirv[0]);
    return 0;
  }
  reflector r = {.w = spirv, .nwords = bytes / 4, .bound = spirv[3], .err = err, .errlen = errlen, .name = name};
  if (r.bound == 0 || r.bound > (1u << 22)) {
    fg_errf(err, errlen, "%s: corrupt SPIR-V header (id bound %u)", name, r.bound);
    return 0;
  }
  r.ids = calloc(r.bound, sizeof *r.ids);
  if (!r.ids) { fg_errf(err, errlen, "out of memory"); return 0; }
  for (uint32_t i = 0; i < r.bound; i++) r.ids[i].set = r.ids[i].binding = r.ids[i].location = -1;

  int ok = 0;
  uint32_t model = UINT32_MAX, entry_id = 0, nentries = 0;
  uint32_t local[3] = {0, 0, 0}, local_ids[3] = {0, 0, 0};
  int have_local_ids = 0;
  /* ---- pass 1: definitions, names, decorations ---- */
  for (size_t at = 5; at < r.nwords;) {
    uint32_t op = op_of(&r, (uint32_t)at), len = len_of(&r, (uint32_t)at);
    if (len == 0 || at + len > r.nwords) {
      fg_errf(err, errlen, "%s: corrupt SPIR-V (instruction at word %zu runs past the end)", name, at);
      goto done;
    }
    const uint32_t *d = spirv + at;
    uint32_t result = 0;
    switch (op) {
      case SpvOpName:
        if (len >= 3 && d[1] < r.bound) {
          /* The literal must be terminated inside the instruction. */
          const char *s = (const char *)(d + 2);
          if (memchr(s, 0, (len - 2) * 4)) r.ids[d[1]].name = s;
        }
        break;
      case SpvOpEntryPoint:
        if (len >= 4) {
          if (nentries++ == 0) {
            model = d[1];
            entry_id = d[2];
            const char *s = (const char *)(d + 3);
            if (!memchr(s, 0, (len - 3) * 4)) { fg_errf(err, errlen, "%s: corrupt entry point name", name); goto done; }
            snprintf(entry, entry_len, "%s", s);
          }
        }
        break;
      case SpvOpExecutionMode:
      case SpvOpExecutionModeId:
        if (len >= 6 && d[1] == entry_id && (d[2] == SpvModeLocalSize || d[2] == SpvModeLocalSizeId)) {
          if (d[2] == SpvModeLocalSize) { local[0] = d[3]; local[1] = d[4]; local[2] = d[5]; }
          else { local_ids[0] = d[3]; local_ids[1] = d[4]; local_ids[2] = d[5]; have_local_ids = 1; }
        }
        break;
      case SpvOpDecorate:
        if (len >= 3 && d[1] < r.bound) {
          id_info *t = &r.ids[d[1]];
          uint32_t v = len >= 4 ? d[3] : 0;
          switch (d[2]) {
            case SpvDecBlock: t->flags |= F_BLOCK; break;
            case SpvDecBufferBlock: t->flags |= F_BUFFERBLOCK; break;
            case SpvDecNonWritable: t->flags |= F_NONWRITABLE; break;
            case SpvDecNonReadable: t->flags |= F_NONREADABLE; break;
            case SpvDecArrayStride: t->array_stride = v; break;
            case SpvDecBuiltIn: t->flags |= F_BUILTIN; t->builtin = v; break;
            case SpvDecLocation: t->location = (int32_t)v; break;
            case SpvDecBinding: t->binding = (int32_t)v; break;
            case SpvDecDescriptorSet: t->set = (int32_t)v; break;
          }
        }
        break;
      case SpvOpTypeVoid: case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: case SpvOpTypeVector:
      case SpvOpTypeMatrix: case SpvOpTypeImage: case SpvOpTypeSampler: case SpvOpTypeSampledImage:
      case SpvOpTypeArray: case SpvOpTypeRuntimeArray: case SpvOpTypeStruct: case SpvOpTypePointer:
        if (len >= 2) result = d[1];
        break;
      case SpvOpConstant: case SpvOpSpecConstant: case SpvOpConstantComposite: case SpvOpSpecConstantComposite:
      case SpvOpVariable:
        if (len >= 3) result = d[2];
        break;
    }
    if (result && result < r.bound) r.ids[result].def = (uint32_t)at;
    at += len;
  }
  if (nentries == 0) { fg_errf(err, errlen, "%s: SPIR-V has no OpEntryPoint", name); goto done; }
  if (model != SpvModelGLCompute && model != SpvModelFragment && model != SpvModelVertex) {
    fg_errf(err, errlen, "%s: %s shaders are not supported (use compute, fragment or vertex)", name, model_name(model));
    goto done;
  }
  *model_out = model;
  VkShaderStageFlagBits stage = model == SpvModelGLCompute ? VK_SHADER_STAGE_COMPUTE_BIT
                              : model == SpvModelFragment ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_VERTEX_BIT;
  out->stages |= stage;
  if (model == SpvModelGLCompute) {
    out->is_compute = 1;
    if (have_local_ids)
      for (int i = 0; i < 3; i++) const_value(&r, local_ids[i], &local[i]);
    memcpy(out->local_size, local, sizeof local);
  }

  /* ---- pass 2: variables ---- */
  for (size_t at = 5; at < r.nwords;) {
    uint32_t op = op_of(&r, (uint32_t)at), len = len_of(&r, (uint32_t)at);
    const uint32_t *d = spirv + at;
    at += len;
    if (op == SpvOpConstantComposite || op == SpvOpSpecConstantComposite) {
      /* gl_WorkGroupSize (possibly specialisable) overrides LocalSize. */
      if (model == SpvModelGLCompute && len >= 6 && d[2] < r.bound && (r.ids[d[2]].flags & F_BUILTIN) &&
          r.ids[d[2]].builtin == SpvBuiltInWorkgroupSize)
        for (int i = 0; i < 3; i++) const_value(&r, d[3 + i], &out->local_size[i]);
      continue;
    }
    if (op != SpvOpVariable || len < 4) continue;
    uint32_t var = d[2], sc = d[3];
    const id_info *ptr = type_of_id(&r, d[1]);
    if (!ptr || !ptr->def || op_of(&r, ptr->def) != SpvOpTypePointer) continue;
    uint32_t pointee = r.w[ptr->def + 3];
    const id_info *vi = &r.ids[var];
    if (sc == SpvSCInput && model == SpvModelFragment && vi->location >= 0 && !(vi->flags & F_BUILTIN)) {
      out->fragment_inputs |= vi->location < 32 ? 1u << vi->location : 0x80000000u;
      continue;
    }
    if (sc == SpvSCOutput && model == SpvModelFragment && vi->location >= 0 && !(vi->flags & F_BUILTIN)) {
      if ((uint32_t)vi->location + 1 > out->color_outputs) out->color_outputs = (uint32_t)vi->location + 1;
      continue;
    }
    if (sc == SpvSCPushConstant) {
      uint64_t sz = type_size(&r, pointee, 0, 0);
      if (sz > out->push_bytes) out->push_bytes = (uint32_t)sz;
      continue;
    }
    if (sc != SpvSCUniformConstant && sc != SpvSCUniform && sc != SpvSCStorageBuffer) continue;
    if (vi->binding < 0) continue;
    int32_t set = vi->set < 0 ? 0 : vi->set;
    const char *vname = vi->name && vi->name[0] ? vi->name : "";
    if (set != 0) {
      fg_errf(err, errlen, "%s: variable '%s' uses descriptor set %d; framegraph binds set 0 only "
              "(declare it as layout(set = 0, binding = N))", name, vname, set);
      goto done;
    }
    /* Unwrap descriptor arrays. */
    uint32_t count = 1, base = pointee;
    const id_info *bt = type_of_id(&r, base);
    while (bt && bt->def && (op_of(&r, bt->def) == SpvOpTypeArray || op_of(&r, bt->def) == SpvOpTypeRuntimeArray)) {
      if (op_of(&r, bt->def) == SpvOpTypeRuntimeArray) {
        fg_errf(err, errlen, "%s: binding %d ('%s') is a runtime-sized descriptor array; "
                "give it a fixed size (no descriptor indexing)", name, vi->binding, vname);
        goto done;
      }
      uint32_t n = 1;
      const_value(&r, r.w[bt->def + 3], &n);
      count *= n;
      base = r.w[bt->def + 2];
      bt = type_of_id(&r, base);
    }
    if (!bt || !bt->def) continue;
    uint32_t bop = op_of(&r, bt->def);
    const uint32_t *bd = r.w + bt->def;
    VkDescriptorType type;
    int readonly = (vi->flags & F_NONWRITABLE) != 0, writeonly = (vi->flags & F_NONREADABLE) != 0;
    if (sc == SpvSCUniformConstant) {
      if (bop == SpvOpTypeImage) {
        uint32_t dim = bd[3], sampled = bd[7];
        if (dim == SpvDimSubpassData) {
          fg_errf(err, errlen, "%s: binding %d ('%s') is a subpass input; framegraph uses dynamic rendering "
                  "without subpasses: sample the image instead", name, vi->binding, vname);
          goto done;
        }
        if (sampled == 2) type = dim == SpvDimBuffer ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        else type = dim == SpvDimBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
      } else if (bop == SpvOpTypeSampledImage) {
        type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      } else if (bop == SpvOpTypeSampler) {
        type = VK_DESCRIPTOR_TYPE_SAMPLER;
      } else {
        fg_errf(err, errlen, "%s: binding %d ('%s') has a resource type framegraph does not bind "
                "(acceleration structures etc.)", name, vi->binding, vname);
        goto done;
      }
    } else if (sc == SpvSCStorageBuffer || (bt->flags & F_BUFFERBLOCK)) {
      type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      if (struct_all_members(&r, base, SpvDecNonWritable)) readonly = 1;
      if (struct_all_members(&r, base, SpvDecNonReadable)) writeonly = 1;
    } else {
      type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    }
    if (!vname[0] && bt->name) vname = bt->name;  /* stripped variable: fall back to the block name */
    /* Merge with a binding seen in another stage of the same program. */
    fg_vk_shader_binding *b = NULL;
    for (uint32_t i = 0; i < out->binding_count; i++)
      if (out->bindings[i].binding == (uint32_t)vi->binding) b = &out->bindings[i];
    if (b) {
      if (b->type != type || b->count != count) {
        fg_errf(err, errlen, "%s: binding %d is declared with different types or sizes in the vertex and "
                "fragment shaders", name, vi->binding);
        goto done;
      }
      b->stages |= stage;
      b->readonly &= readonly;
      b->writeonly &= writeonly;
      continue;
    }
    if (out->binding_count == FG_VK_MAX_BINDINGS) {
      fg_errf(err, errlen, "%s: more than %d bindings", name, FG_VK_MAX_BINDINGS);
      goto done;
    }
    b = &out->bindings[out->binding_count++];
    memset(b, 0, sizeof *b);
    b->binding = (uint32_t)vi->binding;
    b->type = type;
    b->count = count;
    b->stages = stage;
    b->readonly = readonly;
    b->writeonly = writeonly;
    snprintf(b->name, sizeof b->name, "%s", vname);
  }
  ok = 1;
done:
  free(r.ids);
  return ok;
}

int fg_vk_spirv_reflect(const uint32_t *spirv, size_t bytes, fg_vk_shader_info *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "shader");
  uint32_t model;
  char entry[64];
  return reflect_module(spirv, bytes, out->name, out, &model, entry, sizeof entry, err, errlen);
}

/* ---------------------------------------------------------------- objects */

typedef struct gfx_pipeline {
  uint32_t ncolor;
  VkFormat color[FG_VK_MAX_COLOR];
  VkFormat depth;
  VkPipeline pipeline;
} gfx_pipeline;

struct fg_vk_shader {
  fg_vk_device *dev;
  fg_vk_shader_info info;
  fg_vk_shader_desc desc;
  char entry[64], ventry[64];
  VkShaderModule module, vmodule;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline compute;
  gfx_pipeline *gfx;
  uint32_t ngfx, capgfx;
};

const fg_vk_shader_info *fg_vk_shader_get_info(const fg_vk_shader *s) { return &s->info; }

static VkShaderModule make_module(fg_vk_device *dev, const uint32_t *code, size_t bytes) {
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = bytes, .pCode = code};
  VkShaderModule m = VK_NULL_HANDLE;
  if (vkCreateShaderModule(dev->device, &mi, NULL, &m) != VK_SUCCESS) return VK_NULL_HANDLE;
  return m;
}

fg_vk_shader *fg_vk_shader_create(fg_vk_device *dev, const uint32_t *spirv, size_t bytes,
                                  const fg_vk_shader_desc *desc, char *err, size_t errlen) {
  fg_vk_shader_desc d0 = {0};
  if (!desc) desc = &d0;
  const char *name = desc->name && desc->name[0] ? desc->name : "shader";
  if (!dev->has_push_descriptor) {
    fg_errf(err, errlen, "%s: the device (%s) lacks VK_KHR_push_descriptor, which framegraph binds with",
            name, dev->props.deviceName);
    return NULL;
  }
  /* SPIR-V must be 4-byte aligned for the reflector and vkCreateShaderModule. */
  uint32_t *code = NULL, *vcode = NULL;
  if (bytes % 4 == 0 && bytes >= 4) {
    code = malloc(bytes);
    if (code) memcpy(code, spirv, bytes);
  }
  fg_vk_shader *s = calloc(1, sizeof *s);
  if (!s) { free(code); fg_errf(err, errlen, "out of memory"); return NULL; }
  s->dev = fg_vk_retain(dev);
  s->desc = *desc;
  s->desc.name = NULL;
  s->desc.vertex_spirv = NULL;
  snprintf(s->info.name, sizeof s->info.name, "%s", name);
  uint32_t model = 0;
  /* A bad size reaches the reflector as-is and is refused there before any read. */
  if (!reflect_module(code ? code : spirv, bytes, name, &s->info, &model, s->entry, sizeof s->entry, err, errlen))
    goto fail;
  if (model == SpvModelVertex) {
    fg_errf(err, errlen, "%s: is a vertex shader; pass the fragment shader to fg.shader and the vertex shader "
            "as opts.vertex (or none for the built-in fullscreen triangle)", name);
    goto fail;
  }
  if (model == SpvModelFragment) {
    const uint32_t *vs = desc->vertex_spirv;
    size_t vbytes = desc->vertex_bytes;
    if (!vs) {
      if (s->info.fragment_inputs & ~1u) {
        fg_errf(err, errlen, "%s: reads fragment inputs other than location 0; the built-in fullscreen vertex "
                "shader provides only `layout(location = 0) in vec2 uv` (pass opts.vertex for more)", name);
        goto fail;
      }
      vs = s->info.fragment_inputs ? fullscreen_vert : fullscreen_vert_nouv;
      vbytes = s->info.fragment_inputs ? sizeof fullscreen_vert : sizeof fullscreen_vert_nouv;
    }
    if (vbytes % 4 == 0 && vbytes >= 4) {
      vcode = malloc(vbytes);
      if (vcode) memcpy(vcode, vs, vbytes);
    }
    uint32_t vmodel = 0;
    char vname[160];
    snprintf(vname, sizeof vname, "%s (vertex shader)", name);
    if (!reflect_module(vcode ? vcode : vs, vbytes, vname, &s->info, &vmodel, s->ventry, sizeof s->ventry, err, errlen))
      goto fail;
    if (vmodel != SpvModelVertex) {
      fg_errf(err, errlen, "%s: opts.vertex is a %s shader, not a vertex shader", name, model_name(vmodel));
      goto fail;
    }
    s->vmodule = make_module(dev, vcode, vbytes);
    if (!s->vmodule) { fg_errf(err, errlen, "%s: vkCreateShaderModule failed for the vertex shader", name); goto fail; }
    if (s->info.color_outputs > FG_VK_MAX_COLOR) {
      fg_errf(err, errlen, "%s: %u color outputs; at most %d", name, s->info.color_outputs, FG_VK_MAX_COLOR);
      goto fail;
    }
  } else if (!s->info.local_size[0] || !s->info.local_size[1] || !s->info.local_size[2]) {
    fg_errf(err, errlen, "%s: compute shader without a local size (layout(local_size_x = ...) in;)", name);
    goto fail;
  }
  if (s->info.push_bytes > dev->props.limits.maxPushConstantsSize) {
    fg_errf(err, errlen, "%s: push-constant block of %u bytes exceeds the device limit of %u", name,
            s->info.push_bytes, dev->props.limits.maxPushConstantsSize);
    goto fail;
  }
  VkPhysicalDevicePushDescriptorPropertiesKHR pdp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &pdp};
  vkGetPhysicalDeviceProperties2(dev->phys, &p2);
  uint32_t total = 0;
  for (uint32_t i = 0; i < s->info.binding_count; i++) total += s->info.bindings[i].count;
  if (total > pdp.maxPushDescriptors) {
    fg_errf(err, errlen, "%s: %u descriptors exceed the device's maxPushDescriptors (%u)", name, total,
            pdp.maxPushDescriptors);
    goto fail;
  }

  s->module = make_module(dev, code, bytes);
  if (!s->module) { fg_errf(err, errlen, "%s: vkCreateShaderModule failed", name); goto fail; }
  VkDescriptorSetLayoutBinding lb[FG_VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < s->info.binding_count; i++) {
    const fg_vk_shader_binding *b = &s->info.bindings[i];
    lb[i] = (VkDescriptorSetLayoutBinding){.binding = b->binding, .descriptorType = b->type,
                                           .descriptorCount = b->count, .stageFlags = b->stages};
  }
  VkDescriptorSetLayoutCreateInfo sli = {
    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
    .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
    .bindingCount = s->info.binding_count, .pBindings = lb,
  };
  if (vkCreateDescriptorSetLayout(dev->device, &sli, NULL, &s->set_layout) != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreateDescriptorSetLayout failed", name);
    goto fail;
  }
  VkPushConstantRange pcr = {.stageFlags = s->info.stages, .offset = 0, .size = s->info.push_bytes};
  VkPipelineLayoutCreateInfo pli = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &s->set_layout,
    .pushConstantRangeCount = s->info.push_bytes ? 1 : 0, .pPushConstantRanges = &pcr,
  };
  if (vkCreatePipelineLayout(dev->device, &pli, NULL, &s->layout) != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreatePipelineLayout failed", name);
    goto fail;
  }
  if (s->info.is_compute) {
    VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = s->module, .pName = s->entry},
      .layout = s->layout,
    };
    VkResult r = vkCreateComputePipelines(dev->device, VK_NULL_HANDLE, 1, &ci, NULL, &s->compute);
    if (r != VK_SUCCESS) {
      fg_errf(err, errlen, "%s: vkCreateComputePipelines failed (VkResult %d)", name, (int)r);
      goto fail;
    }
  }
  free(code);
  free(vcode);
  return s;
fail:
  free(code);
  free(vcode);
  fg_vk_shader_destroy(s);
  return NULL;
}

void fg_vk_shader_destroy(fg_vk_shader *s) {
  if (!s) return;
  VkDevice d = s->dev->device;
  /* A shader dropped by Lua (e.g. the old pipeline after a reload) may still
   * be in use by frames in flight. */
  vkDeviceWaitIdle(d);
  for (uint32_t i = 0; i < s->ngfx; i++) vkDestroyPipeline(d, s->gfx[i].pipeline, NULL);
  free(s->gfx);
  if (s->compute) vkDestroyPipeline(d, s->compute, NULL);
  if (s->layout) vkDestroyPipelineLayout(d, s->layout, NULL);
  if (s->set_layout) vkDestroyDescriptorSetLayout(d, s->set_layout, NULL);
  if (s->module) vkDestroyShaderModule(d, s->module, NULL);
  if (s->vmodule) vkDestroyShaderModule(d, s->vmodule, NULL);
  fg_vk_release(s->dev);
  free(s);
}

/* ---------------------------------------------------------------- commands */

static const char *dtype_name(VkDescriptorType t) {
  switch (t) {
    case VK_DESCRIPTOR_TYPE_SAMPLER: return "sampler";
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: return "combined image sampler";
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: return "sampled image";
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: return "storage image";
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: return "uniform texel buffer";
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return "storage texel buffer";
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: return "uniform buffer";
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: return "storage buffer";
    default: return "unsupported descriptor type";
  }
}

static const struct { VkDescriptorType t; const char *id; } type_ids[] = {
  {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, "storage_image"},
  {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, "sampled_image"},
  {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, "combined_image_sampler"},
  {VK_DESCRIPTOR_TYPE_SAMPLER, "sampler"},
  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, "storage_buffer"},
  {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, "uniform_buffer"},
  {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, "storage_texel_buffer"},
  {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, "uniform_texel_buffer"},
};

const char *fg_vk_descriptor_type_id(VkDescriptorType t) {
  for (size_t i = 0; i < sizeof type_ids / sizeof type_ids[0]; i++)
    if (type_ids[i].t == t) return type_ids[i].id;
  return "unsupported";
}

int fg_vk_descriptor_type_parse(const char *id, VkDescriptorType *out) {
  for (size_t i = 0; i < sizeof type_ids / sizeof type_ids[0]; i++)
    if (!strcmp(type_ids[i].id, id)) { *out = type_ids[i].t; return 1; }
  return 0;
}

/* Validates the bindings and records push descriptors + push constants. */
static int push_state(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s, VkPipelineBindPoint bp,
                      VkPipeline pipeline, const fg_vk_binding *bindings, uint32_t n, const void *push, uint32_t push_bytes,
                      char *err, size_t errlen) {
  const fg_vk_shader_info *in = &s->info;
  if (n > FG_VK_MAX_BINDINGS * 4) {
    fg_errf(err, errlen, "%s: %u bindings given; the shader has %u", in->name, n, in->binding_count);
    return 0;
  }
  if (push_bytes > in->push_bytes) {
    fg_errf(err, errlen, "%s: %u bytes of push constants given but the shader's push block is %u bytes",
            in->name, push_bytes, in->push_bytes);
    return 0;
  }
  if (push_bytes && !push) {
    fg_errf(err, errlen, "%s: push_bytes is %u but no push data was given", in->name, push_bytes);
    return 0;
  }
  VkWriteDescriptorSet writes[FG_VK_MAX_BINDINGS * 4];
  VkDescriptorImageInfo images[FG_VK_MAX_BINDINGS * 4];
  VkDescriptorBufferInfo buffers[FG_VK_MAX_BINDINGS * 4];
  int seen[FG_VK_MAX_BINDINGS] = {0};
  const VkPhysicalDeviceLimits *lim = &dev->props.limits;
  for (uint32_t i = 0; i < n; i++) {
    const fg_vk_binding *g = &bindings[i];
    const fg_vk_shader_binding *b = NULL;
    uint32_t bi = 0;
    for (; bi < in->binding_count; bi++)
      if (in->bindings[bi].binding == g->binding) { b = &in->bindings[bi]; break; }
    if (!b) {
      fg_errf(err, errlen, "%s: binding %u is given but the shader declares no such binding", in->name, g->binding);
      return 0;
    }
    VkDescriptorType type = g->type ? g->type : b->type;
    if (type != b->type) {
      fg_errf(err, errlen, "%s: binding %u ('%s') is a %s in the shader but a %s was given", in->name, g->binding,
              b->name, dtype_name(b->type), dtype_name(type));
      return 0;
    }
    if (g->element >= b->count) {
      fg_errf(err, errlen, "%s: binding %u ('%s') element %u is out of range (array of %u)", in->name, g->binding,
              b->name, g->element, b->count);
      return 0;
    }
    if (g->element == 0) seen[bi] = 1;
    VkWriteDescriptorSet *w = &writes[i];
    *w = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = g->binding,
                                .dstArrayElement = g->element, .descriptorCount = 1, .descriptorType = type};
    switch (type) {
      case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
      case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: {
        VkDeviceSize align = type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ? lim->minStorageBufferOffsetAlignment
                                                                       : lim->minUniformBufferOffsetAlignment;
        if (!g->buffer) {
          fg_errf(err, errlen, "%s: binding %u ('%s') is a %s but no buffer was given", in->name, g->binding, b->name,
                  dtype_name(type));
          return 0;
        }
        if (align > 1 && g->offset % align) {
          fg_errf(err, errlen, "%s: binding %u ('%s') offset %llu is not a multiple of the device's %s offset "
                  "alignment %llu", in->name, g->binding, b->name, (unsigned long long)g->offset,
                  dtype_name(type), (unsigned long long)align);
          return 0;
        }
        buffers[i] = (VkDescriptorBufferInfo){.buffer = g->buffer, .offset = g->offset,
                                              .range = g->range ? g->range : VK_WHOLE_SIZE};
        w->pBufferInfo = &buffers[i];
        break;
      }
      case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
      case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
      case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
      case VK_DESCRIPTOR_TYPE_SAMPLER: {
        if (type != VK_DESCRIPTOR_TYPE_SAMPLER && !g->view) {
          fg_errf(err, errlen, "%s: binding %u ('%s') is a %s but no image view was given", in->name, g->binding,
                  b->name, dtype_name(type));
          return 0;
        }
        VkImageLayout layout = g->layout ? g->layout
                             : type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ? VK_IMAGE_LAYOUT_GENERAL
                                                                        : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        images[i] = (VkDescriptorImageInfo){
          .sampler = (type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER || type == VK_DESCRIPTOR_TYPE_SAMPLER)
                       ? (g->sampler ? g->sampler : dev->sampler_linear) : VK_NULL_HANDLE,
          .imageView = type == VK_DESCRIPTOR_TYPE_SAMPLER ? VK_NULL_HANDLE : g->view,
          .imageLayout = type == VK_DESCRIPTOR_TYPE_SAMPLER ? VK_IMAGE_LAYOUT_UNDEFINED : layout,
        };
        w->pImageInfo = &images[i];
        break;
      }
      default:
        fg_errf(err, errlen, "%s: binding %u ('%s'): %s bindings are not supported by fg_vk_binding", in->name,
                g->binding, b->name, dtype_name(type));
        return 0;
    }
  }
  for (uint32_t bi = 0; bi < in->binding_count; bi++)
    if (!seen[bi]) {
      const fg_vk_shader_binding *b = &in->bindings[bi];
      fg_errf(err, errlen, "%s: binding %u ('%s', %s) is used by the shader but was not given", in->name, b->binding,
              b->name, dtype_name(b->type));
      return 0;
    }
  vkCmdBindPipeline(cmd, bp, pipeline);
  if (n) vkCmdPushDescriptorSetKHR(cmd, bp, s->layout, 0, n, writes);
  if (in->push_bytes) {
    unsigned char block[256] = {0};  /* maxPushConstantsSize is 128..256 in practice */
    unsigned char *buf = in->push_bytes <= sizeof block ? block : calloc(1, in->push_bytes);
    if (!buf) { fg_errf(err, errlen, "out of memory"); return 0; }
    if (push_bytes) memcpy(buf, push, push_bytes);
    vkCmdPushConstants(cmd, s->layout, in->stages, 0, in->push_bytes, buf);
    if (buf != block) free(buf);
  }
  return 1;
}

int fg_vk_cmd_dispatch(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                       const fg_vk_binding *bindings, uint32_t n, uint32_t gx, uint32_t gy, uint32_t gz,
                       const void *push, uint32_t push_bytes, char *err, size_t errlen) {
  if (!s->info.is_compute) {
    fg_errf(err, errlen, "%s: is a graphics (fragment) shader; use draw inside a pass, not dispatch", s->info.name);
    return 0;
  }
  const uint32_t *maxg = dev->props.limits.maxComputeWorkGroupCount;
  if (gx > maxg[0] || gy > maxg[1] || gz > maxg[2]) {
    fg_errf(err, errlen, "%s: dispatch(%u, %u, %u) exceeds the device's group count limits (%u, %u, %u)",
            s->info.name, gx, gy, gz, maxg[0], maxg[1], maxg[2]);
    return 0;
  }
  /* push_state validates everything before recording, so a failure records nothing. */
  if (!push_state(dev, cmd, s, VK_PIPELINE_BIND_POINT_COMPUTE, s->compute, bindings, n, push, push_bytes, err, errlen))
    return 0;
  if (gx && gy && gz) vkCmdDispatch(cmd, gx, gy, gz);
  return 1;
}

static VkPipeline graphics_pipeline(fg_vk_device *dev, fg_vk_shader *s, const VkFormat *color, uint32_t ncolor,
                                    VkFormat depth, char *err, size_t errlen) {
  for (uint32_t i = 0; i < s->ngfx; i++) {
    gfx_pipeline *g = &s->gfx[i];
    if (g->ncolor == ncolor && g->depth == depth && !memcmp(g->color, color, ncolor * sizeof *color))
      return g->pipeline;
  }
  if (s->ngfx == s->capgfx) {
    uint32_t cap = s->capgfx ? s->capgfx * 2 : 4;
    gfx_pipeline *g = realloc(s->gfx, cap * sizeof *g);
    if (!g) { fg_errf(err, errlen, "out of memory"); return VK_NULL_HANDLE; }
    s->gfx = g;
    s->capgfx = cap;
  }
  VkPipelineShaderStageCreateInfo stages[2] = {
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
     .module = s->vmodule, .pName = s->ventry},
    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
     .module = s->module, .pName = s->entry},
  };
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                               .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
  VkPipelineDepthStencilStateCreateInfo ds = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
    .depthTestEnable = (depth && s->desc.depth_test) ? VK_TRUE : VK_FALSE,
    .depthWriteEnable = (depth && s->desc.depth_write) ? VK_TRUE : VK_FALSE,
    .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL,
  };
  VkPipelineColorBlendAttachmentState att[FG_VK_MAX_COLOR];
  for (uint32_t i = 0; i < ncolor; i++)
    att[i] = (VkPipelineColorBlendAttachmentState){
      .blendEnable = s->desc.blend ? VK_TRUE : VK_FALSE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_ONE, .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE, .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                        VK_COLOR_COMPONENT_A_BIT,
    };
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = ncolor, .pAttachments = att};
  VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = 2, .pDynamicStates = dyn};
  int stencil = depth == VK_FORMAT_D24_UNORM_S8_UINT || depth == VK_FORMAT_D32_SFLOAT_S8_UINT ||
                depth == VK_FORMAT_D16_UNORM_S8_UINT || depth == VK_FORMAT_S8_UINT;
  VkPipelineRenderingCreateInfo ri = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, .colorAttachmentCount = ncolor,
    .pColorAttachmentFormats = color,
    .depthAttachmentFormat = depth == VK_FORMAT_S8_UINT ? VK_FORMAT_UNDEFINED : depth,
    .stencilAttachmentFormat = stencil ? depth : VK_FORMAT_UNDEFINED,
  };
  VkGraphicsPipelineCreateInfo gi = {
    .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &ri, .stageCount = 2, .pStages = stages,
    .pVertexInputState = &vi, .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
    .pMultisampleState = &ms, .pDepthStencilState = &ds, .pColorBlendState = &cb, .pDynamicState = &dy,
    .layout = s->layout,
  };
  VkPipeline p = VK_NULL_HANDLE;
  VkResult r = vkCreateGraphicsPipelines(dev->device, VK_NULL_HANDLE, 1, &gi, NULL, &p);
  if (r != VK_SUCCESS) {
    fg_errf(err, errlen, "%s: vkCreateGraphicsPipelines failed (VkResult %d)", s->info.name, (int)r);
    return VK_NULL_HANDLE;
  }
  gfx_pipeline *g = &s->gfx[s->ngfx++];
  memset(g, 0, sizeof *g);
  g->ncolor = ncolor;
  memcpy(g->color, color, ncolor * sizeof *color);
  g->depth = depth;
  g->pipeline = p;
  return p;
}

int fg_vk_cmd_draw(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                   const fg_vk_binding *bindings, uint32_t n, uint32_t vertex_count,
                   const void *push, uint32_t push_bytes,
                   const VkFormat *color_formats, uint32_t ncolor, VkFormat depth_format,
                   char *err, size_t errlen) {
  if (s->info.is_compute) {
    fg_errf(err, errlen, "%s: is a compute shader; use dispatch, not draw", s->info.name);
    return 0;
  }
  if (ncolor > FG_VK_MAX_COLOR || (ncolor && !color_formats)) {
    fg_errf(err, errlen, "%s: %u color attachments (at most %d)", s->info.name, ncolor, FG_VK_MAX_COLOR);
    return 0;
  }
  if (ncolor != s->info.color_outputs) {
    fg_errf(err, errlen, "%s: the pass has %u color attachment(s) but the fragment shader writes %u output(s) "
            "(layout(location = N) out); make them match", s->info.name, ncolor, s->info.color_outputs);
    return 0;
  }
  VkPipeline p = graphics_pipeline(dev, s, color_formats, ncolor, depth_format, err, errlen);
  if (!p) return 0;
  if (!push_state(dev, cmd, s, VK_PIPELINE_BIND_POINT_GRAPHICS, p, bindings, n, push, push_bytes, err, errlen))
    return 0;
  if (vertex_count) vkCmdDraw(cmd, vertex_count, 1, 0, 0);
  return 1;
}

void fg_vk_cmd_viewport(VkCommandBuffer cmd, uint32_t width, uint32_t height) {
  VkViewport v = {0, 0, (float)width, (float)height, 0.0f, 1.0f};
  VkRect2D sc = {{0, 0}, {width, height}};
  vkCmdSetViewport(cmd, 0, 1, &v);
  vkCmdSetScissor(cmd, 0, 1, &sc);
}
