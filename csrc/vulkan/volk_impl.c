// SPDX-License-Identifier: Apache-2.0
// volk, the run-time Vulkan loader, compiled into phalanx (Debian's libvulkan-volk-dev ships it
// as source). Its function pointers have hidden visibility, so they never clash with another
// copy of volk in the same process.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wcast-function-type"
#endif

#include <volk.c>

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
