// librung.so's own translation unit: the library is rung_capi and rung_api taken whole
// (src/capi/CMakeLists.txt); this file only gives the target a source.
#include "rung.h"
#include "rung/rung.hpp"
