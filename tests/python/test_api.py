# SPDX-License-Identifier: Apache-2.0
"""The Python API: zero-copy views and ownership, writability, names, accessors, errors."""

import gc

import numpy as np
import pytest

import phalanx

PENDULUM = """
<mujoco model="pendulum">
  <worldbody>
    <body name="pole" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" range="-90 90"/>
      <geom name="rod" type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
      <site name="tip" pos="0 0 -0.5"/>
    </body>
  </worldbody>
</mujoco>
"""

pytestmark = pytest.mark.asan


@pytest.fixture
def model():
    return phalanx.Model.from_xml_string(PENDULUM)


def test_sizes_and_views(model):
    assert (model.nq, model.nv, model.nbody, model.ngeom, model.nsite) == (1, 1, 2, 1, 1)
    assert model.body_pos.shape == (2, 3) and model.body_pos.dtype == np.float64
    assert model.body_parentid.shape == (2,) and model.body_parentid.dtype == np.int32
    assert model.jnt_limited.dtype == np.bool_
    np.testing.assert_allclose(model.jnt_range[0], np.deg2rad([-90, 90]))


def test_view_is_zero_copy_and_keeps_owner_alive():
    m = phalanx.Model.from_xml_string(PENDULUM)
    view = m.body_pos
    view[1, 0] = 0.25  # writes go to the model itself
    assert m.body_pos[1, 0] == 0.25
    del m
    gc.collect()
    assert view[1, 0] == 0.25  # the view's base keeps the Model alive
    assert view.base is not None


def test_data_views_and_kinematics(model):
    data = phalanx.Data(model)
    np.testing.assert_array_equal(data.qpos, model.qpos0)
    data.qpos[0] = np.pi / 2
    phalanx.kinematics(model, data)
    tip = data.site("tip").xpos
    np.testing.assert_allclose(tip, [-0.5, 0, 1], atol=1e-12)
    assert data.body("pole").xpos[2] == pytest.approx(1.0)
    qpos = data.qpos
    del data
    gc.collect()
    qpos[0] = 0.1  # still valid memory


def test_named_accessors(model):
    assert model.body("pole").id == 1
    assert model.joint("hinge").qposadr == 0
    assert model.geom("rod").type == 3
    assert phalanx.name2id(model, phalanx.ObjType.SITE, "tip") == 0
    assert phalanx.name2id(model, phalanx.ObjType.BODY, "nothing") == -1
    assert phalanx.id2name(model, phalanx.ObjType.JOINT, 0) == "hinge"
    with pytest.raises(KeyError, match="no body named 'nothing'"):
        model.body("nothing")
    with pytest.raises(IndexError):
        model.body(5)


def test_model_is_writable_standalone(model):
    model.opt.timestep = 0.001
    assert model.opt.timestep == 0.001
    model.opt.gravity = [0, 0, -1]
    np.testing.assert_array_equal(model.opt.gravity, [0, 0, -1])
    model.body_mass = [0, 3.0]
    assert model.body_mass[1] == 3.0
    assert not model.frozen
    with pytest.raises(AttributeError, match="size"):
        model.nq = 3


def test_bad_arguments(model):
    with pytest.raises(TypeError, match="expected a phalanx Model"):
        phalanx.kinematics(object(), phalanx.Data(model))
    with pytest.raises(TypeError, match="expected a phalanx Data"):
        phalanx.kinematics(model, None)
    with pytest.raises(TypeError):
        phalanx.Data("not a model")
    with pytest.raises(ValueError):
        phalanx.Data(model).qpos = np.zeros(5)


def test_mjcf_error_names_line():
    bad = "<mujoco>\n  <worldbody>\n    <geom type='sphere' size='abc'/>\n  </worldbody>\n</mujoco>"
    with pytest.raises(phalanx.MJCFError, match=r"<string>:3: <geom>: attribute 'size'"):
        phalanx.Model.from_xml_string(bad)
    assert issubclass(phalanx.MJCFError, ValueError)


def test_unsupported_feature_names_itself():
    xml = "<mujoco><asset><skin name='s'/></asset></mujoco>"
    with pytest.raises(NotImplementedError, match="skins"):
        phalanx.Model.from_xml_string(xml)


def test_missing_file():
    with pytest.raises(phalanx.MJCFError, match="cannot open"):
        phalanx.Model.from_xml_path("/nonexistent/model.xml")
