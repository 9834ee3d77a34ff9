"""A minimal safetensors reader and writer (struct + json + torch), so the
PyTorch twin needs no `safetensors` package. F32 and I32 only: what arew's
checkpoints and fixtures hold.

Layout (see engine/doc.go): 8-byte little-endian header length N, N bytes of
JSON {"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets"}},
then the data buffer, tensors row-major little-endian.
"""
import json
import struct

import torch

_DTYPES = {"F32": torch.float32, "I32": torch.int32}
_NAMES = {v: k for k, v in _DTYPES.items()}


def load(path):
    """Returns ({name: tensor}, metadata dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    data = raw[8 + n:]
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[b:end]), dtype=_DTYPES[e["dtype"]])
        out[name] = t.reshape(e["shape"]).clone()
    return out, meta


def save(path, tensors, metadata=None):
    """Writes {name: tensor} (float32 or int32) in the given order."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        raw = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
