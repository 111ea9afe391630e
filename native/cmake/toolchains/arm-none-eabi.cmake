# Bare-metal Arm Cortex-M4F (Thumb-2, single-precision FPU, hard-float ABI) with
# Debian's gcc-arm-none-eabi and newlib-nano. Only the core, the selected kernels
# and the freestanding size probe are built for it (native/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(SB_CROSS_PREFIX arm-none-eabi-)
set(CMAKE_C_COMPILER ${SB_CROSS_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${SB_CROSS_PREFIX}g++)
find_program(CMAKE_AR ${SB_CROSS_PREFIX}ar)
find_program(CMAKE_RANLIB ${SB_CROSS_PREFIX}ranlib)
find_program(CMAKE_STRIP ${SB_CROSS_PREFIX}strip)
# Nothing links without a board's startup code and linker script: compiler checks build a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(SB_CORTEX_M_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${SB_CORTEX_M_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${SB_CORTEX_M_FLAGS}")
# newlib-nano, and nosys stubs for the system calls newlib references (no OS).
set(CMAKE_EXE_LINKER_FLAGS_INIT "${SB_CORTEX_M_FLAGS} --specs=nano.specs --specs=nosys.specs")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
