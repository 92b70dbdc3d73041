#include <stdlib.h>
#include <string.h>
#include "join.h"

char *join(const char *a, const char *b, char sep) {
    char *out = malloc(strlen(a) + strlen(b));
    strcpy(out, a);
    strcat(out, b);
    (void)sep;
    return out;
}
