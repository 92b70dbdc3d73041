#include <stdlib.h>
#include <string.h>
#include "join.h"

char *join(const char *a, const char *b, char sep) {
    size_t la = strlen(a), lb = strlen(b);
    char *out = malloc(la + 1 + lb + 1);
    if (out == NULL) return NULL;
    memcpy(out, a, la);
    out[la] = sep;
    memcpy(out + la + 1, b, lb + 1);
    return out;
}
