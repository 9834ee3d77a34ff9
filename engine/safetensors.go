package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"unicode/utf8"
)

// The safetensors format (Hugging Face): an 8-byte little-endian header
// length N, N bytes of UTF-8 JSON, then the data buffer. The header maps each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]} with offsets
// relative to the start of the data buffer; an optional "__metadata__" key
// holds a string→string map. Data is little-endian and row-major; the
// tensors' byte ranges tile the whole buffer, without holes or overlaps.
// See the "Checkpoints" section of doc.go.

// NamedTensor is one tensor of a checkpoint. Data is []float32 (dtype F32),
// []int32 (I32) or []int64 (I64), holding exactly the product of Shape
// values (one for the empty shape, a scalar).
type NamedTensor struct {
	Name  string
	Shape []int
	Data  any
}

// DType is the safetensors dtype name of t's data ("F32", "I32", "I64"), or
// "" for an unsupported Go type.
func (t NamedTensor) DType() string {
	switch t.Data.(type) {
	case []float32:
		return "F32"
	case []int32:
		return "I32"
	case []int64:
		return "I64"
	}
	return ""
}

// elemSize is the byte size of a supported dtype, 0 for any other.
func elemSize(dtype string) int {
	switch dtype {
	case "F32", "I32":
		return 4
	case "I64":
		return 8
	}
	return 0
}

func dataLen(data any) int {
	switch d := data.(type) {
	case []float32:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	}
	return -1
}

// metadataKey is the reserved header key of the string→string metadata.
const metadataKey = "__metadata__"

// SaveSafetensors writes tensors and metadata (may be nil) to path in the
// safetensors format, atomically: path holds the old file or the complete
// new one, never a part (see WriteFileAtomic).
func SaveSafetensors(path string, tensors []NamedTensor, metadata map[string]string) error {
	header, err := safetensorsHeader(tensors, metadata)
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		return writeSafetensors(w, header, tensors)
	})
}

// WriteSafetensors writes tensors and metadata in the safetensors format to
// w. Tensors are laid out in the order given, the header lists them in that
// order after "__metadata__" (its keys sorted), and the header is padded
// with spaces so the data starts at a multiple of 8 bytes, as the reference
// writer does.
func WriteSafetensors(w io.Writer, tensors []NamedTensor, metadata map[string]string) error {
	header, err := safetensorsHeader(tensors, metadata)
	if err != nil {
		return err
	}
	return writeSafetensors(w, header, tensors)
}

func writeSafetensors(w io.Writer, header []byte, tensors []NamedTensor) error {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	buf := make([]byte, 0, 64<<10)
	for _, t := range tensors {
		if err := writeTensorData(w, buf, t.Data); err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
	}
	return nil
}

// writeTensorData writes data little-endian, in chunks of buf's capacity.
func writeTensorData(w io.Writer, buf []byte, data any) error {
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	switch d := data.(type) {
	case []float32:
		for _, x := range d {
			if len(buf)+4 > cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	case []int32:
		for _, x := range d {
			if len(buf)+4 > cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
		}
	case []int64:
		for _, x := range d {
			if len(buf)+8 > cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
		}
	}
	return flush()
}

// safetensorsHeader validates tensors and metadata and returns the padded
// JSON header.
func safetensorsHeader(tensors []NamedTensor, metadata map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, fmt.Errorf("metadata %q: not valid UTF-8", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(jsonString(metadataKey) + ":{")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k) + ":" + jsonString(metadata[k]))
		}
		b.WriteByte('}')
		first = false
	}
	seen := make(map[string]bool, len(tensors))
	var offset int64
	for _, t := range tensors {
		size, err := checkTensor(t, seen)
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		shape, _ := json.Marshal(append([]int{}, t.Shape...)) // [] for a scalar, never null
		fmt.Fprintf(&b, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`,
			jsonString(t.Name), t.DType(), shape, offset, offset+size)
		offset += size
	}
	b.WriteByte('}')
	for (8+b.Len())%8 != 0 {
		b.WriteByte(' ')
	}
	return b.Bytes(), nil
}

// checkTensor validates one tensor to be written and returns its byte size.
func checkTensor(t NamedTensor, seen map[string]bool) (int64, error) {
	switch {
	case t.Name == "":
		return 0, fmt.Errorf("tensor with an empty name")
	case t.Name == metadataKey:
		return 0, fmt.Errorf("tensor name %q is reserved", t.Name)
	case !utf8.ValidString(t.Name):
		return 0, fmt.Errorf("tensor name %q is not valid UTF-8", t.Name)
	case seen[t.Name]:
		return 0, fmt.Errorf("duplicate tensor name %q", t.Name)
	case t.DType() == "":
		return 0, fmt.Errorf("tensor %q: unsupported data type %T (want []float32, []int32 or []int64)", t.Name, t.Data)
	}
	seen[t.Name] = true
	numel := 1
	for _, d := range t.Shape {
		if d < 0 {
			return 0, fmt.Errorf("tensor %q: negative dimension in shape %v", t.Name, t.Shape)
		}
		if d != 0 && numel > maxNumel/d {
			return 0, fmt.Errorf("tensor %q: shape %v is too large", t.Name, t.Shape)
		}
		numel *= d
	}
	if n := dataLen(t.Data); n != numel {
		return 0, fmt.Errorf("tensor %q: shape %v needs %d values, data has %d", t.Name, t.Shape, numel, n)
	}
	return int64(numel) * int64(elemSize(t.DType())), nil
}

// jsonString quotes s as a JSON string (without HTML escaping).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}
