/* blosc2_getitem_ctx (and blosc2_decompress_ctx, blosc2_getitem) with a decompression
   postfilter on every kind of chunk: regular, memcpyed (clevel 0) and the special-value ones
   (zeros, NaN, a repeated value, uninitialised); c-blosc2 applies the postfilter to each.
   Then special-value chunks whose header typesize was rewritten (4 -> 1, 2, 3, 8, 16), and a
   repeated-value chunk with its cbytes, typesize and nbytes rewritten: what getitem and
   decompression return.

   Output is compared line by line with the reference's. */
#include <blosc2.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "helpers.h"

#define NITEMS 1000

static int32_t data[NITEMS];
static int32_t out[NITEMS];
static int calls;

static uint32_t sum(const void *p, size_t n) {
  const uint8_t *b = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}

/* out = in + 1000 + the item's index in the chunk, int32 items. */
static int add_index(blosc2_postfilter_params *p) {
  calls++;
  const int32_t *in = (const int32_t *)p->input;
  int32_t *o = (int32_t *)p->output;
  for (int32_t i = 0; i < p->size / 4; i++) o[i] = in[i] + 1000 + (p->offset / 4 + i);
  return 0;
}

static void with_postfilter(const char *name, const uint8_t *chunk, int csize) {
  blosc2_postfilter_params pp = {0};
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.postfilter = add_index;
  dp.postparams = &pp;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t items[5];
  int starts[] = {0, 7, 300, 995};
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
    memset(items, 0, sizeof items);
    calls = 0;
    int rc = blosc2_getitem_ctx(dctx, chunk, csize, starts[i], 5, items, sizeof items);
    printf("%s: getitem_ctx(%d, 5) %d postfilter %s: %d %d %d %d %d\n", name, starts[i], rc,
           calls ? "called" : "not called", items[0], items[1], items[2], items[3], items[4]);
  }
  memset(out, 0, sizeof out);
  calls = 0;
  int rc = blosc2_decompress_ctx(dctx, chunk, csize, out, sizeof out);
  printf("%s: decompress_ctx %d postfilter %s: %d %d .. %d (%08x)\n", name, rc,
         calls ? "called" : "not called", out[0], out[1], out[NITEMS - 1],
         (unsigned)sum(out, sizeof out));
  blosc2_free_ctx(dctx);
}

static void retyped(const char *name, const uint8_t *chunk, int csize) {
  static const int typesizes[] = {1, 2, 3, 4, 8, 16};
  uint8_t work[64];
  memcpy(work, chunk, (size_t)csize);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++) {
    work[3] = (uint8_t)typesizes[t];
    uint8_t items[64];
    memset(items, 0xa5, sizeof items);
    int g = blosc2_getitem_ctx(dctx, work, csize, 1, 2, items, sizeof items);
    uint32_t gsum = sum(items, sizeof items);
    int g2 = blosc2_getitem(work, csize, 1, 2, items, sizeof items);
    memset(out, 0xa5, sizeof out);
    int d = blosc2_decompress_ctx(dctx, work, csize, out, sizeof out);
    printf("%s typesize %d: getitem_ctx %d (%08x) getitem %d decompress_ctx %d (%08x)\n", name,
           typesizes[t], g, (unsigned)gsum, g2, d, (unsigned)sum(out, sizeof out));
  }
  blosc2_free_ctx(dctx);
}

/* A repeated-value chunk with its cbytes (the value's length), typesize and nbytes rewritten:
   c-blosc2 repeats the cbytes - 32 bytes after the header, whatever the typesize says. */
static void value_matrix(const uint8_t *chunk) {
  static const int cbs[] = {32, 33, 34, 35, 36, 37, 40, 48};
  static const int tss[] = {1, 2, 3, 4, 5, 8};
  static const int nbs[] = {4000, 3999, 4002, 3996};
  uint8_t w[128], o[4096];
  for (size_t a = 0; a < sizeof cbs / sizeof cbs[0]; a++) {
    for (size_t b = 0; b < sizeof tss / sizeof tss[0]; b++) {
      for (size_t c = 0; c < sizeof nbs / sizeof nbs[0]; c++) {
        memcpy(w, chunk, 36);
        for (int i = 36; i < 128; i++) w[i] = (uint8_t)(0x40 + i);
        memcpy(w + 12, &cbs[a], 4);
        w[3] = (uint8_t)tss[b];
        memcpy(w + 4, &nbs[c], 4);
        memset(o, 0xa5, sizeof o);
        int d = blosc2_decompress(w, cbs[a], o, sizeof o);
        uint32_t ds = sum(o, sizeof o);
        memset(o, 0xa5, sizeof o);
        int g = blosc2_getitem(w, cbs[a], 0, 1, o, sizeof o);
        uint32_t gs = sum(o, 16);
        int g3 = blosc2_getitem(w, cbs[a], 1, 3, o, sizeof o);
        printf("value cbytes %d typesize %d nbytes %d: decompress %d %08x getitem(0,1) %d %08x "
               "getitem(1,3) %d %08x\n",
               cbs[a], tss[b], nbs[c], d, (unsigned)ds, g, (unsigned)gs, g3,
               (unsigned)sum(o, 16));
      }
    }
  }
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < NITEMS; i++) data[i] = i * 7;
  static uint8_t chunks[6][sizeof data + BLOSC2_MAX_OVERHEAD];
  int sizes[6];
  const char *names[6] = {"regular", "memcpyed", "zeros", "nans", "value", "uninit"};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 1024;
  sample_chunks(&cp, data, sizeof data, chunks[0], sizeof chunks[0], sizes);
  sizes[3] = blosc2_chunk_nans(cp, sizeof data, chunks[3], sizeof chunks[3]);
  int32_t value = 0x01020304;
  sizes[4] = blosc2_chunk_repeatval(cp, sizeof data, chunks[4], sizeof chunks[4], &value);
  sizes[5] = blosc2_chunk_uninit(cp, sizeof data, chunks[5], sizeof chunks[5]);
  for (int k = 0; k < 6; k++) CHECK(sizes[k] > 0, "%s: %d", names[k], sizes[k]);

  for (int k = 0; k < 6; k++) {
    if (k == 5) continue; /* uninit: the postfilter would read undefined bytes */
    with_postfilter(names[k], chunks[k], sizes[k]);
  }
  for (int k = 2; k < 6; k++) retyped(names[k], chunks[k], sizes[k]);
  value_matrix(chunks[4]);

  blosc2_destroy();
  printf("getitem_edges: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
