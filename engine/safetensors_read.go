package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"unicode/utf8"
)

const (
	// maxHeaderLen caps the JSON header a reader accepts (the reference
	// implementation uses the same 100 MB), so a hostile length cannot make
	// it allocate more.
	maxHeaderLen = 100 << 20
	// maxNumel caps a tensor's element count (2^40, 4 TB of float32), so
	// that shape products cannot overflow.
	maxNumel = 1 << 40
)

// LoadSafetensors reads a safetensors file of F32, I32 and I64 tensors. It
// returns the tensors in the order of their data in the file and the
// "__metadata__" map (nil when absent). A malformed file — truncated, a
// header longer than the file or than 100 MB, bad JSON or UTF-8, duplicate
// names, negative or oversized dimensions, offsets out of range, overlapping
// or leaving holes, a shape that does not match its byte range, an
// unsupported dtype — gives an error naming the problem; the reader never
// allocates more than the file's size plus its header. The path must name a
// regular file of at most MaxCheckpointBytes (OpenRegular): a FIFO or a
// device is refused at once, never read.
func LoadSafetensors(path string) ([]NamedTensor, map[string]string, error) {
	f, size, err := OpenRegular(path, MaxCheckpointBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer f.Close()
	tensors, meta, err := ReadSafetensors(f, size)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	return tensors, meta, nil
}

// headerEntry is one tensor as the header describes it.
type headerEntry struct {
	name       string
	dtype      string
	shape      []int
	begin, end int64
}

// ReadSafetensors is LoadSafetensors on the size bytes of r.
func ReadSafetensors(r io.ReaderAt, size int64) ([]NamedTensor, map[string]string, error) {
	if size < 8 {
		return nil, nil, fmt.Errorf("safetensors: %d bytes is too short for the 8-byte header length (truncated?)", size)
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, nil, fmt.Errorf("safetensors: read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxHeaderLen {
		return nil, nil, fmt.Errorf("safetensors: header length %d exceeds the %d-byte limit", n, maxHeaderLen)
	}
	if int64(n) > size-8 {
		return nil, nil, fmt.Errorf("safetensors: header length %d is beyond the end of the %d-byte file (truncated?)", n, size)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 8); err != nil {
		return nil, nil, fmt.Errorf("safetensors: read header: %w", err)
	}
	dataStart := 8 + int64(n)
	entries, meta, err := parseHeader(header, size-dataStart)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: %w", err)
	}
	tensors := make([]NamedTensor, len(entries))
	buf := make([]byte, 64<<10)
	for i, e := range entries {
		t := NamedTensor{Name: e.name, Shape: e.shape}
		if t.Data, err = readTensorData(r, dataStart+e.begin, e.end-e.begin, e.dtype, buf); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", e.name, err)
		}
		tensors[i] = t
	}
	return tensors, meta, nil
}

// parseHeader checks the header against a data buffer of dataLen bytes and
// returns its entries sorted by offset.
func parseHeader(header []byte, dataLen int64) ([]headerEntry, map[string]string, error) {
	if !utf8.Valid(header) {
		return nil, nil, errors.New("header is not valid UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, nil, errors.New("header does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the '{'
		return nil, nil, fmt.Errorf("header JSON: %w", err)
	}
	var (
		entries []headerEntry
		meta    map[string]string
		seen    = map[string]bool{}
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("header JSON: %w", err)
		}
		name, _ := tok.(string) // keys of an object are strings
		if name == "" {
			return nil, nil, errors.New("header has a tensor with an empty name")
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("duplicate key %q in header", name)
		}
		seen[name] = true
		if name == metadataKey {
			if err := dec.Decode(&meta); err != nil {
				return nil, nil, fmt.Errorf("%s must map strings to strings: %w", metadataKey, err)
			}
			continue
		}
		e, err := decodeEntry(dec, name, dataLen)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil { // the '}'
		return nil, nil, fmt.Errorf("header JSON: %w", err)
	}
	// Only padding may follow the object.
	if rest := header[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, nil, errors.New("header has trailing bytes after its JSON object")
	}
	if err := checkTiling(entries, dataLen); err != nil {
		return nil, nil, err
	}
	return entries, meta, nil
}

// decodeEntry reads one tensor's description and checks it on its own.
func decodeEntry(dec *json.Decoder, name string, dataLen int64) (headerEntry, error) {
	var raw struct {
		DType       *string        `json:"dtype"`
		Shape       *[]json.Number `json:"shape"`
		DataOffsets *[]json.Number `json:"data_offsets"`
	}
	if err := dec.Decode(&raw); err != nil {
		return headerEntry{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	if raw.DType == nil || raw.Shape == nil || raw.DataOffsets == nil {
		return headerEntry{}, fmt.Errorf("tensor %q: needs dtype, shape and data_offsets", name)
	}
	e := headerEntry{name: name, dtype: *raw.DType}
	size := elemSize(e.dtype)
	if size == 0 {
		return e, fmt.Errorf("tensor %q: unsupported dtype %q (F32, I32 and I64 are read)", name, e.dtype)
	}
	numel := int64(1)
	e.shape = make([]int, len(*raw.Shape))
	for i, s := range *raw.Shape {
		d, err := s.Int64()
		if err != nil || d < 0 || d > maxNumel {
			return e, fmt.Errorf("tensor %q: bad dimension %s in shape", name, s)
		}
		if d != 0 && numel > maxNumel/d {
			return e, fmt.Errorf("tensor %q: shape %v has more than %d elements", name, *raw.Shape, int64(maxNumel))
		}
		numel *= d
		e.shape[i] = int(d)
	}
	if len(*raw.DataOffsets) != 2 {
		return e, fmt.Errorf("tensor %q: data_offsets must be [begin, end]", name)
	}
	var off [2]int64
	for i, s := range *raw.DataOffsets {
		v, err := s.Int64()
		if err != nil || v < 0 || v > dataLen {
			return e, fmt.Errorf("tensor %q: data_offsets %v outside the %d bytes of data (truncated?)", name, *raw.DataOffsets, dataLen)
		}
		off[i] = v
	}
	e.begin, e.end = off[0], off[1]
	if e.end < e.begin {
		return e, fmt.Errorf("tensor %q: data_offsets %v end before they begin", name, *raw.DataOffsets)
	}
	if want := numel * int64(size); e.end-e.begin != want {
		return e, fmt.Errorf("tensor %q: %s shape %v needs %d bytes, data_offsets give %d", name, e.dtype, e.shape, want, e.end-e.begin)
	}
	return e, nil
}

// checkTiling sorts entries by offset and checks that their byte ranges
// cover [0, dataLen) exactly once.
func checkTiling(entries []headerEntry, dataLen int64) error {
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].begin != entries[j].begin {
			return entries[i].begin < entries[j].begin
		}
		return entries[i].end < entries[j].end
	})
	var at int64
	for _, e := range entries {
		switch {
		case e.begin < at:
			return fmt.Errorf("tensor %q: bytes [%d, %d) overlap the previous tensor", e.name, e.begin, e.end)
		case e.begin > at:
			return fmt.Errorf("tensor %q: bytes [%d, %d) leave a hole after byte %d", e.name, e.begin, e.end, at)
		}
		at = e.end
	}
	if at != dataLen {
		return fmt.Errorf("tensors cover %d bytes but the file holds %d bytes of data", at, dataLen)
	}
	return nil
}

// readTensorData reads n bytes at off and decodes them as dtype.
func readTensorData(r io.ReaderAt, off, n int64, dtype string, buf []byte) (any, error) {
	size := int64(elemSize(dtype))
	var (
		f32 []float32
		i32 []int32
		i64 []int64
	)
	switch dtype {
	case "F32":
		f32 = make([]float32, 0, n/size)
	case "I32":
		i32 = make([]int32, 0, n/size)
	case "I64":
		i64 = make([]int64, 0, n/size)
	}
	chunk := int64(len(buf)) / 8 * 8
	for done := int64(0); done < n; {
		b := buf[:min(chunk, n-done)]
		if _, err := r.ReadAt(b, off+done); err != nil {
			return nil, fmt.Errorf("read data: %w", err)
		}
		done += int64(len(b))
		for k := 0; k < len(b); k += int(size) {
			switch dtype {
			case "F32":
				f32 = append(f32, math.Float32frombits(binary.LittleEndian.Uint32(b[k:])))
			case "I32":
				i32 = append(i32, int32(binary.LittleEndian.Uint32(b[k:])))
			case "I64":
				i64 = append(i64, int64(binary.LittleEndian.Uint64(b[k:])))
			}
		}
	}
	switch dtype {
	case "F32":
		return f32, nil
	case "I32":
		return i32, nil
	}
	return i64, nil
}
