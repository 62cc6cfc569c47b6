/* Dumps the chunks c-blosc2 writes for a few b2nd arrays (from_cbuffer, then a partial
   set_slice_cbuffer), so the Rust tests can compare bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2nd.h"
static FILE *out;
static void w32(uint32_t v){fwrite(&v,4,1,out);}
static void run(int8_t ndim, const int64_t*shape, const int32_t*cs, const int32_t*bs, int ts,
                int codec, int clevel, const uint8_t*filters, const int64_t*sstart, const int64_t*sstop){
  blosc2_cparams cp=BLOSC2_CPARAMS_DEFAULTS; cp.typesize=ts; cp.compcode=codec; cp.clevel=clevel; cp.nthreads=1;
  memcpy(cp.filters,filters,6);
  blosc2_dparams dp=BLOSC2_DPARAMS_DEFAULTS; dp.nthreads=1;
  blosc2_storage st={.cparams=&cp,.dparams=&dp,.contiguous=false};
  b2nd_context_t*ctx=b2nd_create_ctx(&st,ndim,shape,cs,bs,NULL,0,NULL,0);
  int64_t n=1; for(int i=0;i<ndim;i++) n*=shape[i];
  uint8_t*buf=malloc(n*ts+1); for(int64_t k=0;k<n*ts;k++) buf[k]=(uint8_t)((k*31+k/7)%256);
  b2nd_array_t*a; if(b2nd_from_cbuffer(ctx,&a,buf,n*ts)<0){fprintf(stderr,"from_cbuffer\n");exit(1);}
  int64_t m=1, bshape[16]; for(int i=0;i<ndim;i++){bshape[i]=sstop[i]-sstart[i]; m*=bshape[i];}
  uint8_t*s=malloc(m*ts+1); for(int64_t k=0;k<m*ts;k++) s[k]=(uint8_t)((k*13+5)%256);
  if(b2nd_set_slice_cbuffer(s,bshape,m*ts,sstart,sstop,a)<0){fprintf(stderr,"set\n");exit(1);}
  w32((uint32_t)a->sc->nchunks);
  for(int64_t i=0;i<a->sc->nchunks;i++){uint8_t*c; bool nf; int cb=blosc2_schunk_get_chunk(a->sc,i,&c,&nf); w32(cb); fwrite(c,1,cb,out); if(nf)free(c);}
  b2nd_free(a); b2nd_free_ctx(ctx); free(buf); free(s);
}
int main(void){
  blosc2_init(); out=fopen("b2nd_reference_chunks.bin","wb");
  uint8_t f_sh[6]={0,0,0,0,0,BLOSC_SHUFFLE}, f_bit[6]={0,0,0,0,0,BLOSC_BITSHUFFLE}, f_delta[6]={0,0,0,0,BLOSC_DELTA,BLOSC_SHUFFLE};
  { int64_t sh[2]={10,7}; int32_t c[2]={4,5}, b[2]={2,3}; int64_t s0[2]={1,2}, s1[2]={9,6};
    run(2,sh,c,b,4,BLOSC_BLOSCLZ,5,f_sh,s0,s1); }
  { int64_t sh[3]={5,6,7}; int32_t c[3]={3,4,5}, b[3]={2,2,2}; int64_t s0[3]={0,1,1}, s1[3]={5,6,3};
    run(3,sh,c,b,2,BLOSC_LZ4,9,f_bit,s0,s1); }
  { int64_t sh[1]={100}; int32_t c[1]={30}, b[1]={7}; int64_t s0[1]={25}, s1[1]={95};
    run(1,sh,c,b,8,BLOSC_BLOSCLZ,9,f_delta,s0,s1); }
  { int64_t sh[1]={0}; int32_t c[1]={0}, b[1]={0}; int64_t s0[1]={0}, s1[1]={0};
    run(0,sh,c,b,8,BLOSC_ZSTD,3,f_sh,s0,s1); }
  { /* zeros, then insert rows at a chunk boundary, delete whole leading columns, append columns */
    blosc2_cparams cp=BLOSC2_CPARAMS_DEFAULTS; cp.typesize=4; cp.nthreads=1;
    blosc2_dparams dp=BLOSC2_DPARAMS_DEFAULTS; dp.nthreads=1;
    blosc2_storage st={.cparams=&cp,.dparams=&dp,.contiguous=false};
    int64_t sh[2]={10,7}; int32_t c[2]={4,5}, b[2]={2,3};
    b2nd_context_t*ctx=b2nd_create_ctx(&st,2,sh,c,b,NULL,0,NULL,0);
    b2nd_array_t*a; b2nd_zeros(ctx,&a);
    uint8_t ins[4*7*4]; for(int k=0;k<(int)sizeof ins;k++) ins[k]=(uint8_t)(k*7+1);
    if(b2nd_insert(a,ins,sizeof ins,0,4)<0){fprintf(stderr,"insert\n");exit(1);}
    if(b2nd_delete(a,1,0,5)<0){fprintf(stderr,"delete\n");exit(1);}
    uint8_t app[14*3*4]; for(int k=0;k<(int)sizeof app;k++) app[k]=(uint8_t)(k*5+3);
    if(b2nd_append(a,app,sizeof app,1)<0){fprintf(stderr,"append\n");exit(1);}
    fprintf(stderr,"shape %lld %lld\n",(long long)a->shape[0],(long long)a->shape[1]);
    w32((uint32_t)a->sc->nchunks);
    for(int64_t i=0;i<a->sc->nchunks;i++){uint8_t*ch; bool nf; int cb=blosc2_schunk_get_chunk(a->sc,i,&ch,&nf); w32(cb); fwrite(ch,1,cb,out); if(nf)free(ch);}
  }
  fclose(out); return 0;
}
