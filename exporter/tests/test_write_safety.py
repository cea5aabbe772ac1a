"""Writes never replace what is not a regular file, write through symbolic links, keep a file's
mode; bad paths and producers fail when given, with the package's own errors."""

from __future__ import annotations

import json
import os
import stat

import pytest
import torch
import torch.nn as nn
from torch.fx.experimental.proxy_tensor import make_fx

import fxmem_export


@pytest.fixture(scope="module")
def forward():
    return make_fx(lambda x: torch.relu(x @ x), tracing_mode="fake")(torch.randn(4, 4))


def test_fifo_is_refused_and_left(tmp_path, forward):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(fxmem_export.ExportWriteError, match=r"it is a FIFO \(named pipe\), not a regular file"):
        fxmem_export.save(fifo, forward)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary left
    with pytest.raises(fxmem_export.ExportWriteError, match="FIFO"):
        fxmem_export.backend(fifo, inner="eager")


def test_symlink_is_written_through(tmp_path, forward):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real/out.json")
    fxmem_export.save(link, forward)
    assert link.is_symlink()
    assert json.loads(target.read_text())["format"] == "fxmem"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["out.json"]
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("real/missing.json")
    with pytest.raises(fxmem_export.ExportWriteError, match="symbolic link to .*which does not exist"):
        fxmem_export.save(dangling, forward)
    assert not (tmp_path / "real" / "missing.json").exists()


def test_existing_mode_is_kept(tmp_path, forward):
    path = tmp_path / "secret.json"
    path.write_text("old")
    path.chmod(0o600)
    fxmem_export.save(path, forward)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["format"] == "fxmem"


@pytest.mark.parametrize("bad", ["", b"out.json"])
def test_bad_backend_path_fails_when_made(bad):
    with pytest.raises(fxmem_export.ExportWriteError, match="empty path|must be a str, not bytes"):
        fxmem_export.backend(bad, inner="eager")


@pytest.mark.parametrize("value, what", [(float("nan"), "the value is nan"), (object(), "not JSON serializable")])
def test_bad_producer_names_the_key(tmp_path, forward, value, what):
    with pytest.raises(fxmem_export.ProducerError, match=rf"producer\['x'\] cannot be written as JSON: .*{what}"):
        fxmem_export.save(tmp_path / "p.json", forward, producer={"x": value})
    assert not (tmp_path / "p.json").exists()
    with pytest.raises(fxmem_export.ProducerError, match=r"producer\['x'\]"):
        fxmem_export.backend(tmp_path / "p.json", inner="eager", producer={"x": value})


@pytest.fixture
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("_reset_dynamo")
def test_forward_write_failure_is_our_error(tmp_path):
    """The forward is compiled inside Dynamo's backend call, which wraps what a backend raises in
    BackendCompilerFailed: the failed write comes out of the compiled call as ExportWriteError."""
    out = tmp_path / "gone"
    out.mkdir()
    be = fxmem_export.backend(out / "m.json", inner="eager")
    out.rmdir()  # the directory disappears between making the backend and the first compile
    model = nn.Linear(4, 2)
    compiled = torch.compile(model, backend=be)
    x = torch.randn(3, 4)
    with pytest.raises(fxmem_export.ExportWriteError, match="does not exist") as info:
        compiled(x)
    assert type(info.value) is fxmem_export.ExportWriteError
    torch.testing.assert_close(compiled(x), model(x))  # raised once; the model runs afterwards


@pytest.mark.usefixtures("_reset_dynamo")
def test_backward_write_failure_is_our_error(tmp_path):
    out = tmp_path / "gone"
    out.mkdir()
    be = fxmem_export.backend(out / "m.json", inner="eager")
    model = nn.Linear(4, 2)
    y = torch.compile(model, backend=be)(torch.randn(3, 4))
    (out / "m.json").unlink()
    out.rmdir()
    with pytest.raises(fxmem_export.ExportWriteError, match="does not exist") as info:
        y.sum().backward()
    assert type(info.value) is fxmem_export.ExportWriteError
