#ifndef JOIN_H
#define JOIN_H
char *join(const char *a, const char *b, char sep);
#endif
