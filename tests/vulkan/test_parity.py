# SPDX-License-Identifier: Apache-2.0
"""The Vulkan executor against the CPU executor on corpus models: fp64 bit for bit, every data
array, random configurations (unnormalized quaternions included), validation layer silent.

Runs on whatever Vulkan device is present (Mesa's lavapipe in CI); skipped only where no Vulkan
device exists at all. `make gpu-check` runs the whole corpus (--full).
"""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, shared_model

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

FAST = [shared_model("gymnasium", f) for f in ("ant.xml", "humanoid.xml", "half_cheetah.xml",
                                               "reacher.xml")] + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
    shared_model("mujoco", "model", "car", "car.xml"),
]


def pytest_generate_tests(metafunc):
    if "gpu_model" in metafunc.fixturenames:
        paths = FAST
        if metafunc.config.getoption("--full"):
            paths = sorted(glob.glob(shared_model("gymnasium", "*.xml")) + glob.glob(
                os.path.join(SHARED_MODELS, "mujoco", "model", "**", "*.xml"), recursive=True))
        metafunc.parametrize("gpu_model", paths,
                             ids=[os.path.relpath(p, SHARED_MODELS) for p in paths])


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan(validation=2)


def random_batch(model, nworld, rng):
    q = np.tile(model.qpos0, (nworld, 1))
    for j in range(model.njnt):
        a, t = model.jnt_qposadr[j], model.jnt_type[j]
        if t == 0:
            q[:, a:a + 3] = rng.uniform(-1, 1, (nworld, 3))
            q[:, a + 3:a + 7] = rng.normal(size=(nworld, 4)) * rng.uniform(0.5, 2, (nworld, 1))
        elif t == 1:
            q[:, a:a + 4] = rng.normal(size=(nworld, 4)) * rng.uniform(0.5, 2, (nworld, 1))
        else:
            q[:, a] = rng.uniform(-np.pi, np.pi, nworld)
    return q


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_fp64_bitwise(vk, gpu_model):
    try:
        model = phalanx.Model.from_xml_path(gpu_model)
    except (NotImplementedError, phalanx.MJCFError) as e:
        pytest.skip(f"not compiled: {str(e)[:100]}")
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    rng = np.random.default_rng(7)
    nworld = 8
    qpos = random_batch(model, nworld, rng)
    out = vk.kinematics(model, qpos, precision="fp64")
    data = phalanx.Data(model)
    for w in range(nworld):
        data.qpos[:] = qpos[w]
        phalanx.kinematics(model, data)
        for name in phalanx._core.DATA_FIELDS:
            cpu = np.ascontiguousarray(getattr(data, name))
            assert same_bits(out[name][w], cpu), f"{name} differs in world {w}"
    assert vk.validation_messages == 0


def test_fp32_close(vk):
    model = phalanx.Model.from_xml_path(shared_model("gymnasium", "ant.xml"))
    qpos = random_batch(model, 4, np.random.default_rng(1))
    out = vk.kinematics(model, qpos, precision="fp32")
    data = phalanx.Data(model)
    for w in range(4):
        data.qpos[:] = qpos[w]
        phalanx.kinematics(model, data)
        np.testing.assert_allclose(out["xpos"][w], data.xpos, atol=1e-5)
        np.testing.assert_allclose(out["xmat"][w], data.xmat, atol=1e-5)


def test_bad_arguments(vk):
    model = phalanx.Model.from_xml_path(shared_model("gymnasium", "reacher.xml"))
    with pytest.raises(ValueError, match=r"qpos has shape \(2, 3\); expected \(nworld, 4\)"):
        vk.kinematics(model, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="precision"):
        vk.kinematics(model, np.zeros((2, model.nq)), precision="fp16")
    with pytest.raises(ValueError):
        vk.kinematics(model, np.zeros((2, model.nq)), lanes=3)
    with pytest.raises(TypeError):
        vk.kinematics("model", np.zeros((2, model.nq)))


def test_no_device_is_reported_plainly():
    # a device name that matches nothing: a VulkanError naming the devices, never a crash
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    with pytest.raises(phalanx.VulkanError):
        phalanx.Vulkan(device="no such device 1234")


def test_without_vulkan_the_package_imports_and_says_so():
    import subprocess
    import sys

    code = ("import phalanx; ok, why = phalanx.vulkan_available(); print(ok, why)\n"
            "try:\n    phalanx.Vulkan()\nexcept phalanx.VulkanError as e:\n    print('error', e)")
    env = dict(os.environ, PX_VULKAN_DISABLE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()[:2]
    assert first.startswith("False ") and "PX_VULKAN_DISABLE" in first
    assert second.startswith("error ")
