"""Loading the engine library: the bundled copy, OPENREALM_LIBRARY, and
the ce_value layout check that refuses a mismatched library."""

import ctypes
import os
import pathlib
import subprocess
import sys

import pytest

import openrealm
from openrealm import _ffi


def test_value_layout_matches_the_library():
    assert _ffi.lib.ce_value_size() == ctypes.sizeof(_ffi.Value) == 24
    assert _ffi.Value.data.offset == 8
    assert _ffi.Value.type.offset == 0
    assert ctypes.sizeof(_ffi.Timestamp) == 16 and ctypes.sizeof(_ffi.Decimal128) == 16


def test_mismatched_layout_is_refused(monkeypatch):
    monkeypatch.setattr(_ffi, "VALUE_SIZE", 32)
    with pytest.raises(ImportError, match="ce_value of 24 bytes"):
        _ffi._load()


def test_the_bundled_library_is_loaded():
    if os.environ.get("OPENREALM_LIBRARY"):
        assert openrealm.library_path == os.environ["OPENREALM_LIBRARY"]
    else:
        path = pathlib.Path(openrealm.library_path)
        assert path.parent.name == "_lib" and path.parent.parent == pathlib.Path(openrealm.__file__).parent
    assert openrealm.engine_version == openrealm.__version__


def test_openrealm_library_names_the_file(tmp_path):
    bogus = tmp_path / "libcengine.so"
    bogus.write_bytes(b"not a library")
    run = subprocess.run([sys.executable, "-c", "import openrealm"], capture_output=True, text=True,
                         env=dict(os.environ, OPENREALM_LIBRARY=str(bogus)), cwd=tmp_path)
    assert run.returncode != 0 and "cannot load the engine library" in run.stderr
