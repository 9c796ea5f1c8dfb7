// Exposes the system zlib (deflate/inflate with gzip framing) to Swift.
#include <zlib.h>
