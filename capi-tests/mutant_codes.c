/* Error codes of c-blosc2 3.3.5 on the mutants of tests/chunk_mutation.rs, beside ours.
 *
 *   mkdir /tmp/mutants && CHUNK_MUTANTS=40 CHUNK_MUTANTS_DUMP=/tmp/mutants \
 *     cargo test --release --test chunk_mutation mutated
 *   REF=$(capi-tests/get-reference.sh)
 *   cc -O1 -I$REF/include capi-tests/mutant_codes.c -L$REF/lib -lblosc2 -Wl,-rpath,$REF/lib \
 *     -o /tmp/mutant_codes && /tmp/mutant_codes /tmp/mutants | awk '$2 != $3'
 *
 * Each dumped file NNNNNN_<nbytes>_<ours> holds one mutant and what our core's decompress into
 * nbytes bytes returned. Each is decompressed by the reference with blosc2_decompress_ctx in a
 * child process (the reference may crash on corrupt input) and a line "name ours reference" is
 * printed ("CRASH<signal>" when the child dies).
 */
#include <blosc2.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DUMP_DIR\n", argv[0]);
    return 2;
  }
  blosc2_init();
  DIR *d = opendir(argv[1]);
  if (d == NULL) {
    perror(argv[1]);
    return 2;
  }
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    long nbytes; long ours;
    if (sscanf(e->d_name, "%*d_%ld_%ld", &nbytes, &ours) != 2) continue;
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(path, "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *c = malloc(n + 1); if (fread(c, 1, n, f) != (size_t)n) return 2; fclose(f);
    int pfd[2]; if (pipe(pfd)) return 3;
    pid_t pid = fork();
    if (pid == 0) {
      unsigned char *o = malloc(nbytes + 1);
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_context *ctx = blosc2_create_dctx(dp);
      int rc = blosc2_decompress_ctx(ctx, c, (int32_t)n, o, (int32_t)nbytes);
      if (write(pfd[1], &rc, sizeof rc) != sizeof rc) _exit(1);
      _exit(0);
    }
    close(pfd[1]);
    int rc; ssize_t got = read(pfd[0], &rc, sizeof rc); close(pfd[0]);
    int st; waitpid(pid, &st, 0);
    if (got == sizeof rc) printf("%s %ld %d\n", e->d_name, ours, rc);
    else printf("%s %ld CRASH%d\n", e->d_name, ours, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    free(c);
  }
  return 0;
}
