"""What a PyTorch timing ran on, so a ratio against Go names both sides.

describe() reports the BLAS library the process actually loaded (read from
/proc/self/maps: Debian's python3-torch is built against the generic
libblas.so.3, which is the slow reference BLAS unless OpenBLAS provides the
alternative, and that alone changes its step time about tenfold), the CPU
capability torch dispatches to, its intra-op thread count and the CPU model.
"""
import re

import torch


def loaded_blas():
    """The path of the BLAS shared library mapped into this process, or
    "none found" (call it after torch has run a product)."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if re.search(r"lib(open)?blas[^/]*\.so|libmkl|libblis", path):
                    libs.add(path)
    except OSError:
        return "unknown (no /proc/self/maps)"
    return ", ".join(sorted(libs)) or "none found"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def describe():
    cfg = torch.__config__.show()
    cap = re.search(r"CPU capability usage: (\S+)", cfg)
    return {"torch": torch.__version__, "blas": loaded_blas(), "cpu_capability": cap.group(1) if cap else "unknown",
            "threads": torch.get_num_threads(), "cpu": cpu_model()}
