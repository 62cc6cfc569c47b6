/* The operations of examples/b2nd_bench.rs through c-blosc2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "b2nd.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(void){
  blosc2_init(); int64_t n=2000; double*d=malloc(n*n*8);
  for(int64_t i=0;i<n*n;i++) d[i]=sin((double)(i/n)*0.01)+(double)(i%n)*0.001;
  blosc2_cparams cp=BLOSC2_CPARAMS_DEFAULTS; cp.typesize=8; cp.nthreads=1;
  blosc2_dparams dp=BLOSC2_DPARAMS_DEFAULTS; dp.nthreads=1;
  blosc2_storage st={.cparams=&cp,.dparams=&dp};
  int64_t shape[2]={n,n}; int32_t cs[2]={500,500}, bs[2]={100,100};
  b2nd_context_t*ctx=b2nd_create_ctx(&st,2,shape,cs,bs,NULL,0,NULL,0);
  b2nd_array_t*a; double t=now(); b2nd_from_cbuffer(ctx,&a,d,n*n*8); printf("from_cbuffer   %8.2f ms\n",now()-t);
  double*o=malloc(n*n*8); t=now(); b2nd_to_cbuffer(a,o,n*n*8); printf("to_cbuffer     %8.2f ms\n",now()-t);
  if(memcmp(o,d,n*n*8)) printf("MISMATCH\n");
  uint8_t*buf=malloc(100*2000*8); int64_t bsh[2]={100,2000};
  t=now(); for(int k=0;k<10;k++){int64_t s0[2]={k*150,0},s1[2]={k*150+100,2000}; b2nd_get_slice_cbuffer(a,s0,s1,buf,bsh,100*2000*8);} printf("get rows x10   %8.2f ms\n",now()-t);
  uint8_t small[800]; int64_t ssh[2]={10,10};
  t=now(); for(int k=0;k<1000;k++){int64_t r=(k*37)%1990,c=(k*91)%1990; int64_t s0[2]={r,c},s1[2]={r+10,c+10}; b2nd_get_slice_cbuffer(a,s0,s1,small,ssh,800);} printf("get 10x10 x1000 %7.2f ms\n",now()-t);
  t=now(); for(int k=0;k<10;k++){int64_t s0[2]={k*150+7,0},s1[2]={k*150+107,2000}; b2nd_set_slice_cbuffer(buf,bsh,100*2000*8,s0,s1,a);} printf("set rows x10   %8.2f ms\n",now()-t);
  return 0;}
