# Compiler flags shared by every Atoll target.
#
# Determinism: every translation unit that includes engine headers inlines
# engine math, so floating-point contraction is disabled project-wide, not
# only inside the engine. Fast-math is never enabled; we say so explicitly
# in case a toolchain default or an inherited CXXFLAGS tries to.
add_compile_options(-ffp-contract=off -fno-fast-math)

# Warnings for Atoll's own code (generated protobuf code opts out).
function(atoll_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -pedantic)
  if(ATOLL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
endfunction()
