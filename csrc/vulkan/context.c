// SPDX-License-Identifier: Apache-2.0
// Vulkan context: loader, instance (optional validation layer and debug messenger), physical
// device pick with recorded reasons, compute queue, logical device and command pool.
//
// Phases in Sascha Willems' order, each vk call checked by PXV_CHECK into a pxStatus: nothing
// here exits or aborts. The loader (libvulkan.so.1) is opened once per process by volk, under a
// pthread_once; a missing loader is an ordinary "not available" answer.
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "px/pxvulkan.h"
#include "vulkan/internal.h"

//---------------------------------- loader --------------------------------------------------------

static pthread_once_t loaderOnce = PTHREAD_ONCE_INIT;
static VkResult loaderResult = VK_ERROR_INITIALIZATION_FAILED;

static void loadLoader(void) {
  loaderResult = volkInitialize();
}

// open the Vulkan loader once; PX_ERR_VULKAN when absent or too old
static pxtStatus loader(pxStatus* st) {
  const char* off = getenv("PX_VULKAN_DISABLE");
  if (off && off[0] && strcmp(off, "0")) {
    return PX_FAIL(st, PX_ERR_VULKAN, "Vulkan disabled by PX_VULKAN_DISABLE=%s", off);
  }
  pthread_once(&loaderOnce, loadLoader);
  if (loaderResult != VK_SUCCESS) {
    return PX_FAIL(st, PX_ERR_VULKAN,
                   "no Vulkan loader: libvulkan.so.1 not found (volkInitialize returned %s); "
                   "install libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe)",
                   pxv_resultName(loaderResult));
  }
  uint32_t v = volkGetInstanceVersion();
  if (v < VK_API_VERSION_1_2) {
    return PX_FAIL(st, PX_ERR_VULKAN, "Vulkan loader %u.%u is too old; 1.2 is required",
                   VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v));
  }
  return PX_OK;
}

double pxv_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

const char* pxv_resultName(VkResult r) {
  switch (r) {
#define PXV_NAME(x) \
  case x:           \
    return #x;
    PXV_NAME(VK_SUCCESS)
    PXV_NAME(VK_NOT_READY)
    PXV_NAME(VK_TIMEOUT)
    PXV_NAME(VK_EVENT_SET)
    PXV_NAME(VK_EVENT_RESET)
    PXV_NAME(VK_INCOMPLETE)
    PXV_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    PXV_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    PXV_NAME(VK_ERROR_INITIALIZATION_FAILED)
    PXV_NAME(VK_ERROR_DEVICE_LOST)
    PXV_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    PXV_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    PXV_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    PXV_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    PXV_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    PXV_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    PXV_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    PXV_NAME(VK_ERROR_FRAGMENTED_POOL)
    PXV_NAME(VK_ERROR_UNKNOWN)
    PXV_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    PXV_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    PXV_NAME(VK_ERROR_FRAGMENTATION)
    PXV_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    PXV_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    PXV_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
    PXV_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef PXV_NAME
    default:
      return "an unknown VkResult";
  }
}

//---------------------------------- instance ------------------------------------------------------

// count validation warnings and errors; keep the last message
static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT type,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  (void)type;
  pxvContext* ctx = (pxvContext*)user;
  if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    ctx->nmessage++;
    snprintf(ctx->message, sizeof(ctx->message), "%s",
             data && data->pMessage ? data->pMessage : "");
    if (getenv("PX_VULKAN_VERBOSE")) fprintf(stderr, "phalanx vulkan: %s\n", ctx->message);
  }
  return VK_FALSE;
}

static int hasLayer(const char* name, pxStatus* st) {
  uint32_t n = 0;
  VkLayerProperties* props = NULL;
  int found = 0;
  PXV_CHECK(st, vkEnumerateInstanceLayerProperties(&n, NULL));
  props = (VkLayerProperties*)calloc(n ? n : 1, sizeof(*props));
  if (!props) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory listing %u layers", n);
    goto cleanup;
  }
  PXV_CHECK(st, vkEnumerateInstanceLayerProperties(&n, props));
  for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].layerName, name);
cleanup:
  free(props);
  return found;
}

static int hasInstanceExtension(const char* name, pxStatus* st) {
  uint32_t n = 0;
  VkExtensionProperties* props = NULL;
  int found = 0;
  PXV_CHECK(st, vkEnumerateInstanceExtensionProperties(NULL, &n, NULL));
  props = (VkExtensionProperties*)calloc(n ? n : 1, sizeof(*props));
  if (!props) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory listing %u extensions", n);
    goto cleanup;
  }
  PXV_CHECK(st, vkEnumerateInstanceExtensionProperties(NULL, &n, props));
  for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].extensionName, name);
cleanup:
  free(props);
  return found;
}

// instance, with validation and the debug messenger when asked
static pxtStatus createInstance(pxvContext* ctx, int validation, pxStatus* st) {
  const char* layers[1] = {"VK_LAYER_KHRONOS_validation"};
  const char* exts[3];
  uint32_t next = 0;
  VkValidationFeatureEnableEXT enables[2] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
      VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT};
  VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  VkDebugUtilsMessengerCreateInfoEXT mci = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};

  int portability = hasInstanceExtension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME, st);
  if (st->code) return st->code;
  if (portability) {
    exts[next++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    ici.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  if (validation) {
    int layer = hasLayer(layers[0], st);
    if (st->code) return st->code;
    if (!layer) {
      return PX_FAIL(st, PX_ERR_VULKAN,
                     "validation requested but VK_LAYER_KHRONOS_validation is not installed "
                     "(Debian: vulkan-validationlayers)");
    }
    exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mci.pfnUserCallback = onMessage;
    mci.pUserData = ctx;
    features.enabledValidationFeatureCount = validation >= 3 ? 2 : (uint32_t)(validation - 1);
    features.pEnabledValidationFeatures = enables;
    features.pNext = &mci;  // messages of instance creation and destruction are counted too
    ici.pNext = &features;
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = layers;
  }

  app.pApplicationName = "phalanx";
  app.pEngineName = "phalanx";
  app.apiVersion = VK_API_VERSION_1_2;
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = next;
  ici.ppEnabledExtensionNames = exts;
  PXV_CHECK(st, vkCreateInstance(&ici, NULL, &ctx->instance));
  volkLoadInstanceOnly(ctx->instance);
  ctx->validation = validation;
  if (validation) {
    // extension functions from this instance: volk's globals follow the last instance loaded
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)(void (*)(void))vkGetInstanceProcAddr(
            ctx->instance, "vkCreateDebugUtilsMessengerEXT");
    ctx->destroyMessenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)(void (*)(void))vkGetInstanceProcAddr(
            ctx->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (!create || !ctx->destroyMessenger) {
      PX_FAIL(st, PX_ERR_VULKAN, "VK_EXT_debug_utils enabled but its functions are missing");
      goto cleanup;
    }
    PXV_CHECK(st, create(ctx->instance, &mci, NULL, &ctx->messenger));
  }
cleanup:
  return st->code;
}

//---------------------------------- physical device -----------------------------------------------

static const char* deviceTypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

static int deviceTypeScore(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 1;
    default:
      return 0;
  }
}

// append one formatted line to the device report
static void reportLine(pxvContext* ctx, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void reportLine(pxvContext* ctx, const char* fmt, ...) {
  size_t used = strlen(ctx->report);
  if (used + 2 >= sizeof(ctx->report)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->report + used, sizeof(ctx->report) - used, fmt, ap);
  va_end(ap);
}

// score of a device for our use (0: rejected, with the reason in the report)
static int rateDevice(pxvContext* ctx, VkPhysicalDevice pd, int index, const pxvContextDef* def,
                      uint32_t* family, int* float64) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(pd, &p);
  reportLine(ctx, "  #%d %s [%s, Vulkan %u.%u.%u]: ", index, p.deviceName,
             deviceTypeName(p.deviceType), VK_API_VERSION_MAJOR(p.apiVersion),
             VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion));

  // selection by index or name
  if (def->device && def->device[0]) {
    int want = def->device[0] == '#' ? atoi(def->device + 1) : -1;
    if (def->device[0] == '#' ? want != index : !strstr(p.deviceName, def->device)) {
      reportLine(ctx, "not selected (device \"%s\")\n", def->device);
      return 0;
    }
  }
  if (p.apiVersion < VK_API_VERSION_1_2) {
    reportLine(ctx, "rejected: Vulkan 1.2 required\n");
    return 0;
  }

  // features: buffer device addresses (required), shaderFloat64 (fp64 shaders)
  VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f12;
  vkGetPhysicalDeviceFeatures2(pd, &f2);
  if (!f12.bufferDeviceAddress) {
    reportLine(ctx, "rejected: no bufferDeviceAddress\n");
    return 0;
  }
  *float64 = f2.features.shaderFloat64 ? 1 : 0;
  if (def->requireFloat64 && !*float64) {
    reportLine(ctx, "rejected: no shaderFloat64\n");
    return 0;
  }

  // a queue family with compute
  uint32_t nfam = 0;
  VkQueueFamilyProperties fam[16];
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, NULL);
  if (nfam > 16) nfam = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, fam);
  int found = -1;
  for (uint32_t i = 0; i < nfam && found < 0; i++) {
    if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) found = (int)i;
  }
  if (found < 0) {
    reportLine(ctx, "rejected: no compute queue\n");
    return 0;
  }
  *family = (uint32_t)found;
  reportLine(ctx, "usable%s\n", *float64 ? " (fp64, fp32)" : " (fp32 only)");
  return 10 * deviceTypeScore(p.deviceType) + 2 + *float64;
}

// the best physical device; PX_ERR_VULKAN with the report when none fits
static pxtStatus pickDevice(pxvContext* ctx, const pxvContextDef* def, pxStatus* st) {
  uint32_t n = 0;
  VkPhysicalDevice* devs = NULL;
  int best = 0;
  PXV_CHECK(st, vkEnumeratePhysicalDevices(ctx->instance, &n, NULL));
  devs = (VkPhysicalDevice*)calloc(n ? n : 1, sizeof(*devs));
  if (!devs) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory listing %u devices", n);
    goto cleanup;
  }
  PXV_CHECK(st, vkEnumeratePhysicalDevices(ctx->instance, &n, devs));
  snprintf(ctx->report, sizeof(ctx->report), "%u Vulkan device(s):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t family = 0;
    int float64 = 0;
    int score = rateDevice(ctx, devs[i], (int)i, def, &family, &float64);
    if (score > best) {
      best = score;
      ctx->physical = devs[i];
      ctx->queueFamily = family;
      ctx->float64 = float64;
    }
  }
  if (!best) {
    PX_FAIL(st, PX_ERR_VULKAN, "no suitable Vulkan device; %s", ctx->report);
    goto cleanup;
  }
  vkGetPhysicalDeviceProperties(ctx->physical, &ctx->properties);
  vkGetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory);
  reportLine(ctx, "chosen: %s\n", ctx->properties.deviceName);
cleanup:
  free(devs);
  return st->code;
}

//---------------------------------- device --------------------------------------------------------

static int hasDeviceExtension(VkPhysicalDevice pd, const char* name, pxStatus* st) {
  uint32_t n = 0;
  VkExtensionProperties* props = NULL;
  int found = 0;
  PXV_CHECK(st, vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL));
  props = (VkExtensionProperties*)calloc(n ? n : 1, sizeof(*props));
  if (!props) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory listing %u device extensions", n);
    goto cleanup;
  }
  PXV_CHECK(st, vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props));
  for (uint32_t i = 0; i < n; i++) found |= !strcmp(props[i].extensionName, name);
cleanup:
  free(props);
  return found;
}

// logical device with one compute queue, buffer device addresses and fp64 where available
static pxtStatus createDevice(pxvContext* ctx, pxStatus* st) {
  float priority = 1.0f;
  const char* exts[1];
  uint32_t next = 0;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};

  // a portability-subset device (MoltenVK) must enable its extension
  int subset = hasDeviceExtension(ctx->physical, "VK_KHR_portability_subset", st);
  if (st->code) return st->code;
  if (subset) exts[next++] = "VK_KHR_portability_subset";

  qci.queueFamilyIndex = ctx->queueFamily;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  f12.bufferDeviceAddress = VK_TRUE;
  f2.features.shaderFloat64 = ctx->float64 ? VK_TRUE : VK_FALSE;
  f2.pNext = &f12;
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = next;
  dci.ppEnabledExtensionNames = exts;
  PXV_CHECK(st, vkCreateDevice(ctx->physical, &dci, NULL, &ctx->device));
  volkLoadDeviceTable(&ctx->vk, ctx->device);
  ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queueFamily, 0, &ctx->queue);

  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = ctx->queueFamily;
  PXV_CHECK(st, ctx->vk.vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->commandPool));
cleanup:
  return st->code;
}

//---------------------------------- public --------------------------------------------------------

pxvContextDef pxv_defaultContextDef(void) {
  pxvContextDef def;
  memset(&def, 0, sizeof(def));
  def.device = getenv("PX_VULKAN_DEVICE");
  return def;
}

pxtStatus pxv_contextCreate(pxvContext** out, int validation, pxStatus* st) {
  pxvContextDef def = pxv_defaultContextDef();
  def.validation = validation;
  return pxv_contextCreateDef(out, &def, st);
}

pxtStatus pxv_contextCreateDef(pxvContext** out, const pxvContextDef* def, pxStatus* st) {
  pxStatus local;
  pxvContext* ctx = NULL;
  if (!st) st = &local;
  px_statusClear(st);
  if (!out || !def)
    return PX_FAIL(st, PX_ERR_ARG, "pxv_contextCreateDef: out and def are required");
  *out = NULL;
  if (def->validation < 0 || def->validation > 3) {
    return PX_FAIL(st, PX_ERR_ARG, "validation must be 0 to 3, got %d", def->validation);
  }
  if (loader(st)) return st->code;
  ctx = (pxvContext*)calloc(1, sizeof(pxvContext));
  if (!ctx) return PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating a Vulkan context");
  if (createInstance(ctx, def->validation, st) || pickDevice(ctx, def, st) ||
      createDevice(ctx, st)) {
    pxv_contextDestroy(ctx);
    return st->code;
  }
  *out = ctx;
  return PX_OK;
}

void pxv_contextDestroy(pxvContext* ctx) {
  if (!ctx) return;
  if (ctx->device) {
    ctx->vk.vkDeviceWaitIdle(ctx->device);
    for (int ph = 0; ph < PXV_NPHASE; ph++) {
      for (int p = 0; p < 2; p++) {
        for (int l = 0; l < PXV_NLANES; l++) pxv_pipelineDestroy(ctx, ctx->pipelines[ph][p][l]);
      }
    }
    if (ctx->commandPool) ctx->vk.vkDestroyCommandPool(ctx->device, ctx->commandPool, NULL);
    ctx->vk.vkDestroyDevice(ctx->device, NULL);
  }
  if (ctx->messenger) ctx->destroyMessenger(ctx->instance, ctx->messenger, NULL);
  if (ctx->instance) vkDestroyInstance(ctx->instance, NULL);
  free(ctx);
}

int pxv_available(char* why, int len) {
  pxStatus st;
  pxvContext* ctx = NULL;
  pxvContextDef def = pxv_defaultContextDef();
  px_statusClear(&st);
  if (!loader(&st)) {
    // an instance and a device pick, without the logical device
    ctx = (pxvContext*)calloc(1, sizeof(pxvContext));
    if (!ctx) {
      PX_FAIL(&st, PX_ERR_NOMEM, "out of memory");
    } else if (!createInstance(ctx, 0, &st)) {
      pickDevice(ctx, &def, &st);
    }
    pxv_contextDestroy(ctx);
  }
  if (why && len > 0) {
    snprintf(why, (size_t)len, "%s", st.code ? st.msg : "ok");
  }
  return st.code == PX_OK;
}

const char* pxv_deviceName(const pxvContext* ctx) {
  return ctx ? ctx->properties.deviceName : "";
}

const char* pxv_deviceReport(const pxvContext* ctx) {
  return ctx ? ctx->report : "";
}

int pxv_hasFloat64(const pxvContext* ctx) {
  return ctx ? ctx->float64 : 0;
}

int pxv_validationMessages(const pxvContext* ctx) {
  return ctx ? ctx->nmessage : 0;
}

const char* pxv_lastValidationMessage(const pxvContext* ctx) {
  return ctx ? ctx->message : "";
}

void pxv_lastTiming(const pxvContext* ctx, pxvTiming* out) {
  if (!out) return;
  memset(out, 0, sizeof(*out));
  if (ctx) *out = ctx->timing;
}
