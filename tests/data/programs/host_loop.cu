// The host code never ends.
#include <cstdio>

int main() {
    volatile unsigned long spins = 0;
    printf("spinning\n");
    fflush(stdout);
    while (spins != 1) spins = spins + 2;
    return 0;
}
