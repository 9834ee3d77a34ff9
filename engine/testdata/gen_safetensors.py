#!/usr/bin/env python3
"""An independent safetensors writer and reader (struct + json + numpy only),
used once to cross-check engine's Go reader/writer; CI does not run it.

    python3 gen_safetensors.py                 # writes python_written.safetensors
    python3 gen_safetensors.py FILE.safetensors # reads FILE, prints its tensors

The writer follows the reference layout: tensors ordered by dtype alignment
(largest first) then name, the header padded with spaces so the data starts
at a multiple of 8 bytes.
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "I32": np.int32, "I64": np.int64}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


def write(path, tensors, metadata):
    order = sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n))
    header, offset, blobs = {"__metadata__": metadata}, 0, []
    for name in order:
        a = np.asarray(tensors[name])
        raw = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
        header[name] = {"dtype": NAMES[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
        data = f.read()
    meta = header.pop("__metadata__", None)
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        dt = np.dtype(DTYPES[e["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(data[b:end], dtype=dt).reshape(e["shape"])
    return out, meta


if __name__ == "__main__":
    if len(sys.argv) > 1:
        tensors, meta = read(sys.argv[1])
        print("metadata", meta)
        for name, a in tensors.items():
            print(name, a.dtype, a.shape, a.ravel().tolist())
    else:
        write("python_written.safetensors", {
            "w": np.array([[0, 0.5, -1], [1.5, -2, 1e-3]], dtype=np.float32),
            "ids": np.array([-1, 0, 1 << 40], dtype=np.int64),
            "n": np.array(-7, dtype=np.int32),
        }, {"format": "pt", "writer": "gen_safetensors.py"})
