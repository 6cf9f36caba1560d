# cmake/install.cmake: what `cmake --install` puts in place (included by the top-level
# CMakeLists.txt), and the package files that let others build against it:
#
#   include/softmx/        the C++ headers and softmx.h (the C API)
#   lib/libsoftmx.a        softmx::core (the C++ library; the C API's objects too)
#   lib/libsoftmx.so.<ABI> softmx::c (the C API and the C++ API, shared), with its links
#   softmx::exact          exact decimal and hex-float text: an interface target over the core
#                          (exact.cpp is in libsoftmx.a) that adds the Boost headers
#   bin/softmx             the command line
#   share/softmx/dpi/      softmx_dpi.sv and softmx_dpi.c: the SystemVerilog DPI-C package
#   lib/cmake/softmx/      softmxConfig.cmake & co.: find_package(softmx)
#   lib/pkgconfig/softmx.pc
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The targets' include directories, as a build and as an installed tree. The core's own
# target_include_directories name the source tree, which an installed package must not.
foreach(t softmx_core softmx_exact)
  set_property(TARGET ${t} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>;$<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_property(TARGET ${t} APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
endforeach()
set_target_properties(softmx_core PROPERTIES EXPORT_NAME core)
set_target_properties(softmx_exact PROPERTIES EXPORT_NAME exact)

set(SOFTMX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/softmx)
set(SOFTMX_INSTALL_DPIDIR ${CMAKE_INSTALL_DATADIR}/softmx/dpi)

# Installed programs find the installed lib folder without LD_LIBRARY_PATH: an rpath relative to
# their own place ($ORIGIN), so the tree can be moved (the softmx command links libsoftmx.a today;
# the rpath keeps it so should it link libsoftmx.so). A consumer's program gets its rpath from
# softmx.pc's Libs (below) or from CMake, which gives programs linked to softmx::c the library's
# folder: conformance/consumer/run.sh runs both without LD_LIBRARY_PATH.
file(RELATIVE_PATH SOFTMX_BIN_TO_LIB "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
set_target_properties(softmx PROPERTIES INSTALL_RPATH "$ORIGIN/${SOFTMX_BIN_TO_LIB}")
install(TARGETS softmx_core softmx_exact softmx_shared EXPORT softmxTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS softmx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `softmx report`'s renderer (matplotlib and jinja2; docs/REPORT.md): the CLI looks for it in
# ../share/softmx/ beside its own binary.
install(FILES ${PROJECT_SOURCE_DIR}/python/softmx/_report_render.py DESTINATION ${CMAKE_INSTALL_DATADIR}/softmx)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/softmx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
# softmx/version.hpp is generated (configure_file) into the build tree.
install(FILES ${PROJECT_BINARY_DIR}/include/softmx/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/softmx)
install(FILES ${PROJECT_SOURCE_DIR}/hdl/softmx_dpi.sv ${PROJECT_SOURCE_DIR}/hdl/softmx_dpi.c
  DESTINATION ${SOFTMX_INSTALL_DPIDIR})

install(EXPORT softmxTargets NAMESPACE softmx:: DESTINATION ${SOFTMX_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/softmxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/softmxConfig.cmake
  INSTALL_DESTINATION ${SOFTMX_INSTALL_CMAKEDIR}
  PATH_VARS SOFTMX_INSTALL_DPIDIR CMAKE_INSTALL_BINDIR)
# 0.x: a new minor version may change the C++ API; the C ABI has its own number (soname).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/softmxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/softmxConfig.cmake ${PROJECT_BINARY_DIR}/softmxConfigVersion.cmake
  DESTINATION ${SOFTMX_INSTALL_CMAKEDIR})

# pkg-config: relocatable (paths relative to the .pc file's own directory).
set(SOFTMX_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH SOFTMX_PC_TO_PREFIX "/prefix/${SOFTMX_PC_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" SOFTMX_PC_TO_PREFIX "${SOFTMX_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/softmx.pc.in ${PROJECT_BINARY_DIR}/softmx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/softmx.pc DESTINATION ${SOFTMX_PC_DIR})
