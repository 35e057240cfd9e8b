// SPDX-License-Identifier: Apache-2.0
// Buffers: create, allocate, bind and map, with a device address for the shaders.
//
// The worlds' buffer is host-visible and host-coherent (cached where the device offers it, for
// fast read-back), so uploads and read-backs are plain memcpy. On lavapipe all memory is host
// memory and the shaders use that buffer. On a device whose host-visible memory is not
// device-local (a discrete GPU) the shaders would read it over PCIe: there a device-local twin is
// allocated, and the executor records a copy into it before the dispatches and a copy back after
// them (kinematics_gpu.c, execute). PX_VULKAN_STAGING=1 asks for the twin on any device (the
// tests use it on lavapipe), PX_VULKAN_STAGING=0 never.
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

// a buffer with `usage` (plus device addresses when `addressed`) in memory of `type`
static pxtStatus allocBuffer(pxvContext* ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                             int addressed, uint32_t typeBits, VkMemoryPropertyFlags want,
                             VkMemoryPropertyFlags fallback, VkBuffer* buffer,
                             VkDeviceMemory* memory, pxStatus* st) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  VkMemoryRequirements req;
  VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  PXV_CHECK(st, ctx->vk.vkCreateBuffer(ctx->device, &bci, NULL, buffer));
  ctx->vk.vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
  int type = findMemoryType(&ctx->memory, req.memoryTypeBits & typeBits, want);
  if (type < 0) type = findMemoryType(&ctx->memory, req.memoryTypeBits & typeBits, fallback);
  if (type < 0) {
    PX_FAIL(
        st, PX_ERR_VULKAN, "%s has no %s memory for storage buffers", ctx->properties.deviceName,
        (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ? "host-visible coherent" : "device-local");
    goto cleanup;
  }
  if (addressed) {
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    mai.pNext = &flags;
  }
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = (uint32_t)type;
  PXV_CHECK(st, ctx->vk.vkAllocateMemory(ctx->device, &mai, NULL, memory));
  PXV_CHECK(st, ctx->vk.vkBindBufferMemory(ctx->device, *buffer, *memory, 0));
cleanup:
  return st->code;
}

// whether the worlds' buffer gets a device-local twin: where no host-visible coherent memory type
// the buffer may use is device-local but some device-local type is (or as PX_VULKAN_STAGING says)
static int wantTwin(const pxvContext* ctx, uint32_t bits, VkMemoryPropertyFlags coherent) {
  const char* knob = getenv("PX_VULKAN_STAGING");
  if (knob && (knob[0] == '0' || knob[0] == '1') && knob[1] == 0) return knob[0] == '1';
  const VkPhysicalDeviceMemoryProperties* mp = &ctx->memory;
  int local = 0;
  for (uint32_t i = 0; i < mp->memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i))) continue;
    if ((f & coherent) == coherent && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) return 0;
    if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) local = 1;
  }
  return local;
}

pxtStatus pxv_bufferCreate(pxvContext* ctx, VkDeviceSize size, pxvBuffer* out, pxStatus* st) {
  VkBufferDeviceAddressInfo bdai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  const VkMemoryPropertyFlags coherent =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkBufferUsageFlags copies =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkBufferUsageFlags shaders =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

  memset(out, 0, sizeof(*out));
  int twin = wantTwin(ctx, ~0u, coherent);
  // the mapped buffer: host-visible and coherent, cached when possible
  if (allocBuffer(ctx, size, twin ? copies : (shaders | copies), !twin, ~0u,
                  coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, coherent, &out->buffer,
                  &out->memory, st)) {
    goto cleanup;
  }
  PXV_CHECK(st, ctx->vk.vkMapMemory(ctx->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map));
  if (twin) {
    // the shaders' device-local twin (any device-local type where the knob asks for a twin on a
    // device without one that is not host-visible)
    if (allocBuffer(ctx, size, shaders | copies, 1, ~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out->device, &out->deviceMemory, st)) {
      goto cleanup;
    }
  }
  bdai.buffer = twin ? out->device : out->buffer;
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
