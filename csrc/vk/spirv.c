/* A small SPIR-V reflector: entry point, local size, set-0 descriptor
 * bindings, the push-constant block (size, members by name, offset and type),
 * fragment outputs and inputs, vertex inputs. */
#include "shader_internal.h"
#include "fg_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- SPIR-V constants (from the SPIR-V specification) ---- */
enum {
  SpvOpName = 5, SpvOpMemberName = 6, SpvOpEntryPoint = 15, SpvOpExecutionMode = 16,
  SpvOpTypeVoid = 19, SpvOpTypeBool = 20, SpvOpTypeInt = 21, SpvOpTypeFloat = 22, SpvOpTypeVector = 23,
  SpvOpTypeMatrix = 24, SpvOpTypeImage = 25, SpvOpTypeSampler = 26, SpvOpTypeSampledImage = 27,
  SpvOpTypeArray = 28, SpvOpTypeRuntimeArray = 29, SpvOpTypeStruct = 30, SpvOpTypePointer = 32,
  SpvOpConstant = 43, SpvOpConstantComposite = 44, SpvOpSpecConstant = 50, SpvOpSpecConstantComposite = 51,
  SpvOpVariable = 59, SpvOpDecorate = 71, SpvOpMemberDecorate = 72, SpvOpExecutionModeId = 331,
};
enum { SpvModeLocalSize = 17, SpvModeLocalSizeId = 38 };
enum {
  SpvDecRowMajor = 4, SpvDecBlock = 2, SpvDecBufferBlock = 3, SpvDecArrayStride = 6, SpvDecMatrixStride = 7, SpvDecBuiltIn = 11,
  SpvDecNonWritable = 24, SpvDecNonReadable = 25, SpvDecLocation = 30, SpvDecBinding = 33,
  SpvDecDescriptorSet = 34, SpvDecOffset = 35,
};
enum {
  SpvSCUniformConstant = 0, SpvSCInput = 1, SpvSCUniform = 2, SpvSCOutput = 3, SpvSCPushConstant = 9,
  SpvSCStorageBuffer = 12,
};
enum { SpvBuiltInWorkgroupSize = 25, SpvDimBuffer = 5, SpvDimSubpassData = 6 };

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

/* OpMemberName of member m of struct st ("" when stripped). */
static const char *member_name(const reflector *r, uint32_t st, uint32_t member) {
  for (size_t at = 5; at < r->nwords;) {
    uint32_t len = len_of(r, (uint32_t)at);
    if (len == 0) break;
    if (op_of(r, (uint32_t)at) == SpvOpMemberName && len >= 4 && r->w[at + 1] == st && r->w[at + 2] == member) {
      const char *s = (const char *)(r->w + at + 3);
      return memchr(s, 0, (len - 3) * 4) ? s : "";
    }
    at += len;
  }
  return "";
}

/* A block's members (struct st), by name, offset and type, into pm[0..cap):
 * the count (in offset order). */
static uint32_t reflect_members(const reflector *r, uint32_t st, fg_vk_push_member *outm, uint32_t cap) {
  const id_info *t = type_of_id(r, st);
  if (!t || !t->def || op_of(r, t->def) != SpvOpTypeStruct) return 0;
  uint32_t members = len_of(r, t->def) - 2, n = 0;
  for (uint32_t m = 0; m < members && n < cap; m++) {
    fg_vk_push_member pm;
    memset(&pm, 0, sizeof pm);
    uint32_t type = r->w[t->def + 2 + m], off = 0, ms = 0;
    member_dec(r, st, m, SpvDecOffset, &off);
    member_dec(r, st, m, SpvDecMatrixStride, &ms);
    snprintf(pm.name, sizeof pm.name, "%s", member_name(r, st, m));
    pm.offset = off;
    pm.size = (uint32_t)type_size(r, type, ms, 0);
    pm.comps = pm.cols = 1;
    pm.scalar = FG_VK_PUSH_OTHER;
    const id_info *ty = type_of_id(r, type);
    if (ty && ty->def && op_of(r, ty->def) == SpvOpTypeArray) {
      uint32_t len = 0;
      const_value(r, r->w[ty->def + 3], &len);
      pm.array_len = len;
      pm.array_stride = ty->array_stride;
      ty = type_of_id(r, r->w[ty->def + 2]);
    }
    if (ty && ty->def && op_of(r, ty->def) == SpvOpTypeMatrix) {
      pm.cols = (uint8_t)r->w[ty->def + 3];
      pm.matrix_stride = ms;
      if (member_dec(r, st, m, SpvDecRowMajor, NULL)) ty = NULL;  /* row-major: raw bytes only */
      else ty = type_of_id(r, r->w[ty->def + 2]);
    }
    if (ty && ty->def && op_of(r, ty->def) == SpvOpTypeVector) {
      pm.comps = (uint8_t)r->w[ty->def + 3];
      ty = type_of_id(r, r->w[ty->def + 2]);
    }
    if (ty && ty->def) {
      const uint32_t *d = r->w + ty->def;
      switch (op_of(r, ty->def)) {
        case SpvOpTypeFloat: pm.scalar = FG_VK_PUSH_FLOAT; pm.width = (uint8_t)(d[2] / 8); break;
        case SpvOpTypeInt: pm.scalar = d[3] ? FG_VK_PUSH_INT : FG_VK_PUSH_UINT; pm.width = (uint8_t)(d[2] / 8); break;
        case SpvOpTypeBool: pm.scalar = FG_VK_PUSH_BOOL; pm.width = 4; break;
      }
    }
    if (pm.scalar != FG_VK_PUSH_OTHER && pm.width != 4 && pm.width != 8) pm.scalar = FG_VK_PUSH_OTHER;
    if (pm.array_len && !pm.array_stride) pm.scalar = FG_VK_PUSH_OTHER;
    outm[n++] = pm;
  }
  /* offset order (members are declared in it in GLSL; SPIR-V does not promise it) */
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && outm[j - 1].offset > outm[j].offset; j--) {
      fg_vk_push_member x = outm[j];
      outm[j] = outm[j - 1];
      outm[j - 1] = x;
    }
  return n;
}

/* The push block (kept when a larger block of another stage was reflected already). */
static void reflect_push_members(const reflector *r, uint32_t st, uint64_t size, fg_vk_shader_info *out) {
  const id_info *t = type_of_id(r, st);
  if (!t || !t->def || size < out->push_bytes) return;
  snprintf(out->push_block, sizeof out->push_block, "%s", t->name ? t->name : "");
  out->push_member_count = reflect_members(r, st, out->push_members, FG_VK_MAX_PUSH_MEMBERS);
}

static int struct_all_members(const reflector *r, uint32_t st, uint32_t dec) {
  const id_info *t = type_of_id(r, st);
  if (!t || !t->def || op_of(r, t->def) != SpvOpTypeStruct) return 0;
  uint32_t members = len_of(r, t->def) - 2;
  for (uint32_t m = 0; m < members; m++)
    if (!member_dec(r, st, m, dec, NULL)) return 0;
  return members > 0;
}

const char *fg_vk_spirv_model_name(uint32_t m) {
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

/* What pass 1 learns about the (first) entry point. */
typedef struct entry_info {
  uint32_t model, entry_id, nentries;
  uint32_t local[3], local_ids[3];
  int have_local_ids;
} entry_info;

/* Pass 1: definitions, names, decorations, the entry point and its local
 * size. 1, or 0 with a message (corrupt module). */
static int scan_module(reflector *r, entry_info *e, char *entry, size_t entry_len) {
  for (size_t at = 5; at < r->nwords;) {
    uint32_t op = op_of(r, (uint32_t)at), len = len_of(r, (uint32_t)at);
    if (len == 0 || at + len > r->nwords) {
      fg_errf(r->err, r->errlen, "%s: corrupt SPIR-V (instruction at word %zu runs past the end)", r->name, at);
      return 0;
    }
    const uint32_t *d = r->w + at;
    uint32_t result = 0;
    switch (op) {
      case SpvOpName:
        if (len >= 3 && d[1] < r->bound) {
          /* The literal must be terminated inside the instruction. */
          const char *s = (const char *)(d + 2);
          if (memchr(s, 0, (len - 2) * 4)) r->ids[d[1]].name = s;
        }
        break;
      case SpvOpEntryPoint:
        if (len >= 4) {
          if (e->nentries++ == 0) {
            e->model = d[1];
            e->entry_id = d[2];
            const char *s = (const char *)(d + 3);
            if (!memchr(s, 0, (len - 3) * 4)) { fg_errf(r->err, r->errlen, "%s: corrupt entry point name", r->name); return 0; }
            snprintf(entry, entry_len, "%s", s);
          }
        }
        break;
      case SpvOpExecutionMode:
      case SpvOpExecutionModeId:
        if (len >= 6 && d[1] == e->entry_id && (d[2] == SpvModeLocalSize || d[2] == SpvModeLocalSizeId)) {
          if (d[2] == SpvModeLocalSize) { e->local[0] = d[3]; e->local[1] = d[4]; e->local[2] = d[5]; }
          else { e->local_ids[0] = d[3]; e->local_ids[1] = d[4]; e->local_ids[2] = d[5]; e->have_local_ids = 1; }
        }
        break;
      case SpvOpDecorate:
        if (len >= 3 && d[1] < r->bound) {
          id_info *t = &r->ids[d[1]];
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
    if (result && result < r->bound) r->ids[result].def = (uint32_t)at;
    at += len;
  }
  return 1;
}

/* Pass 2 for one set-0 descriptor variable `vi` of storage class sc: its
 * descriptor type, array size and access, appended to out->bindings or
 * merged with the same binding of another stage. 1, or 0 with a message. */
static int reflect_descriptor(reflector *r, const id_info *vi, uint32_t sc, uint32_t pointee,
                              VkShaderStageFlagBits stage, fg_vk_shader_info *out) {
  int32_t set = vi->set < 0 ? 0 : vi->set;
  const char *vname = vi->name && vi->name[0] ? vi->name : "";
  if (set != 0) {
    fg_errf(r->err, r->errlen, "%s: variable '%s' uses descriptor set %d; framegraph binds set 0 only "
            "(declare it as layout(set = 0, binding = N))", r->name, vname, set);
    return 0;
  }
  /* Unwrap descriptor arrays. */
  uint32_t count = 1, base = pointee;
  const id_info *bt = type_of_id(r, base);
  while (bt && bt->def && (op_of(r, bt->def) == SpvOpTypeArray || op_of(r, bt->def) == SpvOpTypeRuntimeArray)) {
    if (op_of(r, bt->def) == SpvOpTypeRuntimeArray) {
      fg_errf(r->err, r->errlen, "%s: binding %d ('%s') is a runtime-sized descriptor array; "
              "give it a fixed size (no descriptor indexing)", r->name, vi->binding, vname);
      return 0;
    }
    uint32_t n = 1;
    const_value(r, r->w[bt->def + 3], &n);
    count *= n;
    base = r->w[bt->def + 2];
    bt = type_of_id(r, base);
  }
  if (!bt || !bt->def) return 1;
  uint32_t bop = op_of(r, bt->def);
  const uint32_t *bd = r->w + bt->def;
  VkDescriptorType type;
  int readonly = (vi->flags & F_NONWRITABLE) != 0, writeonly = (vi->flags & F_NONREADABLE) != 0;
  if (sc == SpvSCUniformConstant) {
    if (bop == SpvOpTypeImage) {
      uint32_t dim = bd[3], sampled = bd[7];
      if (dim == SpvDimSubpassData) {
        fg_errf(r->err, r->errlen, "%s: binding %d ('%s') is a subpass input; framegraph uses dynamic rendering "
                "without subpasses: sample the image instead", r->name, vi->binding, vname);
        return 0;
      }
      if (sampled == 2) type = dim == SpvDimBuffer ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      else type = dim == SpvDimBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    } else if (bop == SpvOpTypeSampledImage) {
      type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    } else if (bop == SpvOpTypeSampler) {
      type = VK_DESCRIPTOR_TYPE_SAMPLER;
    } else {
      fg_errf(r->err, r->errlen, "%s: binding %d ('%s') has a resource type framegraph does not bind "
              "(acceleration structures etc.)", r->name, vi->binding, vname);
      return 0;
    }
  } else if (sc == SpvSCStorageBuffer || (bt->flags & F_BUFFERBLOCK)) {
    type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    if (struct_all_members(r, base, SpvDecNonWritable)) readonly = 1;
    if (struct_all_members(r, base, SpvDecNonReadable)) writeonly = 1;
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
      fg_errf(r->err, r->errlen, "%s: binding %d is declared with different types or sizes in the vertex and "
              "fragment shaders", r->name, vi->binding);
      return 0;
    }
    b->stages |= stage;
    b->readonly &= readonly;
    b->writeonly &= writeonly;
    return 1;
  }
  if (out->binding_count == FG_VK_MAX_BINDINGS) {
    fg_errf(r->err, r->errlen, "%s: more than %d bindings", r->name, FG_VK_MAX_BINDINGS);
    return 0;
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
  if (type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER && count == 1) {  /* its members, for sh:pack */
    uint32_t room = (uint32_t)(sizeof out->block_members / sizeof *out->block_members) - out->block_member_count;
    if (room > FG_VK_MAX_PUSH_MEMBERS) room = FG_VK_MAX_PUSH_MEMBERS;
    b->block_first = out->block_member_count;
    b->block_count = reflect_members(r, base, out->block_members + b->block_first, room);
    out->block_member_count += b->block_count;
    b->block_bytes = (uint32_t)type_size(r, base, 0, 0);
    snprintf(b->block_name, sizeof b->block_name, "%s", bt->name ? bt->name : "");
  }
  return 1;
}

/* A vertex shader's `layout(location = N) in` variable: a 32-bit scalar or
 * vector, inserted in location order. 1, or 0 with a message. */
static int reflect_vertex_input(reflector *r, const id_info *vi, uint32_t pointee, fg_vk_shader_info *out) {
  const char *vname = vi->name && vi->name[0] ? vi->name : "";
  const id_info *ty = type_of_id(r, pointee);
  uint32_t comps = 1, kind = 0, width = 0;  /* kind: 1 float, 2 int, 3 uint */
  if (ty && ty->def && op_of(r, ty->def) == SpvOpTypeVector) {
    comps = r->w[ty->def + 3];
    ty = type_of_id(r, r->w[ty->def + 2]);
  }
  if (ty && ty->def) {
    const uint32_t *d = r->w + ty->def;
    if (op_of(r, ty->def) == SpvOpTypeFloat) { kind = 1; width = d[2]; }
    else if (op_of(r, ty->def) == SpvOpTypeInt) { kind = d[3] ? 2 : 3; width = d[2]; }
  }
  if (!kind || width != 32 || comps < 1 || comps > 4) {
    fg_errf(r->err, r->errlen, "%s: vertex input '%s' (location %d) is not a 32-bit scalar or vector; vertex buffers "
            "feed float, int, uint and their vec2..vec4 (a matrix or array: one vec4 input per column)", r->name,
            vname, vi->location);
    return 0;
  }
  if (out->vertex_input_count == FG_VK_MAX_VERTEX_INPUTS || vi->location >= FG_VK_MAX_VERTEX_INPUTS) {
    fg_errf(r->err, r->errlen, "%s: vertex input '%s' at location %d: at most %d inputs at locations 0..%d", r->name,
            vname, vi->location, FG_VK_MAX_VERTEX_INPUTS, FG_VK_MAX_VERTEX_INPUTS - 1);
    return 0;
  }
  static const VkFormat fmt[3][4] = {
    {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
    {VK_FORMAT_R32_SINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32B32_SINT, VK_FORMAT_R32G32B32A32_SINT},
    {VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32B32_UINT, VK_FORMAT_R32G32B32A32_UINT},
  };
  for (uint32_t i = 0; i < out->vertex_input_count; i++)
    if (out->vertex_inputs[i].location == (uint32_t)vi->location) {
      fg_errf(r->err, r->errlen, "%s: two vertex inputs share location %d (component packing is not supported); "
              "give each its own location", r->name, vi->location);
      return 0;
    }
  uint32_t at = out->vertex_input_count;
  while (at > 0 && out->vertex_inputs[at - 1].location > (uint32_t)vi->location) {
    out->vertex_inputs[at] = out->vertex_inputs[at - 1];
    at--;
  }
  struct fg_vk_vertex_input *in = &out->vertex_inputs[at];
  memset(in, 0, sizeof *in);
  in->location = (uint32_t)vi->location;
  in->format = fmt[kind - 1][comps - 1];
  in->bytes = 4 * comps;
  snprintf(in->name, sizeof in->name, "%s", vname);
  out->vertex_input_count++;
  return 1;
}

/* Reflects one module into out (bindings appended/merged, stage added).
 * entry/entry_len receive the entry point name. */
int fg_vk_reflect_module(const uint32_t *spirv, size_t bytes, const char *name, fg_vk_shader_info *out,
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
  entry_info e = {.model = UINT32_MAX};
  if (!scan_module(&r, &e, entry, entry_len)) goto done;
  uint32_t model = e.model, *local = e.local;
  if (e.nentries == 0) { fg_errf(err, errlen, "%s: SPIR-V has no OpEntryPoint", name); goto done; }
  if (model != SpvModelGLCompute && model != SpvModelFragment && model != SpvModelVertex) {
    fg_errf(err, errlen, "%s: %s shaders are not supported (use compute, fragment or vertex)", name, fg_vk_spirv_model_name(model));
    goto done;
  }
  *model_out = model;
  VkShaderStageFlagBits stage = model == SpvModelGLCompute ? VK_SHADER_STAGE_COMPUTE_BIT
                              : model == SpvModelFragment ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_VERTEX_BIT;
  out->stages |= stage;
  if (model == SpvModelGLCompute) {
    out->is_compute = 1;
    if (e.have_local_ids)
      for (int i = 0; i < 3; i++) const_value(&r, e.local_ids[i], &local[i]);
    memcpy(out->local_size, local, sizeof e.local);
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
    if (sc == SpvSCInput && model == SpvModelVertex && vi->location >= 0 && !(vi->flags & F_BUILTIN)) {
      if (!reflect_vertex_input(&r, vi, pointee, out)) goto done;
      continue;
    }
    if (sc == SpvSCOutput && model == SpvModelFragment && vi->location >= 0 && !(vi->flags & F_BUILTIN)) {
      if ((uint32_t)vi->location + 1 > out->color_outputs) out->color_outputs = (uint32_t)vi->location + 1;
      /* the component type of the output: float, or an int and its signedness */
      const id_info *ty = type_of_id(&r, pointee);
      if (ty && ty->def && op_of(&r, ty->def) == SpvOpTypeVector) ty = type_of_id(&r, r.w[ty->def + 2]);
      if (vi->location < 8 && ty && ty->def && op_of(&r, ty->def) == SpvOpTypeInt)
        out->output_class[vi->location] = r.w[ty->def + 3] ? 2 : 1;
      continue;
    }
    if (sc == SpvSCPushConstant) {
      uint64_t sz = type_size(&r, pointee, 0, 0);
      reflect_push_members(&r, pointee, sz, out);
      if (sz > out->push_bytes) out->push_bytes = (uint32_t)sz;
      continue;
    }
    if (sc != SpvSCUniformConstant && sc != SpvSCUniform && sc != SpvSCStorageBuffer) continue;
    if (vi->binding < 0) continue;
    if (!reflect_descriptor(&r, vi, sc, pointee, stage, out)) goto done;
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
  return fg_vk_reflect_module(spirv, bytes, out->name, out, &model, entry, sizeof entry, err, errlen);
}
