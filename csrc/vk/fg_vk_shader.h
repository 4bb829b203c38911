/* fg_vk_shader: SPIR-V programs with their own reflection, push-descriptor
 * layouts (set 0), compute pipelines and fullscreen graphics pipelines for
 * dynamic rendering; the command primitives a runtime's `cmd` calls; image and
 * buffer read-back. Nothing here aborts on user input: functions return 0
 * (or NULL) and write a message naming the shader, binding and fix.
 *
 * Descriptor model: every shader uses one descriptor set (set 0) created with
 * VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR; each dispatch/draw
 * pushes all of its bindings with vkCmdPushDescriptorSetKHR, so nothing is
 * allocated per frame. Push constants: one range at offset 0 covering the
 * largest push block of the program's stages; a dispatch/draw always pushes
 * the full range (shorter data is zero-padded, so shaders never read garbage). */
#ifndef FG_VK_SHADER_H
#define FG_VK_SHADER_H
#include "fg_vk.h"

#define FG_VK_MAX_BINDINGS 32      /* per shader (push descriptor sets are small) */
#define FG_VK_MAX_COLOR 8
#define FG_VK_MAX_VERTEX_INPUTS 16  /* the minimum maxVertexInputAttributes */

typedef struct fg_vk_shader fg_vk_shader;

/* One reflected descriptor binding of set 0. */
typedef struct fg_vk_shader_binding {
  uint32_t binding;
  VkDescriptorType type;     /* STORAGE_IMAGE, SAMPLED_IMAGE, COMBINED_IMAGE_SAMPLER, SAMPLER,
                                STORAGE_BUFFER, UNIFORM_BUFFER, STORAGE/UNIFORM_TEXEL_BUFFER */
  uint32_t count;            /* array size (1 for a plain binding) */
  VkShaderStageFlags stages; /* stages that use it */
  int readonly, writeonly;   /* from NonWritable / NonReadable (storage resources) */
  char name[64];             /* OpName of the variable (or of its block type), "" if stripped */
  /* uniform buffers: the block's members in fg_vk_shader_info.block_members
   * [block_first, block_first + block_count), its size and type name */
  uint32_t block_first, block_count, block_bytes;
  char block_name[48];
} fg_vk_shader_binding;

/* One member of the push-constant block, as reflected (OpMemberName, Offset,
 * MatrixStride, ArrayStride): what cmd:dispatch/cmd:draw pack a named or
 * positional push table by. Matrices are column-major (GLSL's default). */
#define FG_VK_MAX_PUSH_MEMBERS 32
typedef enum fg_vk_push_scalar {
  FG_VK_PUSH_FLOAT = 0, FG_VK_PUSH_INT, FG_VK_PUSH_UINT, FG_VK_PUSH_BOOL,
  FG_VK_PUSH_OTHER  /* a struct or anything else: raw bytes only */
} fg_vk_push_scalar;
typedef struct fg_vk_push_member {
  char name[48];           /* "" when stripped: then only positional values reach it */
  uint32_t offset, size;   /* bytes within the block */
  uint8_t scalar;          /* fg_vk_push_scalar */
  uint8_t width;           /* bytes per scalar: 4 (8 for double / 64-bit ints) */
  uint8_t comps, cols;     /* vector components (1 = scalar), matrix columns (1 = not a matrix) */
  uint32_t matrix_stride;  /* bytes between columns */
  uint32_t array_len;      /* 0 = not an array */
  uint32_t array_stride;
} fg_vk_push_member;

typedef struct fg_vk_shader_info {
  VkShaderStageFlags stages;   /* COMPUTE_BIT, or VERTEX_BIT|FRAGMENT_BIT for a graphics program */
  int is_compute;
  uint32_t local_size[3];      /* compute only */
  uint32_t push_bytes;         /* size of the push-constant range (0 = none) */
  char push_block[48];         /* the block's type name ("Push"), "" when stripped */
  uint32_t push_member_count;  /* members of the largest block, in offset order */
  fg_vk_push_member push_members[FG_VK_MAX_PUSH_MEMBERS];
  uint32_t block_member_count; /* the uniform buffers' members (see fg_vk_shader_binding) */
  fg_vk_push_member block_members[FG_VK_MAX_PUSH_MEMBERS * 2];
  uint32_t color_outputs;      /* fragment: number of color outputs (highest location + 1) */
  uint8_t output_class[8];     /* fragment, per color location < 8: 0 float, 1 unsigned int, 2 signed int
                                  (an attachment format of another class leaves the values undefined) */
  uint32_t fragment_inputs;    /* fragment: bit per input location read (bit 31: location >= 31) */
  uint32_t binding_count;
  fg_vk_shader_binding bindings[FG_VK_MAX_BINDINGS];
  char name[128];              /* for messages: desc->name or "shader" */
  /* vertex shader: its `layout(location = N) in` variables in location order,
   * each fed by its own vertex buffer binding (cmd:draw_indexed); format is
   * 32-bit float/int/uint with 1..4 components (VK_FORMAT_R32*). */
  uint32_t vertex_input_count;
  struct fg_vk_vertex_input {
    uint32_t location;
    VkFormat format;
    uint32_t bytes;            /* of one element: 4 * components */
    char name[48];             /* OpName, "" when stripped */
  } vertex_inputs[FG_VK_MAX_VERTEX_INPUTS];
} fg_vk_shader_info;

typedef struct fg_vk_shader_desc {
  const char *name;                 /* used in messages ("blur.comp.spv") */
  /* Graphics: the SPIR-V given to fg_vk_shader_create is the fragment shader;
   * the vertex shader is this one, or when NULL the built-in fullscreen
   * triangle (draw 3 vertices; it writes `layout(location=0) out vec2 uv`
   * with uv (0,0) at the top-left of the viewport, when the fragment shader
   * reads location 0; other input locations need an own vertex shader). */
  const uint32_t *vertex_spirv;
  size_t vertex_bytes;
  /* Graphics state for the lazily created pipelines (zero = off). */
  int depth_test, depth_write;      /* compare op LESS_OR_EQUAL */
  int blend;                        /* premultiplied-alpha "over" on every color output */
} fg_vk_shader_desc;

/* Reflects and creates. The stage comes from OpEntryPoint (GLCompute or
 * Fragment; a lone Vertex module is refused). Returns NULL + message on bad
 * SPIR-V, unsupported descriptor sets (only set 0), too many bindings or a
 * device without VK_KHR_push_descriptor. The shader takes a device reference. */
fg_vk_shader *fg_vk_shader_create(fg_vk_device *dev, const uint32_t *spirv, size_t bytes,
                                  const fg_vk_shader_desc *desc, char *err, size_t errlen);
void fg_vk_shader_destroy(fg_vk_shader *s);  /* waits for frames in flight; deferred while one records (fg_vk_defer) */
fg_vk_device *fg_vk_shader_device(const fg_vk_shader *s);  /* the device it was made on */
const fg_vk_shader_info *fg_vk_shader_get_info(const fg_vk_shader *s);

/* Lua-style names of descriptor types: "storage_image", "sampled_image",
 * "combined_image_sampler", "sampler", "storage_buffer", "uniform_buffer",
 * "storage_texel_buffer", "uniform_texel_buffer"; parse returns 0 when unknown
 * (check the name: VK_DESCRIPTOR_TYPE_SAMPLER is 0 too). */
const char *fg_vk_descriptor_type_id(VkDescriptorType t);
int fg_vk_descriptor_type_parse(const char *id, VkDescriptorType *out);

/* Packing by the reflected members: the push-constant block (cmd:dispatch /
 * cmd:draw) or a uniform buffer's block (sh:pack(binding, values) for an
 * upload). A member holds fg_vk_push_scalars(m) numbers: array element by
 * element, a matrix column by column, a vector component by component. */
typedef struct fg_vk_block {
  const char *shader, *name;   /* for messages: the shader, the block's type name ("" stripped) */
  const char *what;            /* "push constants" or "uniform buffer N" */
  uint32_t bytes, count;
  const fg_vk_push_member *members;
  char what_buf[32];
} fg_vk_block;
/* The push block (binding < 0) or the uniform buffer at `binding`: 0 when
 * the shader has no such block. */
int fg_vk_shader_block(const fg_vk_shader_info *si, int binding, fg_vk_block *out);
uint32_t fg_vk_push_scalars(const fg_vk_push_member *m);
const fg_vk_push_member *fg_vk_push_find(const fg_vk_block *b, const char *name);
/* The member whose scalar covers byte `off` of the block, and that scalar's
 * index (NULL: padding between members). */
const fg_vk_push_member *fg_vk_push_at(const fg_vk_block *b, uint32_t off, uint32_t *k);
/* GLSL spelling of the member's type: "float", "vec3", "mat4", "uint[4]". */
const char *fg_vk_push_type_name(const fg_vk_push_member *m, char *buf, size_t len);
/* Writes scalar k of member m into `data` (b->bytes bytes). A float member
 * converts an integer value (1 becomes 1.0, never the bits of 1); an
 * int/uint/bool member takes only whole numbers in its range. 0, or -1 with a
 * message naming the member. */
int fg_vk_push_put(const fg_vk_block *b, const fg_vk_push_member *m, uint32_t k, double v, uint8_t *data,
                   char *err, size_t errlen);

/* Only reflects (no device); for tools and tests. */
int fg_vk_spirv_reflect(const uint32_t *spirv, size_t bytes, fg_vk_shader_info *out, char *err, size_t errlen);

/* One resource bound for a dispatch/draw. Zero fields take defaults. */
typedef struct fg_vk_binding {
  uint32_t binding;
  VkDescriptorType type;  /* 0 = take it from reflection (VK_DESCRIPTOR_TYPE_SAMPLER is 0 too:
                             a plain sampler binding always takes the reflected type) */
  VkImageView view;       /* images */
  VkImageLayout layout;   /* 0 (UNDEFINED) = GENERAL for storage images, SHADER_READ_ONLY_OPTIMAL else */
  VkBuffer buffer;        /* buffers */
  VkDeviceSize offset, range;  /* range 0 = VK_WHOLE_SIZE */
  VkSampler sampler;      /* combined image sampler / sampler; NULL = the device's linear sampler */
  uint32_t element;       /* array element for arrayed bindings */
} fg_vk_binding;

/* Binds the compute pipeline, pushes the descriptors and push constants and
 * records vkCmdDispatch(gx, gy, gz). Checks: shader is compute, every
 * reflected binding is given (at least element 0), no unknown binding, types
 * match, buffer offsets honour the device's min*BufferOffsetAlignment,
 * push_bytes <= the shader's push range, group counts within limits.
 * Returns 1, or 0 with a message and nothing recorded. Synchronization is the
 * caller's (the runtime's barriers). */
int fg_vk_cmd_dispatch(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                       const fg_vk_binding *bindings, uint32_t n, uint32_t gx, uint32_t gy, uint32_t gz,
                       const void *push, uint32_t push_bytes, char *err, size_t errlen);

/* Inside vkCmdBeginRendering (begun by the caller with these attachment
 * formats, which select/create the cached pipeline): binds the graphics
 * pipeline, pushes descriptors and push constants, vkCmdDraw(vertex_count, 1).
 * Viewport and scissor are dynamic state: the caller sets them for the
 * render area (fg_vk_cmd_viewport does both). ncolor must equal the
 * fragment shader's color outputs. depth_format VK_FORMAT_UNDEFINED = none. */
/* 0 float (and normalized), 1 unsigned integer, 2 signed integer: the
 * colour formats framegraph creates (fg_vocab.h). */
int fg_vk_format_class(VkFormat f);
int fg_vk_cmd_draw(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                   const fg_vk_binding *bindings, uint32_t n, uint32_t vertex_count,
                   const void *push, uint32_t push_bytes,
                   const VkFormat *color_formats, uint32_t ncolor, VkFormat depth_format,
                   char *err, size_t errlen);

/* Geometry of an indexed draw. The index buffer holds size bytes of `type`
 * indices, the largest of which is max_index (known when it was filled);
 * [first, first + count) are drawn. Vertex stream i feeds the shader's
 * vertex_inputs[i] (location order): element k at offset + k * stride. */
typedef struct fg_vk_index_stream {
  VkBuffer buffer;
  VkDeviceSize size;
  VkIndexType type;          /* VK_INDEX_TYPE_UINT16 or UINT32 */
  uint32_t first, count, max_index;
} fg_vk_index_stream;
typedef struct fg_vk_vertex_stream {
  VkBuffer buffer;
  VkDeviceSize size, offset;
  uint32_t stride;
} fg_vk_vertex_stream;

/* As fg_vk_cmd_draw, with vkCmdDrawIndexed: checks every index and vertex
 * read against the buffers' sizes first (nothing recorded on failure). A
 * shader with vertex inputs draws only this way. */
int fg_vk_cmd_draw_indexed(fg_vk_device *dev, VkCommandBuffer cmd, fg_vk_shader *s,
                           const fg_vk_binding *bindings, uint32_t n, const fg_vk_index_stream *ix,
                           const fg_vk_vertex_stream *vs, uint32_t nvs, const void *push, uint32_t push_bytes,
                           const VkFormat *color_formats, uint32_t ncolor, VkFormat depth_format,
                           char *err, size_t errlen);

/* Threading: a shader's graphics-pipeline cache is filled by fg_vk_cmd_draw
 * without a lock; record draws of one shader from one thread at a time. */

/* Sets viewport (0,0,w,h, depth 0..1) and scissor to the same rectangle. */
void fg_vk_cmd_viewport(VkCommandBuffer cmd, uint32_t width, uint32_t height);

/* ---- read-back (readback.c) ----
 * Both copy through a host-visible staging buffer in one fg_vk_submit_once
 * (which waits), so the caller must have submitted the work that wrote the
 * resource to dev->queue before calling. src_stage/src_access describe that
 * last write (sync2 flags; VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT +
 * VK_ACCESS_2_MEMORY_WRITE_BIT when unknown). */

/* Bytes per texel of the formats framegraph uses (0 = unsupported/compressed).
 * Depth formats give the size of their depth aspect as copied to a buffer
 * (D24 -> 4, D32 -> 4, D16 -> 2). */
uint32_t fg_vk_format_texel_bytes(VkFormat f);
VkImageAspectFlags fg_vk_format_aspect(VkFormat f);

/* Reads mip 0 / layer 0 of a 2D image, tightly packed rows (width * texel).
 * The image is transitioned to TRANSFER_SRC_OPTIMAL and back to `layout`
 * afterwards; when `layout` is UNDEFINED or PREINITIALIZED it is left in
 * TRANSFER_SRC_OPTIMAL (the contents were undefined anyway). The final
 * barrier waits for the copy before ALL_COMMANDS, so later work needs no
 * extra synchronisation against this read. bytes must be >= width*height*texel. */
int fg_vk_read_image(fg_vk_device *dev, VkImage image, VkFormat format, uint32_t width, uint32_t height,
                     VkImageLayout layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                     void *dst, size_t bytes, char *err, size_t errlen);

/* Reads [offset, offset+size) of a buffer into dst (size bytes). */
int fg_vk_read_buffer(fg_vk_device *dev, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                      VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                      void *dst, char *err, size_t errlen);

/* Writes size bytes into [offset, offset+size) of a buffer through staging;
 * waits for src_stage/src_access (the previous access, e.g. a reader: WAR) and
 * makes the write visible to ALL_COMMANDS afterwards. */
int fg_vk_write_buffer(fg_vk_device *dev, VkBuffer buffer, VkDeviceSize offset, const void *src,
                       VkDeviceSize size, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                       char *err, size_t errlen);

/* A dedicated device-local buffer (tests and small tools; real frames place
 * resources in planned heaps). Memory: DEVICE_LOCAL when a type allows it,
 * else any type the buffer allows. */
typedef struct fg_vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
} fg_vk_buffer;
int fg_vk_buffer_create(fg_vk_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                        fg_vk_buffer *out, char *err, size_t errlen);
void fg_vk_buffer_destroy(fg_vk_device *dev, fg_vk_buffer *b);

/* ---- one-shot compute (compute.c) ----
 * A self-contained compute run for tests and tools: every buffer gets a
 * dedicated device-local buffer filled with `data` (or `size` zero bytes when
 * data is NULL), bound at `binding`; one dispatch of groups[0..2]; every buffer
 * read back into `result` (malloc'ed, `size` bytes; the caller frees it). 1,
 * or 0 with a message (results are then all NULL). */
typedef struct fg_vk_compute_buffer {
  uint32_t binding;
  const void *data;
  size_t size;
  void *result;
} fg_vk_compute_buffer;
int fg_vk_compute_run(fg_vk_device *dev, fg_vk_shader *s, fg_vk_compute_buffer *bufs, uint32_t n,
                      const uint32_t groups[3], const void *push, uint32_t push_bytes, char *err, size_t errlen);

/* names.c: writes "vertex", "fragment", "compute" for the stages set (room
 * for 3); returns the count. */
uint32_t fg_vk_shader_stage_names(VkShaderStageFlags stages, const char **names);

#endif
