// glTF 2.0 meshes through tinygltf (Debian's libtinygltf-dev, header only
// here: compiled into this one translation unit, its image decoding off since
// textures come from fg.image). The only C++ file: everything it hands back
// is plain C (fg_mesh_data.h); no exception leaves it.
#include "fg_mesh_data.h"
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef FG_HAVE_TINYGLTF
// tinygltf's namespace renamed for this copy: a program that links
// framegraph and compiles its own tinygltf (examples/host may) gets no
// duplicate symbols.
#define tinygltf fg_tinygltf
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
#include <exception>
#include <string>
#endif

static void errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

#ifdef FG_HAVE_TINYGLTF
namespace {

// Images are not decoded (textures come from fg.image): accept them as they are.
bool skip_image(tinygltf::Image *, const int, std::string *, std::string *, int, int, const unsigned char *, int,
                void *) {
  return true;
}

// The bytes of accessor `index` as `comps` components of one of `types`:
// checked against its buffer view and buffer before any read. nullptr + message.
const unsigned char *accessor_data(const tinygltf::Model &m, int index, int want_type, size_t *count, size_t *stride,
                                   int *component, const char *what, const char *path, char *err, size_t errlen) {
  if (index < 0 || (size_t)index >= m.accessors.size()) {
    errf(err, errlen, "%s: the %s accessor %d does not exist", path, what, index);
    return nullptr;
  }
  const tinygltf::Accessor &a = m.accessors[(size_t)index];
  if (a.sparse.isSparse) {
    errf(err, errlen, "%s: the %s accessor is sparse (not supported)", path, what);
    return nullptr;
  }
  if (a.type != want_type) {
    errf(err, errlen, "%s: the %s accessor has type %d; expected %d (glTF accessor types)", path, what, a.type,
         want_type);
    return nullptr;
  }
  if (a.bufferView < 0 || (size_t)a.bufferView >= m.bufferViews.size()) {
    errf(err, errlen, "%s: the %s accessor has no buffer view", path, what);
    return nullptr;
  }
  const tinygltf::BufferView &v = m.bufferViews[(size_t)a.bufferView];
  if (v.buffer < 0 || (size_t)v.buffer >= m.buffers.size()) {
    errf(err, errlen, "%s: the %s buffer view names no buffer", path, what);
    return nullptr;
  }
  const std::vector<unsigned char> &b = m.buffers[(size_t)v.buffer].data;
  int elem = tinygltf::GetComponentSizeInBytes((uint32_t)a.componentType) *
             tinygltf::GetNumComponentsInType((uint32_t)a.type);
  int st = a.ByteStride(v);
  if (elem <= 0 || st <= 0) {
    errf(err, errlen, "%s: the %s accessor has an invalid component type or stride", path, what);
    return nullptr;
  }
  if (a.count == 0 || a.count > FG_MESH_MAX_ELEMENTS) {
    errf(err, errlen, "%s: the %s accessor holds %zu elements (1..%u)", path, what, a.count,
         (unsigned)FG_MESH_MAX_ELEMENTS);
    return nullptr;
  }
  // every element inside the view, the view inside the buffer (64-bit: no wrap)
  unsigned long long end = (unsigned long long)a.byteOffset + (unsigned long long)(a.count - 1) * (unsigned)st + elem;
  if (v.byteOffset > b.size() || v.byteLength > b.size() - v.byteOffset || end > v.byteLength) {
    errf(err, errlen, "%s: the %s accessor (%zu elements, stride %d, offset %zu) runs past its buffer view (%zu "
         "bytes at %zu of a %zu-byte buffer)", path, what, a.count, st, a.byteOffset, v.byteLength, v.byteOffset,
         b.size());
    return nullptr;
  }
  *count = a.count;
  *stride = (size_t)st;
  *component = a.componentType;
  return b.data() + v.byteOffset + a.byteOffset;
}

// Reads `n` floats per element; normalized integers (texture coordinates may
// be stored so) are converted as glTF says.
bool read_floats(const unsigned char *p, size_t count, size_t stride, int component, bool normalized, int n,
                 float *out) {
  for (size_t i = 0; i < count; i++, p += stride)
    for (int k = 0; k < n; k++) {
      float f;
      switch (component) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: std::memcpy(&f, p + 4 * k, 4); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: f = normalized ? p[k] / 255.0f : p[k]; break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
          uint16_t u;
          std::memcpy(&u, p + 2 * k, 2);
          f = normalized ? u / 65535.0f : u;
          break;
        }
        default: return false;
      }
      out[i * (size_t)n + (size_t)k] = f;
    }
  return true;
}

int load(const char *path, fg_mesh_data *out, char *err, size_t errlen) {
  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  std::string e, w;
  size_t len = std::strlen(path);
  bool glb = len > 4 && !std::strcmp(path + len - 4, ".glb");
  bool ok = glb ? loader.LoadBinaryFromFile(&m, &e, &w, path) : loader.LoadASCIIFromFile(&m, &e, &w, path);
  if (!ok) {
    while (!e.empty() && (e.back() == '\n' || e.back() == '\r')) e.pop_back();
    errf(err, errlen, "%s: cannot load the glTF file: %s", path, e.empty() ? "unknown error" : e.c_str());
    return 0;
  }
  if (m.meshes.empty() || m.meshes[0].primitives.empty()) {
    errf(err, errlen, "%s: the glTF file has no mesh primitive", path);
    return 0;
  }
  const tinygltf::Primitive &pr = m.meshes[0].primitives[0];
  if (pr.mode != -1 && pr.mode != TINYGLTF_MODE_TRIANGLES) {
    errf(err, errlen, "%s: the first primitive's mode is %d; only triangles (4) are loaded", path, pr.mode);
    return 0;
  }
  auto attr = [&](const char *name) {
    auto it = pr.attributes.find(name);
    return it == pr.attributes.end() ? -1 : it->second;
  };
  int ipos = attr("POSITION"), inrm = attr("NORMAL"), iuv = attr("TEXCOORD_0");
  if (ipos < 0) {
    errf(err, errlen, "%s: the first primitive has no POSITION attribute", path);
    return 0;
  }
  size_t n = 0, stride = 0;
  int comp = 0;
  const unsigned char *p = accessor_data(m, ipos, TINYGLTF_TYPE_VEC3, &n, &stride, &comp, "POSITION", path, err, errlen);
  if (!p) return 0;
  if (comp != TINYGLTF_COMPONENT_TYPE_FLOAT) {
    errf(err, errlen, "%s: POSITION must be float vec3", path);
    return 0;
  }
  out->vertex_count = (uint32_t)n;
  out->positions = (float *)std::malloc(n * 3 * sizeof(float));
  out->uvs = (float *)std::calloc(n * 2, sizeof(float));
  if (!out->positions || !out->uvs) { errf(err, errlen, "%s: out of memory", path); return 0; }
  read_floats(p, n, stride, comp, false, 3, out->positions);
  for (int k = 0; k < 3; k++) { out->min[k] = out->positions[k]; out->max[k] = out->positions[k]; }
  for (size_t i = 0; i < n * 3; i++) {
    float v = out->positions[i];
    int k = (int)(i % 3);
    if (v < out->min[k]) out->min[k] = v;
    if (v > out->max[k]) out->max[k] = v;
  }
  if (inrm >= 0) {
    size_t c = 0;
    const unsigned char *q = accessor_data(m, inrm, TINYGLTF_TYPE_VEC3, &c, &stride, &comp, "NORMAL", path, err, errlen);
    if (!q) return 0;
    if (c != n || comp != TINYGLTF_COMPONENT_TYPE_FLOAT) {
      errf(err, errlen, "%s: NORMAL must be float vec3 with one per POSITION (%zu, not %zu)", path, n, c);
      return 0;
    }
    out->normals = (float *)std::malloc(n * 3 * sizeof(float));
    if (!out->normals) { errf(err, errlen, "%s: out of memory", path); return 0; }
    read_floats(q, n, stride, comp, false, 3, out->normals);
  }
  if (iuv >= 0) {
    size_t c = 0;
    const unsigned char *q = accessor_data(m, iuv, TINYGLTF_TYPE_VEC2, &c, &stride, &comp, "TEXCOORD_0", path, err,
                                           errlen);
    if (!q) return 0;
    if (c != n || !read_floats(q, n, stride, comp, m.accessors[(size_t)iuv].normalized, 2, out->uvs)) {
      errf(err, errlen, "%s: TEXCOORD_0 must be vec2 (float, or normalized unsigned byte/short) with one per "
           "POSITION", path);
      return 0;
    }
  }
  if (pr.indices >= 0) {
    size_t c = 0;
    const unsigned char *q = accessor_data(m, pr.indices, TINYGLTF_TYPE_SCALAR, &c, &stride, &comp, "indices", path,
                                           err, errlen);
    if (!q) return 0;
    out->indices = (uint32_t *)std::malloc(c * sizeof(uint32_t));
    if (!out->indices) { errf(err, errlen, "%s: out of memory", path); return 0; }
    for (size_t i = 0; i < c; i++, q += stride) {
      uint32_t v;
      if (comp == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) v = q[0];
      else if (comp == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) { uint16_t u; std::memcpy(&u, q, 2); v = u; }
      else if (comp == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) std::memcpy(&v, q, 4);
      else { errf(err, errlen, "%s: indices must be unsigned byte, short or int", path); return 0; }
      if (v >= n) {
        errf(err, errlen, "%s: index %zu is %u but the primitive has %zu vertices", path, i, v, n);
        return 0;
      }
      out->indices[i] = v;
    }
    out->index_count = (uint32_t)c;
  } else {  // not indexed: vertices in order
    out->indices = (uint32_t *)std::malloc(n * sizeof(uint32_t));
    if (!out->indices) { errf(err, errlen, "%s: out of memory", path); return 0; }
    for (size_t i = 0; i < n; i++) out->indices[i] = (uint32_t)i;
    out->index_count = (uint32_t)n;
  }
  if (out->index_count % 3) {
    errf(err, errlen, "%s: %u indices are not whole triangles", path, out->index_count);
    return 0;
  }
  if (!out->normals && !fg_mesh_compute_normals(out)) { errf(err, errlen, "%s: out of memory", path); return 0; }
  return 1;
}

}  // namespace
#endif

extern "C" int fg_gltf_available(void) {
#ifdef FG_HAVE_TINYGLTF
  return 1;
#else
  return 0;
#endif
}

extern "C" int fg_gltf_load(const char *path, fg_mesh_data *out, char *err, size_t errlen) {
  std::memset(out, 0, sizeof *out);
#ifdef FG_HAVE_TINYGLTF
  int ok = 0;
  try {
    ok = load(path, out, err, errlen);
  } catch (const std::exception &x) {
    errf(err, errlen, "%s: cannot load the glTF file: %s", path, x.what());
    ok = 0;
  } catch (...) {
    errf(err, errlen, "%s: cannot load the glTF file", path);
    ok = 0;
  }
  if (!ok) fg_mesh_data_free(out);
  return ok;
#else
  errf(err, errlen, "%s: framegraph was built without glTF support (install libtinygltf-dev and "
       "nlohmann-json3-dev, then rebuild)", path);
  return 0;
#endif
}
