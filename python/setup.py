"""setup.py — builds the openrealm package with the engine's shared
library inside it (openrealm/_lib/libcengine.so), so that `pip install
./python` gives a package that works with nothing else installed or set.

Where the library comes from, at install time:
  - OPENREALM_LIBRARY=/path/to/libcengine.so: that file is bundled (for
    example the one a CMake build of the repository made already);
  - otherwise, when the package is built from the repository (CMakeLists.txt
    one folder up): CMake builds the target cengine_shared in
    build/python-cengine of the repository (Release, -j2 unless
    CMAKE_BUILD_PARALLEL_LEVEL says otherwise), and it is bundled;
  - otherwise (a source tree without the engine): nothing is bundled, and
    the package looks for a system libcengine at run time (_ffi.py).
The wheel is marked platform-specific, since it holds a native library.

Owns: the build step that bundles the library.
Never: installs anything outside the package.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


def engine_library(log):
    given = os.environ.get("OPENREALM_LIBRARY")
    if given:
        path = pathlib.Path(given).resolve()
        if not path.is_file():
            sys.exit(f"openrealm: OPENREALM_LIBRARY={given} is not a file")
        return path
    if not (ROOT / "CMakeLists.txt").is_file() or not (ROOT / "CEngine" / "include" / "cengine.h").is_file():
        log("openrealm: no engine source beside the package: bundling no library (a system libcengine is used)")
        return None
    build = ROOT / "build" / "python-cengine"
    environment = dict(os.environ)
    environment.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 "-DCENGINE_BUILD_TESTS=OFF", "-DCENGINE_BUILD_BENCHMARKS=OFF", "-DCENGINE_BUILD_FUZZERS=OFF"]
    try:
        subprocess.run(configure, check=True, env=environment, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(build), "--target", "cengine_shared"], check=True, env=environment,
                       stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"openrealm: building the engine library with CMake failed ({error}); install cmake, a C "
                 f"compiler, libssl-dev and libzstd-dev (scripts/install-deps.sh), or set OPENREALM_LIBRARY to a "
                 f"built libcengine.so")
    return build / "libcengine.so"


class BuildWithEngine(build_py):
    def run(self):
        super().run()
        library = engine_library(print)
        if library is not None:
            target = pathlib.Path(self.build_lib) / "openrealm" / "_lib"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(library, target / "libcengine.so")  # the file a symlink names


class NativeDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithEngine}, distclass=NativeDistribution)
