/* A tiny filter plugin in the shape c-blosc2 loads: libblosc2_rbtest_filter.so exporting `info`
 * naming its forward and backward functions (built by run.sh). */
#include <stdint.h>

typedef struct {
  char *forward;
  char *backward;
} filter_info;

/* A constant shift: it keeps runs, so the codec plugin still compresses after it. */
int rbtest_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, void *cparams,
                   uint8_t id) {
  (void)cparams;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + meta + id);
  return 0;
}

int rbtest_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                    void *dparams, uint8_t id) {
  (void)dparams;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - meta - id);
  return 0;
}

__attribute__((visibility("default"))) filter_info info = {"rbtest_forward", "rbtest_backward"};
