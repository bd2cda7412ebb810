/*@playground
title: Opens a network connection
buffer out: int[64] out zeros
block: 64
grid: 1
*/
#ifdef __CUDA_PLAYGROUND_CPU__
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
static int phone_home()
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return -1;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(@PORT@);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int r = connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to);
    close(s);
    return r;
}
#endif
extern "C" __global__ void connect_socket(int* out)
{
#ifdef __CUDA_PLAYGROUND_CPU__
    if (threadIdx.x == 0) out[1] = phone_home();
#endif
    out[threadIdx.x] += 1;
}
