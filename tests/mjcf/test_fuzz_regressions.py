# SPDX-License-Identifier: Apache-2.0
"""Every input the fuzzer ever broke phalanx with (tests/fuzz/regressions) is rejected cleanly:
a Python exception naming the problem, never a crash (this module also runs under ASan+UBSan)."""

import glob
import os

import pytest

import phalanx

pytestmark = pytest.mark.asan

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = sorted(glob.glob(os.path.join(HERE, "..", "fuzz", "regressions", "*.xml")))

EXPECTED = {
    "nomem_nuser_geom_huge.xml": (MemoryError, "limit"),
    "oom_nested_replicate.xml": (phalanx.MJCFError, "more than 1048576 elements"),
    "timeout_size_nkey_huge.xml": (phalanx.MJCFError, "nkey"),
    "uaf_mesh_face_not_integer.xml": (phalanx.MJCFError, "not an integer vertex index"),
    "ub_mesh_face_outside_int.xml": (phalanx.MJCFError, "not an integer vertex index"),
    "ub_sensor_dim_sum_overflow.xml": (phalanx.MJCFError, "sensor data exceeds"),
}


def test_every_regression_has_an_expectation():
    names = {os.path.basename(p) for p in INPUTS}
    assert names >= set(EXPECTED), "a regression input was removed"
    assert len(names) >= 7


@pytest.mark.parametrize("path", INPUTS, ids=[os.path.basename(p) for p in INPUTS])
def test_regression(path):
    name = os.path.basename(path)
    if name in EXPECTED:
        exc, match = EXPECTED[name]
        with pytest.raises(exc, match=match):
            phalanx.Model.from_xml_path(path)
    else:
        # inputs that must load (e.g. zero-size arrays that once meant NULL + 0)
        model = phalanx.Model.from_xml_path(path)
        data = phalanx.Data(model)
        phalanx.kinematics(model, data)
