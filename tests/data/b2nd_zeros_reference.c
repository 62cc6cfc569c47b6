/* A b2nd zeros array in a contiguous in-memory frame, serialised (tests/b2nd_frames.rs). */
#include <stdio.h>
#include "b2nd.h"
int main(void){ blosc2_init();
  blosc2_cparams cp=BLOSC2_CPARAMS_DEFAULTS; cp.typesize=4; cp.nthreads=1;
  blosc2_dparams dp=BLOSC2_DPARAMS_DEFAULTS; dp.nthreads=1;
  blosc2_storage st={.cparams=&cp,.dparams=&dp,.contiguous=true};
  int64_t sh[2]={13,9}; int32_t c[2]={5,4}, b[2]={2,3};
  b2nd_context_t*ctx=b2nd_create_ctx(&st,2,sh,c,b,"<i4",0,NULL,0); b2nd_array_t*a; b2nd_zeros(ctx,&a);
  uint8_t*cf; int64_t len; bool nf; b2nd_to_cframe(a,&cf,&len,&nf);
  FILE*f=fopen("b2nd_zeros_reference.b2frame","wb"); fwrite(cf,1,len,f); fclose(f); printf("len %lld\n",(long long)len); return 0;}
