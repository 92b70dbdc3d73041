#ifndef STRUTIL_H
#define STRUTIL_H
void reverse(char *s);
#endif
