#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "join.h"

static int check(const char *a, const char *b, char sep, const char *want) {
    char *got = join(a, b, sep);
    int bad = strcmp(got, want) != 0;
    if (bad) printf("join(\"%s\", \"%s\", '%c') gave \"%s\", want \"%s\"\n", a, b, sep, got, want);
    free(got);
    return bad;
}

int main(void) {
    int bad = check("usr", "lib", '/', "usr/lib") + check("", "x", ',', ",x") + check("a", "", '-', "a-");
    if (!bad) puts("ok");
    return bad != 0;
}
