#include <ctype.h>
#include "wc.h"

int count_words(const char *text) {
    int words = 0, inside = 0;
    for (const char *p = text; *p; p++) {
        if (isspace((unsigned char)*p)) {
            inside = 0;
        } else if (!inside) {
            inside = 1;
            words++;
        }
    }
    return words;
}
