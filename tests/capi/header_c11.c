/* include/rung.h and include/rung/dlpack.h compile as C11 with the build's warnings as
   errors (-Wall -Wextra -Wpedantic -Werror); dlpack.h's _Static_asserts pin its layout. The
   gtest calls this C function, so a C caller's view of the table is checked too. */
#include <stddef.h>

#include "rung.h"

size_t rung_capi_test_c_table_size(void);
size_t rung_capi_test_c_table_size(void) { return sizeof(RungApi); }

uint32_t rung_capi_test_c_version(void);
uint32_t rung_capi_test_c_version(void) {
  const RungApi* api = rung_get_api(RUNG_API_VERSION);
  return api && api->StatusCode(NULL) == RUNG_OK ? (uint32_t)RUNG_API_VERSION : 0u;
}
