/* ZFP codecs (33, 34, 35) through b2nd_from_cbuffer in every split mode (issue 21 G): with
 * BLOSC_ALWAYS_SPLIT c-blosc2 stores each chunk uncompressed; the others code it. Also prints
 * the super-chunk cbytes after from_cbuffer, which counts the 32-byte header-only chunks of
 * b2nd_empty that the data chunks replaced (c-blosc2 does not take them off). Prints what it
 * observes; run side by side with the reference. */
#include <stdio.h>
#include <stdlib.h>
#include "b2nd.h"
int main(void) {
  blosc2_init();
  int codecs[3] = {33, 34, 35}; int metas[3] = {-10, 20, 20};
  for (int k = 0; k < 3; k++) for (int split = 1; split <= 4; split++) {
    int64_t shape[2] = {200, 300}; int32_t cs[2] = {100, 150}; int32_t bs[2] = {50, 50};
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 8; cp.compcode = codecs[k]; cp.compcode_meta = metas[k]; cp.splitmode = split;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = 0; cp.nthreads = 1;
    blosc2_storage st = {.contiguous = false, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, "<f8", 0, NULL, 0);
    double *d = malloc(60000 * 8); for (int i = 0; i < 60000; i++) d[i] = i * 0.5;
    b2nd_array_t *a; int rc = b2nd_from_cbuffer(ctx, &a, d, 60000 * 8);
    printf("codec %d split %d: from_cbuffer %d", codecs[k], split, rc);
    if (rc == 0) {
      uint8_t *c; bool nf; int cb = blosc2_schunk_get_chunk(a->sc, 0, &c, &nf);
      printf(" cbytes=%lld chunk0=%d flags=%02x", (long long)a->sc->cbytes, cb, c[2]);
      double *o = malloc(60000 * 8); rc = b2nd_to_cbuffer(a, o, 60000 * 8); printf(" to_cbuffer %d o[123]=%g", rc, o[123]); free(o);
      if (nf) free(c);
      b2nd_free(a);
    }
    printf("\n");
    b2nd_free_ctx(ctx); free(d);
  }
  return 0;
}
