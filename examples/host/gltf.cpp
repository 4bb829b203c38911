// The example host's glTF 2.0 loader (mesh.h, host_mesh_gltf): tinygltf
// (Debian's libtinygltf-dev) reads the file; this keeps the
// triangle primitives of every mesh, positions and normals (face normals when
// absent), centred and scaled into the unit sphere; node transforms are
// ignored. Textures are not the host example's concern:
// images are skipped, not decoded.
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
#include "mesh.h"
}

namespace {

bool skip_image(tinygltf::Image *, const int, std::string *, std::string *, int, int, const unsigned char *, int,
                void *) {
  return true;
}

// Element i of a float VEC3 or an index accessor, through its buffer view.
const unsigned char *element(const tinygltf::Model &m, const tinygltf::Accessor &a, size_t i, size_t size) {
  const tinygltf::BufferView &v = m.bufferViews[a.bufferView];
  size_t stride = v.byteStride ? v.byteStride : size;
  size_t off = v.byteOffset + a.byteOffset + i * stride;
  const std::vector<unsigned char> &data = m.buffers[v.buffer].data;
  return off + size <= data.size() ? &data[off] : nullptr;
}

}  // namespace

extern "C" int host_mesh_gltf(host_mesh *out, const char *path, char *err, size_t errlen) {
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  std::string e, w;
  size_t n = std::strlen(path);
  bool ok = n > 4 && !std::strcmp(path + n - 4, ".glb") ? loader.LoadBinaryFromFile(&model, &e, &w, path)
                                                         : loader.LoadASCIIFromFile(&model, &e, &w, path);
  if (!ok) {
    std::snprintf(err, errlen, "%s: %s", path, e.empty() ? "cannot be read as glTF 2.0" : e.c_str());
    return -1;
  }
  std::vector<host_vertex> verts;
  std::vector<uint32_t> idx;
  for (const tinygltf::Mesh &mesh : model.meshes) {
    for (const tinygltf::Primitive &p : mesh.primitives) {
      if (p.mode != -1 && p.mode != TINYGLTF_MODE_TRIANGLES) continue;
      auto pos = p.attributes.find("POSITION");
      if (pos == p.attributes.end()) continue;
      const tinygltf::Accessor &pa = model.accessors[pos->second];
      if (pa.type != TINYGLTF_TYPE_VEC3 || pa.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT || pa.bufferView < 0) {
        std::snprintf(err, errlen, "%s: mesh '%s': POSITION must be float VEC3", path, mesh.name.c_str());
        return -1;
      }
      auto nrm = p.attributes.find("NORMAL");
      const tinygltf::Accessor *na = nrm != p.attributes.end() ? &model.accessors[nrm->second] : nullptr;
      if (na && (na->type != TINYGLTF_TYPE_VEC3 || na->componentType != TINYGLTF_COMPONENT_TYPE_FLOAT ||
                 na->bufferView < 0))
        na = nullptr;
      uint32_t base = (uint32_t)verts.size();
      for (size_t i = 0; i < pa.count; i++) {
        host_vertex v = {};
        const unsigned char *q = element(model, pa, i, 12);
        if (!q) { std::snprintf(err, errlen, "%s: POSITION runs past its buffer", path); return -1; }
        std::memcpy(v.pos, q, 12);
        const unsigned char *r = na ? element(model, *na, i, 12) : nullptr;
        if (r) std::memcpy(v.nrm, r, 12);
        verts.push_back(v);
      }
      if (p.indices >= 0) {
        const tinygltf::Accessor &ia = model.accessors[p.indices];
        size_t size = ia.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT     ? 4
                      : ia.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ? 2
                                                                                   : 1;
        for (size_t i = 0; i < ia.count; i++) {
          const unsigned char *q = element(model, ia, i, size);
          if (!q) { std::snprintf(err, errlen, "%s: indices run past their buffer", path); return -1; }
          uint32_t k = size == 4 ? *(const uint32_t *)q : size == 2 ? *(const uint16_t *)q : *q;
          if (k >= pa.count) { std::snprintf(err, errlen, "%s: index %u out of range", path, k); return -1; }
          idx.push_back(base + k);
        }
      } else {
        for (size_t i = 0; i < pa.count; i++) idx.push_back(base + (uint32_t)i);
      }
    }
  }
  if (idx.empty() || idx.size() % 3) {
    std::snprintf(err, errlen, "%s: no triangle mesh with POSITION found", path);
    return -1;
  }
  // a vertex without a normal takes its first triangle's face normal
  for (size_t t = 0; t + 2 < idx.size(); t += 3) {
    host_vertex *a = &verts[idx[t]], *b = &verts[idx[t + 1]], *c = &verts[idx[t + 2]];
    if (a->nrm[0] || a->nrm[1] || a->nrm[2]) continue;
    float u[3], v[3], f[3];
    for (int k = 0; k < 3; k++) u[k] = b->pos[k] - a->pos[k], v[k] = c->pos[k] - a->pos[k];
    f[0] = u[1] * v[2] - u[2] * v[1], f[1] = u[2] * v[0] - u[0] * v[2], f[2] = u[0] * v[1] - u[1] * v[0];
    float l = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (l > 0)
      for (host_vertex *x : {a, b, c})
        if (!(x->nrm[0] || x->nrm[1] || x->nrm[2]))
          for (int k = 0; k < 3; k++) x->nrm[k] = f[k] / l;
  }
  // centred and scaled into the unit sphere: the host's camera frames that
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, r = 0;
  for (const host_vertex &v : verts)
    for (int k = 0; k < 3; k++) lo[k] = std::fmin(lo[k], v.pos[k]), hi[k] = std::fmax(hi[k], v.pos[k]);
  for (host_vertex &v : verts) {
    float d = 0;
    for (int k = 0; k < 3; k++) v.pos[k] -= (lo[k] + hi[k]) / 2, d += v.pos[k] * v.pos[k];
    r = std::fmax(r, std::sqrt(d));
  }
  if (r > 0)
    for (host_vertex &v : verts)
      for (int k = 0; k < 3; k++) v.pos[k] *= 0.9f / r;
  out->vertex_count = (uint32_t)verts.size();
  out->index_count = (uint32_t)idx.size();
  out->vertices = (host_vertex *)std::malloc(verts.size() * sizeof(host_vertex));
  out->indices = (uint32_t *)std::malloc(idx.size() * sizeof(uint32_t));
  if (!out->vertices || !out->indices) {
    host_mesh_free(out);
    std::snprintf(err, errlen, "out of memory");
    return -1;
  }
  std::memcpy(out->vertices, verts.data(), verts.size() * sizeof(host_vertex));
  std::memcpy(out->indices, idx.data(), idx.size() * sizeof(uint32_t));
  return 0;
}
