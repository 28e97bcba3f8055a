# CMake toolchain for the aarch64 cross build of scripts/test-arm64.sh (Debian 12 multiarch:
# g++-aarch64-linux-gnu, the arm64 libraries in /usr/lib/aarch64-linux-gnu, qemu-user-static).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# No -L: the loader and libc must be the same build (multiarch libc6:arm64); qemu -L
# /usr/aarch64-linux-gnu mixes the cross ld.so with the multiarch libc.so.6, and
# pthread_create then loops forever on a mis-laid stack cache.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
# Programs are the host's; libraries must be arm64 (multiarch puts them in /usr/lib/aarch64-linux-gnu,
# the cross toolchain's own in /usr/aarch64-linux-gnu); headers and CMake package files are shared.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config (FindOpenSSL asks it first) must read the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
