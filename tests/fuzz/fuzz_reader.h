/* Byte reader for the fuzz targets' structured decoders: reads past the end
 * give 0, so every input decodes to some instance. */
#ifndef FUZZ_READER_H
#define FUZZ_READER_H
#include <stddef.h>
#include <stdint.h>
typedef struct fz_reader { const uint8_t *data; size_t size, pos; } fz_reader;
static inline uint8_t fz_u8(fz_reader *r) { return r->pos < r->size ? r->data[r->pos++] : 0; }
static inline int fz_left(const fz_reader *r) { return r->pos < r->size; }
#endif
