# SPDX-License-Identifier: Apache-2.0
"""Build of the phalanx._core CPython extension (C11, expat, LAPACK, Qhull, pthreads, volk)."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))

# libraries the extension links, each with a header to probe and the Debian package to install
REQUIRED = [
    ("expat", "expat.h", "libexpat1-dev"),
    ("lapack", None, "liblapack-dev"),
    ("qhull_r", "libqhull_r/libqhull_r.h", "libqhull-dev"),
]
OPTIONAL_HEADERS = [("vulkan/vulkan.h", "libvulkan-dev"), ("volk.h", "libvulkan-volk-dev")]


def _probe(header, lib):
    """Try to compile and link a one-line program; True when it works."""
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            if header:
                f.write(f"#include <{header}>\n")
            f.write("int main(void) { return 0; }\n")
        cmd = [cc, src, "-o", os.path.join(tmp, "probe")]
        if lib:
            cmd.append(f"-l{lib}")
        return subprocess.run(cmd, capture_output=True).returncode == 0


def _check_dependencies():
    missing = [pkg for lib, header, pkg in REQUIRED if not _probe(header, lib)]
    missing += [pkg for header, pkg in OPTIONAL_HEADERS if not _probe(header, None)]
    if missing:
        sys.exit(
            "phalanx: cannot build the extension: missing system libraries or headers.\n"
            f"On Debian or Ubuntu run:  sudo apt-get install {' '.join(missing)}"
        )


class BuildExt(build_ext):
    def run(self):
        _check_dependencies()
        super().run()


def _sources():
    srcs = sorted(glob.glob(os.path.join("csrc", "**", "*.c"), recursive=True))
    return [s for s in srcs if "/fuzz/" not in s]


dev = os.environ.get("PX_DEV", "0") == "1"
extra_compile = [
    "-std=c11",
    "-fvisibility=hidden",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-O3",
    "-fno-math-errno",
    # CPython's CFLAGS carry -fwrapv; the C code never relies on signed wrap-around (the C tests
    # run under UBSan), and without it gcc can widen int indices and vectorize the kernels' loops
    "-fno-wrapv",
]
if dev:
    extra_compile += [
        "-Wall", "-Wextra", "-Werror", "-Wvla", "-Wshadow", "-Wmissing-prototypes",
        "-Wstrict-prototypes", "-Wimplicit-fallthrough",
    ]
extra_link = []
san = os.environ.get("PX_SANITIZE", "")
if san:
    extra_compile += [f"-fsanitize={san}", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
    extra_link += [f"-fsanitize={san}"]

ext = Extension(
    "phalanx._core",
    sources=_sources(),
    # every header: editing a kernel header rebuilds the extension (setuptools recompiles the
    # sources when a dependency is newer than the extension)
    depends=sorted(glob.glob(os.path.join("csrc", "**", "*.h"), recursive=True)
                   + glob.glob(os.path.join("csrc", "**", "*.inc"), recursive=True)),
    include_dirs=[os.path.join("csrc", "include"), "csrc", numpy.get_include()],
    define_macros=[("_POSIX_C_SOURCE", "200809L"), ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                   ("VK_NO_PROTOTYPES", "1")],
    libraries=["expat", "lapack", "qhull_r", "m", "pthread", "dl"],
    extra_compile_args=extra_compile,
    extra_link_args=extra_link,
)

setup(
    ext_modules=[ext],
    package_dir={"": "python"},
    packages=["phalanx"],
    package_data={"phalanx": ["assets/*.xml", "assets/gymnasium/*.xml", "assets/gymnasium/README.md"]},
    cmdclass={"build_ext": BuildExt},
)
