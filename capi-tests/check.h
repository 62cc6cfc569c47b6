/* The C tests' check counter: CHECK(cond, fmt, ...) counts a check and prints a FAIL line with
 * the condition and the message when it does not hold; main() reports checks and failures. */
#ifndef RBLOSC2_CAPI_TESTS_CHECK_H
#define RBLOSC2_CAPI_TESTS_CHECK_H
#include <stdio.h>

static int checks = 0;
static int failures = 0;

#define CHECK(cond, ...)                             \
  do {                                               \
    checks++;                                        \
    if (!(cond)) {                                   \
      failures++;                                    \
      printf("FAIL line %d: %s: ", __LINE__, #cond); \
      printf(__VA_ARGS__);                           \
      printf("\n");                                  \
    }                                                \
  } while (0)

#endif
