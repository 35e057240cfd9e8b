// SPDX-License-Identifier: Apache-2.0
// Pipelines: shader module, pipeline layout and compute pipeline with specialization constants.
//
// Every phalanx shader takes its arguments through buffer device addresses: a 16-byte push
// constant holds the address of the parameter block and the first world of the dispatch, so
// the pipeline layout has no descriptor set. Specialization constant 0 is local_size_x, the
// lanes per world (PX_NLANE).
#include <stdlib.h>

#include "px/pxvulkan.h"
#include "vulkan/internal.h"

// bytes of the push constant block PxPush of shaders/layout.glsl
#define PXV_PUSH_BYTES 16

pxtStatus pxv_pipelineCreate(pxvContext* ctx, const uint32_t* code, size_t nbytes, int lanes,
                             pxvPipeline** out, pxStatus* st) {
  VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, PXV_PUSH_BYTES};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
  uint32_t nlane = (uint32_t)lanes;
  VkSpecializationInfo spec = {1, &entry, sizeof(nlane), &nlane};
  VkComputePipelineCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};

  *out = NULL;
  pxvPipeline* p = (pxvPipeline*)calloc(1, sizeof(pxvPipeline));
  if (!p) return PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating a pipeline");
  if (lanes < 1 || (uint32_t)lanes > ctx->properties.limits.maxComputeWorkGroupSize[0]) {
    PX_FAIL(st, PX_ERR_ARG, "%d lanes per world; %s allows 1 to %u", lanes,
            ctx->properties.deviceName, ctx->properties.limits.maxComputeWorkGroupSize[0]);
    goto cleanup;
  }

  // shader module from the embedded SPIR-V words
  smci.codeSize = nbytes;
  smci.pCode = code;
  PXV_CHECK(st, ctx->vk.vkCreateShaderModule(ctx->device, &smci, NULL, &p->module));

  // no descriptor sets: one push constant range
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &push;
  PXV_CHECK(st, ctx->vk.vkCreatePipelineLayout(ctx->device, &plci, NULL, &p->layout));

  // compute pipeline, lanes per world as specialization constant 0
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = p->module;
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = &spec;
  cpci.layout = p->layout;
  PXV_CHECK(st, ctx->vk.vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &cpci, NULL,
                                                 &p->pipeline));
cleanup:
  if (st->code) {
    pxv_pipelineDestroy(ctx, p);
    return st->code;
  }
  *out = p;
  return PX_OK;
}

void pxv_pipelineDestroy(pxvContext* ctx, pxvPipeline* p) {
  if (!p) return;
  if (p->pipeline) ctx->vk.vkDestroyPipeline(ctx->device, p->pipeline, NULL);
  if (p->layout) ctx->vk.vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
  if (p->module) ctx->vk.vkDestroyShaderModule(ctx->device, p->module, NULL);
  free(p);
}
