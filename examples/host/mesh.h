/* The example host's mesh: a torus made here in C, or a glTF file
 * (position + normal per vertex, 32-bit indices, counter-clockwise seen from
 * outside). */
#ifndef HOST_MESH_H
#define HOST_MESH_H
#include <stddef.h>
#include <stdint.h>

typedef struct host_vertex { float pos[3], nrm[3]; } host_vertex;
typedef struct host_mesh {
  host_vertex *vertices;
  uint32_t *indices;
  uint32_t vertex_count, index_count;
} host_mesh;

/* 0, or -1 when out of memory. segments around the ring, sides around the tube. */
int host_mesh_torus(host_mesh *m, uint32_t segments, uint32_t sides, float radius, float tube);
void host_mesh_free(host_mesh *m);
/* gltf.cpp (built when libtinygltf-dev is installed): the triangles of a
 * .gltf/.glb file, fitted into the unit sphere. 0, or -1 with a message. */
int host_mesh_gltf(host_mesh *m, const char *path, char *err, size_t errlen);

#endif
