// SPDX-License-Identifier: Apache-2.0
// Internals of the Vulkan executor shared by the files of csrc/vulkan/ (not a public header).
//
// Vulkan comes from volk: core instance-level functions through volk's process-wide pointers
// (loader trampolines, the same for every instance), instance extension functions (debug utils)
// fetched per context, and device-level functions through the per-context VolkDeviceTable `vk`,
// so two contexts never overwrite each other's functions.
#ifndef PX_VULKAN_INTERNAL_H_
#define PX_VULKAN_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include <volk.h>

#include "px/pxstatus.h"
#include "px/pxvulkan.h"

// lane counts with a cached pipeline (specialization constant 0 = local_size_x)
#define PXV_NLANES 6

// entry points (shaders/<name>.comp): kinematics, forward, and the state checks, the integration
// and RK4 of the step phase, collision (kinematics and the driver's pair list, then the narrow
// phase's three routine families), sensors, the constraint stage (rows, then the primal or the
// dual solver)
enum {
  PXV_PHASE_KINEMATICS = 0,
  PXV_PHASE_FORWARD,
  PXV_PHASE_CHECK,
  PXV_PHASE_INTEGRATE,
  PXV_PHASE_RK4,
  PXV_PHASE_COLPAIRS,
  PXV_PHASE_COLPRIM,
  PXV_PHASE_COLCONVEX,
  PXV_PHASE_COLHFIELD,
  PXV_PHASE_SENSOR,
  PXV_PHASE_CONSTRAINT,
  PXV_PHASE_SOLPRIMAL,
  PXV_PHASE_SOLDUAL,
  PXV_PHASE_SENSORFULL,
  PXV_PHASE_SENSORDISTPRIM,  // shaders/sensor_distprim.comp: sensors with geom distances
  PXV_PHASE_SENSORDIST,      // shaders/sensor_dist.comp: the same with GJK/EPA, height fields
  PXV_NPHASE
};

// Check a VkResult: on failure record the result name, the call and the line in st (which
// must not be NULL), then jump to the function's `cleanup` label.
#define PXV_CHECK(st, call)                                                     \
  do {                                                                          \
    VkResult pxvr_ = (call);                                                    \
    if (pxvr_ != VK_SUCCESS) {                                                  \
      px_fail((st), PX_ERR_VULKAN, __func__, __LINE__, "%s returned %s", #call, \
              pxv_resultName(pxvr_));                                           \
      goto cleanup;                                                             \
    }                                                                           \
  } while (0)

// a compute pipeline over one SPIR-V module, with a 16-byte push constant and no descriptors
typedef struct {
  VkShaderModule module;
  VkPipelineLayout layout;
  VkPipeline pipeline;
} pxvPipeline;

// the worlds' buffer: a host-visible, host-coherent buffer, mapped (`map`: uploads and
// read-backs are memcpy); on a device whose host-visible memory is not device-local (a discrete
// GPU), the shaders work in a device-local twin (`device`), filled from the mapped one before the
// dispatches and copied back after them (pxv_bufferCreate); `address`: the buffer the shaders use
typedef struct {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkBuffer device;  // VK_NULL_HANDLE: the shaders use `buffer` itself
  VkDeviceMemory deviceMemory;
  VkDeviceSize size;
  VkDeviceAddress address;
  void* map;
} pxvBuffer;

struct pxvContext_ {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t queueFamily;
  VkCommandPool commandPool;
  struct VolkDeviceTable vk;  // device-level functions of `device`

  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory;
  int float64;     // shaderFloat64 enabled
  int validation;  // validation level in use

  int nmessage;       // validation warnings and errors so far
  char message[512];  // the last one
  char report[2048];  // device pick: one line per physical device

  pxvPipeline* pipelines[PXV_NPHASE][2][PXV_NLANES];  // [phase][fp64][log2 lanes], on first use
  pxvTiming timing;
};

// name of a VkResult ("VK_ERROR_DEVICE_LOST"), or "VkResult <n>"
const char* pxv_resultName(VkResult r);

// create a mapped buffer of `size` bytes usable through its device address
pxtStatus pxv_bufferCreate(pxvContext* ctx, VkDeviceSize size, pxvBuffer* out, pxStatus* st);

// destroy a buffer (zeroed or partially built is fine)
void pxv_bufferDestroy(pxvContext* ctx, pxvBuffer* b);

// create a compute pipeline from SPIR-V words with local_size_x = lanes
pxtStatus pxv_pipelineCreate(pxvContext* ctx, const uint32_t* code, size_t nbytes, int lanes,
                             pxvPipeline** out, pxStatus* st);

// destroy a pipeline (NULL is fine)
void pxv_pipelineDestroy(pxvContext* ctx, pxvPipeline* p);

// milliseconds of a monotonic clock
double pxv_now(void);

#endif  // PX_VULKAN_INTERNAL_H_
