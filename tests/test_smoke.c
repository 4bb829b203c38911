/* The core library links and its public header compiles. */
#include <stdio.h>
#include "fg_pack.h"
int main(void) { printf("ok\n"); return 0; }
