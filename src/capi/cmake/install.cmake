# `cmake --install BUILD --prefix PREFIX` (docs/api-c.md, "Installing"): the headers, librung.so,
# the CMake package (find_package(rung CONFIG): imported target rung::rung) and pkg-config's
# rung.pc. The rung CLI is installed by the root CMakeLists.txt, after tools/rung.
include(CMakePackageConfigHelpers)

install(TARGETS rung_shared EXPORT rungTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# include/rung.h and include/rung/ (the C++ API, export.h, dlpack.h).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(rung_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/rung)
install(EXPORT rungTargets NAMESPACE rung:: DESTINATION ${rung_cmake_dir} FILE rungTargets.cmake)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/rungConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/rungConfig.cmake
                              INSTALL_DESTINATION ${rung_cmake_dir})
# 0.x: a new minor version may change the C++ API (the C ABI keeps its table: rung_get_api).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/rungConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rungConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/rungConfigVersion.cmake
        DESTINATION ${rung_cmake_dir})

# rung.pc finds its prefix from where it lies (${pcfiledir}), so an installed tree can move.
file(RELATIVE_PATH rung_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" rung_pc_to_prefix "${rung_pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/rung.pc.in ${CMAKE_CURRENT_BINARY_DIR}/rung.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rung.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
