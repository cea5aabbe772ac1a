"""python -m fxmem_export.examples"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fxmem_export import examples
from fxmem_export.examples.__main__ import main


def test_list(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    from fxmem_export.examples import step

    assert [line.split()[0] for line in out.splitlines()] == examples.NAMES + step.NAMES
    assert step.NAMES == ["gpt_break", "gpt_adam"]
    assert set(examples.NAMES) == {"mlp", "cnn", "gpt", "multiout", "inplace", "llama", "dynamic", "fsdp"}


def test_export_one(tmp_path, capsys):
    path = tmp_path / "mlp.fxmem.json"
    assert main(["mlp", "-o", str(path), "--with-reference"]) == 0
    doc = json.loads(path.read_text())
    assert doc["producer"]["example"] == "mlp" and "reference" in doc
    assert {s["device"] for s in doc["storages"]} == {"meta"}
    assert "wrote" in capsys.readouterr().out


def test_usage_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["mlp"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["resnet", "-o", str(tmp_path / "x.json")])
    assert e.value.code == 2
    assert main(["mlp", "-o", str(tmp_path / "no" / "x.json")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "fxmem_export.examples", "--list"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "gpt" in proc.stdout
