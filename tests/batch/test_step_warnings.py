# SPDX-License-Identifier: Apache-2.0
"""The bad-state checks of phalanx.step (mj_checkPos/Vel/Acc) count MuJoCo's warnings
(BADQPOS, BADQVEL, BADQACC) exactly as mujoco does, with and without autoreset: the batch
flags worlds from these counters."""

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model

PATH = shared_model("gymnasium", "reacher.xml")


@pytest.mark.parametrize("autoreset", [True, False])
@pytest.mark.parametrize("bad", ["qpos", "qvel", "qfrc_applied"])
def test_warning_counters_match_mujoco(autoreset, bad):
    flags = mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | (
        0 if autoreset else mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    mm = mujoco.MjModel.from_xml_path(PATH)
    mm.opt.disableflags |= flags
    md = mujoco.MjData(mm)
    pm = phalanx.Model.from_xml_path(PATH)
    pm.opt.disableflags |= int(flags)
    pd = phalanx.Data(pm)
    value = 1e30 if bad == "qfrc_applied" else np.nan
    for k in range(3):
        if k == 1:
            getattr(md, bad)[1] = value
            getattr(pd, bad)[1] = value
        mujoco.mj_step(mm, md)
        phalanx.step(pm, pd)
        ref = np.array([[w.lastinfo, w.number] for w in md.warning[:7]])
        np.testing.assert_array_equal(pd.warning, ref)
        np.testing.assert_array_equal(pd.qpos, md.qpos)
        assert pd.time == md.time
