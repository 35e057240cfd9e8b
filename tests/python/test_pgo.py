# SPDX-License-Identifier: Apache-2.0
"""The profile-guided build's training run (phalanx._pgo, run by setup.py on every build) covers
what its docstring says: every shipped model under each variant, and a chain whose contacts make
one island past the sparse Jacobian's threshold, so the large-island code is trained too."""

import phalanx
from phalanx import _pgo


def test_chain_is_one_large_sparse_island():
    model = phalanx.Model.from_xml_string(_pgo._chain())
    assert model.nv >= 60  # MuJoCo's jacobian="auto" picks the sparse layout from nv 60
    assert model.opt.jacobian == 2  # auto
    data = phalanx.Data(model)
    for _ in range(300):
        phalanx.step(model, data)
    assert data.nisland == 1
    assert data.nidof == model.nv  # every dof of the chain in the one island
    assert data.ncon >= 20


def test_variants_apply_to_every_shipped_model():
    paths = _pgo._models()
    assert len(paths) == 12  # the crawler and the eleven Gymnasium tasks' models
    for path in paths:
        for variant in _pgo.VARIANTS:
            model = phalanx.Model.from_xml_path(path)
            for name, value in zip(("solver", "cone", "integrator", "jacobian"), variant):
                if value is not None:
                    setattr(model.opt, name, value)
                    assert getattr(model.opt, name) == value
            data = phalanx.Data(model)
            for _ in range(3):
                phalanx.step(model, data)
