/*@playground
title: Embeds a file with the assembler
buffer out: uchar[64] out zeros
block: 1
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
// `asm` spelled through macro pasting, so no scan of the source sees it.
#define PASTE(a, b) a##b
#define ASSEMBLE PASTE(as, m)
ASSEMBLE(".section .rodata\n.global cp_stolen\ncp_stolen:\n.incbin \"@DIR@/home/secret.txt\"\n.byte 0\n.previous\n");
extern "C" const char cp_stolen[];
#endif
extern "C" __global__ void incbin(unsigned char* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    for (int i = 0; i < 63 && cp_stolen[i]; ++i) out[i] = cp_stolen[i];
#endif
}
