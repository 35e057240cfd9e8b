// SPDX-License-Identifier: Apache-2.0
// Buffers: create, allocate, bind and map, with a device address for the shaders.
//
// The minimal executor keeps every buffer host-visible and host-coherent (cached where the
// device offers it, for fast read-back), so uploads and read-backs are plain memcpy and no
// staging copies are recorded. On lavapipe all memory is host memory; on a discrete GPU the
// shaders then read over PCIe, and a device-local copy is the next step (docs/gpu_executor.md).
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

pxtStatus pxv_bufferCreate(pxvContext* ctx, VkDeviceSize size, pxvBuffer* out, pxStatus* st) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  VkMemoryRequirements req;
  VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  VkBufferDeviceAddressInfo bdai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  const VkMemoryPropertyFlags coherent =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

  memset(out, 0, sizeof(*out));
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  PXV_CHECK(st, ctx->vk.vkCreateBuffer(ctx->device, &bci, NULL, &out->buffer));
  ctx->vk.vkGetBufferMemoryRequirements(ctx->device, out->buffer, &req);

  // host-visible and coherent, cached when possible
  int type = findMemoryType(&ctx->memory, req.memoryTypeBits,
                            coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (type < 0) type = findMemoryType(&ctx->memory, req.memoryTypeBits, coherent);
  if (type < 0) {
    PX_FAIL(st, PX_ERR_VULKAN, "%s has no host-visible coherent memory for storage buffers",
            ctx->properties.deviceName);
    goto cleanup;
  }
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = (uint32_t)type;
  PXV_CHECK(st, ctx->vk.vkAllocateMemory(ctx->device, &mai, NULL, &out->memory));
  PXV_CHECK(st, ctx->vk.vkBindBufferMemory(ctx->device, out->buffer, out->memory, 0));
  PXV_CHECK(st, ctx->vk.vkMapMemory(ctx->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map));
  bdai.buffer = out->buffer;
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
  memset(b, 0, sizeof(*b));
}
