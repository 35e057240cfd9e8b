# SPDX-License-Identifier: Apache-2.0
"""Bad input never crashes: every malformed MJCF file in tests/bad_mjcf is rejected with the
exception and message recorded in tests/bad_mjcf/expected.txt, nothing else escapes, messages stay
short, and a failed load leaves nothing behind (a valid model loads the same afterwards).

The corpus is also the seed of the libFuzzer target tests/fuzz/fuzz_mjcf.c (`make fuzz`).
"""

import glob
import os
import re
import subprocess
import sys

import pytest

import phalanx

pytestmark = pytest.mark.asan

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "tests", "bad_mjcf")
EXPECTED = os.path.join(CORPUS, "expected.txt")
MIN_CORPUS = 40
MAX_MESSAGE = 1100  # characters: the C status message holds 1023, plus a little slack

EXCEPTIONS = {
    "MJCFError": phalanx.MJCFError,
    "NotImplementedError": NotImplementedError,
    "MemoryError": MemoryError,
}

# a small valid model: loaded before and after failures, it must come out the same
VALID = """<mujoco model="after_failure">
  <compiler angle="radian"/>
  <option timestep="0.005"/>
  <default>
    <geom rgba="0.2 0.4 0.6 1"/>
  </default>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" range="-1 1" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/>
      <body name="hand" pos="0.5 0 0">
        <joint name="slide" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.1 0.05 0.02" mass="0.3"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="hinge" gear="2"/>
  </actuator>
</mujoco>
"""
# fields compared between loads of VALID
FIELDS = ("nq", "nv", "nbody", "njnt", "ngeom", "nu", "body_mass", "body_inertia", "body_pos",
          "jnt_range", "geom_size", "geom_rgba", "dof_armature", "actuator_gear", "qpos0")


def _read_expected():
    rows = {}
    with open(EXPECTED, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            assert len(parts) == 3, f"expected.txt:{n}: need file<TAB>exception<TAB>regex"
            name, exc, regex = parts
            assert name not in rows, f"expected.txt:{n}: {name} listed twice"
            assert exc in EXCEPTIONS, f"expected.txt:{n}: unknown exception type {exc!r}"
            re.compile(regex)
            rows[name] = (EXCEPTIONS[exc], regex)
    return rows


EXPECTED_ROWS = _read_expected()
CORPUS_FILES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CORPUS, "*.xml")))


def _string_form(name):
    """The file's text for from_xml_string, or None where loading it as a string is not the same
    test: includes and mesh files are relative to the model file, and bytes that are not UTF-8
    text without NUL cannot be a Python str argument."""
    with open(os.path.join(CORPUS, name), "rb") as f:
        data = f.read()
    if b"\0" in data or b"<include" in data or b"file=" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _check(exc_info, expected_type, regex):
    e = exc_info.value
    assert type(e) is expected_type, f"{type(e).__name__}: {e}"
    msg = str(e)
    assert re.search(r"(?:^|/)" + regex, msg), f"message {msg!r} does not match {regex!r}"
    assert len(msg) <= MAX_MESSAGE


def _snapshot(m):
    out = {}
    for f in FIELDS:
        v = getattr(m, f)
        out[f] = v.copy() if hasattr(v, "copy") else v
    return out


def _assert_same(a, b):
    import numpy as np

    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


#---------------------------------- the corpus itself ---------------------------------------------

def test_corpus_size_and_listing():
    assert len(CORPUS_FILES) >= MIN_CORPUS
    missing = [f for f in CORPUS_FILES if f not in EXPECTED_ROWS]
    stale = [f for f in EXPECTED_ROWS if f not in CORPUS_FILES]
    assert not missing, f"corpus files without an expectation: {missing}"
    assert not stale, f"expectations without a corpus file: {stale}"


def test_regexes_name_file_and_line():
    # every regex starts with a file name (the file at fault: for include errors, the including
    # file) followed by the line, except for the inputs that have no element at all
    no_line = {"empty.xml", "whitespace_only.xml", "xml_comment_only.xml"}
    for name, (_, regex) in EXPECTED_ROWS.items():
        assert re.match(r"[\w\\-]+\\\.xml", regex), f"{name}: {regex} does not start with a file"
        if name not in no_line:
            assert re.match(r"[\w\\-]+\\\.xml:\d+", regex), f"{name}: {regex} has no line"


def test_corpus_survives_in_a_subprocess():
    # a crash in C would take pytest down with it: load everything once in a child first, so a
    # crash is reported as this test's failure, naming the file it died on
    code = (
        "import glob, os, sys, phalanx\n"
        "for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.xml'))):\n"
        "    print(os.path.basename(p), flush=True)\n"
        "    try:\n"
        "        phalanx.Model.from_xml_path(p)\n"
        "    except (ValueError, NotImplementedError, MemoryError):\n"
        "        pass\n"
        "print('survived', flush=True)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, CORPUS], capture_output=True, text=True,
                       timeout=600, env=dict(os.environ))
    last = r.stdout.strip().splitlines()[-1:] or ["<nothing>"]
    assert r.returncode == 0 and last == ["survived"], (
        f"interpreter died (rc {r.returncode}) while loading {last[0]}\n{r.stderr[-3000:]}")


#---------------------------------- every file, by path and as a string ---------------------------

@pytest.mark.parametrize("name", CORPUS_FILES)
def test_bad_file_from_path(name):
    if name not in EXPECTED_ROWS:
        pytest.fail(f"{name} has no line in expected.txt")
    expected_type, regex = EXPECTED_ROWS[name]
    with pytest.raises(Exception) as exc_info:
        phalanx.Model.from_xml_path(os.path.join(CORPUS, name))
    _check(exc_info, expected_type, regex)


@pytest.mark.parametrize("name", [f for f in CORPUS_FILES if _string_form(f) is not None])
def test_bad_file_from_string(name):
    if name not in EXPECTED_ROWS:
        pytest.fail(f"{name} has no line in expected.txt")
    expected_type, regex = EXPECTED_ROWS[name]
    prefix = re.escape(name)
    assert regex.startswith(prefix)
    regex = re.escape("<string>") + regex[len(prefix):]
    with pytest.raises(Exception) as exc_info:
        phalanx.Model.from_xml_string(_string_form(name))
    _check(exc_info, expected_type, regex)


def test_path_loading_is_independent_of_the_working_directory(monkeypatch, tmp_path):
    # includes and mesh files resolve against the model file, not the working directory
    monkeypatch.chdir(tmp_path)
    for name in ("include_cycle_a.xml", "include_wrong_root.xml", "mesh_obj_bad_face.xml"):
        expected_type, regex = EXPECTED_ROWS[name]
        with pytest.raises(Exception) as exc_info:
            phalanx.Model.from_xml_path(os.path.join(CORPUS, name))
        _check(exc_info, expected_type, regex)


#---------------------------------- other ways to fail ---------------------------------------------

def test_missing_and_odd_paths(tmp_path):
    with pytest.raises(phalanx.MJCFError, match="no_such_model.xml"):
        phalanx.Model.from_xml_path(str(tmp_path / "no_such_model.xml"))
    with pytest.raises(phalanx.MJCFError):
        phalanx.Model.from_xml_path(str(tmp_path))  # a directory
    with pytest.raises(ValueError):
        phalanx.Model.from_xml_path("bad\0path.xml")  # rejected by Python's path conversion
    with pytest.raises(ValueError):
        phalanx.Model.from_xml_string("<mujoco>\0</mujoco>")  # embedded NUL in the text
    with pytest.raises(TypeError):
        phalanx.Model.from_xml_string(b"<mujoco/>")
    with pytest.raises(TypeError):
        phalanx.Model.from_xml_path(None)


def test_messages_stay_short():
    # huge values, names and element names must not make huge messages
    big = "9" * 200000
    cases = [
        f'<mujoco><worldbody><body pos="{big} 1"/></worldbody></mujoco>',
        f'<mujoco><worldbody><body pos="1 2 {"x" * 100000}"/></worldbody></mujoco>',
        f'<mujoco><worldbody><geom name="{"n" * 100000}" size="1"/></worldbody></mujoco>',
        f'<mujoco><worldbody><{"w" * 100000}/></worldbody></mujoco>',
        f'<mujoco><worldbody><geom {"a" * 100000}="1"/></worldbody></mujoco>',
        f'<mujoco><option integrator="{"m" * 100000}"/></mujoco>',
        f'<mujoco><worldbody><geom class="{"c" * 100000}" size="1"/></worldbody></mujoco>',
        f'<mujoco><include file="{"f" * 100000}.xml"/></mujoco>',
        "<mujoco>" + "<worldbody>" * 3 + "</mujoco>",
    ]
    for xml in cases:
        with pytest.raises((phalanx.MJCFError, NotImplementedError)) as exc_info:
            phalanx.Model.from_xml_string(xml)
        assert 0 < len(str(exc_info.value)) <= MAX_MESSAGE
        assert str(exc_info.value).startswith("<string>")


def test_valid_model_after_failures():
    before = _snapshot(phalanx.Model.from_xml_string(VALID))
    for name in CORPUS_FILES:
        try:
            phalanx.Model.from_xml_path(os.path.join(CORPUS, name))
        except (ValueError, NotImplementedError, MemoryError):
            pass
        text = _string_form(name)
        if text is not None:
            try:
                phalanx.Model.from_xml_string(text)
            except (ValueError, NotImplementedError, MemoryError):
                pass
    # one failure right before: state from the failed load (defaults, options, names) is gone
    with pytest.raises(phalanx.MJCFError):
        phalanx.Model.from_xml_string(
            '<mujoco><compiler angle="degree"/><default><geom rgba="1 0 0 1"/></default>'
            '<worldbody><body name="arm"><joint name="hinge"/><geom size="x"/></body>'
            "</worldbody></mujoco>")
    after = _snapshot(phalanx.Model.from_xml_string(VALID))
    _assert_same(before, after)


def test_failure_then_success_alternating():
    # the same valid model, alternating with failures, many times: no state carries over
    ref = _snapshot(phalanx.Model.from_xml_string(VALID))
    bad = [_string_form(n) for n in CORPUS_FILES[:20]]
    for text in bad:
        if text is None:
            continue
        with pytest.raises((ValueError, NotImplementedError, MemoryError)):
            phalanx.Model.from_xml_string(text)
        _assert_same(ref, _snapshot(phalanx.Model.from_xml_string(VALID)))
