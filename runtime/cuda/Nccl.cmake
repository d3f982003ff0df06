# libpipewave_nccl: the NCCL transport of the runtime's NCCL backend, a
# shared library with a C ABI (pipewave-cuda/nccl_backend.h) that the runtime
# finds at run time, so that CPU binaries link no CUDA or NCCL library.
# Included from CMakeLists.txt once the CUDA toolkit is found; built only
# when NCCL is found too. Compiles and links here; it has not run on a GPU.
if(NOT TARGET pipewave::nccl)
  message(STATUS "pipewave: NCCL not found, not building libpipewave_nccl")
  set(PIPEWAVE_HAVE_NCCL OFF CACHE INTERNAL "libpipewave_nccl is built")
  return()
endif()
find_package(Threads REQUIRED)
add_library(pipewave_nccl SHARED lib/NcclTransport.cpp)
set_target_properties(pipewave_nccl PROPERTIES
  CXX_STANDARD 17
  CXX_STANDARD_REQUIRED ON
  CXX_EXTENSIONS OFF
  OUTPUT_NAME pipewave_nccl
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  )
target_compile_options(pipewave_nccl PRIVATE -fexceptions)
target_include_directories(pipewave_nccl PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/include
  ${PROJECT_SOURCE_DIR}/runtime/include)
# Every symbol resolved at link time: the library must load by itself.
target_link_options(pipewave_nccl PRIVATE -Wl,--no-undefined)
target_link_libraries(pipewave_nccl PRIVATE CUDA::cudart pipewave::nccl
  Threads::Threads)
set(PIPEWAVE_HAVE_NCCL ON CACHE INTERNAL "libpipewave_nccl is built")
