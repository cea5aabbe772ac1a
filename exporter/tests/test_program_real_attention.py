"""The program level against a real CPU training step, for an attention model (test_program_real
has the others): a ViT whose saved q, k and v are views of one projection's storage, with
flash attention's CPU kernel and its scratch."""

from __future__ import annotations

from fxmem_export.program_peak import pair_peak

import real_run
from program_checks import program_errors
from test_capture_real import _model


def test_vit_program_peak_equals_real_cpu_step():
    real = real_run.real_allocated_peak(*_model("vit", "cpu"))
    doc = real_run.meta_program_doc(*_model("vit", "meta"), target="cpu")
    assert program_errors(doc) == []
    programs = {g["kind"]: g["program"] for g in doc["graphs"] if "program" in g}
    assert pair_peak(programs["forward"], programs["backward"]) == real
    scratch = [b for b in programs["forward"]["buffers"] if b.get("kind") == "scratch"]
    assert scratch, "the flash attention and convolution kernels' own temporaries are measured"
