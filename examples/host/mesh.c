/* A torus for the example host (mesh.h). */
#include "mesh.h"
#include <math.h>
#include <stdlib.h>

int host_mesh_torus(host_mesh *m, uint32_t segments, uint32_t sides, float radius, float tube) {
  m->vertex_count = (segments + 1) * (sides + 1);
  m->index_count = segments * sides * 6;
  m->vertices = malloc(m->vertex_count * sizeof *m->vertices);
  m->indices = malloc(m->index_count * sizeof *m->indices);
  if (!m->vertices || !m->indices) { host_mesh_free(m); return -1; }
  const float tau = 6.28318530718f;
  for (uint32_t i = 0; i <= segments; i++) {
    float u = tau * (float)i / (float)segments, cu = cosf(u), su = sinf(u);
    for (uint32_t j = 0; j <= sides; j++) {
      float v = tau * (float)j / (float)sides, cv = cosf(v), sv = sinf(v);
      host_vertex *p = &m->vertices[i * (sides + 1) + j];
      p->pos[0] = (radius + tube * cv) * cu;
      p->pos[1] = tube * sv;
      p->pos[2] = (radius + tube * cv) * su;
      p->nrm[0] = cv * cu;
      p->nrm[1] = sv;
      p->nrm[2] = cv * su;
    }
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < segments; i++)
    for (uint32_t j = 0; j < sides; j++) {
      uint32_t a = i * (sides + 1) + j, b = (i + 1) * (sides + 1) + j;
      m->indices[k++] = a; m->indices[k++] = a + 1; m->indices[k++] = b;
      m->indices[k++] = b; m->indices[k++] = a + 1; m->indices[k++] = b + 1;
    }
  return 0;
}

void host_mesh_free(host_mesh *m) {
  free(m->vertices);
  free(m->indices);
  m->vertices = NULL;
  m->indices = NULL;
}
