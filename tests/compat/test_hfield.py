# SPDX-License-Identifier: Apache-2.0
"""Height fields against MuJoCo 3.12: inline elevation, MuJoCo's binary file format, errors."""

import numpy as np
import pytest

import phalanx

mujoco = pytest.importorskip("mujoco")

FIELDS = ["hfield_size", "hfield_nrow", "hfield_ncol", "hfield_adr", "hfield_data", "geom_size",
          "geom_aabb", "geom_rbound", "geom_dataid", "body_mass", "body_inertia", "name_hfieldadr"]


def model(asset, geom='<geom type="hfield" hfield="h"/>'):
    return f"""<mujoco><asset>{asset}</asset><worldbody>{geom}
      <body pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""


def compare(ours, ref):
    assert ours.nhfield == ref.nhfield and ours.nhfielddata == ref.nhfielddata
    assert ours.npaths == ref.npaths and ours.nnames == ref.nnames
    for f in FIELDS:
        np.testing.assert_allclose(getattr(ours, f), getattr(ref, f), rtol=1e-9, atol=1e-12,
                                   err_msg=f)


@pytest.mark.parametrize("elev", ["1 2 3 4 5 9", "0 0 0 0 0 0", "-3 7 0.25 1e3 -1e3 2"])
def test_inline_elevation(elev):
    xml = model(f'<hfield name="h" size=".9 1.1 .2 .1" nrow="3" ncol="2" elevation="{elev}"/>')
    compare(phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml))


def test_no_elevation_is_flat():
    xml = model('<hfield name="h" size="1 1 .5 .1" nrow="4" ncol="5"/>')
    compare(phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml))


def test_binary_file(tmp_path):
    rng = np.random.default_rng(3)
    data = rng.normal(size=(6, 4)).astype(np.float32)
    path = tmp_path / "terrain.bin"
    with open(path, "wb") as f:
        f.write(np.array([6, 4], dtype=np.int32).tobytes())
        f.write(data.tobytes())
    xml_path = tmp_path / "m.xml"
    # unnamed: the name falls back to the file's stem
    xml_path.write_text(model('<hfield file="terrain.bin" size="2 3 .4 .2"/>',
                              '<geom type="hfield" hfield="terrain" pos="0 0 -1"/>'))
    compare(phalanx.Model.from_xml_path(str(xml_path)), mujoco.MjModel.from_xml_path(str(xml_path)))


@pytest.mark.parametrize("asset,geom,match", [
    ('<hfield name="h" size="1 1 1 1" nrow="2" ncol="2" elevation="1 2 3"/>', None,
     "elevation data length must match"),
    ('<hfield name="h" size="1 0 1 1" nrow="2" ncol="2"/>', None, "size parameter is not positive"),
    ('<hfield name="h" size="1 1 1 1"/>', None, "hfield not specified"),
    ('<hfield name="h" size="1 1 1 1" nrow="2" ncol="2"/>', '<geom type="hfield"/>',
     "must have valid hfieldid"),
    ('<hfield name="h" size="1 1 1 1" nrow="2" ncol="2"/>', '<geom type="hfield" hfield="x"/>',
     "hfield 'x' not found"),
])
def test_errors(asset, geom, match):
    xml = model(asset, geom) if geom else model(asset)
    with pytest.raises(Exception):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match=match):
        phalanx.Model.from_xml_string(xml)


def test_png_is_reported_unsupported(tmp_path):
    (tmp_path / "m.xml").write_text(model('<hfield name="h" file="a.png" size="1 1 1 1"/>'))
    with pytest.raises(NotImplementedError, match="PNG height fields"):
        phalanx.Model.from_xml_path(str(tmp_path / "m.xml"))
