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
from setuptools.modified import newer_group

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


def _is_gcc(compiler):
    """True when the C compiler setuptools drives is gcc (its profile flags are gcc's)."""
    cmd = getattr(compiler, "compiler_so", None) or [os.environ.get("CC", "cc")]
    try:
        out = subprocess.run([cmd[0], "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "Free Software Foundation" in out and "clang" not in out


class BuildExt(build_ext):
    """build_ext with a profile-guided build (gcc): the extension is built with
    -fprofile-generate, the training run `python -m phalanx._pgo` steps the package's own models
    on that build, and the extension is built again with -fprofile-use. Profile feedback changes
    code layout and inlining, not arithmetic (-ffp-contract=off, no fast-math): results are the
    same bit for bit. PX_PGO=0 (or another compiler, or a sanitizer build) builds once."""

    def run(self):
        _check_dependencies()
        super().run()

    def build_extension(self, ext):
        pgo = os.environ.get("PX_PGO", "1") != "0" and not san and _is_gcc(self.compiler)
        target = self.get_ext_fullpath(ext.name)
        stale = self.force or newer_group(ext.sources + ext.depends + _package_files(), target)
        if not pgo or not stale:
            return super().build_extension(ext)
        profile = os.path.abspath(os.path.join(self.build_temp, "pgo-profile"))
        shutil.rmtree(profile, ignore_errors=True)
        cflags, lflags = list(ext.extra_compile_args), list(ext.extra_link_args)
        build_lib, force = self.build_lib, self.force
        try:
            self.force = True
            with tempfile.TemporaryDirectory() as scratch:
                # 1. instrumented, into a scratch copy of the package; the objects go where the
                # final ones will (gcc names each profile file after its object's path)
                ext.extra_compile_args = cflags + [f"-fprofile-generate={profile}",
                                                   "-fprofile-update=prefer-atomic"]
                ext.extra_link_args = lflags + ["-fprofile-generate"]
                self.build_lib = scratch
                super().build_extension(ext)
                _train(scratch)
            # 2. the extension itself, laid out by the profile
            ext.extra_compile_args = cflags + [f"-fprofile-use={profile}",
                                               "-fprofile-partial-training", "-Wno-missing-profile"]
            ext.extra_link_args = lflags
            self.build_lib = build_lib
            super().build_extension(ext)
        finally:
            ext.extra_compile_args, ext.extra_link_args = cflags, lflags
            self.build_lib, self.force = build_lib, force


PACKAGE = os.path.join(HERE, "python", "phalanx")


def _package_files():
    """The training run and the MJCF it steps (other edits of the package keep the build)."""
    return [os.path.join(PACKAGE, "_pgo.py")] + sorted(
        glob.glob(os.path.join(PACKAGE, "assets", "**", "*.xml"), recursive=True))


def _train(scratch):
    """Run the training workload on the instrumented extension in scratch/phalanx."""
    dst = os.path.join(scratch, "phalanx")
    for f in glob.glob(os.path.join(PACKAGE, "*.py")):
        shutil.copy2(f, dst)
    shutil.copytree(os.path.join(PACKAGE, "assets"), os.path.join(dst, "assets"))
    env = dict(os.environ, PYTHONPATH=scratch)
    r = subprocess.run([sys.executable, "-m", "phalanx._pgo"], cwd=scratch, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("phalanx: the profile-guided build's training run failed "
                 "(PX_PGO=0 builds without it):\n" + r.stdout[-2000:] + r.stderr[-4000:])


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
