/* fg_vocab: the one list of every name a pipeline or an option may use.
 * Each list is an X-macro: the enums (fg_usage, fg_stage, fg_format), the
 * name tables, the Vulkan mapping (csrc/vk) and the Lua export (fg.vocab,
 * which lua/framegraph/schema.lua checks against) are all generated from it,
 * so adding a name here adds it everywhere. Order = enum order: append only
 * (the enum values are stable). Pure C, no dependencies. */
#ifndef FG_VOCAB_H
#define FG_VOCAB_H

/* Usages, one row each: X(ID, "name", stage with a pass, stage without,
 * access class, layout class, image usage, buffer usage).
 *  - stages: the FG_STAGES id a use gets when the pipeline names none, in a
 *    node with a render pass and in one without (compute, transfer);
 *  - access class: what the use reads and writes (csrc/vk maps it to a
 *    synchronization2 read mask and write mask);
 *  - layout class: the image layout of the use (only images have one);
 *  - image / buffer usage: the VkImageUsage / VkBufferUsage the use needs
 *    (NONE: a resource of that kind cannot be used so).
 * The last four are tokens that only csrc/vk spells in Vulkan (fg_vk_barrier.h);
 * everything else that depends on a usage is generated from the row.
 * FG_USAGE_NONE (blobs, order-only uses) comes first. */
#define FG_USAGES(X)                                                                                   \
  X(NONE, "none", HOST, HOST, MEMORY, GENERAL, NONE, NONE)                                             \
  X(SAMPLED, "sampled", FRAGMENT, COMPUTE, SAMPLED, SHADER_READ_ONLY, SAMPLED, NONE)                   \
  X(STORAGE, "storage", FRAGMENT, COMPUTE, STORAGE, GENERAL, STORAGE, STORAGE)                         \
  X(COLOR, "color", COLOR_OUTPUT, COLOR_OUTPUT, COLOR, COLOR_ATTACHMENT, COLOR_ATTACHMENT, NONE)       \
  X(DEPTH, "depth", FRAGMENT_TESTS, FRAGMENT_TESTS, DEPTH, ATTACHMENT, DEPTH_STENCIL_ATTACHMENT, NONE) \
  X(DEPTH_READ, "depth_read", FRAGMENT_TESTS, FRAGMENT_TESTS, DEPTH_READ, READ_ONLY,                   \
    DEPTH_STENCIL_ATTACHMENT, NONE)                                                                    \
  X(TRANSFER_SRC, "transfer_src", TRANSFER, TRANSFER, TRANSFER_SRC, TRANSFER_SRC, TRANSFER_SRC,        \
    TRANSFER_SRC)                                                                                      \
  X(TRANSFER_DST, "transfer_dst", TRANSFER, TRANSFER, TRANSFER_DST, TRANSFER_DST, TRANSFER_DST,        \
    TRANSFER_DST)                                                                                      \
  X(UNIFORM, "uniform", FRAGMENT, COMPUTE, UNIFORM, GENERAL, NONE, UNIFORM)                            \
  X(VERTEX, "vertex", VERTEX_INPUT, VERTEX_INPUT, VERTEX, GENERAL, NONE, VERTEX)                       \
  X(INDEX, "index", VERTEX_INPUT, VERTEX_INPUT, INDEX, GENERAL, NONE, INDEX)                           \
  X(INDIRECT, "indirect", DRAW_INDIRECT, DRAW_INDIRECT, INDIRECT, GENERAL, NONE, INDIRECT)

/* Stages a pipeline may name: X(ID, "name"). The enum puts FG_STAGE_DEFAULT
 * ("from the usage", never written by a user) before them. */
#define FG_STAGES(X)                     \
  X(DRAW_INDIRECT, "draw_indirect")      \
  X(VERTEX_INPUT, "vertex_input")        \
  X(VERTEX, "vertex")                    \
  X(FRAGMENT, "fragment")                \
  X(FRAGMENT_TESTS, "fragment_tests")    \
  X(COLOR_OUTPUT, "color_output")        \
  X(COMPUTE, "compute")                  \
  X(TRANSFER, "transfer")                \
  X(HOST, "host")                        \
  X(ALL, "all")

/* Texel formats: X(ID, "name", texel bytes, aspects, channels, VkFormat suffix).
 * Aspects: C color, D depth, S stencil (FG_ASPECT_* in fg_format.h). The last
 * column is pasted onto VK_FORMAT_ by csrc/vk/format_vk.c only. */
#define FG_FORMATS(X)                                                          \
  X(R8_UNORM, "r8_unorm", 1, C, 1, R8_UNORM)                                   \
  X(R8_UINT, "r8_uint", 1, C, 1, R8_UINT)                                      \
  X(RG8_UNORM, "rg8_unorm", 2, C, 2, R8G8_UNORM)                               \
  X(RGBA8_UNORM, "rgba8_unorm", 4, C, 4, R8G8B8A8_UNORM)                       \
  X(RGBA8_SRGB, "rgba8_srgb", 4, C, 4, R8G8B8A8_SRGB)                          \
  X(BGRA8_UNORM, "bgra8_unorm", 4, C, 4, B8G8R8A8_UNORM)                       \
  X(BGRA8_SRGB, "bgra8_srgb", 4, C, 4, B8G8R8A8_SRGB)                          \
  X(RGBA8_SNORM, "rgba8_snorm", 4, C, 4, R8G8B8A8_SNORM)                       \
  X(RGBA8_UINT, "rgba8_uint", 4, C, 4, R8G8B8A8_UINT)                          \
  X(A2B10G10R10_UNORM, "a2b10g10r10_unorm", 4, C, 4, A2B10G10R10_UNORM_PACK32) \
  X(B10G11R11_UFLOAT, "b10g11r11_ufloat", 4, C, 3, B10G11R11_UFLOAT_PACK32)    \
  X(R16_SFLOAT, "r16_sfloat", 2, C, 1, R16_SFLOAT)                             \
  X(R16_UNORM, "r16_unorm", 2, C, 1, R16_UNORM)                                \
  X(R16_UINT, "r16_uint", 2, C, 1, R16_UINT)                                   \
  X(RG16_SFLOAT, "rg16_sfloat", 4, C, 2, R16G16_SFLOAT)                        \
  X(RG16_UNORM, "rg16_unorm", 4, C, 2, R16G16_UNORM)                           \
  X(RGBA16_SFLOAT, "rgba16_sfloat", 8, C, 4, R16G16B16A16_SFLOAT)              \
  X(RGBA16_UNORM, "rgba16_unorm", 8, C, 4, R16G16B16A16_UNORM)                 \
  X(R32_SFLOAT, "r32_sfloat", 4, C, 1, R32_SFLOAT)                             \
  X(R32_UINT, "r32_uint", 4, C, 1, R32_UINT)                                   \
  X(R32_SINT, "r32_sint", 4, C, 1, R32_SINT)                                   \
  X(RG32_SFLOAT, "rg32_sfloat", 8, C, 2, R32G32_SFLOAT)                        \
  X(RG32_UINT, "rg32_uint", 8, C, 2, R32G32_UINT)                              \
  X(RGBA32_SFLOAT, "rgba32_sfloat", 16, C, 4, R32G32B32A32_SFLOAT)             \
  X(RGBA32_UINT, "rgba32_uint", 16, C, 4, R32G32B32A32_UINT)                   \
  X(D16_UNORM, "d16_unorm", 2, D, 1, D16_UNORM)                                \
  X(D32_SFLOAT, "d32_sfloat", 4, D, 1, D32_SFLOAT)                             \
  X(D24_UNORM_S8_UINT, "d24_unorm_s8_uint", 4, D | S, 2, D24_UNORM_S8_UINT)    \
  X(D32_SFLOAT_S8_UINT, "d32_sfloat_s8_uint", 8, D | S, 2, D32_SFLOAT_S8_UINT) \
  X(S8_UINT, "s8_uint", 1, S, 1, S8_UINT)

/* The default alignment of images (and, unless told otherwise, buffers) when
 * planning without a device: the "lavapipe" profile's, and what a profile
 * table without `alignment` gets. */
#define FG_DEFAULT_ALIGNMENT 16

/* Planning profiles: X(id, "name", alignment, buffer_alignment, granularity).
 * The first is the default. */
#define FG_PROFILES(X)                                                 \
  X(LAVAPIPE, "lavapipe", FG_DEFAULT_ALIGNMENT, FG_DEFAULT_ALIGNMENT, 1) \
  X(NVIDIA, "nvidia", 1024, 256, 1024)

/* Helpers to expand a list into a string table or a ", "-joined literal. */
#define FG_VOCAB_NAME2(id, name) name,
#define FG_VOCAB_JOIN2(id, name) ", " name
#define FG_VOCAB_NAME6(id, name, a, b, c, d) name,
#define FG_VOCAB_JOIN6(id, name, a, b, c, d) ", " name
#define FG_VOCAB_NAME5(id, name, a, b, c) name,
#define FG_VOCAB_NAME8(id, name, a, b, c, d, e, f) name,
#define FG_VOCAB_JOIN8(id, name, a, b, c, d, e, f) ", " name
#define FG_VOCAB_JOIN5(id, name, a, b, c) ", " name

/* "a, b, c" literals for messages ("expected one of ..."); [2] skips the
 * leading ", ". */
#define FG_USAGE_NAMES_JOINED (&(FG_USAGES(FG_VOCAB_JOIN8))[2])
#define FG_STAGE_NAMES_JOINED (&(FG_STAGES(FG_VOCAB_JOIN2))[2])
#define FG_FORMAT_NAMES_JOINED (&(FG_FORMATS(FG_VOCAB_JOIN6))[2])
#define FG_PROFILE_NAMES_JOINED (&(FG_PROFILES(FG_VOCAB_JOIN5))[2])

#endif
