#include <stdio.h>
#include <stdlib.h>
#include "b2nd.h"
int main(int argc,char**argv){
  blosc2_init(); b2nd_array_t*a; int rc=b2nd_open(argv[1],&a); if(rc<0){printf("open %d\n",rc);return 1;}
  printf("ndim %d typesize %d nchunks %lld dtype %s fmt %d\nshape",a->ndim,a->sc->typesize,(long long)a->sc->nchunks,a->dtype?a->dtype:"(null)",a->dtype_format);
  for(int i=0;i<a->ndim;i++)printf(" %lld",(long long)a->shape[i]); printf("\nchunk");
  for(int i=0;i<a->ndim;i++)printf(" %d",a->chunkshape[i]); printf("\nblock");
  for(int i=0;i<a->ndim;i++)printf(" %d",a->blockshape[i]); printf("\n");
  int64_t n=a->nitems*a->sc->typesize; uint8_t*b=malloc(n); rc=b2nd_to_cbuffer(a,b,n); printf("to_cbuffer %d nbytes %lld\n",rc,(long long)n);
  uint64_t h=1469598103934665603ULL; for(int64_t i=0;i<n;i++){h^=b[i];h*=1099511628211ULL;} printf("fnv1a64 %016llx\n",(unsigned long long)h);
  printf("nmeta %d:",a->sc->nmetalayers); for(int i=0;i<a->sc->nmetalayers;i++)printf(" %s",a->sc->metalayers[i]->name); printf("\nnvlmeta %d\n",a->sc->nvlmetalayers);
  if(argc>2){FILE*f=fopen(argv[2],"wb");fwrite(b,1,n,f);fclose(f);}
  return 0;}
