// SPDX-License-Identifier: Apache-2.0
// Buffers: create, allocate, bind and map, with a device address for the shaders.
//
// The worlds' buffer is host-visible and host-coherent (cached where the device offers it, for
// fast read-back), so uploads and read-backs are plain memcpy. On lavapipe all memory is host
// memory and the shaders use that buffer. Where the memory that buffer got is not device-local
// but the device has device-local memory (a discrete GPU) the shaders would read it over PCIe:
// there a device-local twin is allocated, and the executor records a copy into it before the
// dispatches and a copy back after them (kinematics_gpu.c, execute). PX_VULKAN_STAGING=1 asks for
// the twin on any device (the tests use it on lavapipe), PX_VULKAN_STAGING=0 never.
#include <stdlib.h>
#include <string.h>

#include "px/pxvulkan.h"
#include "vulkan/internal.h"

// index of a memory type allowed by `bits` with all of `want`, or -1
static int findMemoryType(const VkPhysicalDeviceMemoryProperties* mp, uint32_t bits,
                          VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
    if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want) return (int)i;
  }
  return -1;
}

// a buffer with `usage` and device addresses, in the first memory type with all of `want` (else
// of `fallback`); *type: the type's index
static pxtStatus allocBuffer(pxvContext* ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                             VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback,
                             VkBuffer* buffer, VkDeviceMemory* memory, int* type, pxStatus* st) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  VkMemoryRequirements req;
  VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  PXV_CHECK(st, ctx->vk.vkCreateBuffer(ctx->device, &bci, NULL, buffer));
  ctx->vk.vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
  *type = findMemoryType(&ctx->memory, req.memoryTypeBits, want);
  if (*type < 0) *type = findMemoryType(&ctx->memory, req.memoryTypeBits, fallback);
  if (*type < 0) {
    PX_FAIL(
        st, PX_ERR_VULKAN, "%s has no %s memory for storage buffers", ctx->properties.deviceName,
        (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ? "host-visible coherent" : "device-local");
    goto cleanup;
  }
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = (uint32_t)*type;
  PXV_CHECK(st, ctx->vk.vkAllocateMemory(ctx->device, &mai, NULL, memory));
  PXV_CHECK(st, ctx->vk.vkBindBufferMemory(ctx->device, *buffer, *memory, 0));
cleanup:
  return st->code;
}

// whether the shaders get a device-local twin of the mapped buffer (in memory type `mapped`):
// where that memory is not device-local but the device has device-local memory (or as
// PX_VULKAN_STAGING says)
static int wantTwin(const pxvContext* ctx, int mapped) {
  const char* knob = getenv("PX_VULKAN_STAGING");
  if (knob && (knob[0] == '0' || knob[0] == '1') && knob[1] == 0) return knob[0] == '1';
  const VkPhysicalDeviceMemoryProperties* mp = &ctx->memory;
  if (mp->memoryTypes[mapped].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return 0;
  for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
    if (mp->memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return 1;
  }
  return 0;
}

pxtStatus pxv_bufferCreate(pxvContext* ctx, VkDeviceSize size, pxvBuffer* out, pxStatus* st) {
  VkBufferDeviceAddressInfo bdai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  const VkMemoryPropertyFlags coherent =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkBufferUsageFlags usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  int mapped = -1, twinType = -1;

  memset(out, 0, sizeof(*out));
  // the mapped buffer: host-visible and coherent, cached when possible
  if (allocBuffer(ctx, size, usage, coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, coherent,
                  &out->buffer, &out->memory, &mapped, st)) {
    goto cleanup;
  }
  PXV_CHECK(st, ctx->vk.vkMapMemory(ctx->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map));
  if (wantTwin(ctx, mapped) && allocBuffer(ctx, size, usage, local, local, &out->device,
                                           &out->deviceMemory, &twinType, st)) {
    goto cleanup;
  }
  bdai.buffer = out->device ? out->device : out->buffer;
  out->address = ctx->vk.vkGetBufferDeviceAddress(ctx->device, &bdai);
  out->size = size;
  if (!out->address) {
    PX_FAIL(st, PX_ERR_VULKAN, "vkGetBufferDeviceAddress returned 0");
    goto cleanup;
  }
cleanup:
  if (st->code) pxv_bufferDestroy(ctx, out);
  return st->code;
}

void pxv_bufferDestroy(pxvContext* ctx, pxvBuffer* b) {
  if (!b) return;
  if (b->map) ctx->vk.vkUnmapMemory(ctx->device, b->memory);
  if (b->buffer) ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
  if (b->memory) ctx->vk.vkFreeMemory(ctx->device, b->memory, NULL);
  if (b->device) ctx->vk.vkDestroyBuffer(ctx->device, b->device, NULL);
  if (b->deviceMemory) ctx->vk.vkFreeMemory(ctx->device, b->deviceMemory, NULL);
  memset(b, 0, sizeof(*b));
}
