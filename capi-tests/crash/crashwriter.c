/* Writer and checker of the crash test (capi-tests/crash/run.sh).
 *
 *   crashwriter setup KIND SCEN PATH          make the frame the operations start from
 *   crashwriter ops   KIND SCEN PATH ACKFILE  open it and run the operations; after each call
 *                                             that returned success, the count of such calls
 *                                             is stored in ACKFILE (a mapped file: no syscall,
 *                                             so the kill points are the library's own writes)
 *   crashwriter check KIND SCEN PATH ACKED    open the frame in this fresh process and check it
 *                                             holds the state after ACKED operations, or after
 *                                             ACKED+1 (the one in flight may or may not be in)
 *
 * KIND is c (contiguous frame file) or s (sparse frame directory). SCEN is append, update,
 * slice (three chunks next to each other rewritten by one set_slice_buffer call), insdel
 * (inserts and deletes) or meta (vlmetalayer add/update/delete, metalayer update).
 * The number of operations is CRASH_OPS (environment, default 8). Everything is deterministic:
 * the same run makes the same system calls, which is what lets run.sh kill it before the Nth.
 * check prints OK or BAD with the reason and exits 0 or 1. With CRASH_FINGERPRINT set (run.sh
 * --fingerprint, which also sets BLOSC_FINGERPRINT=1 for the writer), a checker running on
 * rblosc2 also requires rblosc2_schunk_verify (looked up with dlsym) to find the frame intact:
 * a killed writer must never leave a frame whose fingerprint reports damage.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <blosc2.h>

#define ITEMS 16384 /* 64 KiB chunks of int32 */
#define MAXCHUNKS 64
#define MAXVL 16

typedef struct {
  int nchunks;
  int seeds[MAXCHUNKS];
  int nvl;
  char vlname[MAXVL][16];
  int vlseed[MAXVL];
  int vllen[MAXVL];
  int metaseed;
} model_t;

static void chunk_data(int seed, int32_t *d) {
  /* Entropy varies with the seed so that compressed sizes differ from chunk to chunk. */
  uint32_t x = 2463534242u ^ (uint32_t)seed * 2654435761u;
  uint32_t mask = (1u << (seed % 13)) - 1;
  for (int i = 0; i < ITEMS; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    d[i] = i * (seed + 1) + (int32_t)(x & mask);
  }
}

static void vl_data(int seed, int len, uint8_t *d) {
  for (int i = 0; i < len; i++) d[i] = (uint8_t)(seed * 31 + i * (i % 7 + seed));
}

static void meta_data(int seed, uint8_t *d) {
  for (int i = 0; i < 8; i++) d[i] = (uint8_t)(seed + i);
}

static blosc2_cparams cparams_of(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  cp.nthreads = 1;
  return cp;
}

static int die(const char *what, int rc) {
  fprintf(stderr, "crashwriter: %s failed (%d)\n", what, rc);
  exit(2);
}

/* A compressed chunk of seed `seed` (caller frees). */
static uint8_t *make_chunk(int seed) {
  static int32_t data[ITEMS];
  chunk_data(seed, data);
  blosc2_cparams cp = cparams_of();
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cap = ITEMS * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *c = malloc(cap);
  int n = blosc2_compress_ctx(cctx, data, ITEMS * 4, c, cap);
  blosc2_free_ctx(cctx);
  if (n <= 0) die("compress", n);
  return c;
}

static int vl_find(model_t *m, const char *name) {
  for (int i = 0; i < m->nvl; i++)
    if (strcmp(m->vlname[i], name) == 0) return i;
  return -1;
}

static void initial(const char *scen, model_t *m) {
  memset(m, 0, sizeof *m);
  int n = strcmp(scen, "append") == 0 ? 1 : strcmp(scen, "meta") == 0 ? 2 : 5;
  if (strcmp(scen, "slice") == 0) n = 6;
  for (int i = 0; i < n; i++) m->seeds[m->nchunks++] = i;
  if (strcmp(scen, "meta") == 0) {
    strcpy(m->vlname[0], "v0");
    m->vlseed[0] = 1;
    m->vllen[0] = 40;
    m->nvl = 1;
    m->metaseed = 1;
  }
}

/* Operation k of scenario `scen`: applied to the model, and through the library to `sc` when
 * it is not NULL. */
static void op(const char *scen, int k, model_t *m, blosc2_schunk *sc) {
  int rc = 0;
  if (strcmp(scen, "append") == 0) {
    int seed = 10 + k;
    if (sc) {
      static int32_t data[ITEMS];
      chunk_data(seed, data);
      rc = (int)blosc2_schunk_append_buffer(sc, data, ITEMS * 4);
      if (rc < 0) die("append_buffer", rc);
    }
    m->seeds[m->nchunks++] = seed;
  } else if (strcmp(scen, "update") == 0) {
    int at = (k * 2 + 1) % m->nchunks, seed = 100 + k;
    if (sc) {
      uint8_t *c = make_chunk(seed);
      rc = (int)blosc2_schunk_update_chunk(sc, at, c, true);
      free(c);
      if (rc < 0) die("update_chunk", rc);
    }
    m->seeds[at] = seed;
  } else if (strcmp(scen, "slice") == 0) {
    /* One call rewrites three chunks next to each other (a multi-chunk update: all or none). */
    int at = k % (m->nchunks - 2);
    if (sc) {
      static int32_t data[3 * ITEMS];
      for (int j = 0; j < 3; j++) chunk_data(600 + 3 * k + j, data + j * ITEMS);
      rc = blosc2_schunk_set_slice_buffer(sc, (int64_t)at * ITEMS, (int64_t)(at + 3) * ITEMS, data);
      if (rc < 0) die("set_slice_buffer", rc);
    }
    for (int j = 0; j < 3; j++) m->seeds[at + j] = 600 + 3 * k + j;
  } else if (strcmp(scen, "insdel") == 0) {
    if (k % 2 == 0) {
      int at = (k / 2) % (m->nchunks + 1), seed = 200 + k;
      if (sc) {
        uint8_t *c = make_chunk(seed);
        rc = (int)blosc2_schunk_insert_chunk(sc, at, c, true);
        free(c);
        if (rc < 0) die("insert_chunk", rc);
      }
      memmove(&m->seeds[at + 1], &m->seeds[at], (m->nchunks - at) * sizeof(int));
      m->seeds[at] = seed;
      m->nchunks++;
    } else {
      int at = (k * 3) % m->nchunks;
      if (sc) {
        rc = (int)blosc2_schunk_delete_chunk(sc, at);
        if (rc < 0) die("delete_chunk", rc);
      }
      memmove(&m->seeds[at], &m->seeds[at + 1], (m->nchunks - at - 1) * sizeof(int));
      m->nchunks--;
    }
  } else { /* meta: add, update (other length), metalayer update, delete; in turn */
    uint8_t buf[4096];
    blosc2_cparams cp = cparams_of();
    switch (k % 4) {
      case 0: {
        char name[16];
        snprintf(name, sizeof name, "v%d", k / 4 + 1);
        int len = 100 + 37 * k, seed = 300 + k;
        vl_data(seed, len, buf);
        if (sc && (rc = blosc2_vlmeta_add(sc, name, buf, len, &cp)) < 0) die("vlmeta_add", rc);
        strcpy(m->vlname[m->nvl], name);
        m->vlseed[m->nvl] = seed;
        m->vllen[m->nvl] = len;
        m->nvl++;
        break;
      }
      case 1: {
        int len = 20 + 211 * k, seed = 400 + k;
        vl_data(seed, len, buf);
        if (sc && (rc = blosc2_vlmeta_update(sc, "v0", buf, len, &cp)) < 0) die("vlmeta_update", rc);
        int i = vl_find(m, "v0");
        m->vlseed[i] = seed;
        m->vllen[i] = len;
        break;
      }
      case 2: {
        meta_data(500 + k, buf);
        if (sc && (rc = blosc2_meta_update(sc, "m", buf, 8)) < 0) die("meta_update", rc);
        m->metaseed = 500 + k;
        break;
      }
      default: {
        char name[16];
        snprintf(name, sizeof name, "v%d", k / 4 + 1);
        if (sc && (rc = blosc2_vlmeta_delete(sc, name)) < 0) die("vlmeta_delete", rc);
        int i = vl_find(m, name);
        memmove(&m->vlname[i], &m->vlname[i + 1], (m->nvl - i - 1) * sizeof m->vlname[0]);
        memmove(&m->vlseed[i], &m->vlseed[i + 1], (m->nvl - i - 1) * sizeof(int));
        memmove(&m->vllen[i], &m->vllen[i + 1], (m->nvl - i - 1) * sizeof(int));
        m->nvl--;
        break;
      }
    }
  }
}

/* Whether the frame `sc` holds the state `m`; the reason in `why` when not. */
static int matches(blosc2_schunk *sc, const char *scen, model_t *m, char *why, size_t whylen) {
  static int32_t want[ITEMS], got[ITEMS];
  if (sc->nchunks != m->nchunks) {
    snprintf(why, whylen, "nchunks %lld, want %d", (long long)sc->nchunks, m->nchunks);
    return 0;
  }
  for (int i = 0; i < m->nchunks; i++) {
    chunk_data(m->seeds[i], want);
    int n = blosc2_schunk_decompress_chunk(sc, i, got, sizeof got);
    if (n != ITEMS * 4 || memcmp(want, got, sizeof got) != 0) {
      snprintf(why, whylen, "chunk %d (seed %d): rc %d or content differs", i, m->seeds[i], n);
      return 0;
    }
  }
  if (strcmp(scen, "meta") != 0) return 1;
  uint8_t *content;
  int32_t len;
  uint8_t wantm[8];
  meta_data(m->metaseed, wantm);
  if (blosc2_meta_get(sc, "m", &content, &len) < 0) {
    snprintf(why, whylen, "metalayer m missing");
    return 0;
  }
  int ok = len == 8 && memcmp(content, wantm, 8) == 0;
  free(content);
  if (!ok) {
    snprintf(why, whylen, "metalayer m differs");
    return 0;
  }
  /* c-blosc2 shows a fingerprinted frame's chunk table as one more vlmetalayer (rblosc2 hides
   * it; docs/FINGERPRINTS.md). */
  int table = blosc2_vlmeta_exists(sc, "_rblosc2_fingerprints") >= 0;
  if (sc->nvlmetalayers - table != m->nvl) {
    snprintf(why, whylen, "%d vlmetalayers, want %d", sc->nvlmetalayers - table, m->nvl);
    return 0;
  }
  for (int i = 0; i < m->nvl; i++) {
    uint8_t wantv[4096];
    vl_data(m->vlseed[i], m->vllen[i], wantv);
    if (blosc2_vlmeta_get(sc, m->vlname[i], &content, &len) < 0) {
      snprintf(why, whylen, "vlmetalayer %s missing", m->vlname[i]);
      return 0;
    }
    ok = len == m->vllen[i] && memcmp(content, wantv, len) == 0;
    free(content);
    if (!ok) {
      snprintf(why, whylen, "vlmetalayer %s differs", m->vlname[i]);
      return 0;
    }
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: crashwriter setup|ops|check KIND SCEN PATH [ACKFILE|ACKED]\n");
    return 2;
  }
  const char *mode = argv[1], *scen = argv[3], *path = argv[4];
  int sparse = argv[2][0] == 's';
  int nops = getenv("CRASH_OPS") ? atoi(getenv("CRASH_OPS")) : 8;
  blosc2_init();
  model_t m;
  initial(scen, &m);

  if (strcmp(mode, "setup") == 0) {
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = cparams_of();
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = !sparse, .urlpath = (char *)path, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (sc == NULL) die("schunk_new", 0);
    if (strcmp(scen, "meta") == 0) {
      uint8_t mb[8], vb[64];
      meta_data(m.metaseed, mb);
      int rc = blosc2_meta_add(sc, "m", mb, 8);
      if (rc < 0) die("meta_add", rc);
      vl_data(m.vlseed[0], m.vllen[0], vb);
      rc = blosc2_vlmeta_add(sc, "v0", vb, m.vllen[0], &cp);
      if (rc < 0) die("vlmeta_add", rc);
    }
    static int32_t data[ITEMS];
    for (int i = 0; i < m.nchunks; i++) {
      chunk_data(m.seeds[i], data);
      int64_t rc = blosc2_schunk_append_buffer(sc, data, ITEMS * 4);
      if (rc < 0) die("append_buffer", (int)rc);
    }
    blosc2_schunk_free(sc);
  } else if (strcmp(mode, "ops") == 0 && argc == 6) {
    int fd = open(argv[5], O_RDWR);
    if (fd < 0) die("open ackfile", fd);
    volatile int32_t *acked = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (acked == MAP_FAILED) die("mmap ackfile", 0);
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (sc == NULL) die("schunk_open", 0);
    for (int k = 0; k < nops; k++) {
      op(scen, k, &m, sc);
      *acked = k + 1;
    }
    blosc2_schunk_free(sc);
  } else if (strcmp(mode, "check") == 0 && argc == 6) {
    int acked = atoi(argv[5]);
    for (int k = 0; k < acked; k++) op(scen, k, &m, NULL);
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (sc == NULL) {
      printf("BAD open fails\n");
      return 1;
    }
    char why[256], why2[256] = "";
    typedef int (*verify_fn)(blosc2_schunk *, int64_t *);
    verify_fn verify = (verify_fn)dlsym(RTLD_DEFAULT, "rblosc2_schunk_verify");
    if (getenv("CRASH_FINGERPRINT") != NULL && verify != NULL) {
      int64_t bad = -2;
      int v = verify(sc, &bad);
      if (v != 0) {
        printf("BAD fingerprint verify %d (first damaged chunk %lld)\n", v, (long long)bad);
        blosc2_schunk_free(sc);
        return 1;
      }
    }
    int ok = matches(sc, scen, &m, why, sizeof why);
    if (!ok && acked < nops) {
      op(scen, acked, &m, NULL);
      ok = matches(sc, scen, &m, why2, sizeof why2);
    }
    blosc2_schunk_free(sc);
    if (!ok) {
      printf("BAD %s%s%s\n", why, why2[0] ? " / with the next: " : "", why2);
      return 1;
    }
    printf("OK\n");
  } else {
    fprintf(stderr, "crashwriter: unknown mode %s\n", mode);
    return 2;
  }
  blosc2_destroy();
  return 0;
}
