/* Stage SIZE: what every physical resource needs, whatever the order.
 *   sizes:  extents from the resolutions, bytes and alignment from the sizer
 *           (once per logical resource: its copies share the description)
 *   checks: pass attachments agree in size and kind of format
 *   groups: identical descriptions share a pool group id (the pool solver)
 *   heaps:  one heap per memory-type value, numbered by first appearance
 * The first stage of set_resolution's re-plan. */
#include "graph_ir.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t graph_resolve_extent(const fg_graph *g, const res_desc_store *s, uint32_t *w, uint32_t *h) {
  const fg_graph_res_desc *d = &s->d;
  if (s->resolution != NONE) {
    for (uint32_t i = 0; i < g->res.n; i++) {
      if (g->res.a[i].name != s->resolution) continue;
      double sx = d->scale_x > 0 ? d->scale_x : 1.0, sy = d->scale_y > 0 ? d->scale_y : sx;
      double fw = floor(g->res.a[i].w * sx), fh = floor(g->res.a[i].h * sy);
      /* a huge scale saturates (converting an out-of-range double is
       * undefined); the size check below then names the resource */
      *w = fw < 1 ? 1 : fw >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)fw;
      *h = fh < 1 ? 1 : fh >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)fh;
      return 0;
    }
    return NONE;
  }
  *w = d->width;
  *h = d->height;
  return 0;
}

static int default_sizer(void *user, const fg_graph_resource *r, fg_graph_memreq *out) {
  const fg_graph_profile *p = user;
  uint64_t align = p->alignment ? p->alignment : FG_DEFAULT_ALIGNMENT;
  uint32_t mt = p->memory_type_bits ? p->memory_type_bits : 1;
  if (r->kind == FG_RES_BUFFER) {
    uint64_t ba = p->buffer_alignment ? p->buffer_alignment : align;
    out->size = fg_align_up(r->bytes, ba);
    out->alignment = ba;
    out->kind = 0;
  } else {
    uint64_t texel = fg_format_get(r->format)->texel_bytes, sz = 0;
    for (uint32_t m = 0; m < r->mips; m++) {
      uint64_t w = r->width >> m, h = r->height >> m, d = r->depth >> m;
      sz += (w ? w : 1) * (h ? h : 1) * (d ? d : 1);
    }
    out->size = fg_align_up(sz * texel * r->layers, align);
    out->alignment = align;
    out->kind = 1;
  }
  out->memory_type_bits = mt;
  return 0;
}

/* ----------------------------------------------------------------- sizes -- */
/* a*b, saturating at UINT64_MAX: sizes are compared with the limit, never wrapped */
static uint64_t mul_sat(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* Tight bytes of a texture (every mip, layer and slice) or a buffer, saturating. */
static uint64_t declared_bytes(const fg_graph_res_desc *d, uint32_t w, uint32_t h) {
  if (d->kind == FG_RES_BUFFER) return d->bytes;
  uint64_t texel = fg_format_get(d->format)->texel_bytes, sz = 0;
  uint32_t mips = d->mips ? d->mips : 1, depth = d->depth ? d->depth : 1, layers = d->layers ? d->layers : 1;
  for (uint32_t m = 0; m < mips && m < 64; m++) {
    uint64_t mw = w >> m, mh = h >> m, md = depth >> m;
    uint64_t v = mul_sat(mul_sat(mw ? mw : 1, mh ? mh : 1), md ? md : 1);
    sz = sz > UINT64_MAX - v ? UINT64_MAX : sz + v;
  }
  return mul_sat(mul_sat(sz, texel), layers);
}

static uint32_t mip_levels(uint32_t w, uint32_t h, uint32_t d) {
  uint32_t side = w > h ? w : h, n = 1;
  if (d > side) side = d;
  while (side >>= 1) n++;
  return n;
}

/* A resource bigger than this is a typo or a runaway resolution, and the sums
 * of the plan (naive bytes, heap makespans) must not wrap: the compile says
 * which resource, how big, and what to change instead of planning it. */
static int check_resource_bytes(fg_graph *g, const res_desc_store *s, const char *name, uint32_t w, uint32_t h) {
  if (s->d.kind == FG_RES_TEXTURE && (w > FG_MAX_EXTENT || h > FG_MAX_EXTENT || s->d.depth > FG_MAX_EXTENT)) {
    /* UINT32_MAX is where a larger number saturated on its way in */
    uint32_t big = w > FG_MAX_EXTENT ? w : h > FG_MAX_EXTENT ? h : s->d.depth;
    graph_problem(g, "resource '%s': extent %ux%u (depth %u) has a side of %u%s, over %u, more than any Vulkan device "
                     "allows (the runtime also checks the device's maxImageDimension); lower %s%s%s",
                  name, w, h, s->d.depth, big, big == UINT32_MAX ? " or more" : "", FG_MAX_EXTENT,
                  s->resolution != NONE ? "resolution '" : "its size", s->resolution != NONE ? S(g, s->resolution) : "",
                  s->resolution != NONE ? "' (or its scale)" : "");
    return -1;
  }
  if (s->d.kind == FG_RES_TEXTURE && s->d.mips > 32) {
    /* 32-bit extents have at most 32 levels (the sizers shift by the level) */
    graph_problem(g, "resource '%s': %u mips, but no texture has more than 32 (a %ux%u one has at most %u); lower mips",
                  name, s->d.mips, w, h, mip_levels(w, h, s->d.depth));
    return -1;
  }
  uint64_t bytes = declared_bytes(&s->d, w, h);
  if (bytes <= FG_MAX_RESOURCE_BYTES) return 0;
  char amount[48];
  if (bytes == UINT64_MAX) snprintf(amount, sizeof amount, "more than 2^64 bytes");
  else snprintf(amount, sizeof amount, "%llu bytes", (unsigned long long)bytes);
  if (s->d.kind == FG_RES_BUFFER)
    graph_problem(g, "resource '%s': buffer of %s is over the limit of %llu bytes (1 TiB); declare a smaller buffer",
                  name, amount, (unsigned long long)FG_MAX_RESOURCE_BYTES);
  else
    graph_problem(g, "resource '%s': %ux%u %s x %u mips x %u layers x %u depth is %s, over the limit of %llu "
                     "bytes (1 TiB); lower %s%s%s or the mips/layers/depth", name, w, h,
                  fg_format_get(s->d.format)->name, s->d.mips, s->d.layers, s->d.depth, amount,
                  (unsigned long long)FG_MAX_RESOURCE_BYTES, s->resolution != NONE ? "resolution '" : "its size",
                  s->resolution != NONE ? S(g, s->resolution) : "", s->resolution != NONE ? "' (or its scale)" : "");
  return -1;
}

typedef struct group_key {
  uint32_t logical;
  fg_res_kind kind;
  fg_format format;
  uint32_t w, h, d, mips, layers;
  uint64_t bytes, size, align;
  uint32_t mt;
} group_key;

/* Sizes every physical resource; for packed kinds (textures, buffers) one
 * key per logical resource goes to keys[*nk]. Resets heap and group (the
 * offsets stay: a re-plan warm-starts from them). */
static int size_resources(fg_graph *g, group_key *keys, uint32_t *nk) {
  if (!g->replan) {
    if (vec_grow(&g->h, (void **)&g->ir.view.a, &g->ir.view.cap, g->logicals.n + 1, sizeof *g->ir.view.a)) {
      graph_problem(g, "out of memory");
      return -1;
    }
    g->ir.view.n = g->logicals.n;
  }
  fg_graph_sizer_fn sizer = g->cdesc.sizer ? g->cdesc.sizer : default_sizer;
  void *su = g->cdesc.sizer ? g->cdesc.sizer_user : &g->cdesc.profile;
  for (uint32_t l = 0; l < g->logicals.n; l++) {
    logical *L = &g->logicals.a[l];
    if (L->phys_base == NONE) continue;
    const res_desc_store *s = &g->descs.a[L->desc];
    uint32_t w = 0, h = 0;
    if (s->d.kind == FG_RES_TEXTURE || s->d.kind == FG_RES_EXTERNAL) graph_resolve_extent(g, s, &w, &h);
    fg_graph_memreq mr;
    memset(&mr, 0, sizeof mr);
    for (uint32_t k = 0; k < 2 * L->mux_count; k++) { g->ir.res.a[L->phys_base + k].width = w; g->ir.res.a[L->phys_base + k].height = h; }
    /* the sizer reads the description of the first copy (made once per
     * compile; a re-plan changes only its extent) */
    fg_graph_resource *R0 = &g->ir.view.a[l];
    if (g->replan) { R0->width = w; R0->height = h; }
    else graph_resource_desc(g, L->phys_base, R0);
    if (s->d.kind == FG_RES_TEXTURE || s->d.kind == FG_RES_BUFFER) {
      if (check_resource_bytes(g, s, R0->name, w, h)) return -1;
      if (sizer(su, R0, &mr) || !mr.size) {
        if (mr.error && mr.error[0]) graph_problem(g, "resource '%s': %s", R0->name, mr.error);
        else graph_problem(g, "resource '%s': the sizer could not size it (%s %ux%u)", R0->name,
                           fg_format_get(R0->format)->name, w, h);
        return -1;
      }
      if (!mr.alignment) mr.alignment = 1;
      group_key K = {l, s->d.kind, s->d.format, w, h, R0->depth, R0->mips, R0->layers, s->d.bytes, mr.size, mr.alignment, mr.memory_type_bits};
      keys[(*nk)++] = K;
    }
    for (uint32_t k = 0; k < 2 * L->mux_count; k++) {
      ir_res *R = &g->ir.res.a[L->phys_base + k];
      R->size = mr.size;
      R->alignment = mr.alignment;
      R->memory_type_bits = mr.memory_type_bits;
      R->mem_kind = mr.kind;
      R->heap = NONE;
      R->group = 0;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- groups -- */
/* identical descriptions (all but the logical id) */
static int same_group(const group_key *x, const group_key *y) {
  return x->kind == y->kind && x->format == y->format && x->w == y->w && x->h == y->h && x->d == y->d &&
         x->mips == y->mips && x->layers == y->layers && x->bytes == y->bytes && x->size == y->size &&
         x->align == y->align && x->mt == y->mt;
}
static uint64_t hash_group(const group_key *x) {
  uint64_t v[] = {(uint64_t)x->kind << 32 | (uint32_t)x->format, (uint64_t)x->w << 32 | x->h,
                  (uint64_t)x->d << 32 | x->mips, (uint64_t)x->layers << 32 | x->mt, x->bytes, x->size, x->align};
  uint64_t hsh = 0x9E3779B97F4A7C15ull;
  for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
    hsh ^= v[k];
    hsh *= 0xBF58476D1CE4E5B9ull;
    hsh ^= hsh >> 31;
  }
  return hsh;
}

/* group ids numbered by first appearance; a hash table, as this runs on
 * every re-plan */
static int assign_groups(fg_graph *g, const group_key *keys, uint32_t nk) {
  uint32_t cap = 16;
  while (cap < 2 * nk) cap *= 2;
  uint32_t *slot = arena_alloc(g, cap * sizeof(uint32_t)), *gids = arena_alloc(g, (nk + 1) * sizeof(uint32_t));
  if (!slot || !gids) return -1;
  memset(slot, 0xff, cap * sizeof(uint32_t));
  uint32_t gid = 0;
  for (uint32_t k = 0; k < nk; k++) {
    uint32_t q = (uint32_t)hash_group(&keys[k]) & (cap - 1);
    while (slot[q] != NONE && !same_group(&keys[slot[q]], &keys[k])) q = (q + 1) & (cap - 1);
    if (slot[q] == NONE) { slot[q] = k; gids[k] = ++gid; }
    else gids[k] = gids[slot[q]];
    const logical *L = &g->logicals.a[keys[k].logical];
    for (uint32_t r = 0; r < 2 * L->mux_count; r++) g->ir.res.a[L->phys_base + r].group = gids[k];
  }
  return 0;
}
/* A render pass draws one area: an attachment smaller than another would be
 * read and written past its edge (Vulkan forbids it), a larger one only in
 * part. Extents are known only now (resolutions and scales); formats are
 * checked here too, where externals' and other nodes' resources are resolved:
 * a color format cannot be a depth attachment, nor the reverse. */
static int check_pass_extents(fg_graph *g) {
  const char *reported = NULL;
  for (uint32_t s = 0; s < g->ir.inst.n; s++) {
    const ir_inst *in = &g->ir.inst.a[s];
    const char *node_name = S(g, g->nodes.a[in->node].name);
    if (!in->has_pass || node_name == reported) continue;
    const char *first = NULL;
    uint32_t fw = 0, fh = 0, nat = in->color_count + (in->has_depth ? 1 : 0);
    for (uint32_t c = 0; c < nat; c++) {
      const fg_graph_attachment *ga = c < in->color_count ? &g->atts.a[in->att_first + c] : &in->depth;
      const ir_use *us = &g->ir.use.a[in->use_first + ga->use];
      uint32_t ph = use_phys(g, us, 0);
      if (ph == NONE || ph >= g->ir.res.n) continue;  /* a missing optional attachment */
      const ir_res *R = &g->ir.res.a[ph];
      fg_format fmt = g->descs.a[g->logicals.a[R->logical].desc].d.format;
      uint32_t asp = fg_format_get(fmt)->aspects, color = c < in->color_count;
      if (color ? !(asp & FG_ASPECT_COLOR) : !(asp & (FG_ASPECT_DEPTH | FG_ASPECT_STENCIL))) {
        graph_problem(g, "node '%s': pass %s '%s' has format %s, which is not a %s format; give it a %s format or "
                         "move it to pass.%s", node_name, color ? "color" : "depth", S(g, us->name),
                      fg_format_get(fmt)->name, color ? "color" : "depth/stencil",
                      color ? "color (e.g. rgba8_unorm)" : "depth (e.g. d32_sfloat)", color ? "depth" : "color");
        reported = node_name;
        break;
      }
      if (!first) { first = S(g, us->name); fw = R->width; fh = R->height; continue; }
      if (R->width != fw || R->height != fh) {
        graph_problem(g, "node '%s': pass attachments differ in size: '%s' is %ux%u but '%s' is %ux%u; give every "
                         "attachment of a pass the same size (same resolution and scale)",
                      node_name, first, fw, fh, S(g, us->name), R->width, R->height);
        reported = node_name;
        break;
      }
    }
  }
  return reported ? -1 : 0;
}

/* ------------------------------------------------------------- the stage -- */
static int packed_kind(fg_res_kind k) { return k == FG_RES_TEXTURE || k == FG_RES_BUFFER; }

int graph_size(fg_graph *g, graph_names *c) {
  (void)c;
  group_key *keys = arena_alloc(g, (g->logicals.n + 1) * sizeof(group_key));
  if (!keys) { graph_problem(g, "out of memory"); return -1; }
  uint32_t nk = 0;
  if (size_resources(g, keys, &nk) || check_pass_extents(g)) return -1;
  if (assign_groups(g, keys, nk)) { graph_problem(g, "out of memory"); return -1; }
  /* one heap per memory-type value, in order of first appearance */
  g->ir.nheaps = 0;
  for (uint32_t r = 0; r < g->ir.res.n; r++) {
    ir_res *R = &g->ir.res.a[r];
    if (R->heap != NONE || !packed_kind(g->descs.a[g->logicals.a[R->logical].desc].d.kind)) continue;
    for (uint32_t q = r; q < g->ir.res.n; q++) {
      ir_res *Q = &g->ir.res.a[q];
      if (Q->heap == NONE && Q->memory_type_bits == R->memory_type_bits &&
          packed_kind(g->descs.a[g->logicals.a[Q->logical].desc].d.kind))
        Q->heap = g->ir.nheaps;
    }
    g->ir.nheaps++;
  }
  return 0;
}
