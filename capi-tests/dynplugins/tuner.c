/* A tiny tuner plugin in the shape c-blosc2 loads: libblosc2_rbtest_tuner.so exporting `info`,
 * a tuner_info naming its five functions (built by run.sh; -DBROKEN_INFO names one it lacks).
 * It prints each call it gets (the output is compared between the libraries) and touches
 * nothing in the context it receives (c-blosc2's private struct, whose layout is not public). */
#include <stdio.h>

typedef struct {
  char *init;
  char *next_blocksize;
  char *next_cparams;
  char *update;
  char *free;
} tuner_info;

int rbtest_tuner_init(void *config, void *cctx, void *dctx) {
  printf("  tuner plugin: init(config %s, cctx %s, dctx %s)\n", config ? "set" : "NULL",
         cctx ? "set" : "NULL", dctx ? "set" : "NULL");
  return config != NULL && *(int *)config < 0 ? -1 : 0;
}

int rbtest_tuner_next_blocksize(void *ctx) {
  printf("  tuner plugin: next_blocksize(ctx %s)\n", ctx ? "set" : "NULL");
  return 0;
}

int rbtest_tuner_next_cparams(void *ctx) {
  printf("  tuner plugin: next_cparams(ctx %s)\n", ctx ? "set" : "NULL");
  return 0;
}

int rbtest_tuner_update(void *ctx, double ctime) {
  (void)ctime;
  printf("  tuner plugin: update(ctx %s)\n", ctx ? "set" : "NULL");
  return 0;
}

int rbtest_tuner_free(void *ctx) {
  printf("  tuner plugin: free(ctx %s)\n", ctx ? "set" : "NULL");
  return 0;
}

__attribute__((visibility("default"))) tuner_info info = {
    "rbtest_tuner_init", "rbtest_tuner_next_blocksize",
#ifdef BROKEN_INFO
    "rbtest_tuner_no_such_function",
#else
    "rbtest_tuner_next_cparams",
#endif
    "rbtest_tuner_update", "rbtest_tuner_free"};
