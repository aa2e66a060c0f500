// glibc's malloc tuning (mallopt) and malloc_trim, which the Glibc module does not export.
#include <malloc.h>
