"""PyTorch's internals as fxmem_export uses them, in one place (issue 38): the torch versions the
package is tested with, and (in submodules, one per PyTorch subsystem) the private symbols it
reads. A torch outside the tested range still imports, with one TorchVersionWarning: the
private APIs fxmem_export reads (AOTAutograd's descriptors, Inductor's partitioner and
estimator) change between releases without notice."""

from __future__ import annotations

import re
import warnings

import torch

# The torch releases the test suite runs against (major, minor); pyproject.toml says the same.
TESTED = ((2, 13),)


class TorchVersionWarning(UserWarning):
    """torch is not a release fxmem_export is tested with."""


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a torch version string ("2.13.0+cpu" -> (2, 13)); None when unreadable."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def check_version(version: str | None = None) -> bool:
    """True when ``version`` (default: the installed torch's) is a tested release; otherwise
    warns once with TorchVersionWarning and returns False."""
    version = torch.__version__ if version is None else version
    if release(version) in TESTED:
        return True
    tested = ", ".join(f"{a}.{b}" for a, b in TESTED)
    warnings.warn(f"fxmem_export is tested with torch {tested}; this is torch {version}: captures may fail or "
                  "differ where PyTorch's private APIs changed", TorchVersionWarning, stacklevel=3)
    return False
