/* Mesh data as loaded from a file, before it becomes buffers: plain C
 * (no Vulkan), shared by the glTF loader (mesh_gltf.cpp, C++) and the C side
 * (mesh_buffer.c). */
#ifndef FG_MESH_DATA_H
#define FG_MESH_DATA_H
#include <stddef.h>
#include <stdint.h>

/* Bound every loader checks before allocating (a hostile file cannot ask
 * for more): 16M vertices or indices. */
#define FG_MESH_MAX_ELEMENTS (1u << 24)

/* A mesh primitive as three vertex streams and 32-bit indices (malloc'ed;
 * fg_mesh_data_free). Streams: positions (3 floats), normals (3 floats;
 * computed from the triangles when the file has none), uvs (2 floats; zeros
 * when the file has none). */
typedef struct fg_mesh_data {
  float *positions, *normals, *uvs;
  uint32_t *indices;
  uint32_t vertex_count, index_count;
  float min[3], max[3];      /* of the positions */
} fg_mesh_data;

#ifdef __cplusplus
extern "C" {
#endif
/* Loads the first primitive (triangles) of the first mesh of a glTF 2.0 file
 * (.gltf with .bin or base64 buffers, or .glb). Every accessor is checked
 * against its buffer view, every index against the vertex count. 1, or 0
 * with a message naming the file (missing, corrupt, unsupported). Never
 * throws. */
int fg_gltf_load(const char *path, fg_mesh_data *out, char *err, size_t errlen);
/* 1 when built with tinygltf (else fg_gltf_load says how to get it). */
int fg_gltf_available(void);
/* Frees the arrays (a zeroed struct is fine). */
void fg_mesh_data_free(fg_mesh_data *m);
/* Fills m->normals (allocated here) with area-weighted vertex normals of the
 * triangles. 1, or 0 when out of memory. */
int fg_mesh_compute_normals(fg_mesh_data *m);
#ifdef __cplusplus
}
#endif

#endif
