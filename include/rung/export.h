// What librung.so exports: everything else in the library is hidden (the build sets
// -fvisibility=hidden), so only the declarations marked RUNG_API are callable from outside.
#pragma once

#define RUNG_API __attribute__((visibility("default")))
