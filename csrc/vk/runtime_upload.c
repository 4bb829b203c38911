/* The runtime's per-frame upload ring (fg_rt_upload). */
#include "runtime_internal.h"
#include "fg_util.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ upload -- */

static VkDeviceSize pow2_floor(VkDeviceSize v) {
  VkDeviceSize p = 1;
  while (p <= v / 2) p <<= 1;
  return p;
}

fg_upload_ring *fg_rt_upload_ring(fg_rt *rt, char *err, size_t errlen) {
  pthread_mutex_lock(&rt->upload_lock);
  if (!rt->upload) {
    fg_upload_desc d = {0};
    d.size = rt->desc.upload_bytes ? rt->desc.upload_bytes : (4u << 20);
    d.segment_size = rt->desc.upload_segment;
    if (!d.segment_size) {
      VkDeviceSize s = pow2_floor(d.size / 16 ? d.size / 16 : 1);
      d.segment_size = s < 256 ? 256 : s > (256u << 10) ? (256u << 10) : s;
    }
    d.threads = rt->desc.upload_threads ? rt->desc.upload_threads : 1;
    char why[512];
    rt->upload = fg_upload_create(rt->dev, &d, why, sizeof why);
    if (!rt->upload) fg_errf(err, errlen, "creating the upload ring (%llu bytes) failed: %s",
                             (unsigned long long)d.size, why);
    else {
      rt->upload_size = (d.size / d.segment_size) * d.segment_size;
      rt->upload_segment = d.segment_size;
      rt->upload_threads = d.threads;
    }
  }
  fg_upload_ring *r = rt->upload;
  pthread_mutex_unlock(&rt->upload_lock);
  return r;
}

VkBuffer fg_rt_upload_buffer(const fg_rt *rt) { return rt->upload ? fg_upload_buffer(rt->upload) : VK_NULL_HANDLE; }
uint64_t fg_rt_upload_frame(const fg_rt *rt) { return rt->upload ? fg_upload_frame(rt->upload) : 0; }

VkDeviceSize fg_rt_upload_alignment(const fg_rt *rt) {
  const VkPhysicalDeviceLimits *l = &rt->dev->props.limits;
  VkDeviceSize a = 16;
  if (l->minStorageBufferOffsetAlignment > a) a = l->minStorageBufferOffsetAlignment;
  if (l->minUniformBufferOffsetAlignment > a) a = l->minUniformBufferOffsetAlignment;
  return a;
}

int fg_rt_upload(fg_rt *rt, uint32_t thread, VkDeviceSize size, VkDeviceSize align, fg_upload_span *span,
                 uint64_t *ring_frame, char *err, size_t errlen) {
  fg_upload_ring *r = fg_rt_upload_ring(rt, err, errlen);
  if (!r) return -1;
  if (!align) align = fg_rt_upload_alignment(rt);
  if (thread >= rt->upload_threads || !size || (align & (align - 1)) || align > rt->upload_segment) {
    fg_errf(err, errlen, "upload: need thread < %u, size > 0 and a power-of-two alignment <= %llu (got thread %u, "
            "size %llu, align %llu)", rt->upload_threads, (unsigned long long)rt->upload_segment, thread,
            (unsigned long long)size, (unsigned long long)align);
    return -1;
  }
  if (size > rt->upload_size) {
    fg_errf(err, errlen, "upload of %llu bytes does not fit the upload ring of %llu bytes; create the runtime "
            "with a larger upload_bytes", (unsigned long long)size, (unsigned long long)rt->upload_size);
    return -1;
  }
  char why[512];
  for (;;) {
    uint64_t f = fg_upload_frame(r);
    if (!fg_upload_alloc(r, thread, size, align, span, why, sizeof why)) {
      if (ring_frame) *ring_frame = f;
      return 0;
    }
    /* Full: wait for the oldest frame still on the GPU, if any, and retry.
     * Frames before f were submitted, so their values will be signalled. */
    fg_upload_stats st;
    fg_upload_stats_get(r, &st);
    if (st.completed + 1 >= f) break;
    if (fg_upload_wait(r, st.completed + 1, 10ull * 1000000000ull)) {
      fg_errf(err, errlen, "upload of %llu bytes failed: %s (the GPU did not finish an earlier frame within 10 s)",
              (unsigned long long)size, why);
      return -1;
    }
    atomic_fetch_add(&rt->upload_waits, 1);
  }
  fg_errf(err, errlen, "upload of %llu bytes failed: %s (this frame's uploads fill the ring of %llu bytes; "
          "create the runtime with a larger upload_bytes)", (unsigned long long)size, why,
          (unsigned long long)rt->upload_size);
  return -1;
}

void fg_rt_upload_stats(fg_rt *rt, fg_upload_stats *out, uint64_t *ring_bytes, uint64_t *in_flight_waits) {
  memset(out, 0, sizeof *out);
  if (rt->upload) fg_upload_stats_get(rt->upload, out);
  if (ring_bytes) *ring_bytes = rt->upload ? rt->upload_size : 0;
  if (in_flight_waits) *in_flight_waits = atomic_load(&rt->upload_waits);
}
